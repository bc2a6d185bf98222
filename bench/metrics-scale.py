#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What one run of sriov-persist-metrics.service costs: `sriovctl metrics --output FILE` on a
simulated host of 16 PFs x 256 VFs.

Builds the host of bench/sim-scale.py (single-port E810-C cards, ice, whose VFs report
counters), applies a layout that gives every VF a ResourceName= and a VLAN (setup, not
measured), gives every VF's counters made-up values, then runs the service's command once
and measures it with wait4(): wall time, user and system CPU and the maximum RSS of the
process. Prints one line, then the result as JSON (also to --json FILE). Measured, never
asserted.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from importlib import import_module  # noqa: E402

sim_scale = import_module("sim-scale")
ROOT = Path(__file__).resolve().parents[1]

LAYOUT = """[Match]
PCIAddress={pci}

[PhysicalFunction]
VirtualFunctions={vfs}

[VirtualFunction]
VLANId={vlan}
ResourceName=e810_{i}
"""
COUNTERS = ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "broadcast", "multicast",
            "rx_dropped", "tx_dropped")


def ctl(sriovctl, d, *args):
    return [sriovctl, "--no-color", "--host", str(d / "host.json"), "--config-dir",
            str(d / "conf.d"), "--main-config", str(d / "main.conf"), *args]


def setup(sriovctl, d, n_pfs, vfs):
    sim_scale.make_host(d, n_pfs, vfs)
    for i, conf in enumerate(sorted((d / "conf.d").iterdir())):
        pci = json.loads((d / "host.json").read_text())["pfs"][i]["pci"]
        conf.write_text(LAYOUT.format(pci=pci, vfs=vfs, vlan=100 + i, i=i))
    p = subprocess.run(ctl(sriovctl, d, "apply"), capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"apply: exit {p.returncode}\n{p.stderr[-2000:]}")
    host = json.loads((d / "host.json").read_text())
    for i, pf in enumerate(host["pfs"]):
        for vf in pf["vfs"]:
            base = (i * 1000 + vf["index"]) * 1_000_003
            vf["stats"] = {k: base + j for j, k in enumerate(COUNTERS)}
    (d / "host.json").write_text(json.dumps(host) + "\n")
    return sum(len(pf["vfs"]) for pf in host["pfs"])


def measure(cmd):
    """One run: wall time, CPU and maximum RSS from wait4()."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode()
    p.stderr.close()
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{err[-2000:]}")
    return {"wall_s": round(wall, 3), "user_s": round(ru.ru_utime, 3),
            "sys_s": round(ru.ru_stime, 3), "max_rss_kib": ru.ru_maxrss}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sriovctl", default=os.environ.get("SRIOVCTL",
                                                         str(ROOT / "build/plain/sriovctl")))
    ap.add_argument("--pfs", type=int, default=16, help="PFs (default 16)")
    ap.add_argument("--vfs", type=int, default=256, help="VFs per PF (default 256)")
    ap.add_argument("--json", metavar="FILE", help="also write the result there")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="sriov-metrics-bench."))
    try:
        d = work / "host"
        n_vfs = setup(args.sriovctl, d, args.pfs, args.vfs)
        out = work / "textfile" / "sriov-persist.prom"
        out.parent.mkdir()
        # no daemon is asked: the bench measures the host's read and the formatting
        env_bus = "unix:path=/nonexistent/sriov-persist-bench-bus"
        os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = env_bus
        r = measure(ctl(args.sriovctl, d, "metrics", "--output", str(out)))
        text = out.read_text()
        r.update(pfs=args.pfs, vfs=n_vfs, output_bytes=len(text.encode()),
                 series=sum(1 for line in text.splitlines() if not line.startswith("#")))
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work)
    print(f"sriovctl metrics --output on {r['pfs']} PFs x {args.vfs} VFs ({r['vfs']} VFs, "
          f"{r['series']} series, {r['output_bytes'] / 1048576:.1f} MiB): wall {r['wall_s']:.3f} s, "
          f"CPU {r['user_s'] + r['sys_s']:.3f} s (user {r['user_s']:.3f} + sys {r['sys_s']:.3f}), "
          f"max RSS {r['max_rss_kib'] / 1024:.1f} MiB")
    doc = json.dumps({"metrics_scale": r}, indent=1)
    print(doc)
    if args.json:
        Path(args.json).write_text(doc + "\n")


if __name__ == "__main__":
    main()
