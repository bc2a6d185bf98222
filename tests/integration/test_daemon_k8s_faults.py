# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Kubernetes rows of the fault matrix: the API server refuses (401, 403), conflicts (409),
throttles (429), fails (500), goes away or answers slowly at each step of a drain and of the
steps a coordinated reboot finishes with. Whatever happens, once the server answers again the
node is not left cordoned by us and the Lease slot is given back; the PF is either applied or
deferred with the failed step in its LastError."""

import os
import signal
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
    node and the slot back; after it (uncordon, release) the daemon tries until it is done."""
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
