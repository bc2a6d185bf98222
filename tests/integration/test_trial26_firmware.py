# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 26 (fresh eyes), firmware: the daemon's pending reboot reasons are said again when the
layouts change, as the PF's row says them: once no layout of another port of the card needs a
raised limit, "no layout asks for it now", not "<port>'s layout needs N of it" (1); a link type
set in firmware is said by a reset through the daemon as by one run locally (3); a raised limit
that no layout asks for makes no "reboot by hand" line (12)."""

import json
import os
import re
import signal
import subprocess

from conftest import PF_IFACE, pf_path

CX6_A, CX6_B = "0000:ca:00.0", "0000:ca:00.1"  # cx6dx.json: one card, firmware limit 8
VPI = "0000:41:00.1"  # cx6-vpi.json
WHEN = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def ctl(h, system_bus, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    return subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def test_the_daemon_says_again_whose_layout_needs_the_limit(make_host, start_daemon, bus_client,
                                                            system_bus):
    c = bus_client
    h = make_host("cx6dx.json")
    h.main.write_text("[Reboot]\nPolicy=never\n[Disruption]\nPolicy=immediate\n")
    a = h.layout("60-cx.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=12\n[VirtualFunction]\nTrust=yes\n")
    b = h.layout("61-cx.conf", f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\n"
                 "VirtualFunctions=10\n")
    d = start_daemon(h)
    raised = "firmware VF limit raised to 12, waiting for a reboot"
    c.wait(lambda: f"{CX6_A}: {raised}" in c.get("PendingRebootReasons"), what="raised to 12")
    a.unlink()  # the daemon sees it go (conf.d is watched)
    needs = re.compile(rf"{CX6_A}: {raised} \(set by the apply of {WHEN}; {CX6_B}'s layout "
                       r"needs 10 of it\)")
    c.wait(lambda: any(needs.fullmatch(x) for x in c.get("PendingRebootReasons")),
           what="ca:00.1's layout needs it")
    b.unlink()
    d.proc.send_signal(signal.SIGHUP)
    c.call("Reload")
    c.wait_property("State", "unconfigured", pf_path(CX6_B), PF_IFACE)
    unasked = re.compile(rf"{CX6_A}: {raised} \(set by the apply of {WHEN}; no layout asks for "
                         r"it now\)")
    c.wait(lambda: [x for x in c.get("PendingRebootReasons") if x.startswith(CX6_A)] and
           all(unasked.fullmatch(x) for x in c.get("PendingRebootReasons")
               if x.startswith(CX6_A)), what="no layout asks for it now")
    st = json.loads(c.call("GetStatus"))
    mine = [x for x in st["daemon"]["pending_reboot_reasons"] if x.startswith(CX6_A)]
    assert mine and all(unasked.fullmatch(x) for x in mine), st["daemon"]
    rec = json.loads((h.dir / "host.json.lib" / "reboot.json").read_text())
    assert not any("layout needs" in x["reason"] for x in rec["reasons"]), rec
    out = ctl(h, system_bus, "status").stdout
    assert "layout needs 10" not in out, out
    assert f"mstconfig -d {CX6_A} set NUM_OF_VFS=8" in out, out
    # 12: nothing a reboot would be made for: no "reboot by hand"
    assert "reboot by hand" not in out, out
    assert "no reboot is made: no layout asks for what is pending (no reboot is made for that " \
        "alone): the mstconfig command under its PF sets it back" in out, out
    assert st["daemon"]["no_reboot"].startswith("no layout asks for what is pending"), st


def test_a_reset_through_the_daemon_says_the_link_type_stays(make_host, start_daemon,
                                                              bus_client, system_bus):
    c = bus_client
    h = make_host("cx6-vpi.json")
    h.main.write_text(h.main.read_text() + "[Reboot]\nPolicy=never\n")
    lay = h.layout("50-ib.conf", f"[Match]\nPCIAddress={VPI}\n[PhysicalFunction]\n"
                   "LinkType=infiniband\nVirtualFunctions=4\n")
    d = start_daemon(h)
    c.wait(lambda: any(x.startswith(f"{VPI}: link type") for x in
                       c.get("PendingRebootReasons")), what="the link type pending")
    lay.unlink()
    d.proc.send_signal(signal.SIGHUP)
    c.wait_property("State", "unconfigured", pf_path(VPI), PF_IFACE)
    stays = "the link type infiniband set in firmware stays set for the next reboot"
    r = ctl(h, system_bus, "reset", VPI)
    assert r.returncode == 0 and stays in r.stdout, r.stdout + r.stderr
    assert f"mstconfig -d {VPI} set LINK_TYPE_P2=2" in r.stdout, r.stdout
