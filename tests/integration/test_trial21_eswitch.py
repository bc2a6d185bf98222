# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 21 (fresh eyes): a switchdev-only layout on ice. ice changes the eswitch mode only
without VFs, so the apply removes the VFs an admin made by hand and creates as many again. The
VF rows say the eswitch change makes them anew (not a VirtualFunctions= nobody wrote), and what
a VF set by hand loses with it (its VLAN, trust: no layout sets them) is said by plan, by status
before the apply and, once, by the apply."""

import json
import re

ICE = "0000:3b:00.0"
SWITCHDEV = "[Match]\nName=ens1f0\n[PhysicalFunction]\nESwitchMode=switchdev\n"
CAUSE = "recreated by the eswitch change to switchdev"
LOST = ", without its vlan 33, trust on (no layout sets them)"


def hand_made(make_host):
    """mixed.json: ens1f0 (ice) with 2 VFs made by hand, VF 0 with VLAN 33 and trust on
    (ip link set ens1f0 vf 0 vlan 33 trust on)."""
    h = make_host("mixed.json")
    s = h.state()
    pf = h.pf_of(s, ICE)
    assert pf["driver"] == "ice" and pf["num_vfs"] == 2 and pf["eswitch_mode"] == "legacy"
    pf["vfs"][0]["vlan"], pf["vfs"][0]["trust"] = 33, True
    h.save(s)
    return h


def rows(out):
    """The VF rows of the PF's table, by index."""
    return {int(m.group(1)): m.group(0) for m in re.finditer(r"^    (\d+) .*$", out, re.M)}


def vfs_json(h):
    doc = json.loads(h.run("status", ICE, "--json").stdout)
    return next(p for p in doc["pfs"] if p["pci"] == ICE)["vfs"]


def test_eswitch_recreation_names_its_cause_and_what_is_lost(make_host):
    h = hand_made(make_host)
    h.layout("50-switchdev.conf", SWITCHDEV)
    note = f"  note: VF 0: {CAUSE}{LOST}\n"

    r = h.run("plan", ICE)
    assert r.returncode == 10, r.stdout + r.stderr
    assert "VirtualFunctions" not in r.stdout, r.stdout
    assert r.stdout.count(note) == 1, r.stdout
    plan = json.loads(h.run("plan", ICE, "--json").stdout)["pfs"][0]
    assert plan["notes"] == [f"VF 0: {CAUSE}{LOST}"], plan["notes"]

    out = h.run("status", ICE).stdout
    row = rows(out)
    assert row[0].endswith(f"  to be {CAUSE}{LOST}"), out
    assert row[1].endswith(f"  to be {CAUSE}"), out
    assert "VirtualFunctions" not in out, out
    assert [v["layout"] for v in vfs_json(h)] == [f"to be {CAUSE}{LOST}", f"to be {CAUSE}"]

    r = h.run("apply", ICE)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count(f"VF 0: {CAUSE}") == 1, r.stdout
    assert r.stdout.endswith(note), r.stdout
    # what was said is what happened: the eswitch switched, VF 0 made anew without them
    pf = h.pf(ICE)
    assert pf["eswitch_mode"] == "switchdev" and pf["num_vfs"] == 2, pf
    assert (pf["vfs"][0]["vlan"], pf["vfs"][0]["trust"]) == (0, False), pf["vfs"][0]
    assert [v["layout"] for v in vfs_json(h)] == ["ok", "ok"]


def test_nothing_lost_when_the_layout_sets_it(make_host):
    """A VF whose VLAN and trust a layout sets gets them again: nothing is said lost."""
    h = hand_made(make_host)
    h.layout("50-switchdev.conf", SWITCHDEV + "[VirtualFunction 0]\nVLANId=33\nTrust=yes\n")
    r = h.run("plan", ICE)
    assert "note:" not in r.stdout and "without" not in r.stdout, r.stdout
    assert [v["layout"] for v in vfs_json(h)] == [f"to be {CAUSE}"] * 2
    r = h.run("apply", ICE)
    assert r.returncode == 0 and "note:" not in r.stdout, r.stdout + r.stderr
    vf = h.pf(ICE)["vfs"][0]
    assert (vf["vlan"], vf["trust"]) == (33, True), vf


def test_a_count_change_keeps_its_words_and_says_what_is_lost(make_host):
    """VirtualFunctions= that changes the count is the cause, as before; what a VF set by hand
    loses with it is said too."""
    h = hand_made(make_host)
    h.layout("50-count.conf", "[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=3\n")
    lost = "to be recreated (VirtualFunctions=3), without its vlan 33, trust on (no layout sets them)"
    out = h.run("status", ICE).stdout
    row = rows(out)
    assert row[0].endswith(f"  {lost}"), out
    assert row[1].endswith("  to be recreated (VirtualFunctions=3)"), out
    r = h.run("plan", ICE)
    assert ("  note: VF 0: recreated (VirtualFunctions=3), without its vlan 33, trust on "
            "(no layout sets them)\n") in r.stdout, r.stdout
    r = h.run("apply", ICE)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("without its vlan 33") == 1, r.stdout


def test_a_drifted_pf_says_the_eswitch_not_the_count(make_host):
    """Applied in legacy mode, then the layout asks for switchdev: the PF's difference is the
    eswitch mode, not "2 VFs wanted, 2 present"."""
    h = hand_made(make_host)
    h.layout("50-switchdev.conf", "[Match]\nName=ens1f0\n[PhysicalFunction]\n"
             "ESwitchMode=legacy\n")
    assert h.run("apply", ICE).returncode == 0
    h.layout("50-switchdev.conf", SWITCHDEV)
    out = h.run("status", ICE).stdout
    assert "set eswitch mode switchdev (now legacy)" in out, out
    assert "2 VFs wanted, 2 present" not in out, out


def test_the_daemon_says_it_once_in_the_journal(make_host, start_daemon, bus_client):
    """sriov-persistd's apply makes the VFs anew as sriovctl apply does: its journal warns once
    of what VF 0 lost."""
    from test_daemon import apply_all, main_config
    h = hand_made(make_host)
    main_config(h)
    h.layout("50-switchdev.conf", SWITCHDEV)
    d = start_daemon(h)
    apply_all(bus_client, [ICE])
    line = f"{ICE} (ens1f0): VF 0: {CAUSE}{LOST}"
    assert d.log_text().count(line) == 1, d.log_text()
    assert h.pf(ICE)["eswitch_mode"] == "switchdev"
