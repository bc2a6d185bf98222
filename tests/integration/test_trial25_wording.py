# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 26 (fresh eyes), wording: the firmware VF limit raised through another port of the card
is said as raised by that port's apply, not "for" it (1); the command that sets a raised limit
back, one setting of the card, says on each port's line that it is one command for the card
(2); a simulated host with two firmware VF limits on two ports of one card is refused, touching
nothing (3); sriovctl status of a gone PF named warns of no layout file that does not concern it
(4); under [Drift] Mode=report a PF that appears while the daemon runs says what applies it, the
journal says that it appeared, and that a gone PF's record stays until it comes back or a reset
drops it (5)."""

import json
import re

from conftest import PF_IFACE, pf_path
from test_daemon import E810_A, NO_BUS, apply_all, configured_host, sync
from test_reset_daemon import ctl
from test_trial21_firmware import block

CX6_A = "0000:ca:00.0"  # cx6dx.json: two ports of one card, sriov_totalvfs and NUM_OF_VFS 8
CX6_B = "0000:ca:00.1"
E810_B = "0000:3b:00.1"


def run(h, *args):
    return h.run(*args, env=NO_BUS)


def cx6_layout(h, name, pci, n):
    return h.layout(name, f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\n"
                    f"VirtualFunctions={n}\n")


# --- 1 ----------------------------------------------------------------------------------------

def test_a_raise_through_the_other_port_is_said_as_made_by_its_apply(make_host):
    h = make_host("cx6dx.json")
    cx6_layout(h, "50-p0.conf", CX6_A, 12)
    cx6_layout(h, "51-p1.conf", CX6_B, 16)
    plan = run(h, "plan").stdout
    assert f"(raised by the apply of {CX6_A}, one setting of this card) takes effect after a " \
        "reboot" in block(plan, CX6_B), plan
    before = run(h, "status").stdout
    assert f"firmware VF limit 8 (to be raised by the apply of {CX6_A}, one setting of this " \
        "card)" in block(before, CX6_B), before
    assert run(h, "apply").returncode == 0
    out = run(h, "status").stdout
    assert "firmware VF limit 16 from the next reboot, 8 until then (raised by the apply of " \
        f"{CX6_A}, one setting of this card: a reboot is pending through it)" \
        in block(out, CX6_B), out
    js = run(h, "status", "--json").stdout
    for text in (plan, before, out, js, run(h, "plan").stdout):
        assert "raised for 0000" not in text and "to be raised for" not in text, text


# --- 2 ----------------------------------------------------------------------------------------

def test_the_set_back_command_is_said_as_one_command_for_the_card(make_host):
    h = make_host("cx6dx.json")
    a = cx6_layout(h, "50-p0.conf", CX6_A, 16)
    assert run(h, "apply").returncode == 0
    a.unlink()
    out = run(h, "status").stdout
    once = "(one command for the card, not one per port)"
    assert f"no layout selects it; \"mstconfig -d {CX6_A} set NUM_OF_VFS=8\" sets the limit back " \
        f"to the one it has now, for {CX6_B} too {once}" in block(out, CX6_A), out
    assert f"; \"mstconfig -d {CX6_B} set NUM_OF_VFS=8\" sets the limit back to the one it has " \
        f"now, for {CX6_A} too {once}" in block(out, CX6_B), out
    st = {p["pci"]: p for p in json.loads(run(h, "status", "--json").stdout)["pfs"]}
    assert st[CX6_B]["firmware_note"].endswith(f"for {CX6_A} too {once}"), st[CX6_B]


# --- 3 ----------------------------------------------------------------------------------------

def test_a_host_with_two_firmware_limits_on_one_card_is_refused(make_host):
    h = make_host("cx6dx.json")
    cx6_layout(h, "50-p0.conf", CX6_A, 12)
    s = h.state()
    h.pf_of(s, CX6_B)["firmware_total_vfs"] = 16
    h.save(s)
    text = h.path.read_text()
    err = (f"{h.path}: not a simulated host snapshot: pfs[1].firmware_total_vfs: 16 on {CX6_B}, "
           f"8 on {CX6_A} (pfs[0]): one setting of the card, alike through every port\n")
    for verb in ("status", "apply"):
        r = run(h, verb)
        assert r.returncode == 1 and r.stderr.endswith(err), r
    assert h.path.read_text() == text, "a host that cannot be real was changed"
    # the same on both ports is a host
    s = h.state()
    for p in s["pfs"]:
        p["firmware_total_vfs"] = 16
    h.save(s)
    assert run(h, "status").returncode == 0


# --- 4 ----------------------------------------------------------------------------------------

def gone_with_a_file_that_selects_nothing(make_host):
    h = make_host("e810.json")
    h.layout("50.conf", f"[Match]\nPCIAddress={E810_B}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    assert run(h, "apply").returncode == 0
    h.layout("60-other.conf", "[Match]\nPCIAddress=0000:d9:00.0\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n")
    h.edit(lambda s: s.update(pfs=[p for p in s["pfs"] if p["pci"] != E810_B]))
    return h


def test_the_status_of_a_gone_pf_named_warns_of_no_other_file(make_host):
    h = gone_with_a_file_that_selects_nothing(make_host)
    whole = run(h, "status")
    assert "selects no PF" in whole.stderr, whole  # the whole host's status warns of them
    r = run(h, "status", E810_B)
    assert r.returncode == 1 and " gone " in r.stdout, r
    assert "selects no PF" not in r.stderr and r.stderr == "", r
    r = run(h, "status", "--json", E810_B)
    assert r.stderr == "" and json.loads(r.stdout)["pfs"][0]["state"] == "gone", r


def test_the_status_of_a_gone_pf_named_through_the_daemon_warns_of_nothing(
        make_host, start_daemon, bus_client, system_bus):
    h = gone_with_a_file_that_selects_nothing(make_host)
    start_daemon(h)
    sync(bus_client)
    r = ctl(h, system_bus, "status", E810_B)
    assert r.returncode == 1 and " gone " in r.stdout and r.stderr == "", r


# --- 5 ----------------------------------------------------------------------------------------

def unplug(h, pci):
    s = h.state()
    pf = h.pf_of(s, pci)
    h.edit(lambda s: s.update(pfs=[p for p in s["pfs"] if p["pci"] != pci]))
    pf.update(vfs=[], num_vfs=0)  # a new device: no VFs
    return pf


def test_report_mode_says_what_applies_a_pf_that_came_back(make_host, start_daemon, bus_client,
                                                          system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    pf = unplug(h, E810_A)
    gone = (f"{E810_A} (ens1f0): gone from the host; its status record stays until it comes back, "
            f"or \"sriovctl reset {E810_A}\" drops it")
    c.wait(lambda: gone in d.log_text(), what="the gone line")
    r = ctl(h, system_bus, "reset", E810_A)  # drops its record, as status says
    assert r.returncode == 0, r
    h.edit(lambda s: s["pfs"].insert(0, pf))
    c.wait(lambda: f"{E810_A} (ens1f0): appeared on the host (hotplug)" in d.log_text(),
           what="the line of a PF that appeared")
    c.wait_property("State", "pending", path=pf_path(E810_A), iface=PF_IFACE)
    sync(c)
    why = (f"not applied yet: it appeared while the daemon ran (hotplug); its apply unit, "
           f"sriov-persist-apply@{E810_A}.service, which udev starts then, applies it ([Drift] "
           f"Mode=report in {h.main}:4 does not hold that back) and has written no record; "
           f"sriovctl apply {E810_A} applies it")
    assert c.get("LastError", path=pf_path(E810_A), iface=PF_IFACE) == why
    doc = json.loads(c.call("GetStatus"))
    assert next(p for p in doc["pfs"] if p["pci"] == E810_A)["reason"] == why, doc
    assert "applies nothing at start" not in d.log_text() + json.dumps(doc)
    assert h.pf(E810_A)["num_vfs"] == 0, "report mode applied it"


def test_the_journal_says_a_pf_is_on_the_host_again(make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    pf = unplug(h, E810_A)
    c.wait(lambda: f"{E810_A} (ens1f0): gone from the host" in d.log_text(), what="gone")
    h.edit(lambda s: s["pfs"].insert(0, pf))
    c.wait(lambda: re.search(re.escape(f"{E810_A} (ens1f0): on the host again (hotplug); its "
                                       "status record is of before it went"), d.log_text()),
           what="the line of a PF that came back")
