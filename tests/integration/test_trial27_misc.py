# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 27 (fresh eyes), item 7 and the trivial findings: sriovctl(8) says alike in DESCRIPTION
and OPTIONS that the options naming a host, layouts or directories make sriovctl do the work
itself (apply with --host applies to the file itself, also beside a daemon on the same file); a
layout edited while the daemon was stopped and a drifted PF: the start-time journal line says the
apply repaired what differed, drift included, as a reload says the drift it repaired; a simulated
host whose VF address ranges meet is refused at once (file and both PFs named, nothing changed;
the simulator's firmware reset moves the ports' VFs apart, as the firmware does: test-host-sim
and test_firmware_reset.py read the host it wrote); plan
through a daemon that cannot read the host says on standard output, above the rows, that they
are as read last, as status does."""

import json
import os
import re
import subprocess

from conftest import ROOT
from test_daemon import E810_A, E810_B, NO_BUS, apply_all, configured_host, drift, sync
from test_trial22_firmware import CX6_A, CX6_B
from test_trial23_unreadable import HEADER, LAST, truncate_host, via_daemon
from test_trial22_reload import fix_host


def _page(name):
    return re.sub(r"\s+", " ", (ROOT / "man" / name).read_text().replace("\\-", "-"))


# --- 7 ----------------------------------------------------------------------------------------

def test_the_manual_says_alike_that_the_path_options_work_here():
    page = _page("sriovctl.8")
    desc = page.split(".SH DESCRIPTION")[1].split(".SH ")[0]
    opts = page.split(".SH OPTIONS")[1].split(".SH ")[0]
    for o in ("host", "config-dir", "main-config", "runtime-dir", "state-dir", "root"):
        assert f"\\fB--{o}\\fR" in desc.split("does the work itself")[0], o
        assert f"\\fB--{o}\\fR" in opts.split("never through")[0], o
    assert "apply\\fR asks it to apply" not in page
    host = opts.split(".BI --host")[1].split(".TP")[0]
    assert "applies to \\fIFILE\\fR itself, also where \\fBsriov-persistd\\fR runs with the " \
        "same \\fB--host\\fR \\fIFILE\\fR" in host, host


def test_apply_with_host_applies_itself_beside_a_daemon_on_that_host(make_host, start_daemon,
                                                                   bus_client, system_bus):
    """What the manual says: the daemon on the same --host FILE is not asked; sriovctl prints
    every action it ran, which an apply through the daemon does not."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    start_daemon(h)
    apply_all(c, [E810_A])
    drift(h, E810_A, vf=1, vlan=7)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    r = h.run("apply", "ens1f0", env=env)
    assert r.returncode == 0, r
    assert "  done VF 1: vlan 10 qos 0 802.1Q\n" in r.stdout, r.stdout  # its own action lines
    assert all(v["vlan"] == 10 for v in h.pf(E810_A)["vfs"])


# --- trivial: the start-time line -------------------------------------------------------------

def test_a_layout_edited_while_stopped_says_at_start_it_repaired_the_drift(make_host,
                                                                          start_daemon,
                                                                          bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    d.stop()
    drift(h, E810_A, vf=1, vlan=7)
    f = h.confdir / f"50-{E810_A}.conf"
    f.write_text(f.read_text() + "[VirtualFunction 0]\nTrust=yes\n")
    m = c.mark()
    d = start_daemon(h)
    assert c.wait_applied(E810_A, m) == 0
    sync(c)
    assert all(v["vlan"] == 10 for v in h.pf(E810_A)["vfs"])
    line = next((x for x in d.log_text().splitlines() if "applied after" in x), "")
    assert re.search(rf"{E810_A} \(ens1f0\): applied after \d+ action\(s\); its layout changed "
                     r"since its last apply: the apply repaired all that differed from it, any "
                     r"drift since that apply too: .*VF 1: vlan 10", line), d.log_text()


# --- trivial: VF address ranges that meet -----------------------------------------------------

def test_a_host_whose_vf_ranges_meet_is_refused_at_once(make_host):
    h = make_host("cx6dx.json")
    h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=12\n")
    s = h.state()
    for p in s["pfs"]:
        if p["pci"] in (CX6_A, CX6_B):
            p["total_vfs"] = 20  # the raised limit in force, the second port's VFs not moved
    h.save(s)
    before = h.path.read_bytes()
    i = next(k for k, p in enumerate(s["pfs"]) if p["pci"] == CX6_B)
    j = next(k for k, p in enumerate(s["pfs"]) if p["pci"] == CX6_A)
    for verb in ("check", "status", "plan", "apply"):
        r = h.run(verb, env=NO_BUS)
        assert r.returncode == 1, (verb, r)
        assert (f"{h.path}: not a simulated host snapshot: pfs[{i}].total_vfs: 20 VFs of "
                f"{CX6_B} would share 0000:ca:01.2 with {CX6_A}'s (pfs[{j}]); set vf_offset "
                "past them") in r.stderr, (verb, r.stderr)
    assert h.path.read_bytes() == before
    assert not os.path.exists(f"{h.path}.run/pf")


def test_vf_ranges_apart_are_applied_and_read_back(make_host):
    h = make_host("e810.json")
    h.layout("50-a.conf", f"[Match]\nPCIAddress={E810_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n")
    h.layout("50-b.conf", f"[Match]\nPCIAddress={E810_B}\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n")
    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 0, r
    r = h.run("status", env=NO_BUS)
    assert r.returncode == 0, r


# --- trivial: plan through a daemon that cannot read the host ---------------------------------

def test_plan_says_on_stdout_that_its_rows_are_as_read_last(make_host, start_daemon, bus_client,
                                                           system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)})
    start_daemon(h)
    apply_all(c, [E810_A])
    good = truncate_host(h)
    c.wait_property("State", "degraded")
    err = json.loads(c.call("GetStatus"))["daemon"]["host_error"]
    for args in (["plan"], ["plan", "ens1f0"]):
        r = via_daemon(h, system_bus, *args)
        assert r.returncode == 1, (args, r)
        first = r.stdout.splitlines()[0]
        assert first.startswith("sriov-persistd: " + HEADER), (args, r.stdout)
        assert err["error"] in first and first.endswith(LAST), (args, r.stdout)
        assert "0000:3b:00.0 (ens1f0): nothing to do" in r.stdout, (args, r.stdout)
        assert HEADER not in r.stderr, (args, r.stderr)
    r = via_daemon(h, system_bus, "plan", "--json")
    assert r.returncode == 1, r
    assert json.loads(r.stdout)["host_error"]["error"] == err["error"]
    assert r.stderr.splitlines()[-1].endswith(LAST), r.stderr
    fix_host(h, good)
    c.wait_property("State", "idle")
    r = via_daemon(h, system_bus, "plan")
    assert r.returncode == 0 and HEADER not in r.stdout + r.stderr, r
