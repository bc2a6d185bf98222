# SPDX-License-Identifier: LGPL-2.1-or-later
"""[Drift] Mode=report at start: a layout edited while sriov-persistd was stopped is a change of
the layouts (the status record keeps what they wanted of the PF at its apply), applied as in
either mode, not drift: no DriftDetected, no drift counted. A layout file touched but not changed
leaves real drift reported, and sriovctl status does not blame the layout for it."""

import json
import os
import time

from conftest import PF_IFACE, pf_path
from test_daemon import (E810_A, MIXED_ICE, apply_all, configured_host, drift,  # noqa: F401
                         host_matches, main_config, sync)
from test_metrics_daemon import metrics
from test_metrics import value

DRIFTED_MAC = "02:11:22:33:44:55"


def applied_then_stopped(make_host, start_daemon, c):
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    assert host_matches(h, E810_A, 4, 10)
    d.stop()
    return h


def test_a_layout_edited_while_stopped_is_applied_at_start(make_host, start_daemon, bus_client,
                                                          system_bus):
    c = bus_client
    h = applied_then_stopped(make_host, start_daemon, c)
    layout = h.confdir / f"50-{E810_A}.conf"
    with open(layout, "a") as f:
        f.write("[VirtualFunction 0-1]\nVLANId=55\n")
    m = c.mark()
    d = start_daemon(h)
    assert c.wait_applied(E810_A, m) == 0
    c.wait_property("State", "applied", path=pf_path(E810_A), iface=PF_IFACE)
    sync(c)
    vfs = h.pf(E810_A)["vfs"]
    assert [v["vlan"] for v in vfs] == [55, 55, 10, 10], vfs
    assert not c.matching("DriftDetected", m)
    assert c.get("Drifted") is False
    log = d.log_text()
    assert "drifted from its layout" not in log, log
    series, _ = metrics(h, system_bus.address)
    assert value(series, "daemon_drift_events_total", pf_pci=E810_A) == 0
    # the record says what the layouts wanted at this apply: nothing left to apply
    r = h.run("status", "--json")
    pf = {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}[E810_A]
    assert pf["state"] == "applied", pf


def test_a_touched_layout_leaves_real_drift_reported(make_host, start_daemon, bus_client,
                                                    system_bus):
    c = bus_client
    h = applied_then_stopped(make_host, start_daemon, c)
    drift(h, E810_A, mac=DRIFTED_MAC)
    layout = h.confdir / f"50-{E810_A}.conf"
    later = time.time() + 5
    os.utime(layout, (later, later))
    m = c.mark()
    start_daemon(h)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    c.wait_property("State", "drifted", path=pf_path(E810_A), iface=PF_IFACE)
    sync(c)
    assert h.pf(E810_A)["vfs"][1]["mac"] == DRIFTED_MAC, "report mode repaired the drift"
    assert not c.matching("Applied", m, pci=E810_A)
    series, _ = metrics(h, system_bus.address)
    assert value(series, "daemon_drift_events_total", pf_pci=E810_A) == 1
    r = h.run("status", "--json")
    pf = {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}[E810_A]
    assert pf["state"] == "drifted", pf
    assert "layout changed" not in pf["reason"], pf
    assert pf["reason"].endswith(f"sriovctl --host {h.path} --config-dir {h.confdir} "
                                 f"--main-config {h.main} apply {E810_A} repairs it"), pf


def test_a_layout_edited_to_what_the_host_has_leaves_later_drift_reported(make_host, start_daemon,
                                                                          bus_client):
    """Edited while stopped to what the host has (VF 0's VLAN set by hand too): nothing to apply,
    and a later change on the host is drift, reported, not taken for the layout's change."""
    c = bus_client
    h = applied_then_stopped(make_host, start_daemon, c)
    drift(h, E810_A, vf=0, vlan=55)
    with open(h.confdir / f"50-{E810_A}.conf", "a") as f:
        f.write("[VirtualFunction 0]\nVLANId=55\n")
    m = c.mark()
    start_daemon(h)
    c.wait_property("State", "applied", path=pf_path(E810_A), iface=PF_IFACE)
    sync(c)
    assert not c.matching("DriftDetected", m)
    m = c.mark()
    drift(h, E810_A, mac=DRIFTED_MAC)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    c.wait_property("State", "drifted", path=pf_path(E810_A), iface=PF_IFACE)
    sync(c)
    assert h.pf(E810_A)["vfs"][1]["mac"] == DRIFTED_MAC, "report mode repaired the drift"
    assert not c.matching("Applied", m, pci=E810_A)


def test_vfs_added_by_hand_to_a_pf_whose_layout_keeps_the_host_count_are_drift(
        make_host, start_daemon, bus_client, system_bus):
    """A layout without VirtualFunctions= keeps the host's VF count: VFs added by hand while
    the daemon was stopped are a change of the host, not of the layouts (the record's signature
    is of what the layout files say, not of what they make of the host): reported as drift
    under [Drift] Mode=report, not applied."""
    c = bus_client
    h = make_host("mixed.json")
    main_config(h, "report")
    h.layout(f"50-{MIXED_ICE}.conf",
             f"[Match]\nPCIAddress={MIXED_ICE}\n[VirtualFunction]\nVLANId=10\n")
    d = start_daemon(h)
    apply_all(c, [MIXED_ICE])
    assert [v["vlan"] for v in h.pf(MIXED_ICE)["vfs"]] == [10, 10]
    d.stop()

    def add_vfs(s):
        pf = h.pf_of(s, MIXED_ICE)
        for i in (2, 3):
            pf["vfs"].append(dict(pf["vfs"][0], index=i, pci=f"0000:3b:01.{i}",
                                  name=f"ens1f0v{i}", vlan=0))
        pf["num_vfs"] = 4
    h.edit(add_vfs)
    m = c.mark()
    d = start_daemon(h)
    c.wait_signal("DriftDetected", m, pci=MIXED_ICE)
    c.wait_property("State", "drifted", path=pf_path(MIXED_ICE), iface=PF_IFACE)
    sync(c)
    assert [v["vlan"] for v in h.pf(MIXED_ICE)["vfs"]] == [10, 10, 0, 0], "report mode applied"
    assert not c.matching("Applied", m, pci=MIXED_ICE)
    assert "drifted from its layout" in d.log_text(), d.log_text()
    series, _ = metrics(h, system_bus.address)
    assert value(series, "daemon_drift_events_total", pf_pci=MIXED_ICE) == 1
    r = h.run("status", "--json")
    pf = {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}[MIXED_ICE]
    assert pf["state"] == "drifted" and "layout changed" not in pf["reason"], pf
