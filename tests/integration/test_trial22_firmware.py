# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 22, firmware, two ports of one card (one NUM_OF_VFS), 0000:ca:00.0 asking 16 VFs and
0000:ca:00.1 12, the firmware allowing 8: the daemon drops a pending reboot reason once the
firmware no longer holds it, and nothing is pending once the limit took effect (1; so too a link
type set in firmware, cx6-vpi.json); a held layout
counts for the command that sets a raise back, in status as in reset (2); a limit changed by hand
since the apply raised it is said as such, and whose layout needs it is said (3). Two cards,
[Reboot] FirmwareReset=yes: a card whose only reason no layout asks for is not reset with the
other, its reason stays one, and no reboot or reset is made for it alone (4)."""

import json
import re
from pathlib import Path

from conftest import place_card_vfs
from test_daemon import NO_BUS
from test_daemon_k8s import BOOT_1, CX6_NODE, env, k8s_notify_bin  # noqa: F401
from test_firmware_reset import RESET_LOG

CX6_A = "0000:ca:00.0"  # cx6dx.json: two ports of one card, sriov_totalvfs and NUM_OF_VFS 8
CX6_B = "0000:ca:00.1"
WHEN = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def layouts(h):
    a = h.layout("50-p0.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=16\n")
    b = h.layout("51-p1.conf", f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\n"
                 "VirtualFunctions=12\n")
    return a, b


def set_pfs(h, **values):
    s = h.state()
    for p in s["pfs"]:
        if p["pci"] in (CX6_A, CX6_B):
            p.update(values)
    h.save_atomic(place_card_vfs(s))


def pfs(h):
    r = h.run("status", "--json", env=NO_BUS)
    assert r.returncode == 0, r.stderr
    return {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}


CHANGED = re.compile(r"firmware VF limit 12 set in firmware, waiting for a reboot \(the apply of "
                     + WHEN + r" raised it to 16; changed since; "
                     + rf"{CX6_B}'s layout needs 12 of it\)")


def test_the_daemon_drops_reasons_the_firmware_no_longer_holds(make_host, start_daemon,
                                                               bus_client):
    """1: set by hand to what the other port needs, then taken effect: no stale reason."""
    from conftest import PF_IFACE, pf_path
    c = bus_client
    h = make_host("cx6dx.json")
    h.main.write_text(h.main.read_text() + "[Reboot]\nPolicy=never\n")
    a, _ = layouts(h)
    start_daemon(h)
    raised16 = "firmware VF limit raised to 16, waiting for a reboot"
    # ca:00.1 waits for ca:00.0's raise, which is ca:00.0's pending reboot (trial 27, 5)
    c.wait(lambda: c.get("LastError", pf_path(CX6_B), PF_IFACE) ==
           f"{raised16} (the card raise made by the apply of {CX6_A})", what="ca:00.1 waits")
    assert c.get("PendingRebootReasons") == [f"{CX6_A}: {raised16}"]
    a.rename(h.dir / "50-p0.conf")
    c.call("Reload")
    c.wait_property("State", "unconfigured", pf_path(CX6_A), PF_IFACE)
    set_pfs(h, firmware_total_vfs=12)  # mstconfig -d 0000:ca:00.0 set NUM_OF_VFS=12
    # set by hand since the apply raised 16, which ca:00.1's layout needs (test_trial25_minor)
    want_b = re.compile(rf"{CX6_B}: firmware VF limit 12 set in firmware, waiting for a reboot "
                        r"\(the apply of " + WHEN + rf" raised it to 16 for {CX6_A}; changed "
                        r"since; its layout needs 12 of it\)")

    def changed():
        r = c.get("PendingRebootReasons")
        return len(r) == 2 and any(want_b.fullmatch(x) for x in r) and any(
            CHANGED.fullmatch(x[len(CX6_A) + 2:]) for x in r if x.startswith(CX6_A)) and r
    reasons = c.wait(changed, what="the reasons of the limit set by hand")
    assert not any("16, waiting" in x for x in reasons), reasons
    rec = json.loads((h.dir / "host.json.lib" / "reboot.json").read_text())  # <state-dir>
    assert not any("16, waiting" in x["reason"] for x in rec["reasons"]), rec
    status = json.loads(c.call("GetStatus"))
    assert not any("16, waiting" in x for x in status["daemon"]["pending_reboot_reasons"]), \
        status["daemon"]
    # the new limit takes effect (the reboot): nothing is pending, ca:00.1 gets its 12 VFs
    set_pfs(h, total_vfs=12)
    c.wait_property("PendingReboot", False)
    assert c.get("PendingRebootReasons") == []
    c.wait_property("State", "applied", pf_path(CX6_B), PF_IFACE)
    assert c.get("PendingRebootReasons") == []


def test_a_held_layout_counts_for_the_set_back_command(make_host):
    """2: status gives the number reset gives."""
    h = make_host("cx6dx.json")
    a, b = layouts(h)
    assert h.run("apply", env=NO_BUS).returncode == 0
    b.write_text(b.read_text() + "Bogus=1\n")
    a.unlink()
    back = f"\"mstconfig -d {CX6_A} set NUM_OF_VFS=12\" sets it to the limit the card's other " \
        f"ports need ({CX6_B}'s layout needs 12)"
    out = h.run("status", env=NO_BUS).stdout
    assert back in out, out
    assert "NUM_OF_VFS=8" not in out, out
    r = h.run("reset", CX6_A, env=NO_BUS)
    assert r.returncode == 0 and back in r.stdout and "NUM_OF_VFS=8" not in r.stdout, r.stdout


def test_a_limit_changed_by_hand_is_not_credited_to_the_apply(make_host):
    """3: the apply raised 16, the firmware holds 12 now, which ca:00.1's layout needs."""
    h = make_host("cx6dx.json")
    a, _ = layouts(h)
    assert h.run("apply", env=NO_BUS).returncode == 0
    a.unlink()
    st = pfs(h)[CX6_A]
    assert re.fullmatch(r"firmware VF limit raised to 16, waiting for a reboot \(set by the apply "
                        rf"of {WHEN}; {CX6_B}'s layout needs 12 of it\)",
                        st["pending_reboot_reasons"][0]), st
    set_pfs(h, firmware_total_vfs=12)
    st = pfs(h)[CX6_A]
    assert len(st["pending_reboot_reasons"]) == 1 and \
        CHANGED.fullmatch(st["pending_reboot_reasons"][0]), st
    out = h.run("status", env=NO_BUS).stdout
    assert "no layout asks for it" not in out and "set by the apply" not in out, out
    # no other port's layout: none asks for it
    (h.confdir / "51-p1.conf").unlink()
    st = pfs(h)[CX6_A]
    assert re.fullmatch(r"firmware VF limit 12 set in firmware, waiting for a reboot \(the apply "
                        rf"of {WHEN} raised it to 16; changed since; no layout asks for it now\)",
                        st["pending_reboot_reasons"][0]), st


