# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 25 (fresh eyes), the daemon: a PF's object (State, LastError) says what GetStatus() and
sriovctl status say of it: a deferred apply that the policy now lets run is pending, with the
same reason, and the daemon not degraded for it; while the host cannot be read, a PF whose
layout a waiting reload changed is pending with "the layout change waits ...", announced by
PropertiesChanged. And a PF whose apply was pending a reboot for a raised firmware VF limit is
not drifted when that limit takes effect: the rest of its apply is applied, in either drift
mode, with a journal line that says so, and no drift is signalled or counted."""

import json
import os
import signal
import subprocess

import pytest

from conftest import PF_IFACE, pf_path, place_card_vfs
from test_daemon import (E810_B, LAYOUT, NO_BUS, apply_all, configured_host, main_config,
                         replace_layout, sync)
from test_metrics import value
from test_metrics_daemon import metrics
from test_trial22_reload import break_host, fix_host

LAYOUT_B = f"50-{E810_B}.conf"
WAITING = "the layout change waits until the host can be read; then it is applied"


def ctl(h, system_bus, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    return subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def row(c, pci):
    return next(p for p in json.loads(c.call("GetStatus"))["pfs"] if p["pci"] == pci)


def shown(c, pci):
    return (c.get("State", pf_path(pci), PF_IFACE), c.get("LastError", pf_path(pci), PF_IFACE))


def test_a_deferral_the_policy_now_lets_run_is_pending_on_the_pf_object(
        make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_B: (4, 100)}, mode="report",
                        policy="never")
    d = start_daemon(h)
    apply_all(c, [E810_B])
    m = c.mark()
    replace_layout(h, LAYOUT_B, LAYOUT.format(pci=E810_B, n=6, vlan=100))
    assert c.wait_applied(E810_B, m) != 0
    c.wait_property("State", "deferred", pf_path(E810_B), PF_IFACE)
    assert c.get("State") == "degraded"
    d.stop()
    main_config(h, "report", "immediate")
    start_daemon(h)
    sync(c)
    why = (f"not applied since its last apply was deferred by [Disruption] Policy=never, which "
           f"is now Policy=immediate (sriovctl apply {E810_B} applies it)")
    pf = row(c, E810_B)
    assert pf["state"] == "pending" and pf["reason"] == why, pf
    assert shown(c, E810_B) == ("pending", why)
    assert c.get("State") == "idle"
    r = ctl(h, system_bus, "status")
    assert r.returncode == 0 and r.stdout.startswith("sriov-persistd: idle"), r.stdout
    assert h.pf(E810_B)["num_vfs"] == 4, "report mode applied it"


def test_a_layout_change_waiting_for_the_host_is_pending_on_the_pf_object(
        make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_B: (4, 100)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_B])
    assert shown(c, E810_B) == ("applied", "")
    good = break_host(h)
    m = c.mark()
    with open(h.confdir / LAYOUT_B, "w") as f:  # the edit, then SIGHUP
        f.write(LAYOUT.format(pci=E810_B, n=4, vlan=200))
    d.proc.send_signal(signal.SIGHUP)
    c.wait(lambda: "the layout change waits until the host can be read" in d.log_text(),
           what="the journal saying the layout change waits")
    pf = row(c, E810_B)
    assert pf["state"] == "pending" and pf["reason"] == WAITING, pf
    assert shown(c, E810_B) == ("pending", WAITING)
    c.wait(lambda: any(s.args[1].get("State") == "pending" and
                       s.args[1].get("LastError") == WAITING
                       for s in c.matching("PropertiesChanged", m, path=pf_path(E810_B))),
           what="PropertiesChanged of the PF")
    # readable again: the layout change is applied, and the object says so
    fix_host(h, good)
    assert c.wait_applied(E810_B, m) == 0
    c.wait_property("State", "applied", pf_path(E810_B), PF_IFACE)
    assert shown(c, E810_B) == ("applied", "")


CX6_A, CX6_B = "0000:ca:00.0", "0000:ca:00.1"  # cx6dx.json: one card, firmware limit 8


def set_pfs(h, **values):
    s = h.state()
    for p in s["pfs"]:
        if p["pci"] in (CX6_A, CX6_B):
            p.update(values)
    h.save_atomic(place_card_vfs(s))


@pytest.mark.parametrize("mode", ["report", "repair"])
def test_a_firmware_limit_that_took_effect_is_the_rest_of_the_apply_not_drift(
        make_host, start_daemon, bus_client, system_bus, mode):
    c = bus_client
    h = make_host("cx6dx.json")
    h.main.write_text(f"[Drift]\nMode={mode}\n[Disruption]\nPolicy=immediate\n"
                      "[Reboot]\nPolicy=never\n")
    h.layout("50-p0.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=12\n")
    d = start_daemon(h)
    apply_all(c, [CX6_A])
    c.wait_property("State", "pending", pf_path(CX6_A), PF_IFACE)
    assert "firmware VF limit raised to 12" in c.get("LastError", pf_path(CX6_A), PF_IFACE)
    m = c.mark()
    set_pfs(h, total_vfs=12)  # the reboot (or a firmware reset) brings the limit
    assert c.wait_applied(CX6_A, m) == 0
    c.wait_property("State", "applied", pf_path(CX6_A), PF_IFACE)
    assert h.pf(CX6_A)["num_vfs"] == 12
    log = d.log_text()
    assert (f"{CX6_A} (ens3f0np0): the firmware VF limit 12 took effect; its apply goes on"
            in log), log
    assert "drifted from its layout" not in log, log
    assert not c.matching("DriftDetected", m)
    assert c.get("Drifted") is False
    series, _ = metrics(h, system_bus.address)
    assert value(series, "daemon_drift_events_total", pf_pci=CX6_A) == 0
    assert value(series, "daemon_repairs_total", pf_pci=CX6_A) == 0
    pf = row(c, CX6_A)
    assert pf["state"] == "applied", pf


def test_status_calls_the_rest_of_the_apply_pending_not_drifted(make_host):
    """Without a daemon, sriovctl status says the same: pending, and what applies it."""
    h = make_host("cx6dx.json")
    h.main.write_text("[Drift]\nMode=report\n[Disruption]\nPolicy=immediate\n"
                      "[Reboot]\nPolicy=never\n")
    h.layout("50-p0.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=12\n")
    assert h.run("apply", CX6_A, env=NO_BUS).returncode == 0
    set_pfs(h, total_vfs=12)
    r = h.run("status", "--json", CX6_A, env=NO_BUS)
    pf = next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == CX6_A)
    opts = f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"
    assert pf["state"] == "pending", pf
    assert pf["reason"] == ("the firmware VF limit 12 took effect after its apply; the rest of "
                            f"that apply is not applied yet; sriovctl{opts} apply {CX6_A} "
                            "applies it"), pf
    assert h.run("apply", CX6_A, env=NO_BUS).returncode == 0
    assert h.pf(CX6_A)["num_vfs"] == 12
    r = h.run("status", "--json", CX6_A, env=NO_BUS)
    assert next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == CX6_A)["state"] == "applied"
