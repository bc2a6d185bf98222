# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Kubernetes rows of the fault matrix: the API server refuses (401, 403), conflicts (409),
throttles (429), fails (500), goes away or answers slowly at each step of a drain and of the
steps a coordinated reboot finishes with. Whatever happens, once the server answers again the
node is not left cordoned by us and the Lease slot is given back; the PF is either applied or
deferred with the failed step in its LastError."""

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PF_IFACE, pf_path
from test_daemon_k8s import (CX6_A, CX6_NODE, E810_A, E810_LAYOUT, E810_NODE,  # noqa: F401
                             E810_RES, cx6_node, cx6_reboot_host, e810_node, env,
                             k8s_notify_bin, lease_holder, manager_states, node_flags,
                             operation, reboot_host, replace_layout, set_plugin_allocatable)

# what each step of a drain sends (apiserver.inject_* matches)
STEPS = {
    "lease": dict(path=r"/leases$", method="GET"),
    "lease-create": dict(path=r"/leases$", method="POST"),
    "cordon": dict(method="PATCH", path=r"/nodes/", body=r'"unschedulable":\s*true'),
    "pod-list": dict(method="GET", path=r"/pods$"),
    "eviction": dict(path=r"/eviction$"),
    "device-plugin": dict(method="DELETE", path=r"/namespaces/kube-system/pods/"),
    "uncordon": dict(method="PATCH", path=r"/nodes/", body=r'"unschedulable":\s*false'),
    "release": dict(method="PUT", path=r"/leases/sriov-persist-slot-"),
}
# 409 only where the API server answers it: writes with a precondition, creates, evictions
WRITES = ("lease-create", "cordon", "eviction", "uncordon", "release")
CASES = [(step, fault) for step in STEPS for fault in ("401", "403", "429", "500", "down")] + \
    [(step, "409") for step in WRITES] + \
    [(step, "slow") for step in ("cordon", "eviction", "uncordon")]


def inject(srv, fault, match):
    if fault == "down":
        srv.inject_down(2, **match)
    elif fault == "slow":
        srv.inject_slow(3, **match)
    elif fault in ("429", "500"):
        # k8s-notify tries each request up to 5 times: these are its first two
        srv.inject_error(int(fault), count=2, retry_after=1 if fault == "429" else 0, **match)
    else:
        srv.inject_error(int(fault), count=1, **match)


def left_behind(c):
    """What an undo step that failed for good left, as GetStatus's waiting says it."""
    api = json.loads(c.call("GetStatus"))["daemon"]["kubernetes_api"] or {}
    return [w for w in api.get("waiting", []) if "stays until the cause is fixed" in w]


@pytest.mark.parametrize("step,fault", CASES)
def test_drain_step_fails(env, step, fault):  # noqa: F811
    srv, c = env.srv, env.c
    h, _ = e810_node(env, DrainTimeoutSec=5)
    env.start(h)
    env.settle()
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 8})
    inject(srv, fault, STEPS[step])
    m = c.mark()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: "draining" in [s for _, s in manager_states(c, m)], timeout=30,
           what="State draining")
    env.settle(timeout=120)
    log = env.log()
    left = left_behind(c)
    if left:
        # an undo step refused for good is tried again only after RetryMaxDelaySec= (300 s
        # here); it says what is left until a reload tries it again
        assert fault in ("401", "403") and step in ("uncordon", "release"), (left, log)
        assert len(left) == 1 and left[0].startswith(f"drain: {step} was refused"), (left, log)
        assert "systemctl reload sriov-persistd" in left[0], left
        c.call("Reload")
        env.settle(timeout=120)
        log = env.log()
        assert left_behind(c) == [], log
    # the node is given back, and so is the slot
    assert node_flags(srv, E810_NODE) == (False, None), log
    assert lease_holder(srv) is None, log
    assert operation(c) is None
    state = c.get("State", pf_path(E810_A), PF_IFACE)
    if state == "applied":
        assert h.pf(E810_A)["num_vfs"] == 8
    else:
        # a final refusal of a step that goes forward: the change waits, and says why
        assert state == "deferred", (state, log)
        assert fault in ("401", "403"), (state, log)
        assert step in ("lease", "lease-create", "cordon", "pod-list", "eviction"), (state, log)
        assert h.pf(E810_A)["num_vfs"] == 4
        assert c.get("LastError", pf_path(E810_A), PF_IFACE), log


