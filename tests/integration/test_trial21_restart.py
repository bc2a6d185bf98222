# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fresh-eyes trial 21: what a restart of sriov-persistd (a package upgrade, systemctl restart)
starts again and what it does not.

- A drain interrupted by the restart (not one that failed) is undone at start and then started
  again, as if its PF had just been deferred: the PF moves on, and the journal says the drain
  was undone and is started again, not "drain done".
- A reboot for the pending reboot reasons that failed before the restart is not tried again by
  it (README: the restart of an upgrade changes nothing): the failure stays reported (State
  degraded, reboot_failed, its metric, the node's annotation) and sriovctl apply tries it again.
  An interrupted drain resumes; a failed reboot does not. A reboot interrupted before it asked
  logind resumes too."""

import json
import re
import time
from pathlib import Path

from conftest import PF_IFACE, pf_path
from test_daemon_k8s import (CX6_NODE, CX6_RES, E810_A, E810_LAYOUT, E810_NODE,  # noqa: F401
                             E810_RES, SLOT_PREFIX, cx6_node, cx6_reboot_host, e810_node, env,
                             k8s_notify_bin, lease_holder, node_flags, operation,
                             replace_layout, set_plugin_allocatable)
from test_trial19_reboot import (ADVICE, CX6_B, LAYOUT, REFUSED, assert_reboot_failed, ctl,
                                 status)


def stop_mid_drain(env):  # noqa: F811
    """The e810 node, a layout change that needs a drain, and the daemon stopped (SIGTERM, as
    systemctl stop or an upgrade does) while the node is being drained."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env)
    d = env.start(h)
    env.settle()
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 8})
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    # the drain waits for a pod with a grace period of 100 s (1 s here)
    c.wait(lambda: (operation(c) or {}).get("step") == "drain", timeout=30,
           what="the drain step")
    d.stop()
    assert h.pf(E810_A)["num_vfs"] == 4, "applied before the drain finished"
    return h, d


def test_drain_interrupted_by_a_stop_is_started_again(env):  # noqa: F811
    srv, c = env.srv, env.c
    h, d = stop_mid_drain(env)
    op_file = Path(f"{h.path}.lib") / "operation.json"
    assert json.loads(op_file.read_text())["step"] == "drain"
    m = c.mark()
    d.start()
    assert c.wait_applied(E810_A, m, timeout=90) == 0, d.log_text()
    env.settle()
    log = d.log_text()
    assert h.pf(E810_A)["num_vfs"] == 8, log
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "applied"
    assert c.get("LastError", pf_path(E810_A), PF_IFACE) == ""
    assert c.get("State") == "idle"
    # the recovery says what it did: undone, and started again; "drain done" is the new drain's
    assert re.search(r"Kubernetes drain was interrupted at drain; undoing it, then starting "
                     r"it again for the PFs that still wait for it", log), log
    assert "Kubernetes drain: interrupted drain undone; starting it again" in log, log
    assert log.count("Kubernetes drain done") == 1, log
    assert node_flags(srv, E810_NODE) == (False, None)
    assert lease_holder(srv) in (None, "")
    assert srv.leases_held_max(SLOT_PREFIX) == 1
    assert not op_file.exists()
    assert json.loads(c.call("GetMetrics"))["drains"] == {"succeeded": 1, "failed": 1}


