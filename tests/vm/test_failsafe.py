# SPDX-License-Identifier: LGPL-2.1-or-later
"""One applier per PF, and no layout file that goes away for a moment destroys running VFs,
on a real kernel with real udev and systemd.

- A driver reload (modprobe -r igbvf igb; modprobe igb) and a PF unbind/bind, with and without
  sriov-persistd running: the PF keeps its persistent name (udev's rename is never raced), its
  apply unit applies it once, the daemon never does, and the layout is back.
- The layout moved out of /etc and back while the daemon runs: the VF count, read every 20 ms,
  never leaves 3; the daemon reloads once. Removed for good, the VFs stay until sriovctl reset.
- sriovctl apply killed (SIGKILL) at a random point of a VF creation five times in a row: no
  lock left held, what was created on record, the layout back after a reboot.
- sriov-persistd killed mid-repair at random points, and once between taking VF 0 off igbvf
  and binding it again: each restart puts the layout back, VF 0 on igbvf with its MAC, and so
  does a reboot.
"""

import json
import random
import re
import time

import pytest
from test_daemon import install_daemon  # noqa: F401
from test_scenarios import (assert_layout, igb_pfs, install, product,  # noqa: F401
                            vf_driver, vf_pci, wait_for_boot_gate)

LAYOUT = "/etc/sriov-persist/conf.d/50-igb.conf"
CHANGES = {
    "driver reload": "modprobe -r igbvf && modprobe -r igb && modprobe igb",
    "unbind and bind": "echo {pci} > /sys/bus/pci/drivers/igb/unbind && "
                       "echo {pci} > /sys/bus/pci/drivers/igb/bind",
}


def boot(vm, product, daemon):
    if daemon:
        install_daemon(vm, product)
    else:
        install(vm, product, consumer=False)
    vm.reboot()
    wait_for_boot_gate(vm)
    if daemon:
        vm.wait_until("systemctl is-active -q sriov-persistd.service", 60)
    else:
        assert vm.run("systemctl is-active -q sriov-persistd.service")[0] != 0
    (pci, ifname), = igb_pfs(vm).items()
    assert not ifname.startswith("eth"), f"no persistent name at boot: {ifname}"
    assert_layout(vm, pci, ifname)
    return pci, ifname


def journal(vm, unit, since):
    """What unit logged since the CLOCK_REALTIME µs given (to the second: nothing of ours
    happens in the second before a change)."""
    return vm.check(f"journalctl -o cat --since=@{since // 1000000} -u '{unit}'; true")


def wait_for(vm, what, predicate, timeout=60):
    """Polls predicate() (which reads the guest) until true; returns the seconds it took."""
    t0 = time.monotonic()
    while not predicate():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.3)
    return time.monotonic() - t0


def record(vm, pci):
    rc, out = vm.run(f"cat /run/sriov-persist/pf/{pci}.json")
    return json.loads(out) if rc == 0 else None


@pytest.mark.parametrize("daemon", [True, False], ids=["daemon", "no-daemon"])
def test_driver_reload_and_rebind_apply_once(vm, product, steps, daemon):
    pci, ifname = boot(vm, product, daemon)
    unit = f"sriov-persist-apply@{pci}.service"
    for what, change in CHANGES.items():
        label = f"{what} ({'with' if daemon else 'without'} the daemon)"
        t0 = int(vm.check(f"date +%s%6N; {change.format(pci=pci)}").split()[0])
        with steps(f"{label}: until applied"):
            wait_for(vm, f"{label}: a record newer than the change",
                     lambda: (record(vm, pci) or {}).get("finished_usec", 0) > t0)
            vm.check("udevadm settle -t 30")
        # the persistent name, and udev done with it
        assert igb_pfs(vm) == {pci: ifname}, (label, igb_pfs(vm))
        props = vm.check(f"udevadm info -q property /sys/class/net/{ifname}")
        assert "ID_RENAMING" not in props, (label, props)
        assert vm.run(f"systemctl is-active -q sys-subsystem-net-devices-{ifname}.device")[0] \
            == 0, label
        rec = json.loads(vm.check(f"cat /run/sriov-persist/pf/{pci}.json"))
        assert rec["state"] == "applied", (label, rec)
        assert_layout(vm, pci, ifname)
        # one applier: the unit udev started (once with changes); never the daemon
        log = journal(vm, unit, t0)
        runs = [line for line in log.splitlines() if line.startswith(f"{pci} ({ifname}): applied")]
        assert len([r for r in runs if "nothing to change" not in r]) == 1, (label, log)
        if daemon:
            log = journal(vm, "sriov-persistd.service", t0)
            assert "applied after" not in log and "failed after" not in log, (label, log)
            vm.wait_until("test \"$(busctl --system get-property org.sriovpersist1 "
                          "/org/sriovpersist1 org.sriovpersist1.Manager State)\" = 's \"idle\"'",
                          30)


