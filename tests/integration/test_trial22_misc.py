# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 22 (fresh eyes), miscellaneous: a local apply deferred for a drain of a simulated host
names the sriov-persistd that drains it, not systemctl (which starts the daemon of this machine,
its /etc layouts and its hardware); a drift that [Drift] Mode=report leaves says when its repair
is disruptive what the apply that repairs it does under [Disruption] Policy=, in status,
GetStatus and the daemon's LastError; a reset that leaves the switchdev sriov-persist set keeps a
status record of its own (by "reset"), and says truly whose the VFs an eswitch change made again
are."""

import json

from conftest import PF_IFACE, pf_path
from test_check_credentials import k8s_notify_bin  # noqa: F401 (fixture)
from test_daemon import NO_BUS, configured_host, sync
from test_trial17_hints import WAIT, apply_on, deferred_for_a_drain, kubernetes_conf, layout
from test_trial21_eswitch import SWITCHDEV, hand_made

E810 = "0000:3b:00.0"
ICE = "0000:3b:00.0"


def options(h):
    return f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"


def daemon_hint(h, k8s_notify):
    """The reason of a PF deferred for a drain that no sriov-persistd runs for, of h."""
    cmd = f"sriov-persistd{options(h)} --k8s-notify {k8s_notify}"
    return (WAIT + "only sriov-persistd does, and none runs for this host: nothing drains until "
            f"one does (start one for it: {cmd}; see sriov-persistd(8)), or [Disruption] "
            "Policy=immediate applies without a drain")


def status_of(h, pci, *args):
    r = h.run("status", "--json", pci, *args, env=NO_BUS)
    assert r.returncode in (0, 1), r
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


# --- 1. the daemon that drains a simulated host ------------------------------------------------

def test_a_deferred_apply_of_a_simulated_host_names_its_own_daemon(make_host,
                                                                   k8s_notify_bin):  # noqa: F811
    """--host: systemctl start sriov-persistd would start the daemon of this machine (its /etc
    layouts, its hardware), which never drains the snapshot. The reason names the command that
    does, with the options given; status keeps it."""
    h = deferred_for_a_drain(make_host)
    why = daemon_hint(h, k8s_notify_bin)
    r = apply_on(h, h.path, k8s_notify_bin, NO_BUS)
    assert r.returncode == 1 and r.stdout == f"{E810} (ens1f0): deferred: {why}\n", r
    assert "systemctl" not in r.stdout, r.stdout
    pf = status_of(h, E810)
    assert pf["state"] == "deferred" and pf["reason"] == why, pf


def test_a_deferred_reset_of_a_simulated_host_names_its_own_daemon(make_host,
                                                                   k8s_notify_bin):  # noqa: F811
    """The same for a reset that waits for a drain."""
    h = make_host("e810.json")
    f = h.layout("50-e810.conf", layout(E810, 4))
    assert h.run("apply", E810, env=NO_BUS).returncode == 0
    f.unlink()
    h.main = kubernetes_conf(h)
    r = h.run("--k8s-notify", k8s_notify_bin, "reset", E810, env=NO_BUS)
    why = daemon_hint(h, k8s_notify_bin)
    assert r.returncode == 1 and r.stdout == (
        f"{E810} (ens1f0): deferred: resetting what sriov-persist created waits: {why}\n"), r
    assert h.pf(E810)["num_vfs"] == 4


# --- 2. a drift that Mode=report leaves, whose repair is disruptive ----------------------------

def six_vfs_drifted_to_four(make_host, main_text):
    """6 VFs applied (Policy=immediate), then main_text (with [Drift] Mode=report), and someone
    sets 4 VFs by hand."""
    h = make_host("e810.json")
    h.layout("50-e810.conf", layout(E810, 6))
    assert h.run("apply", E810, env=NO_BUS).returncode == 0
    h.main.write_text(main_text)
    s = h.state()
    pf = h.pf_of(s, E810)
    pf["num_vfs"], pf["vfs"] = 4, pf["vfs"][:4]
    h.save(s)
    return h


def kept(h, line, then):
    return (f"not repaired ([Drift] Mode=report in {h.main}:{line}); sriovctl{options(h)} apply "
            f"{E810} {then}")


def test_a_disruptive_repair_under_policy_drain_goes_through_a_drain(make_host,
                                                                     k8s_notify_bin):  # noqa: F811
    h = six_vfs_drifted_to_four(make_host, "[Drift]\nMode=report\n")
    h.main = kubernetes_conf(h)
    h.main.write_text(h.main.read_text() + "[Drift]\nMode=report\n")
    why = kept(h, 5, "repairs it through a drain ([Disruption] Policy=drain)")
    pf = status_of(h, E810)
    assert pf["state"] == "drifted" and pf["reason"].endswith(f"; {why}"), pf
    assert "6 VFs wanted, 4 present" in pf["reason"], pf
    r = h.run("status", E810, env=NO_BUS)
    assert f"; {why}\n" in r.stdout, r.stdout
    # what it says is what happens: that apply is deferred for the drain
    r = h.run("--k8s-notify", k8s_notify_bin, "apply", E810, env=NO_BUS)
    assert r.returncode == 1 and "deferred: disruptive changes wait for a drain" in r.stdout, r
    assert h.pf(E810)["num_vfs"] == 4


def test_a_disruptive_repair_under_policy_never_is_held(make_host):
    h = six_vfs_drifted_to_four(make_host, "[Drift]\nMode=report\n[Disruption]\nPolicy=never\n")
    why = kept(h, 2, "does not repair it either: the repair is disruptive, and [Disruption] "
               f"Policy=never holds it; set Policy=drain or immediate in {h.main}:4 to let it "
               "run, or make the change by hand")
    pf = status_of(h, E810)
    assert pf["state"] == "drifted" and pf["reason"].endswith(f"; {why}"), pf
    r = h.run("apply", E810, env=NO_BUS)
    assert r.returncode == 1 and r.stdout.endswith(
        f"deferred: disruptive changes held by [Disruption] Policy=never in {h.main}:4; set "
        "Policy=drain or immediate there to let them run, or make the change by hand\n"), r
    # a drift that destroys nothing is repaired by that apply, as it says
    h.layout("50-e810.conf", layout(E810, 4, "[VirtualFunction]\nTrust=yes\n"))
    assert h.run("apply", E810, env=NO_BUS).returncode == 0
    s = h.state()
    h.pf_of(s, E810)["vfs"][1]["trust"] = False
    h.save(s)
    pf = status_of(h, E810)
    assert pf["state"] == "drifted" and pf["reason"].endswith(kept(h, 2, "repairs it")), pf


def test_the_daemon_says_the_same_in_last_error(make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810: (4, 10)}, mode="report", policy="never")
    # making VFs destroys nothing: Policy=never lets it run
    assert h.run("apply", E810, env=NO_BUS).returncode == 0
    start_daemon(h)

    def change(s):
        pf = h.pf_of(s, E810)
        pf["num_vfs"], pf["vfs"] = 2, pf["vfs"][:2]
    h.edit(change)
    c.wait_property("State", "drifted", path=pf_path(E810), iface=PF_IFACE)
    sync(c)
    why = (f"not repaired ([Drift] Mode=report in {h.main}:4); sriovctl apply {E810} does not "
           "repair it either: the repair is disruptive, and [Disruption] Policy=never holds it; "
           f"set Policy=drain or immediate in {h.main}:6 to let it run, or make the change by hand")
    assert c.get("LastError", pf_path(E810), PF_IFACE) == why
    pf = next(p for p in json.loads(c.call("GetStatus"))["pfs"] if p["pci"] == E810)
    assert pf["state"] == "drifted" and pf["reason"].endswith(why), pf


# --- 3. a reset that leaves the switchdev sriov-persist set ------------------------------------

def test_a_reset_that_keeps_the_switchdev_keeps_a_record_of_its_own(make_host):
    """ice, 2 VFs made by hand (VF 0 VLAN 33 and trust, VF 1 a MAC); a switchdev-only layout
    applied (ice: the VFs removed, the mode set, 2 made again without their settings), then
    removed. The reset changes nothing, but the switchdev stays sriov-persist's: its status
    record is the reset's, not dropped (LAST APPLY/RESET was "-")."""
    h = hand_made(make_host)
    s = h.state()
    h.pf_of(s, ICE)["vfs"][1]["mac"] = "02:00:00:00:00:aa"
    h.save(s)
    f = h.layout("50-switchdev.conf", SWITCHDEV)
    assert h.run("apply", ICE, env=NO_BUS).returncode == 0
    f.unlink()
    applied = status_of(h, ICE)["last_apply"]
    assert applied["by"] == "apply", applied

    r = h.run("reset", ICE, env=NO_BUS)
    whose = ("2 VF(s) exist, as many as before sriov-persist set switchdev (an administrator or "
             "another tool made them; sriov-persist removed them to change the eswitch mode and "
             "made as many again, not VFs of its own); left as they are")
    assert r.returncode == 0 and r.stdout.startswith(f"{ICE} (ens1f0): nothing reset: {whose}"), r
    assert "were there before" not in r.stdout, r.stdout
    pf = h.pf(ICE)
    assert pf["num_vfs"] == 2 and pf["eswitch_mode"] == "switchdev", pf
    st = status_of(h, ICE)
    last = st["last_apply"]
    assert last and last["by"] == "reset" and last["state"] == "applied", st
    assert last["finished_usec"] >= applied["finished_usec"] and last["actions"] == 0, last
    assert st["state"] == "unconfigured" and st["reason"].startswith(whose), st
    row = h.run("status", ICE, env=NO_BUS).stdout.splitlines()[1]
    assert row.startswith(ICE) and not row.endswith(" -"), row

    # the VFs removed by hand: the reset sets legacy, nothing of sriov-persist's is left, and
    # the record goes
    def no_vfs(s):
        p = h.pf_of(s, ICE)
        p["num_vfs"], p["vfs"] = 0, []
    h.edit(no_vfs)
    r = h.run("reset", ICE, env=NO_BUS)
    assert r.returncode == 0 and f"{ICE} (ens1f0): reset, 1 action(s); 0 VFs\n" in r.stdout, r
    assert h.pf(ICE)["eswitch_mode"] == "legacy"
    assert status_of(h, ICE)["last_apply"] is None
