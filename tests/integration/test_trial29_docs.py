# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 29 (fresh eyes). A port of a two-port ConnectX card (cx6dx.json, one firmware VF limit
for the card) that no layout selects names the port whose status record carries the raise of the
card's limit, also once that port's layout is removed: "(raised by the apply of 0000:ca:00.0, one
setting of this card)", as sriov-persist.layout(5) FIRMWARE and sriovctl(8) say it (5). A VF
whose recreation loses its driver says so once: the bind to the kernel's VF driver that a layout
needing a network interface brings is not said again after "differs:" (8). The README says what
runs a reset that Policy=never deferred (the operator's sriovctl reset PCI; no apply, no reload)
and that the firmware changes that need a reboot wait under Policy=never too, as the product does
(2, 3)."""

import json

from conftest import ROOT
from test_daemon import NO_BUS

CX6_A, CX6_B = "0000:ca:00.0", "0000:ca:00.1"
E810_A = "0000:3b:00.0"


def pf_json(h, pci):
    r = h.run("status", "--json", env=NO_BUS)
    assert r.returncode in (0, 1), r
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


# --- 5: the port whose removed layout raised the card's limit is named -------------------------

NOTE = (f"firmware VF limit 16 from the next reboot, 8 until then (raised by the apply of {CX6_A}, "
        "one setting of this card)")


def test_the_other_port_names_the_port_whose_record_carries_the_raise(make_host):
    h = make_host("cx6dx.json")
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    a = h.layout("50-p0.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=16\n")
    assert h.run("apply", env=NO_BUS).returncode == 0
    assert h.pf(CX6_B)["firmware_total_vfs"] == 16
    # while its layout is there, its plan names it
    assert pf_json(h, CX6_B)["firmware_note"].startswith(NOTE)
    a.unlink()
    b = pf_json(h, CX6_B)
    assert b["state"] == "unconfigured" and b["firmware_note"].startswith(NOTE + "; "), b
    for args in (("status",), ("status", CX6_B)):
        out = h.run(*args, env=NO_BUS).stdout
        assert f"    {NOTE}; " in out, out
        assert "8 until then (one setting of this card)" not in out, out
    # the raising port says its own raise, not another's
    assert pf_json(h, CX6_A)["firmware_note"] is None or \
        "raised by the apply of" not in pf_json(h, CX6_A)["firmware_note"]


# --- 8: a driver the recreation loses is said once ---------------------------------------------

def test_a_lost_driver_is_not_said_again_as_a_difference(make_host):
    h = make_host("e810.json")
    h.layout("50-a.conf", f"[Match]\nPCIAddress={E810_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n")
    assert h.run("apply", env=NO_BUS).returncode == 0

    def by_hand(s):
        p = next(p for p in s["pfs"] if p["pci"] == E810_A)
        p["drivers_autoprobe"] = False
        p["vfs"][0]["driver"] = "vfio-pci"
    h.edit(by_hand)
    # a VF MTU needs a network interface: the new VF 0 is bound to the kernel's VF driver
    h.layout("50-a.conf", f"[Match]\nPCIAddress={E810_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=4\n[VirtualFunction]\nVLANId=100\nMTUBytes=1400\n")
    plan = h.run("plan", E810_A, env=NO_BUS).stdout
    assert "VF 0: bind iavf" in plan, plan
    vf0 = pf_json(h, E810_A)["vfs"][0]
    assert vf0["layout"] == ("to be recreated (VirtualFunctions=4), without its driver vfio-pci "
                             "(no layout sets it); differs: vlan 0 (wanted 100); mtu 1500 "
                             "(wanted 1400)"), vf0
    out = h.run("status", E810_A, env=NO_BUS).stdout
    assert "without its driver vfio-pci (no layout sets it); differs: vlan 0 (wanted 100); " \
           "mtu 1500 (wanted 1400)\n" in out, out
    assert "(wanted iavf)" not in out, out


# --- 2, 3: what the README says of Policy=never is what the product does -----------------------

def readme():
    return " ".join((ROOT / "README.md").read_text().split())


def test_the_readme_says_what_runs_a_deferred_reset(make_host):
    text = readme()
    assert ("Under `Policy=never` the reset is deferred (the PF shows as `deferred`) and waits for "
            "the operator: no apply and no reload of the daemon runs it.") in text
    assert 'the PF is then `pending`, and its reason ends "(sriovctl reset PCI runs it)"' in text
    h = make_host("e810.json")
    h.main.write_text("[Disruption]\nPolicy=never\n")
    lay = h.layout("50-a.conf", f"[Match]\nPCIAddress={E810_A}\n[PhysicalFunction]\n"
                   "VirtualFunctions=2\n")
    assert h.run("apply", env=NO_BUS).returncode == 0
    lay.unlink()
    assert h.run("reset", E810_A, env=NO_BUS).returncode == 1
    assert pf_json(h, E810_A)["state"] == "deferred"
    # an apply does not run it
    h.run("apply", env=NO_BUS)
    assert h.pf(E810_A)["num_vfs"] == 2 and pf_json(h, E810_A)["state"] == "deferred"

    def by_hand(s):
        p = next(p for p in s["pfs"] if p["pci"] == E810_A)
        p["num_vfs"], p["vfs"] = 0, []
    h.edit(by_hand)
    a = pf_json(h, E810_A)
    assert a["state"] == "pending" and a["reason"].endswith(f" reset {E810_A} runs it)"), a
    r = h.run("reset", E810_A, env=NO_BUS)
    assert r.returncode == 0 and pf_json(h, E810_A)["last_apply"] is None, r


def test_the_readme_says_firmware_changes_wait_under_policy_never(make_host):
    assert ("The firmware changes that need a reboot (VF limit, link type) wait too, also on a PF "
            "that has no VFs") in readme()
    h = make_host("cx6dx.json")
    h.main.write_text("[Disruption]\nPolicy=never\n")
    h.layout("50-p0.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=16\n")
    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 1 and f"{CX6_A} (ens3f0np0): deferred: " in r.stdout, r
    assert h.pf(CX6_A)["firmware_total_vfs"] == 8 and h.pf(CX6_A)["num_vfs"] == 0