def test_layout_moved_out_and_back_keeps_the_vfs(vm, product, steps):
    pci, ifname = boot(vm, product, daemon=True)
    numvfs = f"/sys/bus/pci/devices/{pci}/sriov_numvfs"
    # read every 20 ms inside the guest, while the file is out for 200 ms and back; the reads go
    # on until the daemon has reloaded, 3 s more have passed and there are more than 50 (an
    # emulated guest on a busy host reads more slowly)
    t0 = int(vm.check("date +%s%6N").split()[0])
    vm.check(f"(setsid sh -c 'while :; do cat {numvfs}; sleep 0.02; done' >/run/numvfs.log &) && "
             f"sleep 0.5 && mv {LAYOUT} /root/ && sleep 0.2 && mv /root/50-igb.conf {LAYOUT} && "
             "sleep 3")
    wait_for(vm, "the reload and more than 50 reads",
             lambda: "Reloading the configuration" in journal(vm, "sriov-persistd.service", t0)
             and len(vm.check("cat /run/numvfs.log").split()) > 50, 120)
    vm.check("sleep 1; pkill -f 'cat /sys/bus/pci' ; pkill -f 'while :; do cat'; true")
    counts = vm.check("cat /run/numvfs.log").split()
    assert len(counts) > 50, f"only {len(counts)} reads"
    assert set(counts) == {"3"}, f"the VF count left 3: {sorted(set(counts))}"
    log = journal(vm, "sriov-persistd.service", t0)
    assert log.count("Reloading the configuration") == 1, log
    assert "applied after" not in log, log
    assert_layout(vm, pci, ifname)

    # removed for good: the VFs stay, said so, until a reset
    with steps("layout removed: unconfigured, VFs kept"):
        vm.check(f"rm {LAYOUT}")
        wait_for(vm, "the PF unconfigured",
                 lambda: json.loads(vm.check("sriovctl status --json"))["pfs"][0]["state"]
                 == "unconfigured", 30)
    st = json.loads(vm.check("sriovctl status --json"))["pfs"][0]
    assert st["reason"] == "3 VFs left from a removed layout", st
    assert vm.check(f"cat {numvfs}").strip() == "3"
    with steps("sriovctl reset"):
        rc, out = vm.run(f"sriovctl reset {pci}", timeout=120)
    assert rc == 0, out
    assert vm.check(f"cat {numvfs}").strip() == "0"


# Something else (a driver option, an rc.local) creates 2 VFs when the PF appears, before
# its apply unit runs: the layout's 3 need the count through 0, a disruptive change.
EARLY_VFS = ('ACTION=="add", SUBSYSTEM=="net", DRIVERS=="igb", '
             'ATTR{device/sriov_numvfs}="2"\n')


# The apply units run in the sysinit phase; the system bus (dbus.socket, after sysinit.target)
# may not listen yet. Ordered after the boot gate here, it never does while they run, so
# the apply must learn that the system is booting from systemd itself.
LATE_BUS = "[Unit]\\nAfter=sriov-persist-wait.service\\n"


