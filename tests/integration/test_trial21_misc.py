# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 21 (fresh eyes), miscellaneous: a reason that names a command names it with the options
sriovctl was given, as the hint below it does; a drift that [Drift] Mode=report leaves says so,
with where Mode= is set and what repairs it, in status and in the daemon's LastError."""

import json

from conftest import PF_IFACE, pf_path
from test_daemon import E810_A, apply_all, configured_host, drift, sync  # noqa: F401

LAYOUT = "[Match]\nPCIAddress=0000:3b:00.0\n[PhysicalFunction]\nVirtualFunctions=4\n"


def options(h):
    return f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"


def test_a_lifted_deferral_of_a_reset_names_the_full_command(make_host):
    """A reset deferred by Policy=never that Policy=immediate lets run now: the reason's command
    is the one to copy, with the options given, as the line below it is."""
    h = make_host("e810.json")
    f = h.layout("50-e810.conf", LAYOUT)
    assert h.run("apply", E810_A).returncode == 0
    f.unlink()
    h.main.write_text("[Disruption]\nPolicy=never\n")
    assert h.run("reset", E810_A).returncode == 1
    h.main.write_text("[Disruption]\nPolicy=immediate\n")
    r = h.run("status", E810_A)
    cmd = f"sriovctl{options(h)} reset {E810_A}"
    assert ("4 VFs left from a removed layout; not reset since its last reset was deferred by "
            "[Disruption] Policy=never, which is now Policy=immediate "
            f"({cmd} runs it)\n") in r.stdout, r.stdout
    assert f'    "{cmd}" runs it now\n' in r.stdout, r.stdout
    assert f"(sriovctl reset {E810_A} runs it)" not in r.stdout, r.stdout


def test_a_lifted_hold_names_the_full_command(make_host):
    """An apply held by an error fixed since: the reason's command has the options too."""
    h = make_host("e810.json")
    f = h.layout("50-e810.conf", LAYOUT + "Bogus=1\n")
    assert h.run("apply", E810_A).returncode == 1
    f.write_text(LAYOUT)
    cmd = f"sriovctl{options(h)} apply {E810_A}"
    for verb in (("status", E810_A), ("wait", "--timeout", "1")):
        r = h.run(*verb)
        assert ("not applied since its last apply held it, and what held it is fixed now "
                f"({cmd} applies it)") in r.stdout, (verb, r.stdout + r.stderr)
        assert f'    "{cmd}" applies it now' in r.stdout, (verb, r.stdout)


def test_report_mode_says_why_a_drift_stays(make_host):
    """sriovctl status of a drifted PF with [Drift] Mode=report: not repaired, where Mode= is
    set (file:line), and the command that repairs it."""
    h = make_host("e810.json")
    h.layout("50-e810.conf", LAYOUT + "MTUBytes=9000\n")
    assert h.run("apply", E810_A).returncode == 0
    h.main.write_text("[Apply]\nSysfsWriteTimeoutSec=1\n\n[Drift]\nMode=report\n")
    s = h.state()
    h.pf_of(s, E810_A)["mtu"] = 1500
    h.save(s)
    why = (f"differs: set PF mtu 9000 (now 1500); not repaired ([Drift] Mode=report in "
           f"{h.main}:5); sriovctl{options(h)} apply {E810_A} repairs it")
    r = h.run("status", E810_A)
    assert f"    {why}\n" in r.stdout, r.stdout
    r = h.run("status", "--json", E810_A)
    pf = next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == E810_A)
    assert pf["state"] == "drifted" and pf["reason"] == why, pf
    # Mode=repair (the default): no such words
    h.main.write_text("[Apply]\nSysfsWriteTimeoutSec=1\n")
    r = h.run("status", E810_A)
    assert "drifted" in r.stdout and "not repaired" not in r.stdout, r.stdout


def test_report_mode_drift_has_a_last_error(make_host, start_daemon, bus_client):
    """The daemon with Mode=report: the drifted PF's LastError says it is not repaired, why
    (file:line of Mode=) and what repairs it; GetStatus()'s reason ends the same way. With
    Apply() it is applied again and LastError is empty."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    start_daemon(h)
    apply_all(c, [E810_A])
    assert c.get("LastError", pf_path(E810_A), PF_IFACE) == ""
    drift(h, E810_A, mac="02:11:22:33:44:55")
    c.wait_property("State", "drifted", path=pf_path(E810_A), iface=PF_IFACE)
    sync(c)
    kept = (f"not repaired ([Drift] Mode=report in {h.main}:4); sriovctl apply {E810_A} "
            "repairs it")
    assert c.get("LastError", pf_path(E810_A), PF_IFACE) == kept
    doc = json.loads(c.call("GetStatus"))
    pf = next(p for p in doc["pfs"] if p["pci"] == E810_A)
    assert pf["state"] == "drifted" and pf["reason"].endswith(kept), pf
    m = c.mark()
    c.call("Apply", "")
    assert c.wait_applied(E810_A, m) == 0
    c.wait_property("State", "applied", path=pf_path(E810_A), iface=PF_IFACE)
    assert c.get("LastError", pf_path(E810_A), PF_IFACE) == ""
