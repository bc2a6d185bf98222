# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriovctl metrics with sriov-persistd on the (private) system bus: what the daemon counted
since it started (GetMetrics()), drift noticed and repaired, applies by result; and without a
daemon, sriov_persist_daemon_up 0 and none of its families, never zeros in their place; with a
daemon of another host, none of them at all."""

import json
import os
import re
import subprocess
import sys
import time

from conftest import run_as_nobody
from test_daemon import E810_A, E810_B, apply_all, configured_host, drift
from test_daemon_k8s import (E810_LAYOUT, E810_NODE, USER, GROUPS, bound_token, e810_node,
                             env, k8s_notify_bin, replace_layout, set_plugin_allocatable,
                             write_kubeconfig)  # noqa: F401
from test_metrics import RULES, assert_in_manual, parse, promtool_check, value

DAEMON_FAMILIES = {
    "daemon_start_time_seconds": "gauge", "daemon_drift_events_total": "counter",
    "daemon_repairs_total": "counter", "daemon_applies_total": "counter",
    "daemon_drains_total": "counter", "daemon_reboots_total": "counter",
    "daemon_reboot_failed_timestamp_seconds": "gauge",
    "kubernetes_api_state": "gauge",
    "kubernetes_credentials_expiry_timestamp_seconds": "gauge",
}


def metrics(h, bus, *args):
    r = h.run("metrics", *args, env={"DBUS_SYSTEM_BUS_ADDRESS": bus})
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", r.stderr
    promtool_check(r.stdout)
    return parse(r.stdout)


def test_drift_and_repairs_move_the_daemons_counters(make_host, start_daemon, bus_client,
                                                     system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="repair")
    start_daemon(h)
    apply_all(c, [E810_A])
    series, types = metrics(h, system_bus.address)
    for name, kind in DAEMON_FAMILIES.items():
        assert types["sriov_persist_" + name] == kind, name
    assert_in_manual(types)
    assert value(series, "daemon_up") == 1
    assert value(series, "daemon_drift_events_total", pf_pci=E810_A) == 0
    assert value(series, "daemon_repairs_total", pf_pci=E810_A) == 0
    # the other port, never configured, is counted too: 0 is what the daemon saw
    assert value(series, "daemon_drift_events_total", pf_pci=E810_B) == 0
    applied = value(series, "daemon_applies_total", result="applied")
    assert applied >= 1
    assert value(series, "daemon_applies_total", result="failed") == 0
    assert value(series, "daemon_drains_total", result="failed") == 0
    assert value(series, "daemon_reboots_total", result="succeeded") == 0
    started = value(series, "daemon_start_time_seconds")

    for i, mac in enumerate(("02:11:22:33:44:55", "02:11:22:33:44:66")):
        m = c.mark()
        drift(h, E810_A, mac=mac)
        sig = c.wait_signal("DriftDetected", m, pci=E810_A)
        assert c.wait_applied(E810_A, c.signals.index(sig)) == 0
    series, _ = metrics(h, system_bus.address)
    assert value(series, "daemon_drift_events_total", pf_pci=E810_A) == 2
    assert value(series, "daemon_repairs_total", pf_pci=E810_A) == 2
    assert value(series, "daemon_drift_events_total", pf_pci=E810_B) == 0
    assert value(series, "daemon_applies_total", result="applied") == applied + 2
    assert value(series, "daemon_start_time_seconds") == started
    # Kubernetes is not enabled: its families have no series
    assert "sriov_persist_kubernetes_api_state" not in series
    assert "sriov_persist_kubernetes_credentials_expiry_timestamp_seconds" not in series

    # one PF: its own counters only, the host-wide ones still
    series, _ = metrics(h, system_bus.address, "ens1f0")
    assert {ls["pf_pci"] for ls, _ in series["sriov_persist_daemon_drift_events_total"]} == \
        {E810_A}
    assert value(series, "daemon_applies_total", result="applied") == applied + 2


def test_report_mode_counts_drift_without_repairs(make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    start_daemon(h)
    apply_all(c, [E810_A])
    m = c.mark()
    drift(h, E810_A, vlan=99)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    series, _ = metrics(h, system_bus.address)
    assert value(series, "daemon_drift_events_total", pf_pci=E810_A) >= 1
    assert value(series, "daemon_repairs_total", pf_pci=E810_A) == 0


def test_a_failed_apply_is_counted_by_its_result(make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)})
    h.add_fault(op="set_num_vfs", pci=E810_A, errno="EIO", times=1)
    start_daemon(h)  # applies the PF at start: the fault fails it
    c.wait(lambda: json.loads(c.call("GetMetrics"))["applies"]["failed"] == 1,
           what="the failed apply counted")
    apply_all(c, [E810_A])  # the fault is spent
    series, _ = metrics(h, system_bus.address)
    assert value(series, "daemon_applies_total", result="failed") == 1
    assert value(series, "daemon_applies_total", result="applied") == 1


def test_no_daemon_no_daemon_families(make_host, system_bus):
    """No bus at all, or a bus where nobody owns org.sriovpersist1: daemon_up 0, and the
    daemon's families are absent, HELP and all; nothing on stderr."""
    h = make_host("e810.json")
    series, types = metrics(h, "unix:path=/nonexistent/sriov-persist-test-bus")
    assert value(series, "daemon_up") == 0
    assert not set(types) & {"sriov_persist_" + n for n in DAEMON_FAMILIES}, types
    series, types = metrics(h, system_bus.address)
    assert value(series, "daemon_up") == 0
    assert not set(types) & {"sriov_persist_" + n for n in DAEMON_FAMILIES}, types


