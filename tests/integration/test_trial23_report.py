# SPDX-License-Identifier: LGPL-2.1-or-later
"""[Drift] Mode=report: a reload (a layout file changed, SIGHUP, Reload()) applies only the PFs
whose layouts changed; a PF whose layouts did not change keeps its drift, still reported, and only
Apply() (or a change of its own layout) repairs it."""

import signal

from conftest import PF_IFACE, pf_path
from test_daemon import (E810_A, E810_B, LAYOUT, apply_all, configured_host, drift,  # noqa: F401
                         host_matches, main_config, replace_layout, sync)

DRIFTED_MAC = "02:11:22:33:44:55"


def still_drifted(c, h, since):
    sync(c)
    assert h.pf(E810_A)["vfs"][1]["mac"] == DRIFTED_MAC, "the reload repaired the drift"
    assert not c.matching("Applied", since, pci=E810_A)
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "drifted"
    assert c.get("Drifted") is True


def test_a_reload_keeps_the_drift_of_a_pf_whose_layouts_did_not_change(make_host, start_daemon,
                                                                       bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A, E810_B])
    m = c.mark()
    drift(h, E810_A, mac=DRIFTED_MAC)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    c.wait_property("State", "drifted", path=pf_path(E810_A), iface=PF_IFACE)

    # an edit of the other PF's layout applies that PF only
    m = c.mark()
    replace_layout(h, f"50-{E810_B}.conf", LAYOUT.format(pci=E810_B, n=2, vlan=31))
    assert c.wait_applied(E810_B, m) == 0
    assert host_matches(h, E810_B, 2, 31)
    still_drifted(c, h, m)
    c.wait(lambda: f"{E810_A}: its layouts did not change, the reload leaves it as it is "
                   "([Drift] Mode=report in " in d.log_text(), what="the reload's word on it")

    # SIGHUP: nothing changed, nothing applied
    m = c.mark()
    reloads = d.log_text().count("Reloading the configuration")
    d.proc.send_signal(signal.SIGHUP)
    c.wait(lambda: d.log_text().count("Reloading the configuration") > reloads, what="the reload")
    still_drifted(c, h, m)
    assert not c.matching("Applied", m, pci=E810_B)

    # Reload()
    m = c.mark()
    c.call("Reload")
    still_drifted(c, h, m)
    assert not c.matching("Applied", m, pci=E810_B)

    # an edit of the drifted PF's own layout applies it (and so repairs its drift)
    m = c.mark()
    replace_layout(h, f"50-{E810_A}.conf", LAYOUT.format(pci=E810_A, n=4, vlan=20))
    assert c.wait_applied(E810_A, m) == 0
    assert host_matches(h, E810_A, 4, 20)
    assert h.pf(E810_A)["vfs"][1]["mac"] != DRIFTED_MAC
    c.wait_property("State", "applied", path=pf_path(E810_A), iface=PF_IFACE)
    assert not c.matching("Applied", m, pci=E810_B)


def test_repair_mode_reload_repairs_every_pf(make_host, start_daemon, bus_client):
    """[Drift] Mode=repair: a reload applies every PF, as it always did."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)}, mode="repair")
    start_daemon(h)
    apply_all(c, [E810_A, E810_B])
    m = c.mark()
    c.call("Reload")
    sync(c)
    assert c.matching("Applied", m, pci=E810_A) and c.matching("Applied", m, pci=E810_B)


def test_a_reload_that_waited_for_the_host_keeps_the_drift(make_host, start_daemon, bus_client):
    """A reload that could not read the host, finished once it can: compared with the layouts
    applied before it, the drifted PF's did not change, so it keeps its drift."""
    from test_trial22_reload import NEW, break_host, fix_host
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()
    drift(h, E810_A, mac=DRIFTED_MAC)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    c.wait_property("State", "drifted", path=pf_path(E810_A), iface=PF_IFACE)
    good = break_host(h)
    m = c.mark()
    h.layout("60-b.conf", NEW)
    c.wait(lambda: "the layout change waits until the host can be read" in d.log_text(),
           what="the journal saying the layout change waits")
    fix_host(h, good)
    assert c.wait_applied(E810_B, m) == 0
    assert h.pf(E810_B)["num_vfs"] == 2
    still_drifted(c, h, m)


def test_a_reload_applies_a_deferred_pf_under_the_policy_as_it_is_now(make_host, start_daemon,
                                                                       bus_client):
    """[Drift] Mode=report leaves drift alone, not a PF whose apply waits: a PF deferred by
    [Disruption] Policy=never is applied by the reload that follows Policy=immediate, though its
    layouts did not change."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)}, mode="report",
                        policy="never")
    start_daemon(h)
    apply_all(c, [E810_A, E810_B])  # creating VFs where there were none is live
    m = c.mark()
    replace_layout(h, f"50-{E810_A}.conf", LAYOUT.format(pci=E810_A, n=2, vlan=10))
    c.wait_property("State", "deferred", path=pf_path(E810_A), iface=PF_IFACE)
    assert h.pf(E810_A)["num_vfs"] == 4, "Policy=never let a disruptive change through"
    m = c.mark()
    main_config(h, "report", "immediate")
    c.call("Reload")
    assert c.wait_applied(E810_A, m) == 0
    assert host_matches(h, E810_A, 2, 10)
    assert not c.matching("Applied", m, pci=E810_B)
