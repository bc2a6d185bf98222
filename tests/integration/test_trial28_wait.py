# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 28: sriovctl wait of a PF whose record says applied while its layout was edited since
(the record's "layouts" signature against what the files want now). The daemon applies a change
of the layouts in either [Drift] Mode= (at its reload, which follows the edit, or at its start):
wait waits for it while a sriov-persistd manages the host (it asks the bus), as it does for drift
that Mode=repair repairs; without one, nothing applies or repairs it, and it is done and not
applied at once, with the command that does. Drift that Mode=report keeps is done and not applied
at once either way."""

import json
import time

import pytest

from test_daemon import E810_A, NO_BUS, apply_all, configured_host, drift, host_matches

def edit_vlan(h, vlan):
    h.layout(f"50-{E810_A}.conf",
             f"[Match]\nPCIAddress={E810_A}\n[PhysicalFunction]\nVirtualFunctions=4\n"
             f"[VirtualFunction]\nMACAddress=stable\nVLANId={vlan}\n")


def opts_of(h):
    return f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"


@pytest.mark.parametrize("mode", ["report", "repair"])
def test_wait_without_a_daemon_does_not_wait_for_a_pf_whose_layout_was_edited(make_host, mode):
    """No sriov-persistd manages the host (none on the bus): nothing applies the edit, whatever
    Mode= says, so wait does not burn its timeout: not applied at once, with the command."""
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode=mode)
    assert h.run("apply", env=NO_BUS).returncode == 0
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 0 and "1 configured PF(s): 1 applied, 0 not" in r.stdout, r
    edit_vlan(h, 20)
    st = next(p for p in json.loads(h.run("status", "--json", E810_A, env=NO_BUS).stdout)["pfs"]
              if p["pci"] == E810_A)
    assert st["state"] == "drifted", st
    assert "the layout changed since its last apply" in st["reason"], st
    opts = opts_of(h)
    r = h.run("wait", "--timeout", "30", env=NO_BUS)
    assert r.returncode == 1, r
    assert "Timed out" not in r.stdout and "1 configured PF(s): 0 applied, 1 not" in r.stdout, r
    kept = f"not repaired ([Drift] Mode=report in {h.main}:4); " if mode == "report" else ""
    assert (f"Not applied: {E810_A} (ens1f0): drifted: the layout changed since its last apply "
            f"({h.confdir}/50-{E810_A}.conf modified after it), not applied yet; {kept}"
            f"no sriov-persistd runs to apply it; sriovctl{opts} apply {E810_A} applies it"
            ) in r.stdout, r
    # applied as edited: done
    assert h.run("apply", E810_A, env=NO_BUS).returncode == 0
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 0 and "1 configured PF(s): 1 applied, 0 not" in r.stdout, r


def test_wait_without_a_daemon_does_not_wait_for_drift_mode_repair_would_repair(make_host):
    """Trial 28 (2): [Drift] Mode=repair, no daemon, VF 0's VLAN changed on the host: nothing
    repairs it, so wait says so at once, not after its timeout, and blames no daemon."""
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="repair")
    assert h.run("apply", env=NO_BUS).returncode == 0
    drift(h, E810_A, vf=0, vlan=99)
    t0 = time.monotonic()
    r = h.run("wait", "--timeout", "30", env=NO_BUS)
    assert time.monotonic() - t0 < 20, r
    assert r.returncode == 1 and "Timed out" not in r.stdout, r
    assert "sriov-persistd repairs it" not in r.stdout, r
    assert r.stdout == ("1 configured PF(s): 0 applied, 1 not (see sriovctl status)\n"
                        f"Not applied: {E810_A} (ens1f0): drifted: no sriov-persistd runs to "
                        f"repair it; sriovctl{opts_of(h)} apply {E810_A} repairs it\n"), r
    # what differs beyond the VFs is said first, as status says it
    h.edit(lambda s: h.pf_of(s, E810_A).update(vfs=[], num_vfs=0))
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1, r
    assert (f"Not applied: {E810_A} (ens1f0): drifted: differs: 4 VFs wanted, 0 present; no "
            f"sriov-persistd runs to repair it; sriovctl{opts_of(h)} apply {E810_A} repairs it\n"
            ) in r.stdout, r


def test_wait_with_the_daemon_waits_for_its_repair_and_its_reload(make_host, start_daemon,
                                                                  bus_client, system_bus):
    """A sriov-persistd that manages the host: drift (Mode=repair) and an edited layout are
    waited for, and the daemon's repair and reload make them applied."""
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="repair")
    bus = {"DBUS_SYSTEM_BUS_ADDRESS": system_bus.address}
    start_daemon(h)
    apply_all(bus_client, [E810_A])
    drift(h, E810_A, vf=0, vlan=99)
    r = h.run("wait", "--timeout", "60", env=bus)
    assert r.returncode == 0 and "1 configured PF(s): 1 applied, 0 not" in r.stdout, r
    assert host_matches(h, E810_A, 4, 10)
    edit_vlan(h, 20)
    r = h.run("wait", "--timeout", "60", env=bus)
    assert r.returncode == 0 and "1 configured PF(s): 1 applied, 0 not" in r.stdout, r
    assert all(v["vlan"] == 20 for v in h.pf(E810_A)["vfs"]), h.pf(E810_A)


