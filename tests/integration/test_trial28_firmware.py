# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 28 (fresh eyes), firmware of a two-port ConnectX card (cx6dx.json, one NUM_OF_VFS): the
port whose apply waits for the card raise another port's apply made waits for the reboot in its
metrics too (sriov_persist_pf_reboot_pending 1, its reason the card-wait one), while status
--json credits the pending reboot to the raising port only; sriovctl wait says the same
card-wait reason as status (4). The port whose apply raised the card's limit, its layout removed
since: status --json carries in firmware_note the mstconfig command the table shows under it, the
same words locally (whatever PFs it asks for) and through the daemon (6); the other port's
settings line still names the port through whose apply the raise is pending (7). A raise short of
what the other port's layout needs, whose own raise the disruption policy defers, says it gives
that port nothing, and its mstconfig command sets it back: no "reboot by hand" (10). A pending
reboot that goes without a reboot (the firmware set back by hand) has a journal line, as its
coming had (9)."""

import json
import re

from conftest import PF_IFACE, pf_path
from test_daemon import NO_BUS

CX6_A, CX6_B = "0000:ca:00.0", "0000:ca:00.1"


def layout(h, pci, n, name):
    return h.layout(name, f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions={n}\n")


def pf_json(h, pci, env=NO_BUS):
    r = h.run("status", "--json", env=env)
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


# --- 4: the port waiting for the card raise waits for the reboot in its metrics ----------------

RAISED12 = "firmware VF limit raised to 12, waiting for a reboot"
WAITS12 = f"{RAISED12} (the card raise made by the apply of {CX6_A})"


def card_wait_12(h):
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    layout(h, CX6_A, 12, "50-p0.conf")
    layout(h, CX6_B, 10, "51-p1.conf")
    assert h.run("apply", env=NO_BUS).returncode == 0


def test_the_port_waiting_for_the_card_raise_is_reboot_pending_in_metrics(make_host):
    h = make_host("cx6dx.json")
    card_wait_12(h)
    a, b = pf_json(h, CX6_A), pf_json(h, CX6_B)
    assert b["state"] == "pending" and b["reason"] == WAITS12, b
    # one reboot, one reason: credited to the port whose apply raised it
    assert a["pending_reboot_reasons"] == [RAISED12], a
    assert b["pending_reboot_reasons"] == [], b
    m = h.run("metrics", env=NO_BUS).stdout
    assert f'sriov_persist_pf_reboot_pending{{pf="ens3f0np0",pf_pci="{CX6_A}"}} 1' in m, m
    assert f'sriov_persist_pf_reboot_pending{{pf="ens3f1np1",pf_pci="{CX6_B}"}} 1' in m, m
    assert (f'sriov_persist_pf_reboot_pending_info{{pf="ens3f1np1",pf_pci="{CX6_B}",'
            f'reason="{WAITS12}"}} 1') in m, m
    assert (f'sriov_persist_pf_reboot_pending_info{{pf="ens3f0np0",pf_pci="{CX6_A}",'
            f'reason="{RAISED12}"}} 1') in m, m


def test_wait_says_the_card_wait_reason_as_status(make_host):
    h = make_host("cx6dx.json")
    card_wait_12(h)
    r = h.run("wait", "--timeout", "5", env=NO_BUS)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"Pending a reboot: {CX6_B} (ens3f1np1): {WAITS12}\n" in r.stdout, r.stdout
    assert f"Pending a reboot: {CX6_A} (ens3f0np0): {RAISED12}\n" in r.stdout, r.stdout


# --- 6, 7: the raising port's layout removed ---------------------------------------------------

SET_NOW = (f'"mstconfig -d {CX6_B} set NUM_OF_VFS=12" sets the limit back to the one it has now, '
           f"for {CX6_A} too (one command for the card, not one per port)")
UNASKED = re.compile(r"firmware VF limit raised to 16, waiting for a reboot \(set by the apply of "
                     r"[0-9TZ:-]+; no layout asks for it now\)")
THROUGH = (f"firmware VF limit 16 from the next reboot, 12 until then (raised by the apply of "
           f"{CX6_B}, one setting of this card: a reboot is pending through it)")


def limit12(h):
    def change(s):
        for p in s["pfs"]:
            if p["pci"] in (CX6_A, CX6_B):
                p["total_vfs"] = p["firmware_total_vfs"] = 12
            if p["pci"] == CX6_B:
                p["vf_offset"] = 40
    h.edit(change)


def raised_by_b_then_removed(h):
    limit12(h)
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    layout(h, CX6_A, 4, "50-p0.conf")
    b = layout(h, CX6_B, 16, "51-p1.conf")
    assert h.run("apply", env=NO_BUS).returncode == 0
    assert h.pf(CX6_A)["firmware_total_vfs"] == 16
    return b


def test_the_removed_raisers_note_is_in_the_json_and_said_alike(make_host):
    h = make_host("cx6dx.json")
    raised_by_b_then_removed(h).unlink()
    b = pf_json(h, CX6_B)
    assert [x for x in b["pending_reboot_reasons"] if UNASKED.fullmatch(x)], b
    assert b["firmware_note"] == SET_NOW, b
    said = f"    no layout selects it; {SET_NOW}\n"
    assert said in h.run("status", env=NO_BUS).stdout
    # a status of that PF alone says the same (the other port is not in its document)
    out = h.run("status", CX6_B, env=NO_BUS).stdout
    assert said in out, out
    assert out.count("mstconfig") == 1, out
    # 7: the other port's settings line still names the port the raise is pending through
    out = h.run("status", env=NO_BUS).stdout
    assert f", {THROUGH}\n" in out, out


def test_the_daemon_says_the_removed_raisers_note_as_sriovctl(make_host, start_daemon,
                                                              bus_client, system_bus):
    c = bus_client
    h = make_host("cx6dx.json")
    b = raised_by_b_then_removed(h)
    start_daemon(h)
    c.wait_property("State", "pending", pf_path(CX6_B), PF_IFACE)
    b.unlink()
    c.call("Reload")
    c.wait_property("State", "unconfigured", pf_path(CX6_B), PF_IFACE)
    bus = {"DBUS_SYSTEM_BUS_ADDRESS": system_bus.address}
    st = json.loads(c.call("GetStatus"))
    pb = next(p for p in st["pfs"] if p["pci"] == CX6_B)
    assert pb["firmware_note"] == SET_NOW, pb
    assert pf_json(h, CX6_B, env=bus)["firmware_note"] == SET_NOW
    said = f"    no layout selects it; {SET_NOW}\n"
    for env in (bus, NO_BUS):
        out = h.run("status", CX6_B, env=env).stdout
        assert said in out, out
        out = h.run("status", env=env).stdout
        assert said in out and f", {THROUGH}\n" in out, out


# --- 10: a raise short of the other port's need, whose own raise the policy defers -------------

SHORT = re.compile(r"firmware VF limit raised to 20, waiting for a reboot \(set by the apply of "
                   rf"[0-9TZ:-]+; {CX6_A}'s layout needs 24, more than it; no layout asks for "
                   r"it now\)")
SET_NOW_SHORT = (f'"mstconfig -d {CX6_B} set NUM_OF_VFS=12" sets the limit back to the one it has '
                 f"now, for {CX6_A} too (one command for the card; {CX6_A}'s layout needs 24, "
                 "more than it: its own apply raises the limit that far)")
SHORT_THROUGH = (f"firmware VF limit 20 from the next reboot, 12 until then (raised by the apply "
                 f"of {CX6_B}, one setting of this card: a reboot is pending through it, short "
                 "of the 24 its layout needs, which its own apply raises it to)")


def short_of_24(h, reboot):
    limit12(h)
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    layout(h, CX6_A, 4, "50-p0.conf")
    b = layout(h, CX6_B, 20, "51-p1.conf")
    assert h.run("apply", env=NO_BUS).returncode == 0
    assert h.pf(CX6_A)["firmware_total_vfs"] == 20
    b.unlink()
    h.main.write_text(f"[Drift]\nMode=report\n[Disruption]\nPolicy=never\n[Reboot]\n"
                      f"Policy={reboot}\n")
    layout(h, CX6_A, 24, "50-p0.conf")


def test_a_raise_short_of_the_deferred_ports_need_says_so(make_host):
    h = make_host("cx6dx.json")
    short_of_24(h, "never")
    assert h.run("apply", CX6_A, env=NO_BUS).returncode != 0
    assert h.pf(CX6_A)["firmware_total_vfs"] == 20
    a, b = pf_json(h, CX6_A), pf_json(h, CX6_B)
    assert a["state"] == "deferred", a
    assert [x for x in b["pending_reboot_reasons"] if SHORT.fullmatch(x)], b
    assert b["firmware_note"] == SET_NOW_SHORT, b
    out = h.run("status", env=NO_BUS).stdout
    assert "no mstconfig command sets it back" not in out, out
    assert f"    no layout selects it; {SET_NOW_SHORT}\n" in out, out
    assert f", {SHORT_THROUGH}\n" in out, out


def test_the_daemon_makes_no_reboot_by_hand_for_a_raise_short_of_the_need(
        make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h = make_host("cx6dx.json")
    short_of_24(h, "coordinated")
    start_daemon(h)
    c.wait_property("State", "deferred", pf_path(CX6_A), PF_IFACE)
    c.wait(lambda: any(x.startswith(f"{CX6_B}: ") and SHORT.fullmatch(x[len(CX6_B) + 2:])
                       for x in c.get("PendingRebootReasons")), what="the raise to 20, short")
    st = json.loads(c.call("GetStatus"))
    why = st["daemon"]["no_reboot"]
    assert "reboot by hand" not in why and "the mstconfig command under its PF sets it back" in why, \
        why
    out = h.run("status", env={"DBUS_SYSTEM_BUS_ADDRESS": system_bus.address}).stdout
    assert "reboot by hand" not in out, out
    assert f"    no layout selects it; {SET_NOW_SHORT}\n" in out, out


# --- 9: a reboot reason gone without a reboot is said in the journal ---------------------------

def test_the_daemon_says_a_reboot_reason_gone_by_hand(make_host, start_daemon, bus_client):
    c = bus_client
    h = make_host("cx6dx.json")

    def change(s):
        for p in s["pfs"]:
            if p["pci"] in (CX6_A, CX6_B):
                p["total_vfs"] = p["firmware_total_vfs"] = 16
            if p["pci"] == CX6_B:
                p["vf_offset"] = 40
    h.edit(change)
    h.main.write_text("[Drift]\nMode=report\n[Disruption]\nPolicy=immediate\n"
                      "[Reboot]\nPolicy=never\n")
    b = layout(h, CX6_B, 20, "51-p1.conf")
    assert h.run("apply", CX6_B, env=NO_BUS).returncode == 0
    assert h.pf(CX6_B)["firmware_total_vfs"] == 20
    d = start_daemon(h)
    c.wait_property("PendingReboot", True)
    b.unlink()
    c.call("Reload")
    c.wait(lambda: any("no layout asks for it now" in x for x in c.get("PendingRebootReasons")),
           what="the raise to 20 unasked")
    assert "no reboot needed any more" not in d.log_text()

    def by_hand(s):
        for p in s["pfs"]:
            if p["pci"] in (CX6_A, CX6_B):
                p["firmware_total_vfs"] = 16
    h.edit(by_hand)  # mstconfig -d ca:00.1 set NUM_OF_VFS=16
    c.wait_property("PendingReboot", False)
    assert c.get("PendingRebootReasons") == []
    c.wait(lambda: "no reboot needed any more" in d.log_text(), what="the journal line")
    line = re.compile(rf"{CX6_B}: no reboot needed any more: firmware VF limit 16 set in firmware "
                      r"again, the one in effect \(it waited: firmware VF limit raised to 20, "
                      r"waiting for a reboot \(set by the apply of [0-9TZ:-]+; no layout asks for "
                      r"it now\)\)")
    said = [x for x in d.log_text().splitlines() if "no reboot needed any more" in x]
    assert len(said) == 1 and line.search(said[0]), said


# --- wip-g: the VFs of a PF whose raise the disruption policy defers wait for its apply ---------

def test_the_vfs_of_a_deferred_raise_wait_for_its_apply(make_host):
    h = make_host("cx6dx.json")
    h.main.write_text("[Disruption]\nPolicy=never\n[Reboot]\nPolicy=never\n")
    layout(h, CX6_A, 12, "50-p0.conf")
    assert h.run("apply", CX6_A, env=NO_BUS).returncode != 0
    assert h.pf(CX6_A)["firmware_total_vfs"] == 8  # nothing raised
    a = pf_json(h, CX6_A)
    assert a["state"] == "deferred" and a["pending_reboot_reasons"] == [], a
    fates = {v["layout"] for v in a["vfs"]}
    assert fates == {"to be created after its apply raises the firmware VF limit, and a reboot"}, \
        fates
    out = h.run("status", env=NO_BUS).stdout
    assert "to be created after a reboot" not in out, out