def test_nobody_may_call_get_metrics(make_host, start_daemon, bus_client, system_bus):
    """GetMetrics() reads only: the shipped bus policy lets anyone call it, as GetStatus()."""
    h = configured_host(make_host, "e810.json", {E810_A: (2, 10)})
    start_daemon(h)
    apply_all(bus_client, [E810_A])
    r = run_as_nobody(["busctl", "--json=short", "call", "org.sriovpersist1",
                       "/org/sriovpersist1", "org.sriovpersist1.Manager", "GetMetrics"],
                      env={"DBUS_SYSTEM_BUS_ADDRESS": system_bus.address})
    assert r.returncode == 0, r.stderr
    doc = json.loads(json.loads(r.stdout)["data"][0])
    assert doc.keys() == json.loads(bus_client.call("GetMetrics")).keys()
    assert set(doc) == {"start_time_usec", "pfs", "applies", "drains", "reboots",
                        "reboot_failed_usec",
                        "kubernetes_api", "credentials", "host"}
    assert doc["host"] == os.path.realpath(h.path)
    assert doc["kubernetes_api"] is None and doc["credentials"] is None
    assert list(doc["applies"]) == ["applied", "held", "deferred", "degraded", "failed"]
    assert list(doc["drains"]) == list(doc["reboots"]) == ["succeeded", "failed"]


def test_a_daemon_of_another_host_is_left_out(make_host, start_daemon, bus_client, system_bus):
    """A daemon that manages another snapshot: none of its families, not even daemon_up (a
    daemon runs, so 0 would be false), one line on stderr saying why, exit 0."""
    h = configured_host(make_host, "e810.json", {E810_A: (2, 10)})
    start_daemon(h)
    apply_all(bus_client, [E810_A])
    other = make_host("e810.json")
    r = other.run("metrics", env={"DBUS_SYSTEM_BUS_ADDRESS": system_bus.address})
    assert r.returncode == 0, r.stderr
    assert r.stderr == (f"sriov-persistd manages {os.path.realpath(h.path)}, not {other.path}: "
                        "its metrics are left out\n"), r.stderr
    series, types = parse(r.stdout)
    assert "sriov_persist_daemon_up" not in types
    assert not set(types) & {"sriov_persist_" + n for n in DAEMON_FAMILIES}, types
    assert value(series, "pf_state", pf_pci=E810_A, state="unconfigured") == 1
    promtool_check(r.stdout)


def test_the_same_snapshot_by_another_path_is_paired(make_host, start_daemon, bus_client,
                                                     system_bus):
    """The daemon's snapshot named through a symbolic link and relative to the directory:
    the same file (canonical path), so the daemon's families are there."""
    h = configured_host(make_host, "e810.json", {E810_A: (2, 10)})
    start_daemon(h)
    apply_all(bus_client, [E810_A])
    link = h.dir.parent / "link"
    link.symlink_to(h.dir, target_is_directory=True)
    r = subprocess.run([h.binary, "--no-color", "--host", "link/host.json", "--config-dir",
                        str(h.confdir), "--main-config", str(h.main), "metrics"],
                       capture_output=True, text=True, timeout=60, cwd=h.dir.parent,
                       env={**os.environ, "DBUS_SYSTEM_BUS_ADDRESS": system_bus.address})
    assert r.returncode == 0 and r.stderr == "", r.stderr
    series, _ = parse(r.stdout)
    assert value(series, "daemon_up") == 1
    assert value(series, "daemon_applies_total", result="applied") >= 1


