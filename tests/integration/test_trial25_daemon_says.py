# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 26 (fresh eyes): sriovctl apply through the daemon says that a disruptive change ran
without a drain, as the local apply does, from the record of that apply (1); a restart with
another main configuration under [Drift] Mode=report says that what failed waits for sriovctl
apply, not that it is tried again (2); a layout edit while the host cannot be read says in the
journal that the layout change waits, also after a reload that waited already (3); a simulated
host file removed or renamed away is a host that cannot be read (4)."""

import json
import os
import signal
import subprocess

import pytest

from conftest import PF_IFACE, pf_path
from test_daemon import E810_A, E810_B, NO_BUS, apply_all, configured_host, drift, main_config, sync
from test_trial22_reload import break_host

WITHOUT_DRAIN = ("Kubernetes is not enabled ([Kubernetes] Enabled= is not set, and auto, its "
                 "default, found no credentials)")
NOTE = f"\n  note: disruptive, without a drain: {WITHOUT_DRAIN}\n"


def ctl(h, system_bus, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    return subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def shrink(h, pci, n=2):
    """Someone wrote n to sriov_numvfs: going back up destroys them (disruptive)."""
    def change(s):
        pf = h.pf_of(s, pci)
        pf["num_vfs"], pf["vfs"] = n, pf["vfs"][:n]
    return h.edit(change)


def last_apply(c, pci):
    doc = json.loads(c.call("GetStatus"))
    return next(p for p in doc["pfs"] if p["pci"] == pci)["last_apply"]


# --- 1 ----------------------------------------------------------------------------------------

def test_apply_through_the_daemon_says_a_change_without_a_drain(make_host, start_daemon,
                                                                bus_client, system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 400)}, mode="report",
                        policy="drain")
    d = start_daemon(h)
    apply_all(c, [E810_A])  # VFs made where there were none: not disruptive
    assert last_apply(c, E810_A)["without_drain"] is None
    m = c.mark()
    shrink(h, E810_A)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    r = ctl(h, system_bus, "apply", E810_A)
    assert r.returncode == 0, r
    assert r.stdout.startswith(f"{E810_A} (ens1f0): applied, "), r.stdout
    assert r.stdout.endswith(", 4 VFs" + NOTE), r.stdout
    assert h.pf(E810_A)["num_vfs"] == 4
    assert last_apply(c, E810_A)["without_drain"] == WITHOUT_DRAIN
    # the journal of Apply() says it as that of a reload does, once
    line = (f"{E810_A} (ens1f0): the disruptive change ran without a drain ([Disruption] "
            f"Policy=drain): {WITHOUT_DRAIN}")
    c.wait(lambda: line in d.log_text(), what="the journal of Apply()")
    assert d.log_text().count(line) == 1, d.log_text()

    # the same words as the apply done here, with the path options
    m = c.mark()
    shrink(h, E810_A)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    here = h.run("apply", E810_A, env=NO_BUS)
    assert here.returncode == 0 and NOTE in here.stdout, here

    # a later apply that is not disruptive says no such note
    m = c.mark()
    drift(h, E810_A, vlan=7)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    r = ctl(h, system_bus, "apply", E810_A)
    assert r.returncode == 0 and "applied, 1 action(s)" in r.stdout, r
    assert "without a drain" not in r.stdout, r.stdout
    assert last_apply(c, E810_A)["without_drain"] is None


# --- 2 ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["report", "repair"])
def test_a_restart_with_another_main_configuration_says_what_it_tries(mode, make_host,
                                                                      start_daemon, bus_client,
                                                                      system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_B: (4, 10)}, mode=mode, policy="never")
    d = start_daemon(h)
    apply_all(c, [E810_B])
    f = h.confdir / f"50-{E810_B}.conf"
    m = c.mark()
    f.write_text(f.read_text().replace("VirtualFunctions=4", "VirtualFunctions=6"))
    c.call("Reload")
    assert c.wait_applied(E810_B, m) != 0
    c.wait_property("State", "deferred", pf_path(E810_B), PF_IFACE)
    d.stop()
    given_up = f"{h.path}.lib/given-up.json"
    assert os.path.exists(given_up)
    main_config(h, mode, "immediate")
    m = c.mark()
    d.start()
    sync(c)
    log = d.logs[-1].read_text()
    said = (f"{given_up}: written by a daemon with other options or another main "
            "configuration; ")
    if mode == "repair":
        assert said + "what failed then is tried again\n" in log, log
        assert c.wait_applied(E810_B, m) == 0
        assert h.pf(E810_B)["num_vfs"] == 6
        return
    assert (said + f"what failed then on {E810_B} is not tried again at start, as [Drift] "
            f"Mode=report in {h.main}:4 applies nothing at start but a changed layout: "
            f"sriovctl apply {E810_B} tries it again\n") in log, log
    assert "is tried again" not in log, log
    assert h.pf(E810_B)["num_vfs"] == 4
    assert not c.matching("Applied", m)
    # what the line says applies it does
    r = ctl(h, system_bus, "apply", E810_B)
    assert r.returncode == 0, r
    assert h.pf(E810_B)["num_vfs"] == 6


# --- 3 ----------------------------------------------------------------------------------------

def test_a_layout_edit_after_a_reload_that_waits_says_the_layout_change_waits(
        make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    break_host(h)
    d.proc.send_signal(signal.SIGHUP)
    c.wait(lambda: "the reload waits until the host can be read" in d.log_text(),
           what="the journal saying the reload waits")
    assert "the layout change waits" not in d.log_text()
    f = h.confdir / f"50-{E810_A}.conf"
    f.write_text(f.read_text().replace("VLANId=10", "VLANId=20"))
    d.proc.send_signal(signal.SIGHUP)
    c.wait(lambda: "Reloading: the layouts are read, but not the host: the layout change waits "
           "until the host can be read" in d.log_text(),
           what="the journal saying the layout change waits")
    err = json.loads(c.call("GetStatus"))["daemon"]["host_error"]
    assert err["layout_change_waits"], err


# --- 4 ----------------------------------------------------------------------------------------

def test_a_simulated_host_file_moved_away_is_a_host_that_cannot_be_read(make_host, start_daemon,
                                                                        bus_client, system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    d = start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()
    drift(h, E810_A, vlan=7)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    away = h.path.with_name("host.away")
    os.rename(h.path, away)
    c.wait(lambda: "Reading the host failed: " in d.log_text(), what="the journal")
    c.wait_property("State", "degraded")
    err = json.loads(c.call("GetStatus"))["daemon"]["host_error"]
    assert err and str(h.path) in err["error"], err
    r = ctl(h, system_bus, "status")
    assert r.returncode == 1, r
    assert "\n  reading the host failed at " in r.stdout, r.stdout
    assert f"sriovctl apply {E810_A} repairs it" not in r.stdout, r.stdout
    # back again: read again
    os.rename(away, h.path)
    c.wait(lambda: "Reading the host works again" in d.log_text(), what="the host read again")
    assert json.loads(c.call("GetStatus"))["daemon"].get("host_error") is None
    # removed: the same
    good = h.path.read_text()
    h.path.unlink()
    c.wait(lambda: d.log_text().count("Reading the host failed: ") == 2, what="a second failure")
    h.path.write_text(good)
    c.wait(lambda: d.log_text().count("Reading the host works again") == 2,
           what="the host read again")
