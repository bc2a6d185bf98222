# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 28 (fresh eyes): an apply that the disruption policy defers did not raise the firmware
VF limit, and says no "reboot needed:" for it, as plan says it ("reboot needed after its
apply:"), on its own and through the daemon (1)."""

import json
import os
import subprocess

from test_daemon import NO_BUS

CX6_A = "0000:ca:00.0"
LATER = "reboot needed after its apply: firmware VF limit 8 -> 12 takes effect after a reboot"


def deferred_raise(make_host):
    """A fresh cx6dx.json, a layout that raises ca:00.0's firmware VF limit 8 to 12, and a
    disruption policy that holds the raise back."""
    h = make_host("cx6dx.json")
    h.layout("50-p0.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=12\n")
    h.main.write_text("[Disruption]\nPolicy=never\n")
    return h


def pf_json(h, pci):
    r = h.run("status", "--json", env=NO_BUS)
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


def record(h, pci):
    return json.loads((h.dir / "host.json.run" / "pf" / f"{pci}.json").read_text())


# --- 1: a deferred apply raised nothing and says no "reboot needed:" for it ---------------------

def test_a_deferred_raise_says_no_reboot_needed(make_host):
    h = deferred_raise(make_host)
    plan = h.run("plan", env=NO_BUS)
    assert f"  {LATER}\n" in plan.stdout, plan.stdout
    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 1, r
    assert f"{CX6_A} (ens3f0np0): deferred: disruptive changes held by [Disruption] " \
        "Policy=never in " in r.stdout, r.stdout
    assert "reboot needed:" not in r.stdout, r.stdout
    assert f"  {LATER}\n" in r.stdout, r.stdout
    assert h.pf(CX6_A)["firmware_total_vfs"] == 8
    pf = pf_json(h, CX6_A)
    assert pf["pending_reboot_reasons"] == [] and pf["last_apply"]["pending_reboot"] is False, pf
    # the record of the apply holds no reason to reboot that the firmware does not
    rec = record(h, CX6_A)
    assert rec["state"] == "deferred" and rec["reboot_reasons"] == [], rec
    # and apply again says it alike
    r = h.run("apply", CX6_A, env=NO_BUS)
    assert r.returncode == 1 and "reboot needed:" not in r.stdout, r.stdout


def test_a_deferred_raise_through_the_daemon_says_no_reboot_needed(make_host, start_daemon,
                                                                 bus_client, system_bus):
    c = bus_client
    h = deferred_raise(make_host)
    d = start_daemon(h)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    r = subprocess.run([h.binary, "--no-color", "apply", CX6_A], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 1, r
    assert f"{CX6_A} (ens3f0np0): deferred: disruptive changes held by [Disruption] " \
        "Policy=never in " in r.stdout, r.stdout
    assert "reboot needed:" not in r.stdout, r.stdout
    assert h.pf(CX6_A)["firmware_total_vfs"] == 8
    # the daemon's record of its apply holds no reason to reboot either
    rec = record(h, CX6_A)
    assert rec["state"] == "deferred" and rec["reboot_reasons"] == [], rec
    assert c.get("PendingReboot") is False
    st = json.loads(c.call("GetStatus"))
    pf = next(p for p in st["pfs"] if p["pci"] == CX6_A)
    assert pf["pending_reboot_reasons"] == [] and pf["last_apply"]["pending_reboot"] is False, pf
    assert "reboot needed" not in d.log_text(), d.log_text()
    # sriovctl --host beside the daemon applies itself: said as without it
    r = h.run("apply", CX6_A, env=env)
    assert r.returncode == 1, r
    assert "reboot needed:" not in r.stdout and f"  {LATER}\n" in r.stdout, r.stdout
