# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 24 (fresh eyes): a reset of a PF that no layout selects any more, deferred by
[Disruption] Policy=never, still waits after an apply of every PF (sriovctl apply, or the apply of
sriov-persistd's reload once the policy is relaxed): an apply never touches a PF that no layout
selects, so neither runs the reset, and the reset's status record stays, saying what runs it,
until a reset runs or a layout selects the PF again."""

import json
import os
import signal
import subprocess

from conftest import PF_IFACE, pf_path
from test_daemon import (E810_A, E810_B, LAYOUT, NO_BUS, apply_all,  # noqa: F401
                         configured_host, main_config, sync)
from test_daemon_k8s import env, k8s_notify_bin  # noqa: F401
from test_trial22_restart import UNDONE, stop_mid_reset_drain

LIFTED = ("2 VFs left from a removed layout; not reset since its last reset was deferred by "
          "[Disruption] Policy=never, which is now Policy=immediate ({cmd} runs it)")


def options(h):
    return f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"


def ctl(h, system_bus, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    return subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def pf_of(doc, pci):
    return next(p for p in doc["pfs"] if p["pci"] == pci)


def deferred_reset_of_b(h, run, settled=lambda: None):
    """Under Policy=never, E810_B's layout removed with its 2 VFs left, and its reset deferred
    (settled() waits until a daemon has read the removal)."""
    (h.confdir / f"50-{E810_B}.conf").unlink()
    settled()
    r = run("reset", E810_B)
    assert r.returncode == 1 and r.stdout == (
        f"{E810_B} (ens1f1): deferred: resetting what sriov-persist created waits: disruptive "
        f"changes held by [Disruption] Policy=never in {h.main}:6; set Policy=drain or "
        "immediate there to let them run, or make the change by hand\n"), r


def local_status(h):
    r = h.run("status", "--json", env=NO_BUS)
    assert r.returncode in (0, 1), r
    return json.loads(r.stdout)


def test_an_apply_of_every_pf_keeps_a_deferred_reset(make_host):
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)},
                        policy="never")
    assert h.run("apply", env=NO_BUS).returncode == 0
    deferred_reset_of_b(h, lambda *a: h.run(*a, env=NO_BUS))
    main_config(h, policy="immediate")
    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 0 and E810_B not in r.stdout, r
    assert h.pf(E810_B)["num_vfs"] == 2, "an apply reset a PF that no layout selects"
    b = pf_of(local_status(h), E810_B)
    last = b["last_apply"]
    assert last and last["by"] == "reset" and last["state"] == "deferred", b
    r = h.run("status", E810_B, env=NO_BUS)
    cmd = f"sriovctl{options(h)} reset {E810_B}"
    assert LIFTED.format(cmd=cmd) + "\n" in r.stdout, r.stdout
    assert f'    "{cmd}" runs it now\n' in r.stdout, r.stdout
    # a named apply of it does nothing to it either
    r = h.run("apply", E810_B, env=NO_BUS)
    assert r.stdout == f"{E810_B} (ens1f1): unconfigured (no layout selects it): nothing to " \
                       "apply\n", r
    assert pf_of(local_status(h), E810_B)["last_apply"]["by"] == "reset"
    # what it names runs it: the VFs go, and so does the record
    r = h.run("reset", E810_B, env=NO_BUS)
    assert r.returncode == 0 and f"{E810_B} (ens1f1): reset, " in r.stdout, r
    assert h.pf(E810_B)["num_vfs"] == 0
    assert pf_of(local_status(h), E810_B)["last_apply"] is None


def test_a_layout_that_selects_the_pf_again_replaces_the_deferred_reset(make_host):
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)},
                        policy="never")
    assert h.run("apply", env=NO_BUS).returncode == 0
    deferred_reset_of_b(h, lambda *a: h.run(*a, env=NO_BUS))
    h.layout(f"50-{E810_B}.conf", LAYOUT.format(pci=E810_B, n=2, vlan=30))
    assert h.run("apply", env=NO_BUS).returncode == 0
    b = pf_of(local_status(h), E810_B)
    assert b["state"] == "applied" and b["last_apply"]["by"] == "apply", b
    assert h.pf(E810_B)["num_vfs"] == 2


def test_a_reload_under_a_relaxed_policy_keeps_a_deferred_reset(make_host, start_daemon,
                                                                bus_client, system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)},
                        policy="never")
    d = start_daemon(h)
    apply_all(c, [E810_A, E810_B])

    def settled():
        c.wait(lambda: c.get("State", pf_path(E810_B), PF_IFACE) == "unconfigured",
               what="the reload of the removed layout")
        sync(c)

    deferred_reset_of_b(h, lambda *a: ctl(h, system_bus, *a), settled)
    # relaxed, then SIGHUP: the reload applies every PF, and leaves this one as it is
    reloads = d.log_text().count("Reloading the configuration")
    main_config(h, policy="immediate")
    c.wait(lambda: d.log_text().count("Reloading the configuration") > reloads,
           what="the reload of the main configuration")
    sync(c)
    reloads = d.log_text().count("Reloading the configuration")
    d.proc.send_signal(signal.SIGHUP)
    c.wait(lambda: d.log_text().count("Reloading the configuration") > reloads,
           what="the reload of SIGHUP")
    c.wait(lambda: c.get("State") == "idle" or c.get("State") == "degraded",
           what="the reload's apply")
    sync(c)
    assert h.pf(E810_B)["num_vfs"] == 2, "the reload reset a PF that no layout selects"
    doc = json.loads(c.call("GetStatus"))
    b = pf_of(doc, E810_B)
    assert b["last_apply"] and b["last_apply"]["by"] == "reset", b
    # the daemon's own state says it as GetStatus() does: pending, and what runs it
    lifted = LIFTED.format(cmd=f"sriovctl reset {E810_B}")
    assert (b["state"], b["reason"]) == ("pending", lifted), b
    assert c.get("State", pf_path(E810_B), PF_IFACE) == "pending"
    assert c.get("LastError", pf_path(E810_B), PF_IFACE) == lifted
    assert c.get("State") == "idle"
    r = ctl(h, system_bus, "status", E810_B)
    assert lifted + "\n" in r.stdout, r.stdout
    assert f'    "sriovctl reset {E810_B}" runs it now\n' in r.stdout, r.stdout
    # what it names runs it
    r = ctl(h, system_bus, "reset", E810_B)
    assert r.returncode == 0 and f"{E810_B} (ens1f1): reset, " in r.stdout, r
    assert h.pf(E810_B)["num_vfs"] == 0
    sync(c)
    b = pf_of(json.loads(c.call("GetStatus")), E810_B)
    assert b["last_apply"] is None and b["state"] == "unconfigured", b
    assert c.get("State", pf_path(E810_B), PF_IFACE) == "unconfigured"


def test_reset_drain_interrupted_then_policy_immediate_runs_the_reset(env):  # noqa: F811
    """The reset that waited for a drain the daemon was stopped in, restarted under a policy
    that lets it run without one: the reset the operator asked for runs at start, as under the
    policy before (the daemon's first look shows it pending, not waiting for a drain)."""
    c = env.c
    h, d = stop_mid_reset_drain(env)
    h.main.write_text(h.main.read_text().replace("Policy=drain", "Policy=immediate"))
    seen = len(d.log_text())
    d.start()
    c.wait(lambda: h.pf(E810_A)["num_vfs"] == 0, timeout=90, what="the reset at start")
    env.settle()
    log = d.log_text()[seen:]
    assert f"{UNDONE}; not started again: the reset of {E810_A} ran again, with no drain " \
        "under the policy as it is now: unconfigured\n" in log, log
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "unconfigured"
