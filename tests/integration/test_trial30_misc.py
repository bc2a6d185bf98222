# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 30 (fresh eyes): a card's firmware VF limit in status, plan and apply; plan under
[Disruption] Policy=never."""

import json

from test_daemon import NO_BUS


def test_no_firmware_card_need_on_a_card_without_a_firmware_vf_limit(make_host):
    """Trial 30 (4): an X710's ports share a card but no firmware VF limit (only mlx5 has
    NUM_OF_VFS): status --json says no need of one; a ConnectX-6 Dx's other port does."""
    h = make_host("x710.json")
    pfs = [p["pci"] for p in json.loads(h.run("status", "--json", env=NO_BUS).stdout)["pfs"]]
    h.layout("50-x710.conf",
             f"[Match]\nPCIAddress={pfs[0]}\n[PhysicalFunction]\nVirtualFunctions=8\n")
    doc = json.loads(h.run("status", "--json", env=NO_BUS).stdout)
    other = next(p for p in doc["pfs"] if p["pci"] == pfs[1])
    assert other["firmware_card_need"] is None, other
    c = make_host("cx6dx.json")
    c.layout("50-p0.conf",
             "[Match]\nPCIAddress=0000:ca:00.0\n[PhysicalFunction]\nVirtualFunctions=8\n")
    doc = json.loads(c.run("status", "--json", env=NO_BUS).stdout)
    other = next(p for p in doc["pfs"] if p["pci"] == "0000:ca:00.1")
    assert other["firmware_card_need"] == {"num_vfs": 8, "by": "0000:ca:00.0"}, other


def test_plan_says_an_apply_defers_a_disruptive_plan_under_policy_never(make_host):
    """Trial 30 (3): under [Disruption] Policy=never, plan lists the disruptive actions and
    says an apply defers them all, as apply then does; a plan that disrupts nothing has no
    such note."""
    h = make_host("cx6dx.json")
    h.main.write_text("[Disruption]\nPolicy=never\n")
    h.layout("50-p0.conf",
             "[Match]\nPCIAddress=0000:ca:00.0\n[PhysicalFunction]\nVirtualFunctions=12\n")
    r = h.run("plan", "0000:ca:00.0", env=NO_BUS)
    assert r.returncode == 10, r
    note = (f"  note: an apply defers all of it: disruptive changes held by [Disruption] "
            f"Policy=never in {h.main}:2; set Policy=drain or immediate there to let them run, "
            "or make the change by hand\n")
    assert "disruptive raise firmware VF limit to 12 (reboot)" in r.stdout, r
    assert note in r.stdout, r
    r = h.run("apply", "0000:ca:00.0", env=NO_BUS)
    assert r.returncode == 1 and "deferred: disruptive changes held by" in r.stdout, r
    e = make_host("e810.json")
    e.main.write_text("[Disruption]\nPolicy=never\n")
    e.layout("50-a.conf",
             "[Match]\nPCIAddress=0000:3b:00.0\n[PhysicalFunction]\nVirtualFunctions=4\n")
    r = e.run("plan", "0000:3b:00.0", env=NO_BUS)
    assert r.returncode == 10 and "all live" in r.stdout and "note:" not in r.stdout, r


CX6_A, CX6_B = "0000:ca:00.0", "0000:ca:00.1"


def test_plan_and_apply_say_a_limit_set_by_hand_as_status_does(make_host):
    """Trial 30 (minor): after the apply that raised the card's limit to 16, the firmware set
    to 12 by hand: plan (text and --json) and apply say the reason as status says it, as the
    firmware holds it, never "raised to 12" as if an apply had raised it so far."""
    h = make_host("cx6dx.json")
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    h.layout("50-p0.conf",
             f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\nVirtualFunctions=12\n")
    h.layout("50-p1.conf",
             f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\nVirtualFunctions=16\n")
    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 0, r.stdout + r.stderr

    def by_hand(s):
        for p in s["pfs"]:
            if p["pci"] in (CX6_A, CX6_B):
                p["firmware_total_vfs"] = 12
    h.edit(by_hand)
    said = "firmware VF limit 12 set in firmware, waiting for a reboot (the apply of "
    out = h.run("status", env=NO_BUS).stdout
    assert "pending reboot: " + said in out, out
    for out in (h.run("plan", CX6_A, env=NO_BUS).stdout,
                h.run("apply", CX6_A, env=NO_BUS).stdout):
        assert "raised to 12" not in out, out
        assert "reboot needed: " + said in out, out
    doc = json.loads(h.run("plan", "--json", CX6_A, env=NO_BUS).stdout)
    reasons = doc["pfs"][0]["reboot_reasons"]
    assert reasons and all(s.startswith(said) for s in reasons), reasons


def test_the_port_whose_raise_the_other_makes_has_no_deferral_note(make_host):
    """Review: under Policy=never the whole-host plan gives the card's raise to the first port,
    whose plan an apply defers; the other port's plan, left with nothing to do, says no
    deferral (it said one, after "nothing to do")."""
    h = make_host("cx6dx.json")
    h.main.write_text("[Disruption]\nPolicy=never\n")
    h.layout("50-a.conf",
             "[Match]\nPCIAddress=0000:ca:00.0\n[PhysicalFunction]\nVirtualFunctions=12\n")
    h.layout("51-b.conf",
             "[Match]\nPCIAddress=0000:ca:00.1\n[PhysicalFunction]\nVirtualFunctions=10\n")
    r = h.run("plan", env=NO_BUS)
    assert r.returncode == 10, r
    a, b = r.stdout.split("0000:ca:00.1 (ens3f1np1): ")
    assert "note: an apply defers all of it: " in a, r
    assert b.startswith("nothing to do\n") and "note:" not in b, r
