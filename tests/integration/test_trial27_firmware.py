# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 27 (fresh eyes), firmware of a two-port ConnectX card (cx6dx.json, one NUM_OF_VFS): a
kept raise that no layout needs says so, not "<port>'s layout needs N of it" when N is within
the limit in effect (4); the card's other port, whose apply waits for the raise the apply of the
first port made, does not count it as its own pending reboot, which is the first port's (5a), and
while the disruption policy defers the apply that raises it, says it waits for that apply (5b); a
limit an apply raised, then set by hand in the firmware to another
value than the one in effect, still waits for the reboot, said as the firmware holds it (6); a
later raise of the card by the other port's apply is that port's, not a change by hand (5c)."""

import json
import re

from conftest import PF_IFACE, pf_path
from test_daemon import NO_BUS

CX6_A, CX6_B = "0000:ca:00.0", "0000:ca:00.1"
WHEN = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def limit(h, n):
    """Both ports run with (and their firmware holds) a VF limit of n; ca:00.1's VFs past
    ca:00.0's."""
    def change(s):
        for p in s["pfs"]:
            if p["pci"] in (CX6_A, CX6_B):
                p["total_vfs"] = p["firmware_total_vfs"] = n
            if p["pci"] == CX6_B:
                p["vf_offset"] = 40
    h.edit(change)


def firmware(h, n):
    """mstconfig by hand: the card's firmware holds n for the next reboot."""
    def change(s):
        for p in s["pfs"]:
            if p["pci"] in (CX6_A, CX6_B):
                p["firmware_total_vfs"] = n
    h.edit(change)


