# SPDX-License-Identifier: LGPL-2.1-or-later
"""[Drift] Mode=report never changes the host, also for a PF that has no status record (the
daemon started after /run was emptied): the difference is reported as drift (journal,
DriftDetected, State), as for any other, and only Apply() repairs it."""

import shutil

from conftest import PF_IFACE, pf_path
from test_daemon import E810_A, apply_all, configured_host, drift, host_matches, sync  # noqa: F401


def test_report_mode_reports_a_pf_without_record(make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    assert host_matches(h, E810_A, 4, 10)
    d.stop()

    # /run emptied (a reboot of the runtime dir without one of the host), then a change by hand
    shutil.rmtree(h.dir / "host.json.run")
    drift(h, E810_A, mac="02:11:22:33:44:55")
    before = h.state()
    m = c.mark()
    d = start_daemon(h)
    sig = c.wait_signal("DriftDetected", m, pci=E810_A)
    assert any("VF 1" in w and "(now mac 02:11:22:33:44:55)" in w for w in sig.args[1]), sig.args
    c.wait_property("State", "drifted", path=pf_path(E810_A), iface=PF_IFACE)
    c.wait_property("Drifted", True)
    sync(c)
    assert h.state() == before, "report mode changed the host"
    assert not c.matching("Applied", m, pci=E810_A)
    log = d.log_text()
    assert f"{E810_A} (ens1f0): drifted from its layout: VF 1:" in log, log

    # Apply() repairs, as for any drift in report mode
    m = c.mark()
    c.call("Apply", "")
    assert c.wait_applied(E810_A, m) == 0
    assert h.pf(E810_A)["vfs"][1]["mac"] != "02:11:22:33:44:55"
    c.wait_property("State", "applied", path=pf_path(E810_A), iface=PF_IFACE)


def test_repair_mode_applies_a_pf_without_record(make_host, start_daemon, bus_client):
    """Mode=repair still applies a PF that has no record (never applied) on its own."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="repair")
    m = c.mark()
    start_daemon(h)
    assert c.wait_applied(E810_A, m) == 0
    assert host_matches(h, E810_A, 4, 10)