def test_disruptive_plan_runs_at_boot_and_follows_the_policy_after(vm, product, steps):
    """At boot, before the gate lets kubelet start, nothing uses the VFs: a disruptive plan
    runs directly even under Policy=never, also before the system bus listens. On the
    running system the same plan is deferred, and so is taking a VF off its driver while a
    pod's namespace holds its network interface."""
    install(vm, product)
    vm.check("printf '[Disruption]\\nPolicy=never\\n' >/etc/sriov-persist/sriov-persist.conf && "
             f"printf '{EARLY_VFS}' >/etc/udev/rules.d/60-early-vfs.rules && "
             "mkdir -p /etc/systemd/system/dbus.socket.d && "
             f"printf '{LATE_BUS}' >/etc/systemd/system/dbus.socket.d/after-gate.conf && "
             "sriovctl check")
    with steps("boot: a disruptive plan before the gate"):
        vm.reboot()
        wait_for_boot_gate(vm)
    (pci, ifname), = igb_pfs(vm).items()
    vm.wait_until("test -e /run/consumer-saw", 60)
    assert vm.check("cat /run/consumer-saw").split() == ["3"], "the consumer ran before the VFs"
    assert_layout(vm, pci, ifname)
    rec = json.loads(vm.check(f"cat /run/sriov-persist/pf/{pci}.json"))
    assert rec["state"] == "applied", rec
    log = vm.check(f"journalctl -b -o cat -u sriov-persist-apply@{pci}.service")
    assert "disruptive changes run now" in log and "remove all VFs" in log, log

    # a VF whose network interface a pod holds (moved into another namespace, as CNI does):
    # taking it off its driver is disruptive, and waits for the policy; once the pod's
    # namespace is gone the kernel gives the interface back and the rebind is live
    vf0 = vf_pci(vm, pci, 0)
    name = vm.check(f"ls /sys/bus/pci/devices/{vf0}/net").strip()
    vm.check(f"ip netns add pod1 && ip link set {name} netns pod1 && "
             f"test -z \"$(ls /sys/bus/pci/devices/{vf0}/net)\" && "
             f"sed -i 's/^\\[VirtualFunction 0\\]$/&\\nDriver=vfio-pci/' {LAYOUT} && "
             f"grep -A1 -x '\\[VirtualFunction 0\\]' {LAYOUT} | grep -qx Driver=vfio-pci")
    out = vm.check("sriovctl --no-color plan; test $? = 10")
    assert re.search(r"disruptive +VF 0: unbind \(its network interface is not in this host's "
                     r"namespace: a pod may hold it\)", out), out
    rc, out = vm.run("sriovctl --no-color apply", timeout=120)
    assert rc == 1 and "Policy=never" in out, out
    assert vf_driver(vm, vf0) == "igbvf"
    vm.check(f"ip netns exec pod1 ip link show {name}")
    vm.check("ip netns del pod1")
    vm.wait_until(f"ls /sys/bus/pci/devices/{vf0}/net | grep -q .", 30)
    out = vm.check("sriovctl --no-color plan; test $? = 10")
    assert re.search(r"live +VF 0: unbind\n", out), out
    vm.check("sriovctl --no-color apply", timeout=120)
    assert vf_driver(vm, vf0) == "vfio-pci"

    # the running system: the same change waits for the policy
    vm.check(f"echo 0 > /sys/bus/pci/devices/{pci}/sriov_numvfs && "
             f"echo 2 > /sys/bus/pci/devices/{pci}/sriov_numvfs && udevadm settle -t 30")
    rc, out = vm.run("sriovctl --no-color apply", timeout=120)
    assert rc == 1 and "Policy=never" in out, out
    assert vm.check(f"cat /sys/bus/pci/devices/{pci}/sriov_numvfs").strip() == "2"


# --- SIGKILL at a random point of a VF creation ----------------------------------------------------

KILL_ROUNDS = 5


def kill_points(seed):
    """Where in a VF creation (seconds after it starts) each round kills: igb spends about 1 s
    in the sriov_numvfs write and the rest binding and setting the VFs."""
    rng = random.Random(seed)
    return [round(rng.uniform(0.05, 2.0), 2) for _ in range(KILL_ROUNDS)]


def test_apply_killed_mid_creation_then_reboot(vm, product, steps):
    pci, ifname = boot(vm, product, daemon=False)
    numvfs = f"/sys/bus/pci/devices/{pci}/sriov_numvfs"
    seed = time.time_ns()
    for i, delay in enumerate(kill_points(seed)):
        # the VFs go, and the apply that creates them again is killed
        out = vm.check(f"echo 0 > {numvfs} && (sriovctl apply {pci} >/run/apply.log 2>&1 & "
                       f"pid=$!; sleep {delay}; kill -9 $pid; wait $pid; echo rc=$?); "
                       f"sleep 2; cat {numvfs}")
        label = f"round {i + 1}, killed after {delay}s (seed {seed})"
        assert "rc=137" in out or "rc=0" in out, (label, out)
        # the lock died with it: the next applier is not kept waiting
        rc, out = vm.run("flock -n /run/sriov-persist/lock/{pci}.lock true".format(pci=pci))
        assert rc == 0, (label, "the PF lock outlived the killed apply", out)
        # what was created is on record whenever the kernel may have created it
        rc, created = vm.run(f"cat /var/lib/sriov-persist/pf/{pci}.json")
        assert rc == 0 and json.loads(created)["num_vfs"] == 3, (label, created)
    with steps("reboot after the killed applies"):
        vm.reboot()
        wait_for_boot_gate(vm)
    assert igb_pfs(vm) == {pci: ifname}
    assert_layout(vm, pci, ifname)
    assert record(vm, pci)["state"] == "applied"