def test_the_alerting_rules_use_metrics_that_exist(make_host, start_daemon, bus_client,
                                                   system_bus):
    """Every sriov_persist_ name in the rules is a family sriovctl metrics prints (with a
    daemon: all of them have their HELP then)."""
    h = configured_host(make_host, "e810.json", {E810_A: (2, 10)})
    start_daemon(h)
    _, types = metrics(h, system_bus.address)
    used = set(re.findall(r"\bsriov_persist_[a-z_]+", (RULES / "sriov-persist.rules.yml").read_text()))
    assert used and used <= set(types), used - set(types)
    assert {"sriov_persist_daemon_repairs_total", "sriov_persist_daemon_up",
            "sriov_persist_kubernetes_credentials_expiry_timestamp_seconds"} <= used


def test_kubernetes_drains_and_credentials(env):
    """With Kubernetes: the API server's state, the token's expiry (its JWT exp) as a
    timestamp, and a drain for a disruptive change counted when it ends, succeeded; then one
    that fails (a budget refuses the eviction), failed."""
    srv, c = env.srv, env.c
    expires = int(time.time()) + 5 * 86400
    token = bound_token(expires - 30 * 86400, expires)
    srv.add_token(token, USER, GROUPS)
    env.kubeconfig = write_kubeconfig(env.tmp / "kubeconfig-5d", srv.url, srv.ca_path,
                                      token=token)
    h, _ = e810_node(env, DrainTimeoutSec=1, EvictionFallback="fail")
    env.start(h)
    env.settle()
    c.wait(lambda: json.loads(c.call("GetMetrics"))["credentials"], timeout=30,
           what="the credentials read")
    series, types = metrics(h, env.bus.address)
    assert value(series, "kubernetes_api_state", state="answers") == 1
    assert value(series, "kubernetes_api_state", state="unreachable") == 0
    assert value(series, "kubernetes_credentials_expiry_timestamp_seconds",
                 kind="token") == expires
    assert value(series, "daemon_drains_total", result="succeeded") == 0

    set_plugin_allocatable(srv, {"intel.com/e810_vf": 8})
    m = c.mark()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: [s for s in c.signals[m:] if s.member == "Applied" and s.args[1] == 0],
           timeout=90, what="the apply after the drain")
    env.settle()
    series, _ = metrics(h, env.bus.address)
    assert value(series, "daemon_drains_total", result="succeeded") == 1
    assert value(series, "daemon_drains_total", result="failed") == 0

    # the only replica of trainer, and a budget that wants it up: the next drain fails
    srv.add_pod("default", "trainer-1", E810_NODE, owner_kind="StatefulSet",
                labels={"app": "trainer"}, requests={"intel.com/e810_vf": 1})
    srv.add_pdb("default", "trainer", {"app": "trainer"}, min_available=1)
    set_plugin_allocatable(srv, {"intel.com/e810_vf": 4})
    m = c.mark()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=4, vlan=10))
    c.wait(lambda: json.loads(c.call("GetMetrics"))["drains"]["failed"] == 1, timeout=90,
           what="the failed drain counted")
    env.settle()
    series, _ = metrics(h, env.bus.address)
    assert value(series, "daemon_drains_total", result="failed") == 1
    assert value(series, "daemon_drains_total", result="succeeded") == 1
    assert value(series, "daemon_reboots_total", result="failed") == 0


# Owns org.sriovpersist1 and answers every call with an error, as a daemon of an older
# version without GetMetrics() would (UnknownMethod).
OLD_DAEMON = r"""
import sys
import dbus, dbus.bus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

conn = dbus.bus.BusConnection(sys.argv[1], mainloop=DBusGMainLoop())
obj = dbus.service.Object(conn, "/org/sriovpersist1")
conn.request_name("org.sriovpersist1", dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
print("ready", flush=True)
GLib.MainLoop().run()
"""


def test_a_daemon_that_fails_the_call_is_left_out(make_host, system_bus):
    """A daemon that owns the name and fails GetMetrics(): said on stderr, daemon_up 0, its
    families absent, the rest written and exit 0."""
    p = subprocess.Popen([sys.executable, "-c", OLD_DAEMON, system_bus.address],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready", p.stderr.read()
        h = make_host("e810.json")
        r = h.run("metrics", env={"DBUS_SYSTEM_BUS_ADDRESS": system_bus.address})
        assert r.returncode == 0, r.stderr
        lines = r.stderr.splitlines()
        assert lines[-1] == "The metrics of sriov-persistd are left out", r.stderr
        # the error as the daemon gave it (dbus-python adds its traceback)
        assert r.stderr.startswith("sriov-persistd: ") and "GetMetrics" in r.stderr, r.stderr
        series, types = parse(r.stdout)
        assert value(series, "daemon_up") == 0
        assert not set(types) & {"sriov_persist_" + n for n in DAEMON_FAMILIES}
        assert value(series, "pf_state", pf_pci=E810_A, state="unconfigured") == 1
        promtool_check(r.stdout)
    finally:
        p.terminate()
        p.wait(timeout=10)
