# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 28 (fresh eyes): an apply that the disruption policy defers did not raise the firmware
VF limit, and says no "reboot needed:" for it, as plan says it ("reboot needed after its
apply:"), on its own and through the daemon (1); a drift the daemon reports, or a repair the
disruption policy defers, says the VFs a repair would make again as what a repair does, not as
done (3); config errors at start do not run into the "Watching ..." line (12)."""

import json
import os
import signal
import subprocess

from test_daemon import E810_A, NO_BUS, apply_all, configured_host, main_config, sync

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


# --- 3: a drift line says what a repair would make again, an apply's line what it made ---------

def cut_vfs(h, pci, keep):
    """Someone removes VFs behind the daemon's back: the count drifts."""
    def change(s):
        pf = h.pf_of(s, pci)
        pf["num_vfs"] = keep
        pf["vfs"] = pf["vfs"][:keep]
    return h.edit(change)


def lines_with(d, text):
    return [x for x in d.log_text().splitlines() if text in x]


DRIFT = f"{E810_A} (ens1f0): drifted from its layout: 16 VFs wanted, 10 present"


def test_a_reported_count_drift_says_what_a_repair_would_make_again(make_host, start_daemon,
                                                                   bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (16, 10)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()
    cut_vfs(h, E810_A, 10)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    sync(c)
    said = lines_with(d, "drifted from its layout")
    assert said and said[-1].endswith(f"{DRIFT} (a repair makes VFs 0-9 again with it)"), said
    assert "are made again" not in d.log_text() and "were made again" not in d.log_text()
    assert h.pf(E810_A)["num_vfs"] == 10  # reported, not repaired
    # Apply() repairs it: said as done
    m = c.mark()
    c.call("Apply", E810_A)
    assert c.wait_applied(E810_A, m) == 0
    sync(c)
    assert h.pf(E810_A)["num_vfs"] == 16
    done = lines_with(d, "also repaired the drift")
    assert len(done) == 1 and done[0].endswith(
        "had left: 16 VFs wanted, 10 present (VFs 0-9 were made again with it)"), done


def test_a_deferred_count_repair_says_what_a_repair_would_make_again(make_host, start_daemon,
                                                                    bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (16, 10)}, mode="repair")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    main_config(h, "repair", "never")
    c.call("Reload")
    sync(c)
    m = c.mark()
    cut_vfs(h, E810_A, 10)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    assert c.wait_applied(E810_A, m) != 0
    sync(c)
    said = lines_with(d, "drifted from its layout")
    assert said and said[-1].endswith(f"{DRIFT} (a repair makes VFs 0-9 again with it)"), said
    assert lines_with(d, f"{E810_A} (ens1f0): deferred after 0 action(s)"), d.log_text()
    assert "are made again" not in d.log_text() and "were made again" not in d.log_text()
    assert h.pf(E810_A)["num_vfs"] == 10


def test_the_start_time_line_says_the_vfs_the_apply_made_again(make_host, start_daemon,
                                                              bus_client):
    """A layout edited and VFs removed while the daemon was stopped: the apply at start made
    the VFs again, and says so in the past."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (16, 10)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    d.stop()
    cut_vfs(h, E810_A, 10)
    f = h.confdir / f"50-{E810_A}.conf"
    f.write_text(f.read_text() + "[VirtualFunction 0]\nTrust=yes\n")
    m = c.mark()
    d = start_daemon(h)
    assert c.wait_applied(E810_A, m) == 0
    sync(c)
    assert h.pf(E810_A)["num_vfs"] == 16
    line = next((x for x in d.log_text().splitlines() if "applied after" in x), "")
    assert "its layout changed since its last apply: the apply repaired all that differed " \
        "from it, any drift since that apply too: 16 VFs wanted, 10 present (VFs 0-9 were made " \
        "again with it)" in line, d.log_text()
    assert "a repair makes" not in d.log_text() and "are made again" not in d.log_text()


# --- 12: config errors at start, each line whole ------------------------------------------------

def test_config_errors_at_start_are_whole_lines(make_host, system_bus, sriovpersistd_bin):
    """As the trial ran it: relative paths, stderr apart from stdout. Each error, and the
    "Watching ..." line, is a line of its own with the prefix."""
    h = make_host("cx6dx.json")
    h.main.write_text("[Drift]\nMode=report\n")
    h.layout("50-p0.conf", f"[Match]\nPCI={CX6_A}\n[PhysicalFunction]\nVirtualFunctions=4\n")
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    env.pop("NOTIFY_SOCKET", None)
    env.pop("JOURNAL_STREAM", None)
    p = subprocess.Popen([sriovpersistd_bin, "--host", h.path.name, "--config-dir",
                          h.confdir.name, "--main-config", h.main.name], cwd=h.dir,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    err = ""
    try:
        while "Watching" not in err:
            line = p.stderr.readline()
            assert line, err
            err += line
    finally:
        p.send_signal(signal.SIGTERM)
        out, rest = p.communicate(timeout=30)
    err += rest
    assert p.returncode == 0 and out == "", (out, err)
    error = f"sriov-persistd: {h.confdir.name}/50-p0.conf:2: unknown key 'PCI' in [Match]; " \
        "did you mean 'PCIAddress'?\n"
    assert error in err, err
    assert f"sriov-persistd: Watching 2 PF(s) of {h.path.name}\n" in err, err
    assert err.endswith("\n") and all(x.startswith("sriov-persistd: ")
                                       for x in err.splitlines()), err