def restarted_and_repaired(vm, steps, pci, label):
    numvfs = f"/sys/bus/pci/devices/{pci}/sriov_numvfs"
    with steps(f"{label}: restarted and repaired"):
        wait_for(vm, f"{label}: the daemon back",
                 lambda: vm.run("systemctl is-active -q sriov-persistd.service")[0] == 0, 60)
        # the record of the apply the kill cut short may still say "applied" (it is written
        # when an apply ends): the layout is repaired when the plan has nothing left to do
        wait_for(vm, f"{label}: the layout repaired",
                 lambda: vm.check(f"cat {numvfs}").strip() == "3" and
                 (record(vm, pci) or {}).get("state") == "applied" and
                 vm.run(f"sriovctl --no-color plan {pci}")[0] == 0, 90)


# stops the daemon the moment VF 0, re-created and probed, is taken off igbvf, and says whether
# it is still on no driver once stopped (HIT) or was bound again first (MISSED)
STOP_BETWEEN_CREATE_AND_BIND = """
vf=/sys/bus/pci/devices/{vf0}
pid=$(systemctl show -p MainPID --value sriov-persistd)
echo 0 > {numvfs}
timeout 60 sh -c "until [ -e $vf ]; do sleep 0.002; done" || echo TIMEOUT
kill -STOP $pid
sleep 0.5
if [ -e $vf/driver ]; then echo MISSED; else echo HIT; fi
systemctl kill -s KILL sriov-persistd
"""


def test_daemon_killed_mid_repair_then_reboot(vm, product, steps):
    pci, ifname = boot(vm, product, daemon=True)
    numvfs = f"/sys/bus/pci/devices/{pci}/sriov_numvfs"
    vf0 = vm.check(f"basename $(readlink /sys/bus/pci/devices/{pci}/virtfn0)").strip()
    seed = time.time_ns()
    for i, delay in enumerate(kill_points(seed)):
        label = f"round {i + 1}, killed after {delay}s (seed {seed})"
        vm.wait_until("systemctl is-active -q sriov-persistd.service", 60)
        # drift: the VFs go; the daemon repairs it and is killed doing so (the whole unit,
        # write helpers too, as systemd does on a watchdog timeout)
        vm.check(f"echo 0 > {numvfs}; sleep {delay}; systemctl kill -s KILL sriov-persistd")
        restarted_and_repaired(vm, steps, pci, label)
        assert_layout(vm, pci, ifname)
    # the window that random points rarely hit: the VFs created with autoprobe off, VF 0 not
    # yet bound; the restarted daemon must not take "no driver" for VF 0's layout, and turns
    # autoprobe on again
    hits = 0
    for attempt in range(5):
        vm.wait_until("systemctl is-active -q sriov-persistd.service", 60)
        out = vm.check(STOP_BETWEEN_CREATE_AND_BIND.format(vf0=vf0, numvfs=numvfs))
        assert "TIMEOUT" not in out, out
        restarted_and_repaired(vm, steps, pci, f"between creating and binding VF 0, attempt {attempt + 1}")
        assert_layout(vm, pci, ifname)
        if "HIT" in out:
            hits += 1
            break
    assert hits == 1, "the daemon was never stopped between creating and binding VF 0"
    assert vm.check(f"cat /sys/bus/pci/devices/{pci}/sriov_drivers_autoprobe").strip() == "1"
    with steps("reboot after the killed repairs"):
        vm.reboot()
        wait_for_boot_gate(vm)
        vm.wait_until("systemctl is-active -q sriov-persistd.service", 60)
    assert igb_pfs(vm) == {pci: ifname}
    assert_layout(vm, pci, ifname)
