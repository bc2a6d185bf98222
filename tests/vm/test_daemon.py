# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriov-persistd on a real kernel: it starts at boot after the apply units and is
ready; a VF MAC changed with ip(8), a hand-written sriov_numvfs and a VF rebound
to another driver are each signalled (DriftDetected) and repaired; a layout
dropped into /etc is applied without any command, and removing it undoes it.

The time from each change to its DriftDetected signal is reported as a step
(the signal's own timestamp from busctl monitor against the guest's clock just
before the change); it is measured, never asserted.
"""

import json

from test_scenarios import (assert_layout, igb_pfs, install, product, vf_driver,  # noqa: F401
                            vf_pci, vfinfo, wait_for_boot_gate)

MONITOR = "/run/sriov-monitor.json"

EXTRA = """[Match]
Driver=igb

[VirtualFunction 2]
VLANId=300
"""


def install_daemon(vm, product):
    install(vm, product, consumer=False)
    vm.check("systemctl enable sriov-persistd.service && systemctl reload dbus")


def start_monitor(vm):
    """Every signal of the daemon, one JSON object per line, with its timestamp."""
    vm.check(f"rm -f {MONITOR}; (setsid busctl --system monitor --json=short "
             f"org.sriovpersist1 >{MONITOR} 2>&1 &); sleep 0.5")


def signals(vm, member):
    out = vm.check(f"cat {MONITOR}")
    found = []
    for line in out.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("type") == "signal" and msg.get("member") == member:
            found.append(msg)
    return found


def wait_signal(vm, member, pci, after=0, timeout=60):
    """The first member(pci, ...) signal after the count given; returns it."""
    vm.wait_until(f"test $(grep -c '\"member\":\"{member}\".*\"{pci}\"' {MONITOR}) -gt {after}",
                  timeout)
    return [s for s in signals(vm, member) if s["payload"]["data"][0] == pci][after]


def drift_then_repair(vm, steps, pci, what, change):
    """Makes change in the guest, waits for DriftDetected and Applied(pci, 0)."""
    drifts = len([s for s in signals(vm, "DriftDetected") if s["payload"]["data"][0] == pci])
    applied = len([s for s in signals(vm, "Applied") if s["payload"]["data"][0] == pci])
    # the clock read and the change in one command: no serial round trip between
    t0 = int(vm.check(f"date +%s%6N; {change}").split()[0])
    drift = wait_signal(vm, "DriftDetected", pci, drifts)
    steps.add(f"{what}: change to DriftDetected", (drift["timestamp-realtime"] - t0) / 1e6)
    done = wait_signal(vm, "Applied", pci, applied)
    assert done["payload"]["data"] == [pci, 0], done
    steps.add(f"{what}: change to repaired", (done["timestamp-realtime"] - t0) / 1e6)
    return drift["payload"]["data"][1]


def unit_usec(vm, unit, prop):
    """A unit's timestamp property, CLOCK_REALTIME µs."""
    path = "/org/freedesktop/systemd1/unit/" + escape(unit)
    out = vm.check(f"busctl --system --json=short get-property org.freedesktop.systemd1 {path} "
                   f"org.freedesktop.systemd1.Unit {prop}")
    return json.loads(out)["data"]


def prop(vm, path, iface, name):
    out = vm.check(f"busctl --system --json=short get-property org.sriovpersist1 {path} "
                   f"{iface} {name}")
    return json.loads(out)["data"]


