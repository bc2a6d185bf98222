# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 27 (fresh eyes), a PF that no layout selects any more: a deferred reset whose VFs were
removed by hand since is pending, not deferred: nothing disruptive is left for it, and it runs
now, as status (locally and through the daemon), GetStatus(), the PF object and the manual say,
the way a relaxed policy is said, not as the hint of a reset still deferred (3); LAST APPLY/RESET shows
"-" exactly when --json has no last_apply, as the manual says: an apply drops the record of a PF
that no layout selects, with VFs left or not (8)."""

import json
import re

from conftest import PF_IFACE, pf_path
from test_daemon import E810_A, E810_B, NO_BUS, apply_all, configured_host, sync
from test_trial19_misc import man_text
from test_trial24_deferred_reset import ctl, deferred_reset_of_b, options, pf_of

GONE = ("it has no VFs; the 2 that sriov-persist created are gone (a reboot, or a change outside "
        "sriov-persist)")
NOW = (GONE + "; not reset since its last reset was deferred by [Disruption] Policy=never, and "
       "nothing disruptive is left for it now ({cmd} runs it)")
OLD = "set Policy=drain or immediate there to let them run, or make the change by hand"


def vfs_removed_by_hand(h, pci):
    def change(s):
        pf = h.pf_of(s, pci)
        pf["num_vfs"], pf["vfs"] = 0, []
    h.edit(change)


# --- 3 ----------------------------------------------------------------------------------------

def assert_pending_now(out, cmd):
    """The status of E810_B: pending, with what runs it now, and what waited only as its last
    reset."""
    row = next(line for line in out.splitlines() if line.startswith(E810_B + " "))
    assert row.split()[6] == "pending", out
    assert f"    {NOW.format(cmd=cmd)}\n" in out, out
    assert f'    "{cmd}" runs it now\n' in out, out
    assert "once it is no longer deferred" not in out, out
    assert "when run again, once [Disruption] Policy= lets it run" not in out, out
    # what waited is said as the last reset's, not as why it waits now
    assert f" runs it)\n    last reset: deferred: resetting what sriov-persist created waits: " \
        "disruptive changes held by [Disruption] Policy=never in " in out, out


def test_a_deferred_reset_with_nothing_disruptive_left_runs_now(make_host):
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)},
                        policy="never")
    assert h.run("apply", env=NO_BUS).returncode == 0
    deferred_reset_of_b(h, lambda *a: h.run(*a, env=NO_BUS))
    cmd = f"sriovctl{options(h)} reset {E810_B}"
    r = h.run("status", E810_B, env=NO_BUS)
    assert r.returncode == 1 and f'    no layout selects it; "{cmd}" removes the VFs left from its removed layout when run ' \
        "again, once [Disruption] Policy= lets it run\n" in r.stdout, r
    vfs_removed_by_hand(h, E810_B)
    # pending, not a failure: the reset runs now, and status says what runs it
    r = h.run("status", E810_B, env=NO_BUS)
    assert r.returncode == 0, r
    assert_pending_now(r.stdout, cmd)
    r = h.run("status", env=NO_BUS)
    assert r.returncode == 0, r
    assert_pending_now(r.stdout, cmd)
    b = pf_of(json.loads(h.run("status", "--json", env=NO_BUS).stdout), E810_B)
    assert (b["state"], b["reason"], b["reset_waits"]) == ("pending", NOW.format(cmd=cmd), None), b
    assert OLD not in b["reason"] and b["last_apply"]["state"] == "deferred", b
    # wait does not wait for a PF that no layout selects, nor fails for it
    r = h.run("wait", "--timeout", "5", env=NO_BUS)
    assert r.returncode == 0 and E810_B not in r.stdout + r.stderr, r
    assert "1 configured PF(s): 1 applied, 0 not" in r.stdout, r
    # and the manuals say so
    man = " ".join(man_text("sriovctl.8").split())
    assert ("when nothing disruptive is left for it to wait for (the VFs were removed by hand "
            "since, as its reason advises), the reset runs now, whatever the policy, and the PF "
            "is pending, not deferred") in man
    assert ("; not reset since its last reset was deferred by [Disruption] Policy=never, and "
            "nothing disruptive is left for it now (sriovctl reset 0000:3b:00.0 runs it)") in man
    assert ("a reset of it that is deferred, failed or pending in status neither holds the gate "
            "nor fails it") in man
    dbus = " ".join(man_text("org.sriovpersist1.5").split())
    assert ("such a deferred reset on which nothing disruptive is left for it since, its VFs "
            "removed by hand: pending, with LastError \"it has no VFs; the 2 that sriov-persist "
            "created are gone") in dbus
    # what it says is what happens: the reset runs at once, and drops the record
    r = h.run("reset", E810_B, env=NO_BUS)
    assert r.returncode == 0 and r.stdout.startswith(f"{E810_B} (ens1f1): nothing reset: "), r
    b = pf_of(json.loads(h.run("status", "--json", env=NO_BUS).stdout), E810_B)
    assert b["last_apply"] is None and b["state"] == "unconfigured", b


def test_the_daemon_says_the_same(make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)},
                        policy="never")
    start_daemon(h)
    apply_all(c, [E810_A, E810_B])

    def settled():
        c.wait(lambda: pf_of(json.loads(c.call("GetStatus")), E810_B)["state"] ==
               "unconfigured", what="the reload of the removed layout")
        sync(c)

    deferred_reset_of_b(h, lambda *a: ctl(h, system_bus, *a), settled)
    assert c.get("State", pf_path(E810_B), PF_IFACE) == "deferred"
    vfs_removed_by_hand(h, E810_B)
    now = NOW.format(cmd=f"sriovctl reset {E810_B}")
    # the PF object as GetStatus() says it, and the manager not degraded for it
    c.wait_property("State", "pending", pf_path(E810_B), PF_IFACE)
    sync(c)
    assert c.get("LastError", pf_path(E810_B), PF_IFACE) == now
    assert c.get("State") == "idle"
    b = pf_of(json.loads(c.call("GetStatus")), E810_B)
    assert (b["state"], b["reason"], b["reset_waits"]) == ("pending", now, None), b
    r = ctl(h, system_bus, "status", E810_B)
    assert r.returncode == 0, r
    assert_pending_now(r.stdout, f"sriovctl reset {E810_B}")
    r = ctl(h, system_bus, "reset", E810_B)
    assert r.returncode == 0 and f"{E810_B} (ens1f1): nothing reset: " in r.stdout, r
    c.wait_property("State", "unconfigured", pf_path(E810_B), PF_IFACE)


# --- 8 ----------------------------------------------------------------------------------------

def last_column(out, pci):
    row = next(line for line in out.splitlines() if line.startswith(pci + " "))
    return re.split(r"\s{2,}", row.strip())[-1]


def test_last_apply_column_and_json_agree_on_a_pf_left_with_vfs(make_host):
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)})
    assert h.run("apply", env=NO_BUS).returncode == 0
    (h.confdir / f"50-{E810_A}.conf").unlink()
    # before an apply: the record of its last apply, and its time
    a = pf_of(json.loads(h.run("status", "--json", env=NO_BUS).stdout), E810_A)
    assert a["last_apply"] and a["last_apply"]["by"] == "apply", a
    r = h.run("status", env=NO_BUS)
    assert last_column(r.stdout, E810_A) != "-", r.stdout
    # an apply of every PF drops it, VFs left or not: "-", as --json says
    assert h.run("apply", env=NO_BUS).returncode == 0
    a = pf_of(json.loads(h.run("status", "--json", env=NO_BUS).stdout), E810_A)
    assert a["last_apply"] is None and a["reason"] == "4 VFs left from a removed layout", a
    r = h.run("status", env=NO_BUS)
    assert last_column(r.stdout, E810_A) == "-", r.stdout
    assert "    4 VFs left from a removed layout\n" in r.stdout, r.stdout
    # and the manual says when "-" is shown, this case among them
    man = " ".join(man_text("sriovctl.8").split())
    assert ("- when the PF has none, and last_apply is then null: it was never applied; or a reset "
            "removed what sriov-persist created and dropped its record, see reset; or no layout "
            "selects it any more and an apply since, of every PF (sriov-persistd's on the reload "
            "that the removal causes), dropped the record of its last apply, also when VFs are "
            "left from the removed layout") in man
