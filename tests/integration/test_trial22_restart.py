# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fresh-eyes trial 22: a restart of sriov-persistd that interrupts the drain of a deferred
reset (sriovctl reset of a PF whose layout was removed, under [Disruption] Policy=drain).

- With [Drift] Mode=repair the reset is run again after the undo, under the policy as it is
  now: its drain starts again and the VFs go; the journal says what is started again.
- With Mode=report (nothing is changed at start) it is not: the PF's reason names the command
  that starts it, sriovctl reset PCI, never sriovctl apply, which does nothing for a PF no layout
  selects.
- A layout that selects the PF again meanwhile: nothing is reset, and the journal says why.
- An apply whose drain was interrupted, restarted under a policy that drains no more: the
  policy's reason stands, not a command that would not drain."""

import json
from pathlib import Path

from conftest import PF_IFACE, pf_path
from test_daemon_k8s import (E810_A, E810_LAYOUT, E810_NODE, SLOT_PREFIX, e810_node,  # noqa: F401
                             env, k8s_notify_bin, lease_holder, node_flags, operation,
                             replace_layout)
from test_trial19_reboot import ctl

UNDONE = "Kubernetes drain: interrupted drain undone"


def stop_mid_reset_drain(env, mode="repair"):  # noqa: F811
    """The e810 node with 4 VFs applied, its layout removed, sriovctl reset of the PF (deferred
    for a drain), and the daemon stopped (SIGTERM) while the node is being drained."""
    c = env.c
    h, _ = e810_node(env, mode=mode)
    d = env.start(h)
    env.settle()
    (h.confdir / "50-e810.conf").unlink()
    c.wait(lambda: "left from a removed layout" in ctl(env, h, "status", E810_A).stdout,
           timeout=30, what="the layout's removal")
    r = ctl(env, h, "reset", E810_A)
    assert "deferred: resetting what sriov-persist created waits" in r.stdout, r
    # the drain waits for a pod with a grace period of 100 s (1 s here)
    c.wait(lambda: (operation(c) or {}).get("step") == "drain", timeout=30,
           what="the drain step")
    d.stop()
    assert h.pf(E810_A)["num_vfs"] == 4, "reset before the drain finished"
    op_file = Path(f"{h.path}.lib") / "operation.json"
    assert json.loads(op_file.read_text())["step"] == "drain"
    return h, d


def test_reset_drain_interrupted_by_a_stop_is_started_again(env):  # noqa: F811
    srv, c = env.srv, env.c
    h, d = stop_mid_reset_drain(env)
    seen = len(d.log_text())
    d.start()
    c.wait(lambda: h.pf(E810_A)["num_vfs"] == 0, timeout=90, what="the reset after the drain")
    env.settle()
    log = d.log_text()[seen:]
    assert "Kubernetes drain was interrupted at drain; undoing it, then starting it again for " \
        "the PFs that still wait for it" in log, log
    assert f"{UNDONE}; starting it again for the reset of {E810_A}\n" in log, log
    assert log.count("Kubernetes drain done") == 1, log
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "unconfigured"
    out = ctl(env, h, "status", E810_A).stdout
    assert "left from a removed layout" not in out and "interrupted" not in out, out
    assert node_flags(srv, E810_NODE) == (False, None)
    assert lease_holder(srv) in (None, "")
    assert srv.leases_held_max(SLOT_PREFIX) == 1
    assert not (Path(f"{h.path}.lib") / "operation.json").exists()
    assert json.loads(c.call("GetMetrics"))["drains"] == {"succeeded": 1, "failed": 1}


def test_reset_drain_interrupted_under_report_mode_names_sriovctl_reset(env):  # noqa: F811
    srv, c = env.srv, env.c
    h, d = stop_mid_reset_drain(env, mode="report")
    seen = len(d.log_text())
    d.start()
    c.wait(lambda: UNDONE in d.log_text()[seen:], timeout=60, what="the recovery")
    env.settle()
    log = d.log_text()[seen:]
    advice = f"sriovctl reset {E810_A} starts it again"
    assert f"{UNDONE}; not started again: {E810_A} stays deferred ([Drift] Mode=report " \
        f"changes nothing at start): {advice}\n" in log, log
    why = c.get("LastError", pf_path(E810_A), PF_IFACE)
    assert why == ("drain interrupted (the daemon stopped during it) and undone; not started "
                   f"again on its own: {advice}"), why
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "deferred"
    out = ctl(env, h, "status", E810_A).stdout
    assert advice in out and "sriovctl apply" not in out, out
    assert h.pf(E810_A)["num_vfs"] == 4
    assert node_flags(srv, E810_NODE) == (False, None)
    # what it names starts it: the drain, then the reset
    r = ctl(env, h, "reset", E810_A)
    assert "deferred: resetting what sriov-persist created waits" in r.stdout, r
    c.wait(lambda: h.pf(E810_A)["num_vfs"] == 0, timeout=90, what="the reset after the drain")
    env.settle()
    assert node_flags(srv, E810_NODE) == (False, None)


def test_reset_drain_interrupted_then_a_layout_selects_the_pf_again(env):  # noqa: F811
    """The layout put back while the daemon was stopped: the PF is applied, not reset, and no
    drain is started for a reset it no longer needs."""
    srv, c = env.srv, env.c
    h, d = stop_mid_reset_drain(env)
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=4, vlan=10))
    seen = len(d.log_text())
    d.start()
    c.wait(lambda: UNDONE in d.log_text()[seen:], timeout=60, what="the recovery")
    env.settle()
    log = d.log_text()[seen:]
    assert f"{UNDONE}; not started again: {E810_A} no longer waits for it: applied\n" in log, log
    assert "Kubernetes drain: starting" not in log, log
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "applied"
    assert h.pf(E810_A)["num_vfs"] == 4
    assert node_flags(srv, E810_NODE) == (False, None)


def test_apply_drain_interrupted_then_policy_never_keeps_the_policys_reason(env):  # noqa: F811
    """Restarted with [Disruption] Policy=never: the apply runs again at start and is held by the
    policy; its reason says so, not "sriovctl apply starts it again" (under Policy=never that
    starts no drain)."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env)
    d = env.start(h)
    env.settle()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: (operation(c) or {}).get("step") == "drain", timeout=30,
           what="the drain step")
    d.stop()
    h.main.write_text(h.main.read_text().replace("Policy=drain", "Policy=never"))
    seen = len(d.log_text())
    d.start()
    c.wait(lambda: UNDONE in d.log_text()[seen:], timeout=60, what="the recovery")
    env.settle()
    log = d.log_text()[seen:]
    held = "disruptive changes held by [Disruption] Policy=never"
    assert f"{UNDONE}; not started again: the apply of {E810_A} ran again, with no drain under " \
        "the policy as it is now: deferred: " in log, log
    why = c.get("LastError", pf_path(E810_A), PF_IFACE)
    assert held in why and "drain interrupted" not in why, why
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "deferred"
    assert h.pf(E810_A)["num_vfs"] == 4
    assert node_flags(srv, E810_NODE) == (False, None)
