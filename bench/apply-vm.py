#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriovctl apply against what users do instead, on a real kernel (the VM of tests/vm: the
emulated igb, 7 VFs, each with a MAC address, VLAN, QoS, trust and spoof check).

Three ways, alternating round by round in one boot, each timed in the guest from the start of
its command until every attribute reads back right through `ip -d link show` (polled every
10 ms):
  sriovctl   `sriovctl apply PF` with a layout in /etc/sriov-persist/conf.d;
  shell      `echo 7 > sriov_numvfs` and one `ip link set PF vf i mac ... vlan ... qos ...
             trust on spoofchk off` per VF, as rc.local scripts do;
  .link      a systemd .link file with SR-IOVVirtualFunctions=7 and one [SR-IOV] section per
             VF, applied by `udevadm trigger --action=add --settle` on the PF.
Each way runs alone: the others' files are out of the way and the daemon is not running. Two
tasks: creating the 7 VFs from none, and changing the VLAN of the 7 existing VFs. After each
creation the VFs' own network interfaces are looked at: does each carry the MAC address that
was configured (a VF driver that probed before the MAC was set keeps a random one)?
Prints medians and ranges, then JSON. Needs root, QEMU and the VM image (make check-vm builds it).
"""

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "vm"))

import vm as vmlib  # noqa: E402
from benchlib import IGB_QOS, IGB_VFS, arrange, igb_mac, summary, vf_macs_right  # noqa: E402
from test_scenarios import build_product, igb_pfs, install  # noqa: E402

def shell_loop(pci, ifname, vlan, create):
    cmds = [f"echo {IGB_VFS} > /sys/bus/pci/devices/{pci}/sriov_numvfs"] if create else []
    cmds += [f"ip link set dev {ifname} vf {i} mac {igb_mac(i)} vlan {vlan} qos {IGB_QOS} "
             f"trust on spoofchk off" for i in range(IGB_VFS)]
    return " && ".join(cmds)


def readback_check(ifname, vlan):
    """A shell condition: every VF reads back as configured."""
    conds = [f'echo "$o" | grep -q "vf {i} .*link/ether {igb_mac(i)} .*vlan {vlan}, '
             f'qos {IGB_QOS}, spoof checking off.*trust on"' for i in range(IGB_VFS)]
    return f'o=$(ip -d link show dev {ifname}); ' + " && ".join(conds)


def timed(vm, cmd, ifname, vlan):
    """Seconds from the start of cmd until the VFs read back right (cmd's own failure aborts)."""
    script = (f"t0=$(date +%s%N); ({cmd}) >/tmp/way.out 2>&1 || {{ cat /tmp/way.out; exit 1; }}; "
              f"until {readback_check(ifname, vlan)}; do sleep 0.01; done; "
              "t1=$(date +%s%N); echo $(( (t1 - t0) / 1000 ))")
    return int(vm.check(script, timeout=300).strip().splitlines()[-1]) / 1e6


def run_way(vm, way, pci, ifname, vlan, create):
    if way == "sriovctl":
        cmd = f"sriovctl --no-color apply {pci}"
    elif way == "shell":
        cmd = shell_loop(pci, ifname, vlan, create)
    else:
        cmd = f"udevadm trigger --action=add --settle /sys/class/net/{ifname}"
    return timed(vm, cmd, ifname, vlan)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    ways = ("sriovctl", "shell", ".link")
    create = {w: [] for w in ways}
    change = {w: [] for w in ways}
    macs = {w: [] for w in ways}
    with tempfile.TemporaryDirectory(prefix="bench-apply-") as tmp:
        product = build_product(Path(tmp))
        with vmlib.VM(os.path.join(tmp, "vm"), vmlib.load_image(), name="bench") as vm:
            vm.boot()
            install(vm, product, consumer=False)
            vm.check("rm -f /etc/sriov-persist/conf.d/*.conf && systemctl daemon-reload")
            (pci, ifname), = igb_pfs(vm).items()
            vm.check(f"ip link set dev {ifname} up && modprobe igbvf")
            for r in range(args.rounds):
                for w in ways[r % 3:] + ways[:r % 3]:
                    vm.check(f"echo 0 > /sys/bus/pci/devices/{pci}/sriov_numvfs && "
                             "udevadm settle -t 30")
                    arrange(vm, w, pci, 100)
                    create[w].append(run_way(vm, w, pci, ifname, 100, True))
                    macs[w].append(vf_macs_right(vm, pci))
                    arrange(vm, w, pci, 200 + r)
                    change[w].append(run_way(vm, w, pci, ifname, 200 + r, False))
            vm.check("rm -f /etc/sriov-persist/conf.d/*.conf /etc/systemd/network/10-bench.link")
    res = {w: {"create": summary(create[w]), "vlan_change": summary(change[w]),
               "vf_macs_right": f"{min(macs[w])}-{max(macs[w])}/{IGB_VFS}"} for w in ways}
    print(f"{'':<34}{'sriovctl apply':>18}{'shell loop':>18}{'.link + trigger':>18}")
    for key, label in (("create", f"0 -> {IGB_VFS} VFs, median (range) s"),
                       ("vlan_change", f"VLAN of {IGB_VFS} VFs, median (range) s")):
        cells = [f"{res[w][key]['median']:.2f} ({res[w][key]['min']:.2f}-{res[w][key]['max']:.2f})"
                 for w in ways]
        print(f"{label:<34}" + "".join(f"{c:>18}" for c in cells))
    print(f"{'VF interfaces with the MAC':<34}" + "".join(f"{res[w]['vf_macs_right']:>18}"
                                                        for w in ways))
    print(json.dumps(res))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
