# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 22 (fresh eyes), the daemon's reload while the host cannot be read: a layout change
whose reload failed to read the host is not lost, it waits and is applied once the host can be
read again (in either drift mode, never reported as drift); meanwhile the daemon is degraded and
says why (GetStatus(), sriovctl status, the journal); the PF's State and GetStatus() agree."""

import json
import os
import subprocess

import pytest

from conftest import PF_IFACE, pf_path
from test_daemon import E810_A, E810_B, apply_all, configured_host, sync  # noqa: F401

NEW = "[Match]\nPCIAddress=0000:3b:00.1\n[PhysicalFunction]\nVirtualFunctions=2\n"


def break_host(h):
    """host.json replaced (atomically, as the simulated kernel writes it) by one that does not
    parse: every read of the host fails until it is put back."""
    good = h.path.read_text()
    tmp = h.path.with_name(h.path.name + ".tmp")
    tmp.write_text('{ "pfs": [ oops\n')
    os.rename(tmp, h.path)
    return good


def fix_host(h, good):
    tmp = h.path.with_name(h.path.name + ".tmp")
    tmp.write_text(good)
    os.rename(tmp, h.path)


def status_via_daemon(h, system_bus, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    return subprocess.run([h.binary, "--no-color", "status", *args], capture_output=True,
                          text=True, timeout=120, env=env)


@pytest.mark.parametrize("mode", ["report", "repair"])
def test_a_layout_change_waits_while_the_host_cannot_be_read(make_host, start_daemon, bus_client,
                                                             system_bus, mode):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode=mode)
    d = start_daemon(h)
    apply_all(c, [E810_A])
    assert c.get("State") == "idle"
    good = break_host(h)
    m = c.mark()
    h.layout("60-b.conf", NEW)
    # the reload read the new layout and could not read the host: degraded, and said
    c.wait_property("State", "degraded")
    c.wait(lambda: "the layout change waits until the host can be read" in d.log_text(),
           what="the journal saying the layout change waits")
    doc = json.loads(c.call("GetStatus"))
    err = doc["daemon"].get("host_error")
    assert err and err["at_usec"] > 0, doc["daemon"]
    assert err["error"].startswith("Invalid argument"), err
    assert doc["daemon"]["state"] == "degraded", doc["daemon"]
    r = status_via_daemon(h, system_bus)
    line = next((x for x in r.stdout.splitlines()
                 if x.startswith("  reading the host failed at ")), "")
    assert line.endswith("; the layout change waits until the host can be read"), r.stdout
    assert r.returncode == 1, r
    # the host can be read again: the layout change is applied as any other, no drift
    fix_host(h, good)
    assert c.wait_applied(E810_B, m) == 0
    c.wait_property("State", "applied", path=pf_path(E810_B), iface=PF_IFACE)
    c.wait_property("State", "idle")
    sync(c)
    assert h.pf(E810_B)["num_vfs"] == 2
    assert not c.matching("DriftDetected", m), c.signals[m:]
    assert c.get("Drifted") is False
    after = d.log_text().split("Reloading the configuration", 1)[1]
    assert "drifted from its layout" not in after, d.log_text()
    assert "reading the host works again" in d.log_text().lower(), d.log_text()
    doc = json.loads(c.call("GetStatus"))
    assert doc["daemon"].get("host_error") is None, doc["daemon"]
    pf = next(p for p in doc["pfs"] if p["pci"] == E810_B)
    assert pf["state"] == c.get("State", pf_path(E810_B), PF_IFACE) == "applied", pf
    r = status_via_daemon(h, system_bus)
    assert r.returncode == 0 and "reading the host failed" not in r.stdout, r.stdout


def test_a_reload_asked_for_while_the_host_cannot_be_read_is_kept(make_host, start_daemon,
                                                                 bus_client):
    """Reload() itself: it fails and says that the layout change waits; it is applied once the
    host can be read, without another Reload()."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    start_daemon(h)
    apply_all(c, [E810_A])
    good = break_host(h)
    c.wait_property("State", "degraded")
    m = c.mark()
    h.layout("60-b.conf", NEW)
    with pytest.raises(Exception) as e:
        c.call("Reload")
    assert "the layout change waits until the host can be read" in str(e.value), e.value
    fix_host(h, good)
    assert c.wait_applied(E810_B, m) == 0
    c.wait_property("State", "applied", path=pf_path(E810_B), iface=PF_IFACE)
    c.wait_property("State", "idle")
    assert h.pf(E810_B)["num_vfs"] == 2