def test_daemon_boot_drift_and_layouts(vm, product, steps):
    install_daemon(vm, product)
    (pci, ifname), = igb_pfs(vm).items()
    with steps("daemon: reboot into the layout"):
        vm.reboot()
        wait_for_boot_gate(vm)
        vm.wait_until("systemctl is-active -q sriov-persistd.service", 60)
    # ready after the apply units: the PF's record (written by its apply unit at the
    # end of its work) is older than the daemon's READY=1, and the daemon found
    # nothing left to do
    ready = unit_usec(vm, "sriov-persistd.service", "ActiveEnterTimestamp")
    gate = unit_usec(vm, "sriov-persist-wait.service", "ActiveEnterTimestamp")
    rec = json.loads(vm.check(f"cat /run/sriov-persist/pf/{pci}.json"))
    assert rec["state"] == "applied" and 0 < rec["finished_usec"] <= gate <= ready, \
        (rec, gate, ready)
    assert "applied" in vm.check("journalctl -b -o cat -u 'sriov-persist-apply@*'")
    assert "applied after" not in vm.check("journalctl -b -o cat -u sriov-persistd.service")
    assert vm.check("systemctl show -p Type --value sriov-persistd.service").strip() == "notify"
    ifname = igb_pfs(vm)[pci]
    assert_layout(vm, pci, ifname)
    mgr = ("/org/sriovpersist1", "org.sriovpersist1.Manager")
    assert prop(vm, *mgr, "State") == "idle"
    assert prop(vm, *mgr, "Drifted") is False
    status = json.loads(vm.check("sriovctl status --json"))
    assert status["daemon"]["state"] == "idle", status["daemon"]
    assert [p["state"] for p in status["pfs"] if p["pci"] == pci] == ["applied"]

    start_monitor(vm)
    what = drift_then_repair(vm, steps, pci, "VF MAC by ip link",
                             f"ip link set dev {ifname} vf 0 mac 02:00:00:00:09:09")
    assert any(w.startswith("VF 0: ") and "02:00:00:00:01:00" in w for w in what), what
    assert vfinfo(vm, ifname)[0]["address"] == "02:00:00:00:01:00"

    what = drift_then_repair(vm, steps, pci, "hand-written sriov_numvfs",
                             f"echo 0 > /sys/bus/pci/devices/{pci}/sriov_numvfs")
    assert any("VFs" in w for w in what), what
    vm.wait_until(f"test $(cat /sys/bus/pci/devices/{pci}/sriov_numvfs) = 3", 30)
    assert_layout(vm, pci, igb_pfs(vm)[pci])

    vf1 = vf_pci(vm, pci, 1)
    what = drift_then_repair(
        vm, steps, pci, "VF rebound to igbvf",
        f"echo {vf1} > /sys/bus/pci/drivers/vfio-pci/unbind && "
        f"echo igbvf > /sys/bus/pci/devices/{vf1}/driver_override && "
        f"echo {vf1} > /sys/bus/pci/drivers_probe")
    assert any(w.startswith("VF 1: ") for w in what), what
    assert vf_driver(vm, vf1) == "vfio-pci"
    assert_layout(vm, pci, igb_pfs(vm)[pci])

    ifname = igb_pfs(vm)[pci]
    applied = len([s for s in signals(vm, "Applied") if s["payload"]["data"][0] == pci])
    with steps("daemon: a layout dropped into /etc until applied"):
        with open(f"{vm.share}/60-extra.conf", "w") as f:
            f.write(EXTRA)
        vm.check("install -m 0644 /mnt/share/60-extra.conf /etc/sriov-persist/conf.d/")
        wait_signal(vm, "Applied", pci, applied)
        vm.wait_until(f"ip -j -d link show dev {ifname} | grep -q '\"vlan\":300'", 30)
    assert vfinfo(vm, ifname)[2]["vlan_list"][0]["vlan"] == 300
    assert prop(vm, f"/org/sriovpersist1/pf/{escape(pci)}",
                "org.sriovpersist1.PhysicalFunction", "ConfigFiles") == [
        "/etc/sriov-persist/conf.d/50-igb.conf", "/etc/sriov-persist/conf.d/60-extra.conf"]
    with steps("daemon: the layout removed until undone"):
        vm.check("rm /etc/sriov-persist/conf.d/60-extra.conf")
        vm.wait_until(f"ip -j -d link show dev {ifname} | grep -q '\"vlan\":200'", 30)
    assert_layout(vm, pci, igb_pfs(vm)[pci])
    assert prop(vm, *mgr, "Drifted") is False
    assert prop(vm, *mgr, "State") == "idle"
    log = vm.check("journalctl -b -o cat -u sriov-persistd.service")
    assert "drifted from its layout" in log, log


def escape(pci):
    """sd_bus_path_encode(): every byte but [A-Za-z0-9] as _xx, a leading digit too
    (systemd's unit object paths use the same rule)."""
    out = []
    for i, c in enumerate(pci):
        if c.isalnum() and c.isascii() and not (i == 0 and c.isdigit()):
            out.append(c)
        else:
            out.append("_%02x" % ord(c))
    return "".join(out)
