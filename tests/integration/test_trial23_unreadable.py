# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 23 (fresh eyes), sriovctl through the daemon while it cannot read the host: plan
(whole host, one PF, --json) says the host could not be read and that its rows are as read
last (above them on standard output, since trial 27), and exits 1, so that no gate passes on a host the daemon cannot see; a PF's status shows
the PF as read last under the same header (exit 1); apply says why it failed (the daemon's
host error: file and parse error), not only "Invalid argument". Once the host can be read
again, all of it is as before."""

import json
import os
import subprocess

from test_daemon import E810_A, apply_all, configured_host  # noqa: F401
from test_trial22_reload import NEW, fix_host

HEADER = "reading the host failed at "
LAST = "the daemon shows what it read last"
WAITS = "; the layout change waits until the host can be read"


def truncate_host(h):
    """host.json cut short, as the trial did (echo '{"version": 1, "pfs": [' > host.json)."""
    good = h.path.read_text()
    tmp = h.path.with_name(h.path.name + ".tmp")
    tmp.write_text('{"version": 1, "pfs": [\n')
    os.rename(tmp, h.path)
    return good


def via_daemon(h, system_bus, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    return subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def test_plan_status_and_apply_say_the_host_cannot_be_read(make_host, start_daemon, bus_client,
                                                          system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)})
    start_daemon(h)
    apply_all(c, [E810_A])
    r = via_daemon(h, system_bus, "plan", "ens1f0")
    assert r.returncode == 0 and HEADER not in r.stderr, r
    good = truncate_host(h)
    c.wait_property("State", "degraded")
    err = json.loads(c.call("GetStatus"))["daemon"]["host_error"]
    assert err and h.path.name in err["error"], err

    # apply: the reason, not only the errno (it leaves the PF to be read again first, as
    # the trial had it: every look at it reads the host)
    r = via_daemon(h, system_bus, "apply", "ens1f0")
    assert r.returncode == 1, r
    assert ("Applying failed: reading the host failed: " + err["error"]) in r.stderr, r.stderr

    # plan: the rows are the host as read last, the line says so, and no gate passes
    for args in (["plan"], ["plan", "ens1f0"], ["plan", E810_A]):
        r = via_daemon(h, system_bus, *args)
        assert r.returncode == 1, (args, r)
        line = r.stdout.splitlines()[0]  # above the rows, as status says it (trial 27)
        assert line.startswith("sriov-persistd: " + HEADER), (args, r.stdout)
        assert err["error"] in line and line.endswith(LAST), (args, r.stdout)
        assert "0000:3b:00.0 (ens1f0): nothing to do" in r.stdout, (args, r.stdout)
    r = via_daemon(h, system_bus, "plan", "--json")
    assert r.returncode == 1, r
    doc = json.loads(r.stdout)
    assert doc["host_error"]["error"] == err["error"], doc.get("host_error")
    assert json.loads(c.call("Plan"))["host_error"]["at_usec"] == err["at_usec"]

    # status of one PF: as read last, under the whole host's header
    for name in ("ens1f0", E810_A):
        r = via_daemon(h, system_bus, "status", name)
        assert r.returncode == 1, (name, r)
        line = next((x for x in r.stdout.splitlines() if x.startswith("  " + HEADER)), "")
        assert err["error"] in line and line.endswith(LAST), (name, r.stdout)
        assert E810_A in r.stdout and "Reading the host failed" not in r.stderr, (name, r)

    # readable again: nothing of it is left
    fix_host(h, good)
    c.wait_property("State", "idle")
    for args in (["plan"], ["plan", "ens1f0"], ["status", "ens1f0"]):
        r = via_daemon(h, system_bus, *args)
        assert r.returncode == 0 and HEADER not in r.stdout + r.stderr, (args, r)
    assert "host_error" not in json.loads(c.call("Plan"))


def test_a_pf_view_while_a_layout_change_waits(make_host, start_daemon, bus_client, system_bus):
    """A layout change waiting for the host (every look reads it again): a PF's status and plan
    are as read last, under the header that says the change waits; apply says so too."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)})
    d = start_daemon(h)
    apply_all(c, [E810_A])
    good = truncate_host(h)
    h.layout("60-b.conf", NEW)
    c.wait(lambda: WAITS[2:] in d.log_text(), what="the journal saying the layout change waits")
    err = json.loads(c.call("GetStatus"))["daemon"]["host_error"]
    assert err and err["layout_change_waits"], err
    for name in ("ens1f0", E810_A):
        r = via_daemon(h, system_bus, "status", name)
        assert r.returncode == 1, (name, r)
        line = next((x for x in r.stdout.splitlines() if x.startswith("  " + HEADER)), "")
        assert err["error"] in line and line.endswith(LAST + WAITS), (name, r.stdout)
        assert E810_A in r.stdout and "ens1f1" not in r.stdout, (name, r.stdout)
        r = via_daemon(h, system_bus, "plan", name)
        assert r.returncode == 1, (name, r)
        lines = r.stdout.splitlines()
        assert lines[0].endswith(LAST + WAITS), (name, r.stdout)
        assert lines[1].startswith("0000:3b:00.0 (ens1f0): "), (name, r.stdout)
    r = via_daemon(h, system_bus, "apply", "ens1f0")
    assert r.returncode == 1, r
    assert ("Applying failed: reading the host failed: " + err["error"] + WAITS) in r.stderr, r
    fix_host(h, good)
    c.wait_property("State", "idle")
    r = via_daemon(h, system_bus, "status", "ens1f0")
    assert r.returncode == 0 and HEADER not in r.stdout, r
