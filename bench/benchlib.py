# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the benchmarks share: a program built as of an earlier revision, a summary of timings,
a process's memory as /proc/PID/smaps_rollup gives it, and the 7-VF igb layout of the VM
comparisons: written as a layout and as a systemd .link file, put in place, and its MACs counted."""

import os
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_program(rev, d, program):
    """Builds `program` (sriovctl, sriov-persistd, ...) as of rev in a worktree under d; returns
    the binary's path."""
    src = d / "src"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(src), rev],
                   check=True)
    try:
        subprocess.run(["make", "-s", "-C", str(src), f"BUILDDIR={d}/build",
                        f"{d}/build/{program}"], check=True, stdout=subprocess.DEVNULL)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(src)],
                       check=True)
    return d / "build" / program


def summary(values, digits=3):
    """Median, range and count of timings, rounded to digits."""
    return {"median": round(statistics.median(values), digits),
            "min": round(min(values), digits), "max": round(max(values), digits),
            "n": len(values)}


def smaps_memory(text):
    """RSS, PSS, private memory (Private_Clean + Private_Dirty) and its dirty part in KiB, from
    the text of /proc/PID/smaps_rollup. Private clean pages are file pages (code, read-only
    data) only this process has mapped: the kernel drops them first under pressure and reads
    them back on use; dirty ones (heap, stacks, relocated data) stay until freed."""
    f = {}
    for line in text.splitlines()[1:]:
        k, _, v = line.partition(":")
        f[k] = int(v.split()[0])
    return {"rss": f["Rss"], "pss": f["Pss"], "private": f["Private_Clean"] + f["Private_Dirty"],
            "private_dirty": f["Private_Dirty"]}


# The comparison on the VM's igb: 7 VFs, each with a MAC address, VLAN, QoS 2, trust on and spoof
# check off.
IGB_VFS = 7
IGB_QOS = 2


def igb_mac(i):
    return f"02:00:00:00:10:{i:02x}"


def igb_layout(pci, vlan, link_up=True):
    """The layout of sriovctl."""
    vfs = "".join(f"\n[VirtualFunction {i}]\nMACAddress={igb_mac(i)}\n" for i in range(IGB_VFS))
    up = "LinkUp=yes\n" if link_up else ""
    return (f"[Match]\nPCIAddress={pci}\n\n[PhysicalFunction]\nVirtualFunctions={IGB_VFS}\n{up}\n"
            f"[VirtualFunction]\nVLANId={vlan}\nQualityOfService={IGB_QOS}\nTrust=yes\n"
            f"MACSpoofCheck=no\n{vfs}")


def igb_link_file(pci, vlan):
    """The same as a systemd .link file ([SR-IOV], systemd 251 and later)."""
    vfs = "".join(f"\n[SR-IOV]\nVirtualFunction={i}\nMACAddress={igb_mac(i)}\nVLANId={vlan}\n"
                  f"QualityOfService={IGB_QOS}\nTrust=yes\nMACSpoofCheck=no\n"
                  for i in range(IGB_VFS))
    # the naming policy of 99-default.link, which this file replaces for the PF
    return (f"[Match]\nPath=pci-{pci}\n\n[Link]\nNamePolicy=keep kernel database onboard slot "
            f"path\nAlternativeNamesPolicy=database onboard slot path\nMACAddressPolicy=persistent\n"
            f"SR-IOVVirtualFunctions={IGB_VFS}\n{vfs}")


def vf_macs_right(vm, pci):
    """How many VFs' own interfaces carry the configured MAC (after their drivers probed)."""
    vm.check("udevadm settle -t 30; sleep 1")
    right = 0
    for i in range(IGB_VFS):
        out = vm.check(f"cat /sys/bus/pci/devices/{pci}/virtfn{i}/net/*/address 2>/dev/null; true")
        right += out.strip() == igb_mac(i)
    return right


def arrange(vm, way, pci, vlan):
    """Only this way's file in place (the layout, the .link file, or neither), udev reloaded."""
    vm.check("rm -f /etc/sriov-persist/conf.d/*.conf /etc/systemd/network/10-bench.link")
    if way == "sriovctl":
        with open(os.path.join(vm.share, "bench.conf"), "w") as f:
            f.write(igb_layout(pci, vlan))
        vm.check("install -m 0644 /mnt/share/bench.conf /etc/sriov-persist/conf.d/50-bench.conf")
    elif way == ".link":
        with open(os.path.join(vm.share, "bench.link"), "w") as f:
            f.write(igb_link_file(pci, vlan))
        vm.check("install -m 0644 /mnt/share/bench.link /etc/systemd/network/10-bench.link")
    vm.check("udevadm control --reload")