@pytest.mark.parametrize("fault", ["403", "500", "down"])
@pytest.mark.parametrize("step", ["lease", "cordon", "eviction", "uncordon", "release"])
def test_coordinated_reboot_step_fails(env, step, fault):  # noqa: F811
    """Before the reboot (slot, cordon, drain) a final refusal calls the reboot off and gives the
    node and the slot back; after it (uncordon, release) the daemon tries until it is done, or,
    refused for good, until a reload (or RetryMaxDelaySec=)."""
    srv, c = env.srv, env.c
    h, op_file = cx6_reboot_host(env, "coordinated", ResourcePrefix="nvidia.com")
    cx6_node(srv)
    before_reboot = step in ("lease", "cordon", "eviction")
    if before_reboot:
        inject(srv, fault, STEPS[step])
    d = env.start(h)
    if before_reboot and fault == "403":
        # called off: no reboot, the node and the slot given back
        c.wait(lambda: operation(c) is None and lease_holder(srv) is None
               and node_flags(srv, CX6_NODE) == (False, None), timeout=60,
               what="the reboot called off and undone")
        deadline = time.monotonic() + 2
        c.wait(lambda: time.monotonic() > deadline, timeout=10, what="2 s")
        assert env.logind.calls() == [], env.log()
        assert not op_file.exists()
        return
    c.wait(lambda: env.logind.calls(), timeout=120, what="Reboot() on logind")
    assert node_flags(srv, CX6_NODE) == (True, "true")
    d.stop()
    reboot_host(h)
    if not before_reboot:
        inject(srv, fault, STEPS[step])
    d.start()
    if not before_reboot and fault == "403":
        c.wait(lambda: left_behind(c), timeout=60, what=f"the {step} refused for good")
        assert left_behind(c)[0].startswith(f"reboot: {step} was refused"), left_behind(c)
        c.call("Reload")
    c.wait(lambda: not op_file.exists() and lease_holder(srv) is None
           and node_flags(srv, CX6_NODE) == (False, None), timeout=90,
           what="uncordon, release and operation.json removed after the reboot")
    env.settle()
    assert len(env.logind.calls()) == 1, "rebooted again"
    assert h.pf(CX6_A)["num_vfs"] == 16


def kill_tree(pid):
    """SIGKILL to pid and every process under it, as systemd stops a unit's cgroup."""
    children = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            children += (task / "children").read_text().split()
    except FileNotFoundError:
        pass
    os.kill(pid, signal.SIGKILL)
    for child in children:
        kill_tree(int(child))


