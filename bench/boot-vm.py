#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""At boot, with 1, 2 and 4 emulated igb NICs (the VM of tests/vm, the layout of its tests on
every igb): does each PF apply in its own unit, in parallel with the others?

For each count of NICs, one guest is installed and booted --rounds times. Of each boot the
journal (monotonic clock) gives, per PF, when its netdev appeared (igb's kernel line naming the
PCI address and the interface) and when its sriov-persist-apply@ unit started and finished, and
when the boot gate (sriov-persist-wait.service) finished. Reported: from the first PF netdev to the
gate, and the slowest single PF (its netdev to its unit finished, and how much of that passed before
the unit started), medians over the boots.

Then, with one NIC, against a systemd .link file: boots alternate between the 7-VF layout of
bench/apply-vm.py and the same as a .link file, and each boot is timed from the PF netdev to
configured: for sriovctl its apply unit finished (every VF probed and read back), for the .link
file udev's last VF attribute, the kernel's "VF 6 is trusted" line (trust is the last attribute
of a VF's request). The VF interfaces carrying the configured MAC are counted after each boot.
The layout brings the PF up (LinkUp=yes), which a .link file cannot do: igbvf takes its MAC from
the PF at probe and, with the PF down, finds it "still in reset state" and makes up a random one,
so without it neither way gets a MAC right.
Needs root, QEMU and the VM image (make check-vm builds it).
"""

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "vm"))

import vm as vmlib  # noqa: E402
from benchlib import IGB_VFS, arrange, summary, vf_macs_right  # noqa: E402
from test_scenarios import build_product, igb_pfs, install, wait_for_boot_gate  # noqa: E402

LINE = re.compile(r"^\[\s*(\d+\.\d+)\] \S+ (.*)$")


def extra_nics(n):
    """QEMU arguments for n - 1 more igb NICs on the spare root ports."""
    args = []
    for i, port in enumerate(vmlib.SPARE_PORTS[:n - 1]):
        args += ["-netdev", f"user,id=nb{i},restrict=on",
                 "-device", f"igb,id=pfb{i},netdev=nb{i},bus={port},mac=52:54:00:5b:{i:02x}:01"]
    return args


def boot_times(vm, pcis):
    """(first PF netdev -> gate finished, slowest PF netdev -> its unit finished, and of that
    PF: netdev -> its unit started) in seconds."""
    out = vm.check("journalctl -b -o short-monotonic --no-pager -q", timeout=120)
    netdev, started, finished, gate = {}, {}, {}, None
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        t, msg = float(m.group(1)), m.group(2)
        for pci in pcis:
            # igb's line once it registered the netdev: "igb 0000:01:00.0 eth0: ..." or the
            # rename udev makes; the first one counts
            if pci not in netdev and re.search(rf"igb {re.escape(pci)}[: ]+eth\d", msg):
                netdev[pci] = t
            if pci not in started and f"Starting sriov-persist-apply@{pci}.service" in msg:
                started[pci] = t
            if pci not in finished and f"Finished sriov-persist-apply@{pci}.service" in msg:
                finished[pci] = t
        if gate is None and "Finished sriov-persist-wait.service" in msg:
            gate = t
    missing = [p for p in pcis if p not in netdev or p not in started or p not in finished]
    if missing or gate is None:
        raise SystemExit(f"the journal lacks lines for {missing or 'the gate'}:\n" +
                         "\n".join(line for line in out.splitlines()
                                   if "igb" in line or "sriov-persist" in line)[-4000:])
    first = min(netdev.values())
    slow = max(pcis, key=lambda p: finished[p] - netdev[p])
    return gate - first, finished[slow] - netdev[slow], started[slow] - netdev[slow]


def link_boot_times(vm, pci, way):
    """Seconds from the PF netdev to configured, in the journal of this boot."""
    out = vm.check("journalctl -b -o short-monotonic --no-pager -q", timeout=120)
    netdev = done = None
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        t, msg = float(m.group(1)), m.group(2)
        if netdev is None and re.search(rf"igb {re.escape(pci)}[: ]+eth\d", msg):
            netdev = t
        if way == "sriovctl" and f"Finished sriov-persist-apply@{pci}.service" in msg:
            done = t
        if way == ".link" and f"igb {pci}: VF {IGB_VFS - 1} is trusted" in msg:
            done = t
    if netdev is None or done is None:
        raise SystemExit(f"{way}: the journal lacks the PF netdev or the end:\n" +
                         "\n".join(line for line in out.splitlines() if "igb" in line)[-4000:])
    return done - netdev


def against_link(tmp, product, rounds):
    """Boots of one guest, alternating sriovctl and a .link file: {way: ([s], [MACs right])}."""
    ways = ("sriovctl", ".link")
    res = {w: ([], []) for w in ways}
    with vmlib.VM(os.path.join(tmp, "vmlink"), vmlib.load_image(), name="bootlink") as vm:
        vm.boot()
        install(vm, product, consumer=False)
        (pci, _), = igb_pfs(vm).items()
        for r in range(rounds):
            for way in ways[r % 2:] + ways[:r % 2]:
                arrange(vm, way, pci, 100)
                vm.reboot()
                wait_for_boot_gate(vm)
                vm.check("udevadm settle -t 60")
                res[way][0].append(link_boot_times(vm, pci, way))
                res[way][1].append(vf_macs_right(vm, pci))
    return res


def measure(tmp, product, n, rounds):
    """Boots of one guest with n NICs: (gate times, slowest PF times)."""
    gate, slowest, to_unit = [], [], []
    with vmlib.VM(os.path.join(tmp, f"vm{n}"), vmlib.load_image(), name=f"boot{n}",
                  extra_qemu_args=extra_nics(n)) as vm:
        vm.boot()
        install(vm, product, consumer=False)
        pcis = sorted(igb_pfs(vm))
        if len(pcis) != n:
            raise SystemExit(f"{len(pcis)} igb PFs in the guest, {n} expected")
        for _ in range(rounds):
            vm.reboot()
            wait_for_boot_gate(vm)
            g, s, u = boot_times(vm, pcis)
            gate.append(g)
            slowest.append(s)
            to_unit.append(u)
    return gate, slowest, to_unit


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nics", default="1,2,4", help="counts of igb NICs (default 1,2,4; \"\": none)")
    ap.add_argument("--rounds", type=int, default=3, help="boots per count (default 3)")
    ap.add_argument("--link-rounds", type=int, default=3,
                    help="boots of each way against the .link file (default 3, 0: none)")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    res = {}
    with tempfile.TemporaryDirectory(prefix="bench-boot-") as tmp:
        product = build_product(Path(tmp))
        print(f"{'NICs':>4}  {'first PF netdev -> boot gate':>30}  {'slowest single PF':>20}"
              f"  {'of which until its unit starts':>31}", flush=True)
        for n in (int(x) for x in args.nics.split(",") if x):
            # QEMU's TCG with the emulated IOMMU now and then aborts or stalls a guest (the VM
            # tests rerun those once too): a new guest, once
            for attempt in (1, 2):
                try:
                    gate, slowest, to_unit = measure(tmp, product, n, args.rounds)
                    break
                except vmlib.VMEmulatorFault:
                    if attempt == 2:
                        raise
                except vmlib.VMBootError as e:
                    if attempt == 2 or "QEMU went away" not in str(e):
                        raise
            res[n] = {"first_netdev_to_gate_s": summary(gate, 2),
                      "slowest_pf_netdev_to_applied_s": summary(slowest, 2),
                      "slowest_pf_netdev_to_unit_start_s": summary(to_unit, 2)}
            g, s = res[n]["first_netdev_to_gate_s"], res[n]["slowest_pf_netdev_to_applied_s"]
            u = res[n]["slowest_pf_netdev_to_unit_start_s"]
            print(f"{n:>4}  {g['median']:>8.2f} s ({g['min']:.2f}-{g['max']:.2f}){'':>9}"
                  f"{s['median']:>8.2f} s ({s['min']:.2f}-{s['max']:.2f})"
                  f"{u['median']:>12.2f} s ({u['min']:.2f}-{u['max']:.2f})", flush=True)
        if args.link_rounds:
            for attempt in (1, 2):
                try:
                    link = against_link(tmp, product, args.link_rounds)
                    break
                except vmlib.VMEmulatorFault:
                    if attempt == 2:
                        raise
            res["against_link"] = {w: {"netdev_to_configured_s": summary(t, 2),
                                       "vf_macs_right": f"{min(m)}-{max(m)}/{IGB_VFS}"}
                                   for w, (t, m) in link.items()}
            print(f"\n1 NIC, {IGB_VFS} VFs at boot: PF netdev -> configured, median (range) of "
                  f"{args.link_rounds} boots each")
            for w, v in res["against_link"].items():
                t = v["netdev_to_configured_s"]
                print(f"  {w:<9} {t['median']:.2f} s ({t['min']:.2f}-{t['max']:.2f}), VF "
                      f"interfaces with the configured MAC {v['vf_macs_right']}", flush=True)
    print(json.dumps(res))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
