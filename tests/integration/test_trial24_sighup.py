# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 24 (fresh eyes): a SIGHUP without a layout edit while the host cannot be read is a
reload that waits, not a layout change that waits: the journal, Reload()'s error, GetStatus()'s
host_error and sriovctl status say "the reload waits until the host can be read", and once the
host can be read again "the reload goes on", then, under [Drift] Mode=report, that the layouts of
each PF did not change."""

import json
import os
import signal
import subprocess

import pytest

from conftest import PF_IFACE, pf_path
from test_daemon import E810_A, E810_B, apply_all, configured_host  # noqa: F401
from test_trial22_reload import break_host, fix_host

RELOAD_WAITS = "the reload waits until the host can be read"


def test_a_reload_without_a_layout_edit_claims_no_layout_change(make_host, start_daemon,
                                                                bus_client, system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A, E810_B])
    good = break_host(h)
    d.proc.send_signal(signal.SIGHUP)
    c.wait(lambda: RELOAD_WAITS in d.log_text(), what="the journal saying the reload waits")
    c.wait_property("State", "degraded")
    err = json.loads(c.call("GetStatus"))["daemon"]["host_error"]
    assert err["reload_waits"] and not err["layout_change_waits"], err
    rows = {p["pci"]: p for p in json.loads(c.call("GetStatus"))["pfs"]}
    assert rows[E810_A]["state"] == rows[E810_B]["state"] == "applied", rows
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    r = subprocess.run([h.binary, "--no-color", "status"], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 1, r
    line = next((x for x in r.stdout.splitlines()
                 if x.startswith("  reading the host failed at ")), "")
    assert line.endswith("; the daemon shows what it read last; " + RELOAD_WAITS), r.stdout
    assert "layout change" not in r.stdout, r.stdout
    with pytest.raises(Exception) as e:
        c.call("Reload")
    assert f"; {RELOAD_WAITS}, and goes on then" in str(e.value), e.value
    assert "layout change" not in str(e.value), e.value
    m = c.mark()
    fix_host(h, good)
    c.wait(lambda: "The host can be read again: the reload goes on" in d.log_text(),
           what="the journal saying the reload goes on")
    for pci in (E810_A, E810_B):
        c.wait(lambda: f"{pci}: its layouts did not change, the reload leaves it as it is"
               in d.log_text(), what=f"the journal saying {pci}'s layouts did not change")
    c.wait_property("State", "idle")
    for pci in (E810_A, E810_B):
        c.wait_property("State", "applied", path=pf_path(pci), iface=PF_IFACE)
    assert not c.matching("Applied", m), c.signals[m:]
    log = d.log_text()
    assert "layout change" not in log, log
