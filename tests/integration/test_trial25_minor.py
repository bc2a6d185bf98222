# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 25 (fresh eyes), minor items: a firmware VF limit set by hand since an apply raised the
card's is said as the firmware holds it on the port whose layout needs it too, as on the port
that raised it (1); a PF that [Disruption] Policy=never holds names the FILE:LINE of Policy= and
what lifts it, in sriovctl status, GetStatus() and LastError alike (2); under Policy=drain
without Kubernetes the daemon's journal says that a disruptive change ran without a drain (3);
the manuals say what [Reboot] Policy=immediate does with --host (4); under [Drift] Mode=report
the journal says that the apply of a changed layout repaired the drift too (5); the daemon's
unit restarts it after a pause that a short unreadable host outlasts (6)."""

import configparser
import json
import re
from pathlib import Path

from conftest import PF_IFACE, pf_path
from test_daemon import E810_A, NO_BUS, apply_all, configured_host, drift, sync
from test_trial22_firmware import CX6_A, CX6_B, layouts, pfs, set_pfs

ROOT = Path(__file__).resolve().parents[2]
WHEN = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def status_of(h, pci):
    """The PF's object of sriovctl status --json, on its own (exit status 1 when one is
    deferred)."""
    r = h.run("status", "--json", env=NO_BUS)
    assert r.returncode in (0, 1), r.stderr
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


def never_reason(main, line):
    return (f"disruptive changes held by [Disruption] Policy=never in {main}:{line}; set "
            "Policy=drain or immediate there to let them run, or make the change by hand")


# --- 1 ----------------------------------------------------------------------------------------

def test_a_limit_set_by_hand_is_not_said_as_raised_on_the_port_that_needs_it(make_host):
    h = make_host("cx6dx.json")
    a, _ = layouts(h)  # ca:00.0 16 VFs, ca:00.1 12; the apply raises the card to 16
    assert h.run("apply", env=NO_BUS).returncode == 0
    a.unlink()
    set_pfs(h, firmware_total_vfs=12)  # mstconfig -d 0000:ca:00.0 set NUM_OF_VFS=12
    st = pfs(h)
    said_a = (r"firmware VF limit 12 set in firmware, waiting for a reboot \(the apply of "
              + WHEN + rf" raised it to 16; changed since; {CX6_B}'s layout needs 12 of it\)")
    said_b = (r"firmware VF limit 12 set in firmware, waiting for a reboot \(the apply of "
              + WHEN + rf" raised it to 16 for {CX6_A}; changed since; its layout needs 12 of "
              r"it\)")
    assert len(st[CX6_A]["pending_reboot_reasons"]) == 1 and \
        re.fullmatch(said_a, st[CX6_A]["pending_reboot_reasons"][0]), st[CX6_A]
    assert len(st[CX6_B]["pending_reboot_reasons"]) == 1 and \
        re.fullmatch(said_b, st[CX6_B]["pending_reboot_reasons"][0]), st[CX6_B]
    assert st[CX6_B]["state"] == "pending" and \
        re.fullmatch(said_b, st[CX6_B]["reason"]), st[CX6_B]
    out = h.run("status", env=NO_BUS).stdout
    assert "raised to 12" not in out, out
    assert re.search(r"\n    pending reboot: " + said_b + "\n", out), out


def test_the_daemon_says_a_limit_set_by_hand_as_status_does(make_host, start_daemon, bus_client):
    c = bus_client
    h = make_host("cx6dx.json")
    h.main.write_text(h.main.read_text() + "[Reboot]\nPolicy=never\n")
    a, _ = layouts(h)
    start_daemon(h)
    # ca:00.1 waits for ca:00.0's raise, ca:00.0's pending reboot (trial 27, 5)
    c.wait(lambda: "the card raise made by the apply of" in
           c.get("LastError", pf_path(CX6_B), PF_IFACE), what="ca:00.1 waits for the raise")
    assert len(c.get("PendingRebootReasons")) == 1
    a.rename(h.dir / "50-p0.conf")
    c.call("Reload")
    c.wait_property("State", "unconfigured", pf_path(CX6_A), PF_IFACE)
    set_pfs(h, firmware_total_vfs=12)
    said_b = re.compile(rf"{CX6_B}: firmware VF limit 12 set in firmware, waiting for a reboot "
                        r"\(the apply of " + WHEN + rf" raised it to 16 for {CX6_A}; changed "
                        r"since; its layout needs 12 of it\)")
    reasons = c.wait(lambda: any(said_b.fullmatch(x) for x in c.get("PendingRebootReasons"))
                     and c.get("PendingRebootReasons"), what="ca:00.1's reason as set by hand")
    assert not any("raised to 12" in x for x in reasons), reasons
    doc = json.loads(c.call("GetStatus"))
    assert not any("raised to 12" in x for x in doc["daemon"]["pending_reboot_reasons"]), doc


# --- 2 ----------------------------------------------------------------------------------------

def test_policy_never_names_where_it_is_set_and_what_lifts_it(make_host):
    h = make_host("x710.json")
    h.main.write_text("[Disruption]\nPolicy=never\n")
    pci = "0000:18:00.0"
    f = h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\n")
    assert h.run("apply", env=NO_BUS).returncode == 0
    f.write_text(f.read_text().replace("=4", "=6"))
    why = never_reason(h.main, 2)
    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 1 and f"(ens2f0): deferred: {why}\n" in r.stdout, r
    pf = status_of(h, pci)
    assert pf["state"] == "deferred" and pf["reason"] == why, pf


def test_the_daemon_says_policy_never_as_sriovctl_does(make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, policy="never")
    start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()
    f = h.confdir / f"50-{E810_A}.conf"
    f.write_text(f.read_text().replace("VirtualFunctions=4", "VirtualFunctions=6"))
    c.call("Reload")
    assert c.wait_applied(E810_A, m) != 0
    c.wait_property("State", "deferred", pf_path(E810_A), PF_IFACE)
    why = never_reason(h.main, 6)
    assert c.get("LastError", path=pf_path(E810_A), iface=PF_IFACE) == why
    doc = json.loads(c.call("GetStatus"))
    pf = next(p for p in doc["pfs"] if p["pci"] == E810_A)
    assert pf["state"] == "deferred" and pf["reason"] == why, pf
    assert status_of(h, E810_A)["reason"] == why


# --- 3 ----------------------------------------------------------------------------------------

def test_a_disruptive_change_without_a_drain_is_said_in_the_journal(make_host, start_daemon,
                                                                   bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, policy="drain")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()
    f = h.confdir / f"50-{E810_A}.conf"
    f.write_text(f.read_text().replace("VirtualFunctions=4", "VirtualFunctions=6"))
    c.call("Reload")
    assert c.wait_applied(E810_A, m) == 0
    sync(c)
    assert h.pf(E810_A)["num_vfs"] == 6
    assert (f"{E810_A} (ens1f0): the disruptive change ran without a drain ([Disruption] "
            "Policy=drain): Kubernetes is not enabled ([Kubernetes] Enabled= is not set, and "
            "auto, its default, found no credentials)") in d.log_text(), d.log_text()


# --- 4 ----------------------------------------------------------------------------------------

def _page(name):
    return re.sub(r"\s+", " ", (ROOT / "man" / name).read_text().replace("\\-", "-"))


def test_the_manuals_say_what_an_immediate_reboot_does_with_host():
    conf = _page("sriov-persist.conf.5")
    reboot = conf.split('.SH "[Reboot] SECTION"')[1].split(".SH ")[0]
    assert "With \\fBsriov-persistd --host\\fR \\fIFILE\\fR (a simulated host) the reboot is " \
        "still asked of logind" in reboot, reboot
    assert "reboots the machine the daemon runs on, not the simulated host" in reboot
    assert "\\fBsriovctl\\fR makes no reboot itself" in reboot
    daemon = _page("sriov-persistd.8")
    assert "reboots the machine the daemon runs on, not the simulated host" in daemon
    ctl = _page("sriovctl.8")
    assert "reboots the machine it runs on, not the simulated host" in ctl


# --- 5 ----------------------------------------------------------------------------------------

def test_report_mode_the_apply_of_a_changed_layout_says_it_repaired_the_drift(
        make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    drift(h, E810_A, vf=1, vlan=7)
    c.wait_property("State", "drifted", pf_path(E810_A), PF_IFACE)
    m = c.mark()
    f = h.confdir / f"50-{E810_A}.conf"
    f.write_text(f.read_text() + "[VirtualFunction 0]\nTrust=yes\n")
    c.call("Reload")
    assert c.wait_applied(E810_A, m) == 0
    sync(c)
    assert all(v["vlan"] == 10 for v in h.pf(E810_A)["vfs"])
    line = next((x for x in d.log_text().splitlines() if "applied after" in x
                 and "repaired" in x), "")
    assert re.search(rf"{E810_A} \(ens1f0\): applied after \d+ action\(s\); the apply of its "
                     r"changed layout also repaired the drift that \[Drift\] Mode=report in "
                     + re.escape(str(h.main)) + r":4 had left: VF 1: vlan 10 qos 0 802\.1Q "
                     r"\(now vlan 7 qos 0 802\.1Q\)$", line), \
        d.log_text()


# --- 6 ----------------------------------------------------------------------------------------

def test_the_daemon_unit_restarts_after_a_pause_without_a_start_limit():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(ROOT / "units" / "sriov-persistd.service")
    assert unit["Service"]["Restart"] == "on-failure"
    assert unit["Service"]["RestartSec"] == "5s"
    # no start limit: the VM tier kills the daemon ten times in a few minutes
    assert unit["Unit"]["StartLimitIntervalSec"] == "0"
    assert "StartLimitBurst" not in unit["Unit"]
    page = _page("sriov-persistd.8")
    assert "(\\fIRestartSec=5s\\fR), with no start limit" in page, page
