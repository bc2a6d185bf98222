# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 24 (fresh eyes), GetStatus()'s PF rows while the daemon cannot read the host: the daemon
checks no PF then, so a PF whose layout a waiting reload changed is pending, "the layout change
waits until the host can be read; then it is applied", not drifted against the new layout on
the host as read last, and no row names a command that cannot work now; the others are as the
daemon last checked them. And with the host readable, a reason names sriovctl apply once, not
"... applies it; ... repairs it", when the layout changed and [Drift] Mode=report keeps drift."""

import json
import os
import subprocess

from conftest import PF_IFACE, pf_path
from test_daemon import (E810_A, E810_B, LAYOUT, apply_all, configured_host, drift, host_matches,
                         replace_layout, sync)
from test_trial22_reload import break_host, fix_host

WAITING = "the layout change waits until the host can be read; then it is applied"
LAYOUT_A = f"50-{E810_A}.conf"


def ctl(h, system_bus, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    return subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def rows(c):
    return {p["pci"]: p for p in json.loads(c.call("GetStatus"))["pfs"]}


def host_error(c):
    return json.loads(c.call("GetStatus"))["daemon"]["host_error"]


def test_a_layout_change_that_waits_is_pending_not_drifted(make_host, start_daemon, bus_client,
                                                           system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 100)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    good = break_host(h)
    m = c.mark()
    replace_layout(h, LAYOUT_A, LAYOUT.format(pci=E810_A, n=4, vlan=200))
    c.wait(lambda: "the layout change waits until the host can be read" in d.log_text(),
           what="the journal saying the layout change waits")
    pf = rows(c)[E810_A]
    assert pf["state"] == "pending" and pf["reason"] == WAITING, pf
    assert rows(c)[E810_B]["state"] == "unconfigured", rows(c)[E810_B]
    r = ctl(h, system_bus, "status")
    assert r.returncode == 1, r
    row = next(x.split() for x in r.stdout.splitlines() if x.startswith(E810_A))
    assert row[6] == "pending", r.stdout
    assert f"\n    {WAITING}\n" in r.stdout, r.stdout
    assert "drifted" not in r.stdout and f"apply {E810_A}" not in r.stdout, r.stdout
    # readable again: the new layout is applied, and the row says so
    fix_host(h, good)
    assert c.wait_applied(E810_A, m) == 0
    c.wait_property("State", "applied", path=pf_path(E810_A), iface=PF_IFACE)
    c.wait_property("State", "idle")
    assert host_matches(h, E810_A, 4, 200)
    pf = rows(c)[E810_A]
    assert pf["state"] == "applied" and not pf["reason"], pf


def test_a_drift_kept_while_the_host_cannot_be_read_names_no_command(make_host, start_daemon,
                                                                    bus_client):
    """No layout change: the PF is as the daemon last checked it (drifted, kept under
    [Drift] Mode=report), with its reason, but not the command that cannot work now."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 100)}, mode="report")
    start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()
    drift(h, E810_A, vf=1, vlan=9)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    sync(c)
    pf = rows(c)[E810_A]
    assert pf["state"] == "drifted" and f"sriovctl apply {E810_A} repairs it" in pf["reason"], pf
    good = break_host(h)
    c.wait(lambda: host_error(c), what="GetStatus() saying the host cannot be read")
    pf = rows(c)[E810_A]
    assert pf["state"] == "drifted", pf
    assert pf["reason"] == (f"not repaired ([Drift] Mode=report in {h.main}:4); applying waits "
                            "until the host can be read"), pf
    assert pf["state"] == c.get("State", pf_path(E810_A), PF_IFACE), pf
    fix_host(h, good)
    c.wait(lambda: not host_error(c), what="GetStatus() saying the host can be read")
    pf = rows(c)[E810_A]
    assert pf["state"] == "drifted" and f"sriovctl apply {E810_A} repairs it" in pf["reason"], pf


def test_a_reason_names_the_command_once(make_host):
    """The layout changed since the last apply and [Drift] Mode=report keeps the drift: one
    command, which applies the layout and repairs the drift."""
    h = configured_host(make_host, "e810.json", {E810_A: (4, 100)}, mode="report")
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    drift(h, E810_A, vf=1, vlan=9)
    replace_layout(h, LAYOUT_A, LAYOUT.format(pci=E810_A, n=4, vlan=200))
    r = h.run("status", "--json")
    pf = {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}[E810_A]
    cmd = (f"sriovctl --host {h.path} --config-dir {h.confdir} --main-config {h.main} "
           f"apply {E810_A}")
    assert pf["state"] == "drifted", pf
    assert pf["reason"].startswith("the layout changed since its last apply ("), pf
    assert pf["reason"].count(cmd) == 1, pf["reason"]
    assert pf["reason"].endswith(f"not repaired ([Drift] Mode=report in {h.main}:4); {cmd} "
                                 "applies it (and repairs the drift)"), pf["reason"]
