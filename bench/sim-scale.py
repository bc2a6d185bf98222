#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What `sriovctl --host FILE apply` costs as the simulated host grows.

Builds simulated hosts of 1, 2, 4, 8 and 16 PFs (single-port Intel E810-C cards, ice, PCI ID
8086:1592, VF 8086:1889 on iavf, sriov_totalvfs 256: the whole card's VFs on its one port), each
with a layout of --vfs VFs that sets a stable MAC, a VLAN, trust, spoof check and a rate limit on
every VF, then times `plan` and `apply` of the whole host from 0 VFs (CPU time of the process
and its children, and wall time) and checks that a second `plan` finds nothing left to do.
Prints a table, then the results as JSON (also to --json FILE).
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MACHINE_ID = "5b0c3f9a2e7d41c8a6f1e2d3c4b5a697"

LAYOUT = """[Match]
PCIAddress={pci}

[PhysicalFunction]
VirtualFunctions={vfs}

[VirtualFunction]
MACAddress=stable
VLANId={vlan}
Trust=yes
MACSpoofCheck=yes
MaxTxRateMbps=1000
"""


def pf(i, vfs_total):
    """One single-port E810-C card on bus 0x10 + 0x0e * i."""
    bus = 0x10 + 0x0e * i
    pci = f"0000:{bus:02x}:00.0"
    return {
        "pci": pci, "name": f"ens{i + 1}np0", "altnames": [f"enp{bus}s0np0"],
        "vendor": "0x8086", "device": "0x1592", "driver": "ice",
        "vf_device": "0x1889", "vf_driver": "iavf",
        "total_vfs": vfs_total, "num_vfs": 0, "vf_offset": 8, "vf_stride": 1,
        "drivers_autoprobe": True, "mtu": 1500, "up": True,
        "permanent_mac": f"b4:96:91:{i:02x}:3c:{0x40 + i:02x}",
        "eswitch_mode": "legacy", "hw_tc_offload": False, "hw_tc_offload_fixed": False,
        "link_type": "ethernet", "firmware_link_type": "ethernet",
        "numa_node": 0 if i < 8 else 1, "firmware_total_vfs": None, "vfs": [],
    }


def make_host(d, n_pfs, vfs):
    host = {
        "version": 1, "hostname": "gpu-node-17.example.net",
        "kernel_cmdline": "BOOT_IMAGE=/boot/vmlinuz-6.1.0-27-amd64 ro quiet intel_iommu=on iommu=pt",
        "iommu": True, "modules": ["ice"], "machine_id": MACHINE_ID,
        "pfs": [pf(i, 256) for i in range(n_pfs)],
    }
    d.mkdir(parents=True)
    (d / "host.json").write_text(json.dumps(host, indent=1) + "\n")
    conf = d / "conf.d"
    conf.mkdir()
    for i, p in enumerate(host["pfs"]):
        (conf / f"{50 + i:03d}-{p['name']}.conf").write_text(
            LAYOUT.format(pci=p["pci"], vfs=vfs, vlan=100 + i))
    (d / "main.conf").write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    return d / "host.json"


def run(sriovctl, d, verb, ok=(0,)):
    cmd = [sriovctl, "--no-color", "--host", str(d / "host.json"), "--config-dir", str(d / "conf.d"),
           "--main-config", str(d / "main.conf"), verb]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in ok:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu": round(cpu, 3), "wall": round(wall, 3), "rc": p.returncode}


def measure(sriovctl, work, n_pfs, vfs):
    d = work / f"{n_pfs}pf"
    make_host(d, n_pfs, vfs)
    plan = run(sriovctl, d, "plan", ok=(10,))
    apply = run(sriovctl, d, "apply")
    again = run(sriovctl, d, "plan", ok=(0, 10))
    if again["rc"] != 0:
        sys.exit(f"{n_pfs} PFs: plan after apply still has changes")
    state = json.loads((d / "host.json").read_text())
    made = sum(len(p["vfs"]) for p in state["pfs"])
    if made != n_pfs * vfs:
        sys.exit(f"{n_pfs} PFs: {made} VFs on the host, {n_pfs * vfs} expected")
    return {"pfs": n_pfs, "vfs": made, "plan": plan, "apply": apply}


def table(results):
    print(f"{'PFs':>4} {'VFs':>6} {'plan CPU':>9} {'apply CPU':>10} {'apply wall':>11} "
          f"{'CPU per VF':>11}")
    for r in results:
        per_vf = r["apply"]["cpu"] / r["vfs"] * 1e6
        print(f"{r['pfs']:>4} {r['vfs']:>6} {r['plan']['cpu']:>8.3f}s {r['apply']['cpu']:>9.3f}s "
              f"{r['apply']['wall']:>10.3f}s {per_vf:>9.0f}µs")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sriovctl", default=os.environ.get("SRIOVCTL",
                                                         str(ROOT / "build/plain/sriovctl")))
    ap.add_argument("--pfs", default="1,2,4,8,16", help="host sizes (default 1,2,4,8,16)")
    ap.add_argument("--vfs", type=int, default=256, help="VFs per PF (default 256)")
    ap.add_argument("--json", metavar="FILE", help="also write the results there")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="sriov-sim-scale."))
    try:
        results = [measure(args.sriovctl, work, int(n), args.vfs) for n in args.pfs.split(",")]
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work)
    table(results)
    doc = json.dumps({"sim_scale": results}, indent=1)
    print(doc)
    if args.json:
        Path(args.json).write_text(doc + "\n")


if __name__ == "__main__":
    main()