def test_no_reboot_is_asked_for_a_limit_in_effect(make_host, start_daemon, bus_client):
    """1, [Reboot] Policy=immediate: once the limit took effect, ca:00.1 gets its VFs and
    nothing is pending: no reboot is asked for again."""
    from conftest import PF_IFACE, pf_path
    c = bus_client
    h = make_host("cx6dx.json")
    h.main.write_text(h.main.read_text() + "[Reboot]\nPolicy=immediate\n")
    a, _ = layouts(h)
    d = start_daemon(h)
    c.wait(lambda: "the card raise made by the apply of" in
           c.get("LastError", pf_path(CX6_B), PF_IFACE), what="ca:00.1 waits for ca:00.0's raise")
    assert len(c.get("PendingRebootReasons")) == 1
    a.rename(h.dir / "50-p0.conf")
    c.call("Reload")
    c.wait_property("State", "unconfigured", pf_path(CX6_A), PF_IFACE)
    set_pfs(h, firmware_total_vfs=12)
    c.wait(lambda: any(x.startswith(f"{CX6_B}: firmware VF limit 12 set in firmware")
                       for x in c.get("PendingRebootReasons")), what="12 set in firmware")
    asked = d.log_text().count("Asking logind to reboot")
    set_pfs(h, total_vfs=12)  # the reboot brought it
    c.wait_property("State", "applied", pf_path(CX6_B), PF_IFACE)
    c.wait_property("PendingReboot", False)
    assert c.get("PendingRebootReasons") == []
    c.call("Apply", "")  # a reboot allowed again: there is nothing to reboot for
    c.wait_property("State", "idle")
    assert c.get("PendingRebootReasons") == []
    assert d.log_text().count("Asking logind to reboot") == asked, d.log_text()


CARD_B = "0000:cb:00.0"  # the second card two_cards() adds


def two_cards(s):
    """cx6dx.json with a second ConnectX card, cb:00.0 and cb:00.1, like ca:00.x (one NUM_OF_VFS
    for both ports, NUM_OF_VFS and sriov_totalvfs 8)."""
    for n, p in enumerate([p for p in s["pfs"] if p["pci"].startswith("0000:ca:00.")]):
        q = json.loads(json.dumps(p))
        q["pci"] = p["pci"].replace("ca:00.", "cb:00.")
        q["name"] = p["name"].replace("ens3", "ens4")
        q["altnames"] = [x.replace("enp202", "enp203") for x in p["altnames"]]
        q["permanent_mac"] = f"0c:42:a1:5e:7b:4{n}"
        s["pfs"].append(q)


