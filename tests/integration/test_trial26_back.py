# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 26 (fresh eyes): a PF that goes and comes back while the daemon runs, with a status
record of before it went, is its apply unit's, as a PF new to the host is: pending, no drift, not
applied by the daemon, until the apply unit writes a newer record (2)."""

import json
from pathlib import Path

import pytest

from conftest import PF_IFACE, pf_path
from test_daemon import E810_A, NO_BUS, apply_all, configured_host, main_config, sync
from test_reset_daemon import MAIN as RESET_MAIN, ctl
from test_trial25_wording import unplug

REPO = Path(__file__).resolve().parents[2]


def returned(h):
    return (f"not applied since it came back: it appeared again while the daemon ran (hotplug); "
            f"its apply unit, sriov-persist-apply@{E810_A}.service, which udev starts then, "
            f"applies it and has written no record since (its record is of before it went); "
            f"sriovctl apply {E810_A} applies it")


# --- 2 ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["repair", "report"])
def test_a_pf_that_came_back_is_its_apply_units(make_host, start_daemon, bus_client, mode):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode=mode)
    d = start_daemon(h)
    apply_all(c, [E810_A])
    pf = unplug(h, E810_A)
    c.wait(lambda: f"{E810_A} (ens1f0): gone from the host" in d.log_text(), what="gone")
    h.edit(lambda s: s["pfs"].insert(0, pf))
    c.wait(lambda: "on the host again (hotplug)" in d.log_text(), what="back")
    c.wait_property("State", "pending", path=pf_path(E810_A), iface=PF_IFACE)
    sync(c)
    assert c.get("State", path=pf_path(E810_A), iface=PF_IFACE) == "pending"
    assert c.get("LastError", path=pf_path(E810_A), iface=PF_IFACE) == returned(h)
    doc = json.loads(c.call("GetStatus"))
    pf_doc = next(p for p in doc["pfs"] if p["pci"] == E810_A)
    assert pf_doc["state"] == "pending" and pf_doc["reason"] == returned(h), pf_doc
    assert doc["daemon"]["drifted"] is False, doc["daemon"]
    log = d.log_text()
    assert "drifted from its layout" not in log and "applied after" not in log.split(
        "on the host again")[1], log
    assert h.pf(E810_A)["num_vfs"] == 0, "the daemon applied it"
    # the apply unit (here sriovctl apply, without the daemon) writes a newer record
    r = h.run("apply", E810_A, env=NO_BUS)
    assert r.returncode == 0, r
    c.wait_property("State", "applied", path=pf_path(E810_A), iface=PF_IFACE)
    assert h.pf(E810_A)["num_vfs"] == 4


def test_a_pf_that_came_back_as_its_layout_wants_is_applied(make_host, start_daemon, bus_client):
    """No apply unit runs for a simulated host: one that comes back with what its layout wants
    (VFs kept, as across a re-plug of the host file) has nothing left for one, and is applied."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)})
    d = start_daemon(h)
    apply_all(c, [E810_A])
    pf = h.pf(E810_A)
    h.edit(lambda s: s.update(pfs=[p for p in s["pfs"] if p["pci"] != E810_A]))
    c.wait(lambda: f"{E810_A} (ens1f0): gone from the host" in d.log_text(), what="gone")
    h.edit(lambda s: s["pfs"].insert(0, pf))
    c.wait(lambda: "on the host again (hotplug)" in d.log_text(), what="back")
    sync(c)
    assert c.get("State", path=pf_path(E810_A), iface=PF_IFACE) == "applied"
    assert c.get("LastError", path=pf_path(E810_A), iface=PF_IFACE) == ""


# --- 5 ----------------------------------------------------------------------------------------

CX7 = "0000:1a:00.0"  # cx7-ib.json: 2 VFs present; conf.d/65-cx7-infiniband.conf wants 8


def test_a_first_apply_held_by_policy_never_names_what_lets_it_run(make_host):
    h = make_host("cx7-ib.json")
    main_config(h, "report", "never")
    h.layout("65-cx7-infiniband.conf", (REPO / "conf.d" / "65-cx7-infiniband.conf").read_text())
    r = h.run("status", "--json", CX7, env=NO_BUS)
    pf = next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == CX7)
    assert pf["state"] == "pending", pf
    assert pf["reason"].endswith(
        f"does not apply it either: the change is disruptive, and [Disruption] Policy=never "
        f"holds it; set Policy=drain or immediate in {h.main}:6 to let it run, or make the "
        "change by hand"), pf


# --- 7 ----------------------------------------------------------------------------------------

