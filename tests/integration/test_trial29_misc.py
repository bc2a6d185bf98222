# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 29 (fresh eyes): a PF that goes and comes back while the daemon runs ([Drift]
Mode=report): sriovctl metrics asks the daemon that manages the host for a PF the host read says
drifted, and writes it pending as the daemon and sriovctl wait say it; without the daemon it stays
drifted (1). sriovctl(8) says what each verb that does the work itself asks the bus, and that
local status cannot know a PF came back (1, 2). The journal line of a reboot reason gone says the
firmware VF limit took effect when a reboot or a firmware reset brought the raise it waited for
into effect, and "set in firmware again" only when the limit was set back by hand (4)."""

import re
from pathlib import Path

from conftest import PF_IFACE, pf_path
from test_daemon import E810_A, NO_BUS, apply_all, configured_host
from test_trial25_wording import unplug

REPO = Path(__file__).resolve().parents[2]
MAN = REPO / "man" / "sriovctl.8"


def state_line(pci, iface, state):
    return f'sriov_persist_pf_state{{pf="{iface}",pf_pci="{pci}",state="{state}"}} 1'


# --- 1: metrics agrees with the daemon for a PF that came back --------------------------------

def test_metrics_says_pending_for_a_pf_the_daemon_says_came_back(make_host, start_daemon,
                                                                  bus_client, system_bus):
    c = bus_client
    bus = {"DBUS_SYSTEM_BUS_ADDRESS": system_bus.address}
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    pf = unplug(h, E810_A)
    c.wait(lambda: f"{E810_A} (ens1f0): gone from the host" in d.log_text(), what="gone")
    h.edit(lambda s: s["pfs"].insert(0, pf))
    c.wait(lambda: f"{E810_A} (ens1f0): on the host again (hotplug)" in d.log_text(),
           what="the line of a PF that came back")
    c.wait_property("State", "pending", path=pf_path(E810_A), iface=PF_IFACE)
    for args in (("metrics",), ("metrics", E810_A)):
        m = h.run(*args, env=bus)
        assert m.returncode == 0, m
        assert state_line(E810_A, "ens1f0", "pending") in m.stdout, m.stdout
        assert state_line(E810_A, "ens1f0", "drifted") not in m.stdout, m.stdout
    # without the daemon nothing knows it came back: drift that Mode=report keeps
    m = h.run("metrics", env=NO_BUS)
    assert m.returncode == 0, m
    assert state_line(E810_A, "ens1f0", "drifted") in m.stdout, m.stdout


# --- 1, 2: sriovctl(8) says what each verb asks the bus ----------------------------------------

def description():
    text = MAN.read_text()
    return text[text.index(".SH DESCRIPTION"):text.index(".SH COMMANDS")]


def flat(text):
    return re.sub(r"\\f[BIRP]", "", text).replace("\\-", "-").replace("\n", " ")


def test_the_description_says_what_each_verb_asks_the_bus():
    d = flat(description())
    # it listed apply, reset and metrics alone as asking the bus
    assert "is asked of the bus: by apply and reset, to say who drains, and by metrics)" not in d, d
    assert "metrics and wait never go through the daemon: they read the host themselves" in d, d
    assert ("wait the same, once at its start, and then, of a daemon that does, its PF object's "
            "State and LastError for each PF the host read says drifted") in d, d
    assert "metrics what the daemon counted (GetMetrics()" in d, d
    assert "apply and reset whether a sriov-persistd manages the host read here" in d, d


def test_the_man_page_says_local_status_cannot_know_a_pf_came_back():
    d = flat(description())
    assert "status run here cannot know it and says such a PF drifted" in d, d
    assert "wait and metrics ask the daemon for such a PF, and say it pending" in d, d
    m = flat(MAN.read_text())
    assert "pending, for a PF that came back while it ran (which only the daemon knows" in m


# --- 4: the journal line of a raise that took effect --------------------------------------------

CX6_A, CX6_B = "0000:ca:00.0", "0000:ca:00.1"


def raised_to_20(h, start_daemon, c):
    def change(s):
        for p in s["pfs"]:
            if p["pci"] in (CX6_A, CX6_B):
                p["total_vfs"] = p["firmware_total_vfs"] = 16
            if p["pci"] == CX6_B:
                p["vf_offset"] = 40
    h.edit(change)
    h.main.write_text("[Drift]\nMode=report\n[Disruption]\nPolicy=immediate\n"
                      "[Reboot]\nPolicy=never\n")
    h.layout("51-p1.conf", f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\n"
             "VirtualFunctions=20\n")
    assert h.run("apply", CX6_B, env=NO_BUS).returncode == 0
    assert h.pf(CX6_B)["firmware_total_vfs"] == 20
    d = start_daemon(h)
    c.wait_property("PendingReboot", True)
    assert "no reboot needed any more" not in d.log_text()
    return d


def gone_lines(d):
    return [x for x in d.log_text().splitlines() if "no reboot needed any more" in x]


def test_the_daemon_says_the_raise_it_waited_for_took_effect(make_host, start_daemon,
                                                              bus_client):
    c = bus_client
    h = make_host("cx6dx.json")
    d = raised_to_20(h, start_daemon, c)

    def reset(s):  # mlxfwreset: the raise to 20 takes effect without a reboot
        for p in s["pfs"]:
            if p["pci"] in (CX6_A, CX6_B):
                p["total_vfs"] = 20
    h.edit(reset)
    c.wait_property("PendingReboot", False)
    c.wait(lambda: gone_lines(d), what="the journal line")
    said = gone_lines(d)
    assert len(said) == 1, said
    assert re.search(rf"{CX6_B}: no reboot needed any more: the firmware VF limit 20 took effect "
                     r"\(it waited: firmware VF limit raised to 20, waiting for a reboot", said[0]), \
        said
    assert "set in firmware again" not in said[0], said


def test_the_daemon_says_a_limit_set_back_by_hand(make_host, start_daemon, bus_client):
    c = bus_client
    h = make_host("cx6dx.json")
    d = raised_to_20(h, start_daemon, c)
    (h.confdir / "51-p1.conf").unlink()  # else the reason is said again in other words
    c.call("Reload")
    c.wait(lambda: any("no layout asks for it now" in x for x in c.get("PendingRebootReasons")),
           what="the raise to 20 unasked")

    def by_hand(s):  # mstconfig set NUM_OF_VFS=16: the one in effect
        for p in s["pfs"]:
            if p["pci"] in (CX6_A, CX6_B):
                p["firmware_total_vfs"] = 16
    h.edit(by_hand)
    c.wait(lambda: gone_lines(d), what="the journal line")
    said = gone_lines(d)
    assert len(said) == 1, said
    assert re.search(rf"{CX6_B}: no reboot needed any more: firmware VF limit 16 set in firmware "
                     r"again, the one in effect \(it waited: firmware VF limit raised to 20, "
                     r"waiting for a reboot", said[0]), said
    assert "took effect" not in said[0], said
