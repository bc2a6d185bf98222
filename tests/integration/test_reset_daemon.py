# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriovctl reset through sriov-persistd: the same words as without it, a PF gone from the host
loses its status record, and a reset that waits shows on D-Bus as sriovctl status shows it."""

import json
import os
import re
import subprocess

from conftest import MANAGER_IFACE, MANAGER_PATH, PF_IFACE, pf_path

E810_A = "0000:3b:00.0"
MAIN = "[Drift]\nMode=repair\n[Disruption]\nPolicy={policy}\n[Reboot]\nPolicy=never\n"
LAYOUT = "[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=4\n" \
         "[VirtualFunction]\nVLANId=100\n"


def applied(make_host, start_daemon, bus_client, policy):
    """e810.json with 4 VFs on ens1f0 applied by the daemon."""
    h = make_host("e810.json")
    h.main.write_text(MAIN.format(policy=policy))
    h.layout("50-e810.conf", LAYOUT)
    start_daemon(h)
    m = bus_client.mark()
    bus_client.call("Apply", "")
    assert bus_client.wait_applied(E810_A, m) == 0
    assert h.pf(E810_A)["num_vfs"] == 4
    return h


def applied_then_removed(make_host, start_daemon, bus_client, policy):
    """e810.json with 4 VFs on ens1f0 applied by the daemon, then its layout removed."""
    h = applied(make_host, start_daemon, bus_client, policy)
    (h.confdir / "50-e810.conf").unlink()
    bus_client.wait_property("State", "unconfigured", pf_path(E810_A), PF_IFACE)
    return h


def ctl(h, system_bus, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    return subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def test_a_named_reset_says_what_it_did(make_host, start_daemon, bus_client, system_bus):
    h = applied_then_removed(make_host, start_daemon, bus_client, "immediate")
    r = ctl(h, system_bus, "reset", "ens1f0")
    assert r.returncode == 0 and r.stderr == "", r
    assert r.stdout == f"{E810_A} (ens1f0): reset, 1 action(s); 0 VFs\n", r
    assert h.pf(E810_A)["num_vfs"] == 0
    r = ctl(h, system_bus, "reset", "ens1f0")
    assert r.returncode == 0 and r.stdout == \
        f"{E810_A} (ens1f0): nothing reset: it has no VFs, and nothing that sriov-persist " \
        "created is left on it\n", r


def test_a_reset_of_every_pf_says_what_it_did(make_host, start_daemon, bus_client, system_bus):
    h = applied_then_removed(make_host, start_daemon, bus_client, "immediate")
    r = ctl(h, system_bus, "reset")
    assert r.returncode == 0 and r.stderr == "", r
    assert r.stdout == f"{E810_A} (ens1f0): reset, 1 action(s); 0 VFs\n", r
    assert h.pf(E810_A)["num_vfs"] == 0
    r = ctl(h, system_bus, "reset")
    assert r.returncode == 0 and r.stdout == "Nothing to reset: no PF of this host has VFs or " \
        "a switchdev mode that sriov-persist created\n", r


def test_a_reset_that_waits_shows_as_deferred(make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h = applied_then_removed(make_host, start_daemon, c, "never")
    assert c.get("State") == "idle"
    r = ctl(h, system_bus, "reset", E810_A)
    why = "resetting what sriov-persist created waits: disruptive changes held by " \
          f"[Disruption] Policy=never in {h.main}:4; set Policy=drain or immediate there to " \
          "let them run, or make the change by hand"
    assert r.returncode == 1, r
    assert r.stdout == f"{E810_A} (ens1f0): deferred: {why}\n", r
    assert h.pf(E810_A)["num_vfs"] == 4
    st = json.loads(ctl(h, system_bus, "status", "--json").stdout)["pfs"][0]
    # what is left, then why its reset waits
    assert st["state"] == "deferred" and st["reason"] == \
        f"4 VFs left from a removed layout; {why}", st
    c.wait_property("State", "deferred", pf_path(E810_A), PF_IFACE)
    assert c.get("LastError", pf_path(E810_A), PF_IFACE) == why
    c.wait_property("State", "degraded", MANAGER_PATH, MANAGER_IFACE)
    # a reset of every PF says the same
    r = ctl(h, system_bus, "reset")
    assert r.returncode == 1 and r.stdout == f"{E810_A} (ens1f0): deferred: {why}\n", r


def test_a_gone_pf_loses_its_record(make_host, start_daemon, bus_client, system_bus):
    h = applied(make_host, start_daemon, bus_client, "immediate")

    def unplug(s):
        s["pfs"] = [p for p in s["pfs"] if p["pci"] != E810_A]
    h.edit(unplug)
    out = ctl(h, system_bus, "status").stdout
    assert f'"sriovctl reset {E810_A}" drops its status record' in out, out
    r = ctl(h, system_bus, "reset", E810_A)
    assert r.returncode == 0 and r.stderr == "", r
    assert re.fullmatch(rf"{re.escape(E810_A)} \(ens1f0\): recorded applied at \S+ with 4 VFs, "
                        r"no longer on the host; its status record is dropped\n", r.stdout), r
    st = json.loads(ctl(h, system_bus, "status", "--json").stdout)
    assert E810_A not in [p["pci"] for p in st["pfs"]], st
    # gone for good: a second reset finds no PF
    r = ctl(h, system_bus, "reset", E810_A)
    assert r.returncode == 1 and r.stderr == f"No PF '{E810_A}' on this host\n", r


def test_a_pf_a_layout_selects_is_refused(make_host, start_daemon, bus_client, system_bus):
    h = applied(make_host, start_daemon, bus_client, "immediate")
    r = ctl(h, system_bus, "reset", "ens1f0")
    assert r.returncode == 1 and r.stdout == "", r
    assert r.stderr.startswith(f"sriov-persistd: {E810_A}: a layout selects it ("), r
    assert h.pf(E810_A)["num_vfs"] == 4
    r = ctl(h, system_bus, "reset")
    assert r.returncode == 0 and r.stdout == "Nothing to reset: no PF that no layout selects has " \
        "VFs or a switchdev mode that sriov-persist created; reset removes only what a removed " \
        "layout left\n", r