NO_K8S = ("Kubernetes is not enabled ([Kubernetes] Enabled= is not set, and auto, its default, "
          "found no credentials)")
RESET_LAYOUT = "[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=4\n"


def test_a_reset_without_a_drain_says_so(make_host):
    h = make_host("e810.json")
    h.main.write_text("[Disruption]\nPolicy=drain\n[Kubernetes]\nEnabled=no\n")
    h.layout("50-e810.conf", RESET_LAYOUT)
    assert h.run("apply", env=NO_BUS).returncode == 0
    (h.confdir / "50-e810.conf").unlink()
    r = h.run("reset", "ens1f0", env=NO_BUS)
    assert r.returncode == 0, r
    assert r.stdout.endswith(
        f"{E810_A} (ens1f0): reset, 1 action(s); 0 VFs\n  note: disruptive, without a drain: "
        "Kubernetes is not enabled ([Kubernetes] Enabled=no)\n"), r


@pytest.mark.parametrize("every", [False, True])
def test_a_reset_through_the_daemon_without_a_drain_says_so(make_host, start_daemon, bus_client,
                                                             system_bus, every):
    c = bus_client
    h = make_host("e810.json")
    h.main.write_text(RESET_MAIN.format(policy="drain"))
    h.layout("50-e810.conf", RESET_LAYOUT)
    d = start_daemon(h)
    apply_all(c, [E810_A])
    (h.confdir / "50-e810.conf").unlink()
    c.wait_property("State", "unconfigured", pf_path(E810_A), PF_IFACE)
    r = ctl(h, system_bus, "reset", *([] if every else ["ens1f0"]))
    assert r.returncode == 0 and r.stderr == "", r
    assert r.stdout == (f"{E810_A} (ens1f0): reset, 1 action(s); 0 VFs\n  note: disruptive, "
                        f"without a drain: {NO_K8S}\n"), r
    assert h.pf(E810_A)["num_vfs"] == 0
    c.wait(lambda: f"{E810_A} (ens1f0): the disruptive change ran without a drain ([Disruption] "
           f"Policy=drain): {NO_K8S}" in d.log_text(), what="the journal line")


# --- 4 ----------------------------------------------------------------------------------------

def count_layout(n):
    return f"[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions={n}\n"


def made_by_hand(h):
    """ens1f0's 2 VFs made 4 in the host file, as the deferred reason suggests."""
    def change(s):
        pf = h.pf_of(s, E810_A)
        extra = [dict(pf["vfs"][1], index=i, pci=f"0000:3b:01.{i}", name=f"ens1f0v{i}")
                 for i in (2, 3)]
        pf["vfs"] = pf["vfs"] + extra
        pf["num_vfs"] = 4
    h.edit(change)


def deferred_then_made_by_hand(make_host):
    h = make_host("e810.json")
    main_config(h, "report", "never")
    h.layout("50-e810.conf", count_layout(2))
    assert h.run("apply", env=NO_BUS).returncode == 0
    h.layout("50-e810.conf", count_layout(4))
    r = h.run("apply", E810_A, env=NO_BUS)
    assert r.returncode == 1 and "deferred: " in r.stdout, r
    return h


def test_a_deferred_change_made_by_hand_is_applied_for_wait_and_status(make_host):
    h = deferred_then_made_by_hand(make_host)
    made_by_hand(h)
    r = h.run("status", E810_A, env=NO_BUS)
    assert r.returncode == 0 and " applied " in r.stdout, r
    assert "    last apply: deferred (the host has what it wanted now): disruptive changes held " \
        "by [Disruption] Policy=never" in r.stdout, r.stdout
    r = h.run("wait", "--timeout", "5", env=NO_BUS)
    assert r.returncode == 0 and "Not applied" not in r.stdout + r.stderr, r


def test_the_daemon_says_a_deferred_change_was_made_by_hand(make_host, start_daemon, bus_client):
    c = bus_client
    h = make_host("e810.json")
    main_config(h, "report", "never")
    h.layout("50-e810.conf", count_layout(2))
    d = start_daemon(h)
    apply_all(c, [E810_A])
    h.layout("50-e810.conf", count_layout(4))
    c.call("Reload")
    c.wait_property("State", "deferred", path=pf_path(E810_A), iface=PF_IFACE)
    made_by_hand(h)
    c.wait_property("State", "applied", path=pf_path(E810_A), iface=PF_IFACE)
    c.wait(lambda: f"{E810_A} (ens1f0): the deferred change was made by hand: the host has what "
           "its layout wants now" in d.log_text(), what="the journal line")
