# SPDX-License-Identifier: LGPL-2.1-or-later
"""[Drift] Mode=report never changes the host, also for a PF that has no status record. The boot's
apply units write the records before the daemon starts, so a PF without one was never applied:
it is pending (not drifted: no DriftDetected, no drift in the journal), its LastError says what
applies it, and Apply() applies it."""

import shutil

from conftest import PF_IFACE, pf_path
from test_daemon import E810_A, apply_all, configured_host, drift, host_matches, sync  # noqa: F401


def test_report_mode_leaves_a_pf_without_record_pending(make_host, start_daemon, bus_client):
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
    c.wait_property("State", "pending", path=pf_path(E810_A), iface=PF_IFACE)
    sync(c)
    assert c.get("LastError", path=pf_path(E810_A), iface=PF_IFACE) == (
        f"not applied yet: [Drift] Mode=report in {h.main}:4 applies nothing at start; "
        f"sriovctl apply {E810_A} applies it")
    assert c.get("Drifted") is False
    assert not c.matching("DriftDetected", m)
    assert h.state() == before, "report mode changed the host"
    assert not c.matching("Applied", m, pci=E810_A)
    log = d.log_text()
    assert "drifted from its layout" not in log, log

    # Apply() applies it
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