def layout(h, pci, n, name):
    return h.layout(name, f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions={n}\n")


def pf_json(h, pci):
    r = h.run("status", "--json", env=NO_BUS)
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


# --- 4: "needs" counts only a layout that needs more than the limit in effect ------------------

def test_a_kept_raise_within_the_limit_in_effect_is_asked_by_no_layout(make_host):
    h = make_host("cx6dx.json")
    limit(h, 12)
    a = layout(h, CX6_A, 16, "50-p0.conf")
    assert h.run("apply", CX6_A, env=NO_BUS).returncode == 0
    assert h.pf(CX6_A)["firmware_total_vfs"] == 16
    a.unlink()
    layout(h, CX6_B, 4, "51-p1.conf")  # 4 of the 12 in effect: no raise needed
    assert h.run("apply", CX6_B, env=NO_BUS).returncode == 0
    unasked = re.compile(r"firmware VF limit raised to 16, waiting for a reboot \(set by the "
                         rf"apply of {WHEN}; no layout asks for it now\)")
    pf = pf_json(h, CX6_A)
    assert [x for x in pf["pending_reboot_reasons"] if unasked.fullmatch(x)], pf
    out = h.run("status", env=NO_BUS).stdout
    assert "layout needs 4" not in out, out
    # a layout that wants more than the 12 in effect does need it
    layout(h, CX6_B, 14, "51-p1.conf")
    pf = pf_json(h, CX6_A)
    needs = re.compile(r"firmware VF limit raised to 16, waiting for a reboot \(set by the "
                       rf"apply of {WHEN}; {CX6_B}'s layout needs 14 of it\)")
    assert [x for x in pf["pending_reboot_reasons"] if needs.fullmatch(x)], pf


def test_the_daemon_says_no_layout_asks_for_a_raise_within_the_limit(
        make_host, start_daemon, bus_client):
    c = bus_client
    h = make_host("cx6dx.json")
    limit(h, 12)
    h.main.write_text("[Reboot]\nPolicy=never\n[Disruption]\nPolicy=immediate\n")
    a = layout(h, CX6_A, 16, "50-p0.conf")
    layout(h, CX6_B, 4, "51-p1.conf")
    start_daemon(h)
    raised = "firmware VF limit raised to 16, waiting for a reboot"
    c.wait(lambda: f"{CX6_A}: {raised}" in c.get("PendingRebootReasons"), what="raised to 16")
    a.unlink()
    c.call("Reload")
    unasked = re.compile(rf"{CX6_A}: {raised} \(set by the apply of {WHEN}; no layout asks for "
                         r"it now\)")
    c.wait(lambda: any(unasked.fullmatch(x) for x in c.get("PendingRebootReasons")),
           what="no layout asks for it now")
    assert not any("layout needs" in x for x in c.get("PendingRebootReasons"))


# --- 6: a limit set by hand since the apply raised it still waits for the reboot ----------------

def test_a_limit_set_by_hand_after_the_raise_waits_for_a_reboot(make_host):
    h = make_host("cx6dx.json")
    limit(h, 12)
    h.main.write_text("[Drift]\nMode=report\n[Disruption]\nPolicy=immediate\n"
                      "[Reboot]\nPolicy=never\n")
    layout(h, CX6_A, 20, "50-p0.conf")
    assert h.run("apply", CX6_A, env=NO_BUS).returncode == 0
    firmware(h, 14)
    pf = pf_json(h, CX6_A)
    assert pf["state"] == "drifted", pf
    assert pf["reason"].startswith(
        "differs: firmware VF limit 14 (wanted 20; raising it needs a reboot)"), pf
    said = re.compile(r"firmware VF limit 14 set in firmware, waiting for a reboot \(the apply "
                      rf"of {WHEN} raised it to 20; changed since; its layout needs 20\)")
    assert len(pf["pending_reboot_reasons"]) == 1, pf
    assert said.fullmatch(pf["pending_reboot_reasons"][0]), pf
    assert pf["last_apply"]["pending_reboot"] is True, pf
    out = h.run("status", env=NO_BUS).stdout
    assert "    pending reboot: firmware VF limit 14 set in firmware" in out, out
    m = h.run("metrics", env=NO_BUS).stdout
    assert f'sriov_persist_pf_reboot_pending{{pf="ens3f0np0",pf_pci="{CX6_A}"}} 1' in m, m
    # set back by hand to the limit in effect: nothing waits any more
    firmware(h, 12)
    assert pf_json(h, CX6_A)["pending_reboot_reasons"] == []


def test_the_daemon_keeps_a_limit_set_by_hand_pending(make_host, start_daemon, bus_client):
    c = bus_client
    h = make_host("cx6dx.json")
    limit(h, 12)
    h.main.write_text("[Drift]\nMode=report\n[Disruption]\nPolicy=immediate\n"
                      "[Reboot]\nPolicy=never\n")
    layout(h, CX6_A, 20, "50-p0.conf")
    assert h.run("apply", CX6_A, env=NO_BUS).returncode == 0
    start_daemon(h)
    c.wait_property("State", "pending", pf_path(CX6_A), PF_IFACE)
    c.wait_property("PendingReboot", True)
    firmware(h, 14)
    said = re.compile(rf"{CX6_A}: firmware VF limit 14 set in firmware, waiting for a reboot "
                      rf"\(the apply of {WHEN} raised it to 20; changed since; its layout needs "
                      r"20\)")
    c.wait(lambda: [x for x in c.get("PendingRebootReasons")] and
           all(said.fullmatch(x) for x in c.get("PendingRebootReasons")),
           what="the limit set by hand, pending")
    assert c.get("PendingReboot") is True
    st = json.loads(c.call("GetStatus"))
    pf = next(p for p in st["pfs"] if p["pci"] == CX6_A)
    assert said.fullmatch(f"{CX6_A}: " + pf["pending_reboot_reasons"][0]), pf


# --- 5a: the other port waits for the card raise; the pending reboot is the first port's --------

RAISED = "firmware VF limit raised to 20, waiting for a reboot"
WAITS = f"{RAISED} (the card raise made by the apply of {CX6_A})"


def test_the_other_port_waits_for_the_card_raise_in_status(make_host):
    h = make_host("cx6dx.json")
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    layout(h, CX6_A, 20, "50-p0.conf")
    assert h.run("apply", CX6_A, env=NO_BUS).returncode == 0
    layout(h, CX6_B, 16, "51-p1.conf")
    assert h.run("apply", CX6_B, env=NO_BUS).returncode == 0
    a, b = pf_json(h, CX6_A), pf_json(h, CX6_B)
    assert a["pending_reboot_reasons"] == [RAISED], a
    assert b["state"] == "pending" and b["reason"] == WAITS, b
    assert b["pending_reboot_reasons"] == [], b
    out = h.run("status", env=NO_BUS).stdout
    assert out.count("pending reboot:") == 1, out
    assert f"    {WAITS}\n" in out, out
    m = h.run("metrics", env=NO_BUS).stdout
    assert f'sriov_persist_pf_reboot_pending{{pf="ens3f0np0",pf_pci="{CX6_A}"}} 1' in m, m
    # it waits for that reboot too (trial 28, 4): its reason the card-wait one
    assert f'sriov_persist_pf_reboot_pending{{pf="ens3f1np1",pf_pci="{CX6_B}"}} 1' in m, m
    assert f'pf_pci="{CX6_B}",reason="{WAITS}"}} 1' in m, m


def test_the_daemon_credits_the_card_raise_to_the_first_port(make_host, start_daemon,
                                                             bus_client):
    c = bus_client
    h = make_host("cx6dx.json")
    h.main.write_text("[Drift]\nMode=report\n[Disruption]\nPolicy=immediate\n"
                      "[Reboot]\nPolicy=never\n")
    layout(h, CX6_A, 20, "50-p0.conf")
    d = start_daemon(h)
    from test_daemon import apply_all
    apply_all(c, [CX6_A])
    c.wait_property("State", "pending", pf_path(CX6_A), PF_IFACE)
    m = c.mark()
    layout(h, CX6_B, 16, "51-p1.conf")
    c.call("Reload")
    assert c.wait_applied(CX6_B, m) == 0
    c.wait_property("LastError", WAITS, pf_path(CX6_B), PF_IFACE)
    assert c.get("State", pf_path(CX6_B), PF_IFACE) == "pending"
    assert c.get("PendingRebootReasons") == [f"{CX6_A}: {RAISED}"]
    st = json.loads(c.call("GetStatus"))
    b = next(p for p in st["pfs"] if p["pci"] == CX6_B)
    assert b["pending_reboot_reasons"] == [], b
    assert st["daemon"]["pending_reboot_reasons"] == [f"{CX6_A}: {RAISED}"], st["daemon"]
    assert f"{CX6_B}: reboot needed" not in d.log_text(), d.log_text()


# --- 5b: the apply that raises the card's limit, deferred by the disruption policy -------------

def test_the_other_port_says_the_raising_apply_is_deferred(make_host):
    h = make_host("cx6dx.json")
    h.main.write_text("[Disruption]\nPolicy=never\n[Reboot]\nPolicy=never\n")
    layout(h, CX6_A, 20, "50-p0.conf")
    layout(h, CX6_B, 16, "51-p1.conf")
    assert h.run("apply", env=NO_BUS).returncode != 0
    assert pf_json(h, CX6_A)["state"] == "deferred"
    out = h.run("status", env=NO_BUS).stdout
    assert (f"firmware VF limit 8 (waits for the apply of {CX6_A}, which raises it and which the "
            "disruption policy defers, one setting of this card)") in out, out
    assert "to be raised by the apply of" not in out, out
    # the policy lets it run: to be raised by that apply, which runs now
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    out = h.run("status", env=NO_BUS).stdout
    assert f"(to be raised by the apply of {CX6_A}, one setting of this card)" in out, out


def test_a_later_raise_by_the_other_port_is_no_change_by_hand(make_host):
    """ca:00.0's apply raised the card's limit to 16, then ca:00.1's to 20: the 20 is ca:00.1's
    raise, which ca:00.0 waits for, not a limit set by hand since ca:00.0's apply."""
    h = make_host("cx6dx.json")
    limit(h, 12)
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    layout(h, CX6_A, 16, "50-p0.conf")
    assert h.run("apply", CX6_A, env=NO_BUS).returncode == 0
    assert h.pf(CX6_A)["firmware_total_vfs"] == 16
    layout(h, CX6_B, 20, "51-p1.conf")
    assert h.run("apply", CX6_B, env=NO_BUS).returncode == 0
    assert h.pf(CX6_A)["firmware_total_vfs"] == 20
    a, b = pf_json(h, CX6_A), pf_json(h, CX6_B)
    # ca:00.1's reboot, which ca:00.0 waits for
    assert a["pending_reboot_reasons"] == [], a
    assert b["pending_reboot_reasons"] == [RAISED], b
    out = h.run("status", env=NO_BUS).stdout
    assert "changed since" not in out, out
    assert out.count("pending reboot:") == 1, out
    assert f"{RAISED} (the card raise made by the apply of {CX6_B})" in out, out
