# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 25: under [Drift] Mode=report a PF never applied is pending, and its reason names the
command that applies it; when its apply is disruptive (VFs made by hand that a new count must
remove first) and [Disruption] Policy= holds that change, the reason says what that command does
instead, as the reason of a drift that Mode=report keeps does: "does not apply it either" under
Policy=never (the apply is deferred), "applies it through a drain" under Policy=drain. The same
words in sriovctl status (local and through the daemon), GetStatus() and the PF's LastError."""

import json
import os
import subprocess

from conftest import PF_IFACE, pf_path
from test_check_credentials import k8s_notify_bin  # noqa: F401 (fixture)
from test_daemon import MIXED_ICE, NO_BUS, main_config, sync
from test_trial17_hints import kubernetes_conf, layout

HELD = ("does not apply it either: the change is disruptive, and [Disruption] Policy=never "
        "holds it")


def held(h):
    """HELD, with what lets it run, as the deferred apply's reason says (Policy= on line 6)."""
    return (f"{HELD}; set Policy=drain or immediate in {h.main}:6 to let it run, or make the "
            "change by hand")


def options(h):
    return f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"


def not_applied(h, line, then, opts=""):
    return (f"not applied yet: [Drift] Mode=report in {h.main}:{line} applies nothing at start; "
            f"sriovctl{opts} apply {MIXED_ICE} {then}")


def two_made_by_hand_four_wanted(make_host, policy):
    """mixed.json: the ice PF has 2 VFs another tool made; its layout wants 4 (the 2 go first)."""
    h = make_host("mixed.json")
    main_config(h, "report", policy)
    h.layout(f"50-{MIXED_ICE}.conf", layout(MIXED_ICE, 4))
    return h


def status_of(h, env=NO_BUS):
    r = h.run("status", "--json", MIXED_ICE, env=env)
    assert r.returncode in (0, 1), r
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == MIXED_ICE)


def ctl(h, system_bus, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    return subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def test_a_disruptive_first_apply_held_by_policy_never_says_so(make_host):
    h = two_made_by_hand_four_wanted(make_host, "never")
    pf = status_of(h)
    assert pf["state"] == "pending", pf
    assert pf["reason"] == not_applied(h, 4, held(h), options(h)), pf
    r = h.run("status", MIXED_ICE, env=NO_BUS)
    assert f"\n    {not_applied(h, 4, held(h), options(h))}\n" in r.stdout, r.stdout
    # what it says is what happens: that apply is deferred, nothing changed
    r = h.run("apply", MIXED_ICE, env=NO_BUS)
    assert r.returncode == 1 and "deferred: disruptive changes held by [Disruption] " \
        "Policy=never in " in r.stdout and r.stdout.endswith(
            "; set Policy=drain or immediate there to let them run, or make the change by "
            "hand\n"), r
    assert h.pf(MIXED_ICE)["num_vfs"] == 2


def test_a_disruptive_first_apply_under_policy_drain_goes_through_a_drain(
        make_host, k8s_notify_bin):  # noqa: F811
    h = two_made_by_hand_four_wanted(make_host, "immediate")
    h.main = kubernetes_conf(h)
    h.main.write_text(h.main.read_text() + "[Drift]\nMode=report\n")
    why = not_applied(h, 5, "applies it through a drain ([Disruption] Policy=drain)", options(h))
    pf = status_of(h)
    assert pf["state"] == "pending" and pf["reason"] == why, pf
    r = h.run("--k8s-notify", k8s_notify_bin, "apply", MIXED_ICE, env=NO_BUS)
    assert r.returncode == 1 and "deferred: disruptive changes wait for a drain" in r.stdout, r
    assert h.pf(MIXED_ICE)["num_vfs"] == 2


def test_a_first_apply_that_destroys_nothing_is_applied_by_that_command(make_host):
    """Policy=never holds disruptive changes only: VFs made anew on a PF without any are not."""
    h = make_host("mixed.json")
    main_config(h, "report", "never")
    pci = "0000:d8:00.0"
    h.layout(f"50-{pci}.conf", layout(pci, 4))
    pf = next(p for p in json.loads(h.run("status", "--json", env=NO_BUS).stdout)["pfs"]
              if p["pci"] == pci)
    assert pf["state"] == "pending" and pf["reason"].endswith(f"apply {pci} applies it"), pf
    assert h.run("apply", pci, env=NO_BUS).returncode == 0
    assert h.pf(pci)["num_vfs"] == 4


def test_the_daemon_says_the_same(make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h = two_made_by_hand_four_wanted(make_host, "never")
    start_daemon(h)
    sync(c)
    why = not_applied(h, 4, held(h))
    assert c.get("State", pf_path(MIXED_ICE), PF_IFACE) == "pending"
    assert c.get("LastError", pf_path(MIXED_ICE), PF_IFACE) == why
    pf = next(p for p in json.loads(c.call("GetStatus"))["pfs"] if p["pci"] == MIXED_ICE)
    assert pf["state"] == "pending" and pf["reason"] == why, pf
    r = ctl(h, system_bus, "status", MIXED_ICE)
    assert f"\n    {why}\n" in r.stdout, r.stdout
    assert h.pf(MIXED_ICE)["num_vfs"] == 2