def test_daemon_killed_while_taking_a_slot(env):  # noqa: F811
    """The daemon and its k8s-notify die while the API server is creating their Lease: the
    restarted daemon, which never learnt the slot, finds it and gives it back."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env)
    d = env.start(h)
    env.settle()
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 8})
    srv.inject_slow(3, **STEPS["lease-create"])
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: (operation(c) or {}).get("step") == "lease", timeout=30,
           what="the lease step")
    time.sleep(1)
    kill_tree(d.proc.pid)
    d.proc.wait(timeout=10)
    # the server finishes the create it had begun
    c.wait(lambda: lease_holder(srv) == E810_NODE, timeout=10, what="the Lease created")
    # the change is taken back meanwhile: no new drain would find and reuse the slot
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=4, vlan=10))
    d.start()
    env.settle(timeout=120)
    log = env.log()
    assert "interrupted at lease" in log, log
    assert lease_holder(srv) is None, log
    assert node_flags(srv, E810_NODE) == (False, None), log
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "applied", log
    assert h.pf(E810_A)["num_vfs"] == 4


# --- the API server away for minutes: one backoff for every run -------------------------------

RUN_LOGGER = """#!/bin/sh
# the real k8s-notify, each run's start and end logged: time, pid, S|E, verb
echo "$(date +%s.%N) $$ S $*" >> {log}
{real} "$@"
rc=$?
echo "$(date +%s.%N) $$ E $rc" >> {log}
exit $rc
"""


def logged_k8s_notify(env, tmp):
    """A k8s-notify that logs its runs, for the daemon to run instead of the real one."""
    log = tmp / "k8s-notify-runs.log"
    wrapper = tmp / "k8s-notify-logged"
    wrapper.write_text(RUN_LOGGER.format(log=log, real=env.notify_bin))
    wrapper.chmod(0o755)
    env.notify_bin = str(wrapper)
    return log


def runs(log):
    """[(start, end or None, args)] of the logged runs."""
    out, open_ = [], {}
    for line in log.read_text().splitlines() if log.exists() else []:
        t, pid, kind, rest = (line.split(" ", 3) + [""])[:4]
        if kind == "S":
            open_[pid] = len(out)
            out.append([float(t), None, rest])
        elif pid in open_:
            out[open_.pop(pid)][1] = float(t)
    return out


def most_at_once(rs):
    events = sorted([(s, 1) for s, _, _ in rs] + [(e, -1) for _, e, _ in rs if e])
    n = most = 0
    for _, d in events:
        n += d
        most = max(most, n)
    return most


def test_api_down_for_minutes(env, tmp_path):  # noqa: F811
    """The API server refuses connections for 150 s while a change waits for a drain: the
    daemon tries it at most 16 times (4 in the last 60 s), one run at a time, says so once in
    the journal and in its status, and changes no VF."""
    srv, c = env.srv, env.c
    runlog = logged_k8s_notify(env, tmp_path)
    h, _ = e810_node(env)
    env.start(h)
    env.settle()
    srv.set_down(True)
    down = time.time()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: time.time() - down >= 150, timeout=200, what="150 s of outage")
    rs = [r for r in runs(runlog) if r[0] >= down]
    log = env.log()
    st = json.loads(c.call("GetStatus"))["daemon"]
    # no --host ...: sriovctl asks the daemon
    text = subprocess.run([env.sriovctl_bin, "--no-color", "status"], capture_output=True,
                          text=True, timeout=60,
                          env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=env.bus.address))
    print(f"\nk8s-notify runs in 150 s of outage: {len(rs)}, in the last 60 s: "
          f"{len([r for r in rs if r[0] >= down + 90])}; "
          f"{[round(r[0] - down, 1) for r in rs]}")
    assert len(rs) <= 16, rs
    assert len([r for r in rs if r[0] >= down + 90]) <= 4, rs
    assert most_at_once(rs) == 1, rs
    # quiet: one line when it began, none for each try
    assert log.count("Kubernetes API unreachable") == 1, log
    assert "exited with 75" not in log and log.count("Couldn't connect") == 1, log
    # honest: the status says what waits, since when and until when
    api = st["kubernetes_api"]
    assert api["state"] == "unreachable" and api["failed_tries"] == len(rs), st
    assert abs(api["unreachable_since_usec"] / 1e6 - down) < 10, api
    assert api["next_try_usec"] / 1e6 > time.time() - 1, api
    assert any("drain (step lease) waits for the Kubernetes API" in w for w in api["waiting"]), api
    assert "unreachable since" in text.stdout and "waiting: drain" in text.stdout, text.stdout
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "deferred"
    assert h.pf(E810_A)["num_vfs"] == 4
    assert not node_flags(srv, E810_NODE)[0]


def test_api_back_the_drain_goes_on(env, tmp_path):  # noqa: F811
    """After an outage, the waiting drain starts at the next try the backoff planned (not
    later), goes through, and the status says the server answers again."""
    srv, c = env.srv, env.c
    runlog = logged_k8s_notify(env, tmp_path)
    h, _ = e810_node(env)
    env.start(h)
    env.settle()
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 8})
    m = c.mark()
    srv.set_down(True)
    down = time.time()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: time.time() - down >= 20, timeout=60, what="20 s of outage")
    api = json.loads(c.call("GetStatus"))["daemon"]["kubernetes_api"]
    assert api["state"] == "unreachable", api
    before = len(srv.requests)
    srv.set_down(False)
    up = time.time()
    assert c.wait_applied(E810_A, m, timeout=120) == 0, env.log()
    env.settle()
    first = srv.requests[before]
    print(f"\nfirst request {first['time'] - up:.1f} s after the server came back, "
          f"{first['time'] - api['next_try_usec'] / 1e6:+.1f} s from the planned try")
    assert first["time"] <= api["next_try_usec"] / 1e6 + 3, (first, api)
    assert first["resource"] == "leases", first
    log = env.log()
    assert log.count("Kubernetes API unreachable") == 1, log
    assert log.count("Kubernetes API answers again") == 1, log
    assert most_at_once([r for r in runs(runlog) if down <= r[0] < up]) == 1
    assert h.pf(E810_A)["num_vfs"] == 8
    assert node_flags(srv, E810_NODE) == (False, None) and lease_holder(srv) is None
    assert json.loads(c.call("GetStatus"))["daemon"]["kubernetes_api"] == \
        {"state": "answers", "waiting": []}


def test_api_hangs_then_answers(env, tmp_path):  # noqa: F811
    """A server that accepts but never answers: each run waits for its request time-out, the
    next starts only after the backoff, never beside another once one has failed; the node is
    annotated once it answers again."""
    srv, c = env.srv, env.c
    runlog = logged_k8s_notify(env, tmp_path)
    h, _ = e810_node(env)
    d = env.start(h)
    env.settle()
    srv.set_hang(True)
    hang = time.time()
    # a layout with an error holds the other PF: only the node's annotations have to change
    h.layout("60-e810-b.conf", "[Match]\nPCIAddress=0000:3b:00.1\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n[VirtualFunction]\nVLANId=5000\n")
    c.wait(lambda: len([r for r in runs(runlog) if r[0] >= hang and r[1]]) >= 3, timeout=150,
           what="three runs that timed out")
    srv.set_hang(False)
    c.wait(lambda: "Kubernetes API answers again" in d.log_text(), timeout=120,
           what="an answer")
    c.wait(lambda: (srv.get("node", None, E810_NODE)["metadata"].get("annotations") or {})
           .get("sriov-persist.io/held") == "1", timeout=30, what="the annotation")
    rs = [r for r in runs(runlog) if r[0] >= hang]
    # two may have started before any had failed (an annotate beside a step); once the
    # daemon knows, one at a time
    known = min(r[1] for r in rs if r[1] is not None)
    later = [r for r in rs if r[0] >= known]
    assert later and most_at_once(later) == 1, rs
    assert all(r[1] is None or r[1] <= s[0] or r[0] >= s[1] for r in later for s in rs
               if s is not r), rs
    assert d.log_text().count("Kubernetes API unreachable") == 1, d.log_text()
    assert d.log_text().count("Kubernetes API answers again") == 1, d.log_text()


def test_refused_uncordon_is_tried_again_after_retry_max_delay(env):  # noqa: F811
    """RBAC refuses every request for the node: the drain is refused before its cordon (no
    cordon is made) and so is the uncordon that undoes it, which is left, and tried again every
    RetryMaxDelaySec=. Once RBAC is fixed (no reload, no Apply()), the next try succeeds and
    nothing is reported as left any more."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env, DrainTimeoutSec=5, RetryMaxDelaySec=3)
    env.start(h)
    env.settle()
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 8})
    srv.inject_error(403, count=100000, path=r"/nodes/")
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: left_behind(c), timeout=60, what="the uncordon refused for good")
    left = left_behind(c)
    assert left[0].startswith("drain: uncordon was refused: get node "), left
    assert left[0].endswith("a cordon of ours, if there is one, stays until the cause is "
                            "fixed: tried again every 3s ([Kubernetes] RetryMaxDelaySec=), at "
                            "once when the daemon reloads (systemctl reload sriov-persistd) or "
                            "Apply() is called"), left
    assert node_flags(srv, E810_NODE) == (False, None)

    srv.clear_faults()  # the operator fixes RBAC; no reload, no Apply()
    c.wait(lambda: left_behind(c) == [], timeout=60, what="what was left no longer reported")
    time.sleep(4)  # it stays so
    assert left_behind(c) == [], env.log()
    assert node_flags(srv, E810_NODE) == (False, None)
    assert lease_holder(srv) is None
