# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 24: under [Drift] Mode=report a PF with a layout and no status record was never applied
(the boot's apply units write the records before the daemon starts): the daemon calls it pending,
as sriovctl status does, with the same reason, not drifted, and says no module was "removed by
hand"."""

import os
import subprocess

from conftest import PF_IFACE, pf_path
from test_daemon import E810_A, configured_host, sync

PENDING = ("not applied yet: [Drift] Mode=report in {main}:4 applies nothing at start; "
           f"sriovctl apply {E810_A} applies it")


def ctl(h, system_bus, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    return subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def test_report_mode_a_pf_never_applied_is_pending(make_host, start_daemon, bus_client,
                                                     system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 100)}, mode="report")
    before = h.state()
    m = c.mark()
    d = start_daemon(h)
    sync(c)
    why = PENDING.format(main=h.main)
    assert c.get("State", path=pf_path(E810_A), iface=PF_IFACE) == "pending"
    assert c.get("LastError", path=pf_path(E810_A), iface=PF_IFACE) == why
    assert c.get("Drifted") is False
    assert not c.matching("DriftDetected", m)
    assert h.state() == before, "report mode changed the host"
    log = d.log_text()
    assert "drifted from its layout" not in log and "removed by hand" not in log, log

    # sriovctl status through the daemon and on its own: the same state and words (on its own
    # with the options it was given, as its other hints)
    opts = f"sriovctl --host {h.path} --config-dir {h.confdir} --main-config {h.main} apply"
    for r, text in ((ctl(h, system_bus, "status", E810_A), why),
                    (h.run("status", E810_A), why.replace("sriovctl apply", opts))):
        assert r.returncode == 0, r
        row = next(line.split() for line in r.stdout.splitlines() if line.startswith(E810_A))
        assert row[6] == "pending", r.stdout
        assert f"\n    {text}\n" in r.stdout, r.stdout
        assert "drifted" not in r.stdout, r.stdout
    r = ctl(h, system_bus, "status")
    assert r.returncode == 0 and r.stdout.startswith("sriov-persistd: idle"), r.stdout

    # Apply() applies it
    m = c.mark()
    c.call("Apply", "")
    assert c.wait_applied(E810_A, m) == 0
    c.wait_property("State", "applied", path=pf_path(E810_A), iface=PF_IFACE)
