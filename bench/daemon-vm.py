#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriov-persistd's footprint on a real kernel (the VM of tests/vm, igb with 3 VFs).

Boots a guest, installs the build with the daemon enabled, reboots into the layout, then
measures in the guest
  - idle RSS: VmRSS of the daemon after boot;
  - memory: RSS, PSS and private (Private_Clean + Private_Dirty, /proc/PID/smaps_rollup) of the
    daemon --idle-seconds after it started, beside systemd-networkd, systemd-udevd,
    systemd-logind and dbus-daemon of the same guest; with --before REV, also of the daemon
    built from REV, started in its place in the same boot;
  - idle wakeups: its voluntary + nonvoluntary context switches over --idle-seconds;
  - drift latency: from just before `ip link set PF vf 0 mac ...` (the guest's clock, in the
    same shell command) to the DriftDetected signal's timestamp in busctl monitor, and on to
    the Applied signal of the repair, over --drifts changes.
Needs root, QEMU and the VM image (tests/vm/build-image; make check-vm builds it).
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "vm"))

import vm as vmlib  # noqa: E402
from benchlib import build_program, smaps_memory  # noqa: E402
from test_daemon import drift_then_repair, install_daemon, start_monitor  # noqa: E402
from test_scenarios import build_product, igb_pfs, wait_for_boot_gate  # noqa: E402


class Collect:
    def __init__(self):
        self.values = {}

    def add(self, name, seconds):
        self.values.setdefault(name.split(": ", 1)[1], []).append(seconds)


def daemon_status(vm):
    pid = vm.check("systemctl show -p MainPID --value sriov-persistd.service").strip()
    out = vm.check(f"cat /proc/{pid}/status")
    fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    return (int(fields["VmRSS"].split()[0]),
            int(fields["voluntary_ctxt_switches"]) + int(fields["nonvoluntary_ctxt_switches"]))


PEERS = {"systemd-networkd": "systemd-networkd.service", "systemd-udevd": "systemd-udevd.service",
         "systemd-logind": "systemd-logind.service", "dbus-daemon": "dbus.service"}


def memory(vm, pid):
    """RSS, PSS and private memory of pid in KiB."""
    return smaps_memory(vm.check(f"cat /proc/{pid}/smaps_rollup"))


def daemon_memory(vm, settle):
    """The daemon's memory settle seconds after it (re)started, with the layout applied."""
    vm.check("systemctl restart sriov-persistd.service")
    vm.wait_until("systemctl is-active -q sriov-persistd.service", 60)
    vm.check(f"sleep {settle}", timeout=settle + 30)
    pid = vm.check("systemctl show -p MainPID --value sriov-persistd.service").strip()
    return memory(vm, pid)


def peers_memory(vm):
    out = {}
    for name, unit in PEERS.items():
        pid = vm.check(f"systemctl show -p MainPID --value {unit}").strip()
        if pid and pid != "0":
            out[name] = memory(vm, pid)
    return out


def mib(kib):
    return f"{kib / 1024:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--idle-seconds", type=int, default=60)
    ap.add_argument("--drifts", type=int, default=20)
    ap.add_argument("--before", help="also measure the memory of sriov-persistd of this git "
                    "revision")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-vm-") as tmp:
        product = build_product(Path(tmp))
        old = build_program(args.before, Path(tmp) / "before", "sriov-persistd") \
            if args.before else None
        with vmlib.VM(os.path.join(tmp, "vm"), vmlib.load_image(), name="bench") as vm:
            vm.boot()
            install_daemon(vm, product)
            vm.reboot()
            wait_for_boot_gate(vm)
            vm.wait_until("systemctl is-active -q sriov-persistd.service", 60)
            (pci, ifname), = igb_pfs(vm).items()
            rss_kib, before = daemon_status(vm)
            vm.check(f"sleep {args.idle_seconds}", timeout=args.idle_seconds + 30)
            _, after = daemon_status(vm)
            start_monitor(vm)
            c = Collect()
            for i in range(args.drifts):
                drift_then_repair(vm, c, pci, "drift",
                                  f"ip link set dev {ifname} vf 0 mac 02:00:00:00:0a:{i:02x}")
            mem = {"sriov-persistd": daemon_memory(vm, args.idle_seconds)}
            if old:
                guest = vm.copy_in(str(old), "sriov-persistd-before")
                vm.check("cp /usr/sbin/sriov-persistd /root/sriov-persistd-now && "
                         f"install -m 0755 {guest} /usr/sbin/sriov-persistd")
                mem[f"sriov-persistd ({args.before})"] = daemon_memory(vm, args.idle_seconds)
                vm.check("install -m 0755 /root/sriov-persistd-now /usr/sbin/sriov-persistd")
            mem.update(peers_memory(vm))
    lat = c.values["change to DriftDetected"]
    rep = c.values["change to repaired"]
    res = {
        "idle_rss_kib": rss_kib,
        "idle_seconds": args.idle_seconds,
        "idle_context_switches": after - before,
        "drifts": args.drifts,
        "drift_to_signal_ms": {"median": statistics.median(lat) * 1e3,
                               "p95": sorted(lat)[int(0.95 * (len(lat) - 1))] * 1e3},
        "drift_to_repaired_ms": {"median": statistics.median(rep) * 1e3,
                                 "p95": sorted(rep)[int(0.95 * (len(rep) - 1))] * 1e3},
        "memory_kib": mem,
    }
    print(f"idle RSS                      {rss_kib / 1024:.1f} MiB")
    print(f"context switches, {args.idle_seconds} s idle   {after - before}")
    print(f"change -> DriftDetected       median {res['drift_to_signal_ms']['median']:.0f} ms, "
          f"p95 {res['drift_to_signal_ms']['p95']:.0f} ms ({args.drifts} changes)")
    print(f"change -> repaired (Applied)  median {res['drift_to_repaired_ms']['median']:.0f} ms, "
          f"p95 {res['drift_to_repaired_ms']['p95']:.0f} ms")
    print(f"\nmemory, MiB ({args.idle_seconds} s after start)   RSS    PSS   private  of it dirty")
    for name, m in mem.items():
        print(f"{name:<38} {mib(m['rss']):>5}  {mib(m['pss']):>5}  {mib(m['private']):>6}"
              f"  {mib(m['private_dirty']):>11}")
    print(json.dumps(res))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
