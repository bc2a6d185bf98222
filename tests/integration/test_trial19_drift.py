# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 19: live drift on a deferred PF. A layout applied, then changed in a way that waits for
the disruption policy (Policy=never, more VFs): the PF is deferred. A VF's VLAN changed by hand
after that is drift the deferral did not cause: Drifted, DriftDetected, the journal and the drift
counter say so. It is not repaired on its own: the deferred apply runs as a whole or not at all,
and the policy holds it; the host is left as it is. The applied case is unchanged: repaired."""

import re

from test_daemon import (E810_A, PF_IFACE, apply_all, configured_host, drift, host_matches,
                         pf_path, replace_layout, sync, LAYOUT)
from test_metrics import value
from test_metrics_daemon import metrics

EBUSY = 16
LINE = "drifted from its layout"


def drift_lines(d):
    return [line for line in d.log_text().splitlines() if LINE in line]


def deferred_e810(make_host, start_daemon, c):
    """e810 port A applied with 4 VFs on VLAN 100, then its layout asks for 8 under
    Policy=never: deferred, nothing changed."""
    h = configured_host(make_host, "e810.json", {E810_A: (4, 100)}, policy="never")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    assert host_matches(h, E810_A, 4, 100)
    m = c.mark()
    replace_layout(h, f"50-{E810_A}.conf", LAYOUT.format(pci=E810_A, n=8, vlan=100))
    assert c.wait_applied(E810_A, m) == -EBUSY
    sync(c)
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "deferred"
    assert c.get("Drifted") is False, "the deferral itself is no drift"
    assert drift_lines(d) == []
    assert host_matches(h, E810_A, 4, 100)
    return h, d


def test_vlan_changed_on_a_deferred_pf_is_drift(make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h, d = deferred_e810(make_host, start_daemon, c)
    m = c.mark()
    changed = drift(h, E810_A, vf=2, vlan=7)
    sig = c.wait_signal("DriftDetected", m, pci=E810_A)
    what = sig.args[1]
    assert len(what) == 1 and re.match(r"VF 2: .*vlan 100.*\(now .*vlan 7", what[0]), what
    sync(c)
    assert c.get("Drifted") is True
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "deferred"
    lines = drift_lines(d)
    assert len(lines) == 1, lines
    assert "VF 2: " in lines[0] and "repaired with the deferred apply" in lines[0], lines
    series, _ = metrics(h, system_bus.address)
    assert value(series, "daemon_drift_events_total", pf_pci=E810_A) == 1
    assert value(series, "daemon_repairs_total", pf_pci=E810_A) == 0, "nothing was repaired"
    # fail safe: the policy holds the apply, nothing is destroyed nor set
    assert h.state()["pfs"] == changed["pfs"]

    # put back by hand: no drift any more, nothing said again
    m = c.mark()
    drift(h, E810_A, vf=2, vlan=100)
    c.wait(lambda: c.get("Drifted") is False, what="Drifted false after the VLAN was put back")
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "deferred"
    assert len(drift_lines(d)) == 1


def test_vlan_changed_on_an_applied_pf_is_repaired(make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 100)}, policy="never")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()
    drift(h, E810_A, vf=2, vlan=7)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    assert c.wait_applied(E810_A, m) == 0
    assert host_matches(h, E810_A, 4, 100)
    lines = drift_lines(d)
    assert len(lines) == 1 and "deferred" not in lines[0], lines


def test_the_trials_layout(make_host, start_daemon, bus_client):
    """As the trial had it: matched by name, no MAC, the VF count raised from 4 to 8."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {}, policy="never")
    text = "[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions={n}\n" \
           "[VirtualFunction]\nVLANId=100\n"
    h.layout("50-trial.conf", text.format(n=4))
    d = start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()
    replace_layout(h, "50-trial.conf", text.format(n=8))
    assert c.wait_applied(E810_A, m) == -EBUSY
    m = c.mark()
    drift(h, E810_A, vf=2, vlan=7)
    assert c.wait_signal("DriftDetected", m, pci=E810_A).args[1] == [
        "VF 2: vlan 100 qos 0 802.1Q (now vlan 7 qos 0 802.1Q)"]
    sync(c)
    assert c.get("Drifted") is True
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "deferred"
    assert h.pf(E810_A)["num_vfs"] == 4 and h.pf(E810_A)["vfs"][2]["vlan"] == 7
    assert any("(now vlan 7 qos 0 802.1Q); deferred" in line for line in drift_lines(d))