def test_a_timeout_says_each_pf_on_its_own_line(make_host):
    """Trial 28 (11): one line per PF still waited for, as the other per-PF lines are."""
    from test_daemon import E810_B
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 10)})
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1, r
    assert r.stdout == ("Timed out after 0s; not applied yet:\n"
                        f"Not applied yet: {E810_A} (not applied in this boot yet)\n"
                        f"Not applied yet: {E810_B} (not applied in this boot yet)\n"), r


def test_wait_fails_at_once_on_drift_mode_report_keeps_with_the_layout_as_applied(make_host):
    """Edited and edited back: the layouts want what they did at the apply, so a VF changed on
    the host is drift, which Mode=report keeps: done and not applied at once."""
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    assert h.run("apply", env=NO_BUS).returncode == 0
    edit_vlan(h, 20)
    edit_vlan(h, 10)
    drift(h, E810_A, vf=1, vlan=99)
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1, r
    assert (f"Not applied: {E810_A} (ens1f0): drifted: not repaired ([Drift] Mode=report in "
            f"{h.main}:") in r.stdout, r
    assert "its layout changed" not in r.stdout, r


@pytest.mark.parametrize("mode", ["report", "repair"])
def test_wait_waits_for_a_pf_the_daemon_says_came_back(make_host, start_daemon, bus_client,
                                                       system_bus, mode):
    """Trial 28 (5), trial 30 (1): a PF gone from the host and back with no VFs while the daemon
    runs: only the daemon knows it came back (its apply unit applies it, not a repair, in either
    drift mode); wait asks it and waits, with the daemon's reason, rather than failing at once on
    drift (Mode=report) or saying the daemon repairs it (Mode=repair)."""
    from conftest import PF_IFACE, pf_path
    from test_trial25_wording import unplug
    c = bus_client
    bus = {"DBUS_SYSTEM_BUS_ADDRESS": system_bus.address}
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode=mode)
    d = start_daemon(h)
    apply_all(c, [E810_A])
    pf = unplug(h, E810_A)
    c.wait(lambda: f"{E810_A} (ens1f0): gone from the host" in d.log_text(), what="gone")
    h.edit(lambda s: s["pfs"].insert(0, pf))
    c.wait(lambda: f"{E810_A} (ens1f0): on the host again (hotplug)" in d.log_text(),
           what="the line of a PF that came back")
    c.wait_property("State", "pending", path=pf_path(E810_A), iface=PF_IFACE)
    why = c.get("LastError", path=pf_path(E810_A), iface=PF_IFACE)
    assert why.startswith("not applied since it came back"), why
    r = h.run("wait", "--timeout", "0", env=bus)
    assert r.returncode == 1, r
    assert "Not applied:" not in r.stdout, r
    assert r.stdout == ("Timed out after 0s; not applied yet:\n"
                        f"Not applied yet: {E810_A} (pending in sriov-persistd: {why})\n"), r
    # without the daemon, nothing knows it came back: drift nothing repairs, at once
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1 and f"Not applied: {E810_A} (ens1f0): drifted: " in r.stdout, r

