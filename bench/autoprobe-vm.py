#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""VF creation with driver autoprobe off against the build before it, on a real kernel (the VM of
tests/vm: emulated igb, the layout of tests/vm/test_scenarios.py: 3 VFs, VF 0 and 2 with MACs
and VLANs, VF 1 on vfio-pci).

Builds this tree and sriovctl of --before (a git revision), installs both in one guest and,
alternating in one boot, removes the VFs and times `sriovctl apply` of the PF until every
attribute reads back right (the module loads are done before the first round). For each round
it counts igbvf's probes of each VF (igbvf logs "Intel(R) 82576 Virtual Function" once per probe;
vfio-pci logs nothing) and reads where each VF ends up. Prints medians.
Needs root, QEMU and the VM image (tests/vm/build-image; make check-vm builds it).
"""

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "vm"))

import vm as vmlib  # noqa: E402
from benchlib import build_program  # noqa: E402
from test_scenarios import build_product, igb_pfs, install, vf_driver, vf_pci  # noqa: E402


def one_round(vm, prog, pci, vfs):
    """VFs removed, then one apply; its wall time in the guest and the probes it caused."""
    vm.check(f"echo 0 > /sys/bus/pci/devices/{pci}/sriov_numvfs && udevadm settle -t 30 && "
             "dmesg -C")
    out = vm.check(f"t0=$(date +%s%N); {prog} --no-color apply {pci} >/tmp/apply.out 2>&1; "
                   "rc=$?; t1=$(date +%s%N); echo $rc $(( (t1 - t0) / 1000 )); "
                   "dmesg", timeout=180)
    head, _, log = out.partition("\n")
    rc, usec = (int(x) for x in head.split())
    if rc != 0:
        raise SystemExit(f"{prog} apply failed:\n" + vm.check("cat /tmp/apply.out"))
    probes = {}
    for vf in vfs:
        n = len(re.findall(rf"^\[[^\]]*\] igbvf {re.escape(vf)}: Intel\(R\) .*Virtual Function$",
                           log, re.M))
        probes[vf] = f"{n} igbvf probe{'s' if n != 1 else ''}, on {vf_driver(vm, vf)}"
    return usec / 1e6, probes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="124cef3", help="git revision to compare with")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    times = {"before": [], "after": []}
    sample = {}
    with tempfile.TemporaryDirectory(prefix="bench-autoprobe-") as tmp:
        tmp = Path(tmp)
        product = build_product(tmp)
        old = build_program(args.before, tmp / "before", "sriovctl")
        with vmlib.VM(os.path.join(tmp, "vm"), vmlib.load_image(), name="bench") as vm:
            vm.boot()
            install(vm, product, consumer=False)
            vm.copy_in(str(old), "sriovctl-before")
            vm.check("install -m 0755 /mnt/share/sriovctl-before /usr/local/sbin/")
            (pci, _), = igb_pfs(vm).items()
            # modules loaded and VFs known once, outside the rounds
            vm.check("sriovctl apply", timeout=180)
            vfs = [vf_pci(vm, pci, i) for i in range(3)]
            for i in range(args.rounds):
                for which, prog in (("before", "sriovctl-before"), ("after", "sriovctl")):
                    t, probes = one_round(vm, prog, pci, vfs)
                    times[which].append(t)
                    sample.setdefault(which, probes)
    res = {w: {"median_s": statistics.median(t), "rounds": len(t),
               "vfs": sample[w]}
           for w, t in times.items()}
    res["before"]["revision"] = args.before
    for w in ("before", "after"):
        print(f"{w:6}  0 -> 3 VFs applied: median {res[w]['median_s']:.2f} s "
              f"({res[w]['rounds']} rounds)")
        for vf, p in res[w]["vfs"].items():
            print(f"        {vf}: {p}")
    print(f"after / before: {res['after']['median_s'] / res['before']['median_s']:.2f}")
    print(json.dumps(res))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