def test_a_reset_for_one_card_keeps_the_other_cards_unasked_reason(env):  # noqa: F811
    """4: an apply raised cb:00.0's limit to 12 for a layout since removed; ca:00.0's layout needs
    its raised limit of 16, Policy=immediate. The firmware reset made for ca:00.0 stands in for
    the reboot; cb:00.0's card, whose only reason no layout asks for, is not reset with it (its
    links would go down for nothing). cb:00.0's reason stays one no layout asks for (also in
    reboot.json), and neither that reset nor Apply() (a reboot allowed again) makes a reboot or a
    reset for it alone."""
    c = env.c
    h = env.host("cx6dx.json", CX6_NODE, reboot="immediate", Enabled="no")
    h.main.write_text(h.main.read_text().replace("[Reboot]\n", "[Reboot]\nFirmwareReset=yes\n"))
    s = h.state()
    two_cards(s)
    s["boot_id"] = BOOT_1
    h.save(s)
    b = h.layout("40-b.conf", f"[Match]\nPCIAddress={CARD_B}\n[PhysicalFunction]\n"
                 "VirtualFunctions=12\n")
    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 0 and h.pf(CARD_B)["firmware_total_vfs"] == 12, r.stdout + r.stderr
    b.unlink()
    h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=16\n")
    # raised before: one setting of the card, shown by both ports
    h.edit(lambda s: [h.pf_of(s, p).update(firmware_total_vfs=16) for p in (CX6_A, CX6_B)])
    op_file = Path(f"{h.path}.lib") / "operation.json"
    env.logind.start(op_file)
    d = env.start(h)
    c.wait(lambda: h.pf(CX6_A)["num_vfs"] == 16, timeout=90, what="16 VFs after the reset")
    c.wait(lambda: not op_file.exists(), timeout=60, what="operation.json removed")
    env.settle()
    unasked = re.compile(re.escape(f"{CARD_B}: firmware VF limit raised to 12, waiting for a "
                                   "reboot (set by the apply of ") + WHEN
                         + re.escape("; no layout asks for it now)"))

    def kept():
        reasons = c.get("PendingRebootReasons")
        rec = json.loads((Path(f"{h.path}.lib") / "reboot.json").read_text())["reasons"]
        assert len(reasons) == 1 and unasked.fullmatch(reasons[0]), reasons
        assert [(x["pci"], x.get("unasked")) for x in rec] == [(CARD_B, True)], rec
    kept()
    log = d.log_text()
    assert f"{CX6_A}: {RESET_LOG}" in log and f"{CARD_B}: {RESET_LOG}" not in log, log
    assert log.count(RESET_LOG) == 1, log
    assert h.pf(CX6_A)["total_vfs"] == 16 and h.pf(CARD_B)["total_vfs"] == 8
    assert env.logind.calls() == [], "rebooted although the reset stood in for it"
    c.call("Apply", "")  # a reboot allowed again: none is made for cb:00.0's reason alone
    env.settle()
    kept()
    log = d.log_text()
    assert log.count(RESET_LOG) == 1, log
    assert "Asking logind to reboot" not in log, log
    assert env.logind.calls() == [], "rebooted for a reason no layout asks for"


VPI_A = "0000:41:00.0"  # cx6-vpi.json: ethernet, LINK_TYPE_P1 in firmware
IB = "link type infiniband is set in firmware, waiting for a reboot"


def ib_layout(h):
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    return h.layout("50-ib.conf", f"[Match]\nPCIAddress={VPI_A}\n[PhysicalFunction]\n"
                    "VirtualFunctions=4\nLinkType=infiniband\n[VirtualFunction]\n"
                    "IBNodeGUID=stable\nIBPortGUID=stable\nRDMA=yes\n")


def set_vpi(h, **values):
    s = h.state()
    next(p for p in s["pfs"] if p["pci"] == VPI_A).update(values)
    h.save_atomic(s)


def test_the_daemon_drops_a_link_type_the_firmware_no_longer_holds(make_host, start_daemon,
                                                                  bus_client):
    """1, the link type: set back by hand (LINK_TYPE_P1=2) while its layout still asks for it
    ([Drift] Mode=report since the apply: not written again), the reason that names infiniband
    goes at the daemon's next look, also from reboot.json."""
    c = bus_client
    h = make_host("cx6-vpi.json")
    ib_layout(h)
    start_daemon(h)
    c.wait(lambda: c.get("PendingRebootReasons") == [f"{VPI_A}: {IB}"], what="infiniband set")
    h.main.write_text(h.main.read_text() + "[Drift]\nMode=report\n")
    c.call("Reload")
    c.wait_property("State", "idle")
    assert c.get("PendingRebootReasons") == [f"{VPI_A}: {IB}"]
    set_vpi(h, firmware_link_type="ethernet")  # mstconfig -d 0000:41:00.0 set LINK_TYPE_P1=2
    c.wait_property("PendingReboot", False)
    assert c.get("PendingRebootReasons") == []
    rec = json.loads((h.dir / "host.json.lib" / "reboot.json").read_text())  # <state-dir>
    assert not any("infiniband is set" in x["reason"] for x in rec["reasons"]), rec


def test_the_daemon_drops_a_link_type_in_effect(make_host, start_daemon, bus_client):
    """1, the link type: once infiniband took effect (a firmware reset, the same boot), nothing
    is pending."""
    c = bus_client
    h = make_host("cx6-vpi.json")
    ib_layout(h)
    start_daemon(h)
    c.wait(lambda: c.get("PendingRebootReasons") == [f"{VPI_A}: {IB}"], what="infiniband set")
    set_vpi(h, link_type="infiniband")
    c.wait_property("PendingReboot", False)
    assert c.get("PendingRebootReasons") == []