def test_drain_interrupted_under_report_mode_is_given_up_with_what_starts_it(env):  # noqa: F811
    """[Drift] Mode=report applies nothing at start: the interrupted drain is not started again,
    and the PF says so and what starts it, instead of a drain that sriov-persistd does."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env, mode="report")
    d = env.start(h)
    env.settle()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: (operation(c) or {}).get("step") == "drain", timeout=30,
           what="the drain step")
    d.stop()
    d.start()
    c.wait(lambda: "interrupted drain undone" in d.log_text(), timeout=60,
           what="the recovery")
    env.settle()
    log = d.log_text()
    assert "starting it again" not in log.split("interrupted drain undone", 1)[1][:40], log
    why = c.get("LastError", pf_path(E810_A), PF_IFACE)
    assert why == ("drain interrupted (the daemon stopped during it) and undone; not started "
                   f"again on its own: sriovctl apply {E810_A} starts it again"), why
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "deferred"
    out = ctl(env, h, "status", E810_A).stdout
    assert "which sriov-persistd does" not in out, out
    assert f"sriovctl apply {E810_A} starts it again" in out, out
    assert h.pf(E810_A)["num_vfs"] == 4
    assert node_flags(srv, E810_NODE) == (False, None)
    # what it names moves it on
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 8})
    m = c.mark()
    c.call("Apply", E810_A)
    assert c.wait_applied(E810_A, m, timeout=90) == 0, d.log_text()
    assert h.pf(E810_A)["num_vfs"] == 8


def gauge(env, h):
    r = h.run("metrics", env={"DBUS_SYSTEM_BUS_ADDRESS": env.bus.address})
    m = re.search(r"^sriov_persist_daemon_reboot_failed_timestamp_seconds (\S+)$", r.stdout,
                  re.M)
    assert m, r.stdout
    return float(m.group(1))


def test_restart_does_not_retry_a_failed_reboot(env):  # noqa: F811
    """Coordinated: the failed reboot's lease, drain and logind call are not made again by a
    restart; the failure stays reported until sriovctl apply tries it again."""
    c, srv = env.c, env.srv
    h = env.host("cx6dx.json", CX6_NODE, reboot="coordinated", ResourcePrefix="nvidia.com")
    cx6_node(srv)
    h.layout("50-b.conf", LAYOUT)
    d = env.start(h)
    c.wait(lambda: "failed at reboot: " + REFUSED in env.log(), timeout=90,
           what="the refused reboot in the journal")
    env.settle()
    failed = assert_reboot_failed(env, h, re.escape(REFUSED) + ".+")
    before_gauge = gauge(env, h)
    assert before_gauge == failed["at_usec"] / 1e6

    d.stop()
    before, seen = len(srv.requests), len(d.log_text())
    d.start()
    env.settle()
    time.sleep(2)
    log = d.log_text()[seen:]  # this start's
    work = [r for r in srv.requests[before:]
            if r["resource"] in ("leases", "pods") or r["subresource"] == "eviction"]
    assert work == [], work
    assert "failed at reboot" not in log, log
    assert "Asking logind to reboot" not in log, log
    assert "not tried again by the restart (sriovctl apply tries it again)" in log, log
    again = assert_reboot_failed(env, h, re.escape(REFUSED) + ".+")
    assert again == failed, (again, failed)
    assert gauge(env, h) == before_gauge
    assert node_flags(srv, CX6_NODE) == (False, None)
    out = ctl(env, h, "status").stdout
    line = next((x for x in out.splitlines() if x.startswith("  reboot failed at ")), "")
    assert line.endswith(ADVICE), out
    c.wait(lambda: (srv.get("node", None, CX6_NODE)["metadata"].get("annotations") or {})
           .get("sriov-persist.io/reboot-failed", ""), timeout=30, what="the annotation")
    # a reload does not try it again either
    c.call("Reload")
    env.settle()
    assert "failed at reboot" not in d.log_text()[seen:], d.log_text()
    assert_reboot_failed(env, h, re.escape(REFUSED) + ".+")
    # sriovctl apply does (it fails again: no logind on the test bus)
    ctl(env, h, "apply")
    c.wait(lambda: "failed at reboot: " + REFUSED in d.log_text()[seen:], timeout=90,
           what="the reboot tried again")
    assert status(env, h)["daemon"]["reboot_failed"]["at_usec"] > failed["at_usec"]


def test_reboot_interrupted_by_a_stop_is_started_again(env):  # noqa: F811
    """A coordinated reboot stopped at its drain step did not fail and was not made: it is
    undone at start and then made, as the policy says (slot, drain, logind)."""
    c, srv = env.c, env.srv
    h, op_file = cx6_reboot_host(env, "coordinated", ResourcePrefix="nvidia.com")
    cx6_node(srv)
    # a grace period of 100 s is 1 s here: the drain takes a while
    srv.add_pod("default", "vm-launcher-1", CX6_NODE, owner_kind="StatefulSet",
                requests={CX6_RES: 1}, grace=100)
    d = env.start(h)
    c.wait(lambda: (operation(c) or {}).get("kind") == "reboot"
           and operation(c).get("step") == "drain", timeout=60, what="the reboot's drain")
    d.stop()
    assert env.logind.calls() == []
    seen = len(d.log_text())
    d.start()
    c.wait(lambda: env.logind.calls(), timeout=90, what="Reboot() on logind after the restart")
    log = d.log_text()[seen:]
    assert "Kubernetes reboot was interrupted at drain; undoing it, then starting it again" \
        in log, log
    assert "Kubernetes reboot: interrupted reboot undone; starting it again" in log, log
    assert len(env.logind.calls()) == 1
    assert json.loads(op_file.read_text())["kind"] == "reboot"
    assert status(env, h)["daemon"]["reboot_failed"] is None
