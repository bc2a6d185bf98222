# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriov-persistd with Kubernetes: the daemon on a private system bus, the Kubernetes API test
server (tests/k8s/apiserver.py) and k8s-notify, with the RBAC rules of packaging/k8s/rbac.yaml.

Covers the disruptive change under [Disruption] Policy=drain (lease, cordon, drain, apply,
device plugin, uncordon, release), a live change and an idle daemon (no API requests), a drain
that fails, the cordon left by a crash, and a coordinated reboot through a stand-in logind.
Binaries: $SRIOVPERSISTD (build/asan/sriov-persistd), $K8S_NOTIFY (build/asan/k8s-notify),
$SRIOVCTL (build/asan/sriovctl)."""

import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import (MANAGER_IFACE, MANAGER_PATH, PF_IFACE, ROOT, Bus, Client, Daemon, Host,
                      _binary, pf_path, place_card_vfs)

sys.path.insert(0, str(ROOT / "tests" / "k8s"))
from apiserver import ApiServer, write_kubeconfig  # noqa: E402
from rbacfile import LEASE_NAMESPACE  # noqa: E402
from test_rbac import GROUPS, USER, load_permissions  # noqa: E402
from test_rbac import grant as grant_permissions  # noqa: E402

LOGIND_BUS_CONF = ROOT / "tests" / "integration" / "dbus" / "system-logind.conf"
TOKEN = "sriov-persist-daemon-token"
NO_BUS = {"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/sriov-persist-test-bus"}
SLOT_PREFIX = "sriov-persist-slot-"
CORDON_ANNOTATION = "sriov-persist.io/cordoned"  # k8s-notify/node-patch.h
EBUSY = 16
OP_STEPS = ["lease", "drain", "apply", "device-plugin", "uncordon", "release"]

# e810.json
E810_A, E810_NODE = "0000:3b:00.0", "gpu-worker-03.dc1.example.net"
E810_RES = "e810_vf"
E810_LAYOUT = ("[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions={n}\n"
               "[VirtualFunction]\nVLANId={vlan}\nResourceName=" + E810_RES + "\n")
# cx6dx.json: ConnectX-6 Dx, sriov_totalvfs and firmware NUM_OF_VFS 8
CX6_A, CX6_NODE = "0000:ca:00.0", "ai-node-42.cluster.example.com"
CX6_RES = "nvidia.com/cx6_vf"
BOOT_1, BOOT_2 = "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "8a7b6c5d4e3f20011002f3e4d5c6b7a8"

# A stand-in for systemd-logind: owns org.freedesktop.login1 on the bus given, answers
# Manager.Reboot(b), and appends one JSON line per call to a file: the argument, the caller's
# uid, and what <state-dir>/operation.json held at that moment.
FAKE_LOGIND = r"""
import json, sys
import dbus, dbus.bus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

address, record, operation = sys.argv[1:4]
conn = dbus.bus.BusConnection(address, mainloop=DBusGMainLoop())

class Manager(dbus.service.Object):
    @dbus.service.method("org.freedesktop.login1.Manager", in_signature="b", out_signature="",
                         sender_keyword="sender")
    def Reboot(self, interactive, sender=None):
        uid = conn.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                 "org.freedesktop.DBus", "GetConnectionUnixUser", "s", [sender])
        try:
            with open(operation) as f:
                op = f.read()
        except FileNotFoundError:
            op = None
        with open(record, "a") as f:
            f.write(json.dumps({"method": "Reboot", "interactive": bool(interactive),
                                "uid": int(uid), "operation": op}) + "\n")

Manager(conn, "/org/freedesktop/login1")
if conn.request_name("org.freedesktop.login1", dbus.bus.NAME_FLAG_DO_NOT_QUEUE) != \
        dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
    sys.exit("cannot own org.freedesktop.login1")
print("ready", flush=True)
GLib.MainLoop().run()
"""


class FakeLogind:
    def __init__(self, bus, tmp):
        self.record = tmp / "logind-calls.jsonl"
        self.operation = None
        self.proc = None
        self.bus, self.tmp = bus, tmp

    def start(self, operation_path):
        self.operation = operation_path
        self.proc = subprocess.Popen([sys.executable, "-c", FAKE_LOGIND, self.bus.address,
                                      str(self.record), str(operation_path)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert line.strip() == "ready", self.proc.stderr.read()

    def calls(self):
        if not self.record.exists():
            return []
        return [json.loads(x) for x in self.record.read_text().splitlines() if x.strip()]

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


class K8sEnv:
    """One test's world: bus (+ stand-in logind policy), root client, API test server with the
    account of rbac.yaml, and the daemons started on simulated hosts."""

    def __init__(self, tmp, srv, bus, client, binaries):
        self.tmp, self.srv, self.bus, self.c = tmp, srv, bus, client
        self.daemon_bin, self.notify_bin, self.sriovctl_bin = binaries
        self.daemons = []
        self.logind = FakeLogind(bus, tmp)
        srv.add_token(TOKEN, USER, GROUPS)
        grant_permissions(srv, load_permissions())
        srv.add_namespace(LEASE_NAMESPACE)
        self.kubeconfig = write_kubeconfig(tmp / "kubeconfig", srv.url, srv.ca_path,
                                           token=TOKEN)
        self.dp_config = tmp / "pcidp" / "config.json"
        self.dp_config.parent.mkdir()

    def host(self, fixture, node, reboot="never", mode="repair", **kubernetes):
        d = self.tmp / f"host-{fixture.split('.')[0]}"
        d.mkdir()
        h = Host(d, fixture, self.sriovctl_bin)
        k8s = {"Enabled": "yes", "Kubeconfig": self.kubeconfig, "NodeName": node,
               "DrainTimeoutSec": 5, "EvictionFallback": "delete", "DrainPods": "sriov",
               "ResourcePrefix": "intel.com", "DevicePluginNamespace": "kube-system",
               "DevicePluginSelector": "app=sriovdp", "DevicePluginConfig": self.dp_config,
               "MaxParallelNodes": 1, **kubernetes}
        h.main.write_text(f"[Apply]\nSysfsWriteTimeoutSec=1\n[Drift]\nMode={mode}\n"
                          f"[Disruption]\nPolicy=drain\n[Reboot]\nPolicy={reboot}\n"
                          "[Kubernetes]\n" + "".join(f"{k}={v}\n" for k, v in k8s.items()))
        return h

    def boot_apply(self, h):
        """What the apply units do at boot, before the daemon: sriovctl apply, directly."""
        r = h.run("apply", env=NO_BUS)
        assert r.returncode == 0, r.stdout + r.stderr

    def start(self, h):
        d = Daemon(self.daemon_bin, h, self.bus, ["--k8s-notify", self.notify_bin])
        self.daemons.append(d)
        d.start()
        return d

    def settle(self, quiet=1.5, timeout=60):
        """Until the daemon is idle or degraded with no operation, and the API server has seen
        no request for `quiet` seconds (annotations are coalesced to one a second)."""
        last = [self.srv.count(), time.monotonic()]

        def calm():
            n, now = self.srv.count(), time.monotonic()
            if n != last[0]:
                last[:] = [n, now]
                return False
            if now - last[1] < quiet or self.c.get("State") not in ("idle", "degraded"):
                return False
            return operation(self.c) is None
        self.c.wait(calm, timeout=timeout, what="the daemon and the API server to settle")

    def log(self):
        return "\n".join(d.log_text() for d in self.daemons[-1:])


@pytest.fixture(scope="session")
def k8s_notify_bin():
    return _binary("K8S_NOTIFY", "build/asan/k8s-notify")


@pytest.fixture
def env(tmp_path, sriovpersistd_bin, k8s_notify_bin, sriovctl_bin):
    srv = ApiServer(tmp_path / "apiserver").start()
    bus = Bus(LOGIND_BUS_CONF)
    client = Client(bus.address)
    e = K8sEnv(tmp_path, srv, bus, client, (sriovpersistd_bin, k8s_notify_bin, sriovctl_bin))
    errors = []
    try:
        yield e
    finally:
        for d in e.daemons:
            if d.running():
                try:
                    d.stop()
                except AssertionError as err:
                    errors.append(str(err))
        e.logind.stop()
        client.close()
        bus.stop()
        srv.stop()
    errors += srv.errors
    assert not errors, "\n".join(errors)


# --- helpers ----------------------------------------------------------------------------------

def operation(c):
    """GetStatus()'s daemon.operation: null when none runs."""
    daemon = json.loads(c.call("GetStatus"))["daemon"]
    assert "operation" in daemon, f"GetStatus has no daemon.operation: {daemon}"
    return daemon["operation"]


def replace_layout(h, name, text):
    tmp = h.dir / f".{name}.new"
    tmp.write_text(text)
    os.rename(tmp, h.confdir / name)


def pf_state_changes(c, since, pci):
    """[(signal index, State, LastError)] from PropertiesChanged of the PF since the mark."""
    out = []
    for i, s in enumerate(c.signals[since:], since):
        if s.member == "PropertiesChanged" and s.path == pf_path(pci) and s.args[0] == PF_IFACE \
                and "State" in s.args[1]:
            out.append((i, s.args[1]["State"], s.args[1].get("LastError")))
    return out


def manager_states(c, since):
    return [(i, s.args[1]["State"]) for i, s in enumerate(c.signals[since:], since)
            if s.member == "PropertiesChanged" and s.path == MANAGER_PATH
            and s.args[0] == MANAGER_IFACE and "State" in s.args[1]]


def applied(c, since, pci):
    return [(i, s.args[1]) for i, s in enumerate(c.signals[since:], since)
            if s.member == "Applied" and s.args[0] == pci]


def node_patches(srv, since=0):
    """[(request index, parsed body)] of the PATCHes of nodes since the index."""
    return [(i, json.loads(r["body"])) for i, r in enumerate(srv.requests[since:], since)
            if r["method"] == "PATCH" and r["resource"] == "nodes" and r["status"] == 200]


def is_annotation(r):
    """A PATCH of the node that sets annotations only (k8s-notify annotate)."""
    return r["method"] == "PATCH" and r["resource"] == "nodes" and \
        "spec" not in json.loads(r["body"])


def cordon_value(body):
    return (body.get("spec") or {}).get("unschedulable", "absent")


def node_flags(srv, node):
    n = srv.get("node", None, node)
    return (bool(n["spec"].get("unschedulable")),
            (n["metadata"].get("annotations") or {}).get(CORDON_ANNOTATION))


def lease_holder(srv, slot=SLOT_PREFIX + "0"):
    lease = srv.get("lease", LEASE_NAMESPACE, slot)
    return None if lease is None else lease["spec"].get("holderIdentity")


def breakdown(records):
    counts = {}
    for r in records:
        key = f"{r['verb']} {r['resource']}" + (f"/{r['subresource']}" if r["subresource"] else "")
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def first_index(srv, since, pred):
    return next((i for i, r in enumerate(srv.requests[since:], since) if pred(r)), None)


def dp_resources(path):
    doc = json.loads(path.read_text())
    return {e["resourceName"]: e for e in doc["resourceList"]}


# --- scenario: a disruptive layout change drains the node --------------------------------------

def e810_node(env, mode="repair", **kubernetes):
    """The e810 host with 4 VFs applied at boot, and its node: pods that use the VFs (evicted
    by a drain), a DaemonSet pod that does not (a NIC exporter), a pod that does not and pods
    that request
    other resources of the same prefix (all left alone), a pod on another node, and the
    device plugin."""
    srv = env.srv
    res = f"intel.com/{E810_RES}"
    h = env.host("e810.json", E810_NODE, mode=mode, **kubernetes)
    h.layout("50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=4, vlan=10))
    env.boot_apply(h)
    srv.add_node(E810_NODE, allocatable={res: 4})
    srv.add_node("other-node", allocatable={res: 4})
    # a grace period of 100 s is 1 s here: the drain takes a while
    srv.add_pod("default", "rdma-job-7d9f-x2x4k", E810_NODE, owner_kind="ReplicaSet",
                requests={res: 2}, grace=100)
    srv.add_pod("default", "trainer-0", E810_NODE, owner_kind="StatefulSet",
                labels={"app": "trainer"}, requests={res: 1})
    srv.add_pod("monitoring", "nic-exporter-abcde", E810_NODE, owner_kind="DaemonSet",
                requests={"cpu": "50m"})
    srv.add_pod("default", "web-5c7b-q8z9w", E810_NODE, owner_kind="ReplicaSet",
                requests={"cpu": "100m"})
    srv.add_pod("default", "elsewhere-0", "other-node", owner_kind="StatefulSet",
                requests={res: 1})
    # resources of the same vendor that are not this PF's: a QAT VF, a GPU under the prefix
    srv.add_pod("default", "crypto-0", E810_NODE, owner_kind="StatefulSet",
                requests={"intel.com/qat_vf": 1})
    srv.add_pod("default", "render-0", E810_NODE, owner_kind="StatefulSet",
                requests={"intel.com/gpu.i915": 1})
    plugin = srv.add_device_plugin("kube-system", {"app": "sriovdp"}, E810_NODE,
                                   allocatable_after={res: 4})
    return h, plugin["metadata"]["name"]


def current_plugin(srv, node):
    """The name of the device-plugin pod on the node now (a restart replaces it)."""
    pods = [p["metadata"]["name"] for p in srv.list("pods", "kube-system")
            if p["metadata"]["labels"].get("app") == "sriovdp" and p["spec"]["nodeName"] == node
            and not p["metadata"].get("deletionTimestamp")]
    assert len(pods) == 1, pods
    return pods[0]


def set_plugin_allocatable(srv, values):
    """What the device plugin will report once restarted (it counts the VFs there are)."""
    with srv.cluster.lock:
        for dp in srv.cluster.device_plugins:
            dp.allocatable_after = {k: str(v) for k, v in values.items()}


SRIOV_PODS = {("default", "rdma-job-7d9f-x2x4k"), ("default", "trainer-0")}
KEPT_PODS = {("monitoring", "nic-exporter-abcde"), ("default", "web-5c7b-q8z9w"),
             ("default", "elsewhere-0"), ("default", "crypto-0"), ("default", "render-0")}


class Watch:
    """Looks at the daemon, the host and the cluster at every tick while a test waits, and
    notes what must never be seen."""

    def __init__(self, env, h, pci, node, plugin, vfs_after):
        self.env, self.h, self.pci, self.node, self.plugin = env, h, pci, node, plugin
        self.vfs_after = vfs_after
        self.dp_config = env.dp_config
        self.ops, self.violations = [], []
        self.cordoned_seen = False

    def tick(self):
        srv, c = self.env.srv, self.env.c
        status = json.loads(c.call("GetStatus"))["daemon"]
        assert "operation" in status, f"GetStatus has no daemon.operation: {status}"
        op, state = status["operation"], status["state"]
        if op is not None and (not self.ops or self.ops[-1] != op):
            self.ops.append(op)
        if op is not None and op.get("kind") == "drain" and state != "draining":
            self.violations.append(f"operation {op} while State is {state}")
        # each pair is read in the order that makes a violation certain, not a race
        cordoned, _ = node_flags(srv, self.node)
        self.cordoned_seen |= cordoned
        if self.cordoned_seen and not cordoned and self.h.pf(self.pci)["num_vfs"] != self.vfs_after:
            self.violations.append("node uncordoned before the apply")
        plugin_gone = srv.get("pod", "kube-system", self.plugin) is None or \
            srv.get("pod", "kube-system", self.plugin)["metadata"].get("deletionTimestamp")
        if plugin_gone and self.h.pf(self.pci)["num_vfs"] != self.vfs_after:
            self.violations.append("device plugin restarted before the apply")
        if self.dp_config.exists():
            text = self.dp_config.read_text()
            if f"#0-{self.vfs_after - 1}\"" in text and \
                    self.h.pf(self.pci)["num_vfs"] != self.vfs_after:
                self.violations.append("config.json names VFs before the apply made them")
        if self.h.pf(self.pci)["num_vfs"] == self.vfs_after:
            left = [p for p in SRIOV_PODS if srv.get("pod", *p) is not None]
            if left:
                self.violations.append(f"applied while {left} still on the node")


def test_disruptive_change_drains_the_node(env):
    srv, c = env.srv, env.c
    res = f"intel.com/{E810_RES}"
    h, _ = e810_node(env)
    # a DPDK DaemonSet that uses the VFs: it must not keep them across the change
    dpdk = srv.add_daemonset("dpdk", "dpdk-fwd", E810_NODE, requests={res: 1})["metadata"]
    env.start(h)
    env.settle()
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "applied"
    assert h.pf(E810_A)["num_vfs"] == 4
    assert node_flags(srv, E810_NODE) == (False, None)
    start_requests = breakdown(srv.requests)
    before = len(srv.requests)
    plugin = current_plugin(srv, E810_NODE)
    set_plugin_allocatable(srv, {res: 8})

    watch = Watch(env, h, E810_A, E810_NODE, plugin, vfs_after=8)
    m = c.mark()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: (watch.tick(), applied(c, m, E810_A))[1], timeout=90,
           what=f"Applied({E810_A}, ...) after the drain")
    env.settle()
    watch.tick()
    log = env.log()

    # D-Bus: deferred first (no Applied -16 for it), then draining, then Applied(pci, 0)
    assert applied(c, m, E810_A)[0][1] == 0, (applied(c, m, E810_A), log)
    assert [r for _, r in applied(c, m, E810_A)] == [0], applied(c, m, E810_A)
    pf_changes = pf_state_changes(c, m, E810_A)
    deferred = [(i, err) for i, s, err in pf_changes if s == "deferred"]
    assert deferred, (pf_changes, log)
    assert "drain" in deferred[0][1].lower(), f"LastError of the deferred PF: {deferred[0][1]!r}"
    draining = [i for i, s in manager_states(c, m) if s == "draining"]
    assert draining, manager_states(c, m)
    applied_at = applied(c, m, E810_A)[0][0]
    assert deferred[0][0] < draining[0] < applied_at, (pf_changes, manager_states(c, m))
    assert c.get("State") == "idle" and c.get("State", pf_path(E810_A), PF_IFACE) == "applied"
    assert c.get("LastError", pf_path(E810_A), PF_IFACE) == ""

    # GetStatus: the operation while it ran, in order, and none afterwards
    assert watch.ops, "GetStatus never showed the operation"
    assert all(o["kind"] == "drain" and E810_A in o["pfs"] and o["error"] is None
               for o in watch.ops), watch.ops
    steps = [o["step"] for o in watch.ops]
    assert all(s in OP_STEPS for s in steps), steps
    assert steps == sorted(steps, key=OP_STEPS.index), steps
    assert operation(c) is None
    assert not watch.violations, watch.violations

    # the host and the device plugin's configuration
    pf = h.pf(E810_A)
    assert pf["num_vfs"] == 8 and len(pf["vfs"]) == 8 and all(v["vlan"] == 10 for v in pf["vfs"])
    entry = dp_resources(env.dp_config)[E810_RES]
    assert entry["resourcePrefix"] == "intel.com"
    assert [s["pfNames"] for s in entry["selectors"]] == [["ens1f0#0-7"]], entry
    assert entry["selectors"][0]["vendors"] == ["8086"]
    assert entry["selectors"][0]["devices"] == ["1889"]

    # the API server: lease, cordon, evictions, device plugin, uncordon, release, in order
    reqs = srv.requests[before:]
    assert all(r["user"] == USER for r in reqs)
    assert not [r for r in reqs if r["status"] in (401, 403, 500)], reqs
    assert srv.leases_held_max(SLOT_PREFIX) == 1
    assert lease_holder(srv) is None, srv.get("lease", LEASE_NAMESPACE, SLOT_PREFIX + "0")
    lease_taken = first_index(srv, before, lambda r: r["resource"] == "leases"
                              and r["verb"] in ("create", "update") and r["status"] in (200, 201)
                              and json.loads(r["body"])["spec"].get("holderIdentity"))
    patches = node_patches(srv, before)
    cordons = [i for i, b in patches if cordon_value(b) is True]
    uncordons = [i for i, b in patches if cordon_value(b) is False]
    assert len(cordons) == 1 and len(uncordons) == 1, patches
    evictions = {(r["namespace"], r["name"]): i for i, r in enumerate(srv.requests)
                 if i >= before and r["subresource"] == "eviction" and r["status"] == 201
                 and r["namespace"] != "dpdk"}
    assert set(evictions) == SRIOV_PODS, evictions
    for ns, name in SRIOV_PODS:
        assert srv.get("pod", ns, name) is None
    for ns, name in KEPT_PODS:
        assert srv.get("pod", ns, name) is not None, (ns, name)
    assert srv.count(method="DELETE", resource="pods", namespace="default") == 0
    plugin_delete = first_index(srv, before, lambda r: r["method"] == "DELETE"
                                and r["name"] == plugin and r["status"] == 200)
    assert plugin_delete is not None, breakdown(reqs)
    assert srv.get("pod", "kube-system", plugin) is None
    assert srv.device_plugin_replacements(), "no new device-plugin pod"
    assert srv.get("node", None, E810_NODE)["status"]["allocatable"][res] == "8"
    # the DPDK pod: evicted after the others, its replacement evicted again once the new
    # plugin registered, and the pod that runs now got its VFs from that plugin
    dpdk_deletes = [i for i, r in enumerate(srv.requests) if i >= before
                    and r["subresource"] == "eviction" and r["namespace"] == "dpdk"
                    and r["status"] == 201]
    assert len(dpdk_deletes) == 2, breakdown(reqs)
    assert srv.requests[dpdk_deletes[0]]["name"] == dpdk["name"]
    assert max(evictions.values()) < dpdk_deletes[0] < plugin_delete < dpdk_deletes[1]
    assert dpdk_deletes[1] < uncordons[0]
    running = srv.wait_for(lambda: [p for p in srv.daemonset_pods("dpdk", "dpdk-fwd")
                                    if srv.admission(p["metadata"]["uid"]) is not None
                                    and not p["metadata"].get("deletionTimestamp")])
    assert len(running) == 1, srv.daemonset_pods("dpdk", "dpdk-fwd")
    assert srv.admission(running[0]["metadata"]["uid"]) == srv.plugin_registration(E810_NODE) == 1
    release = first_index(srv, uncordons[0], lambda r: r["resource"] == "leases"
                          and r["verb"] == "update" and r["status"] == 200
                          and not json.loads(r["body"])["spec"].get("holderIdentity"))
    assert lease_taken is not None and release is not None, breakdown(reqs)
    assert lease_taken < cordons[0] < min(evictions.values())
    assert max(evictions.values()) < plugin_delete < uncordons[0] < release
    assert node_flags(srv, E810_NODE) == (False, None)

    total = len(srv.requests) - before
    print(f"\nAPI requests at start: {sum(start_requests.values())} {start_requests}")
    print(f"API requests for the drained change of one node: {total} {breakdown(reqs)}; "
          f"operation steps seen: {steps}")
    # lease 2-3, drain ~10 with two pods, device plugin ~6, uncordon 2, release 2, annotations
    assert total <= 50, breakdown(reqs)


# --- scenario: live changes and an idle daemon make no requests --------------------------------

def test_vfs_that_vanish_restart_the_device_plugin(env):
    """Someone removes the VFs ([Drift] Mode=report: they stay removed): the device plugin's
    devices are gone, so it is restarted with what is there now, without a drain."""
    srv, c = env.srv, env.c
    h, plugin = e810_node(env, mode="report")
    env.start(h)
    env.settle()
    assert current_plugin(srv, E810_NODE) == plugin
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 0})
    before = len(srv.requests)
    m = c.mark()

    def gone(s):
        pf = h.pf_of(s, E810_A)
        pf["num_vfs"], pf["vfs"] = 0, []
    h.edit(gone)
    c.wait_signal("DriftDetected", m, pci=E810_A)
    def replaced():
        pods = [p["metadata"]["name"] for p in srv.list("pods", "kube-system")
                if p["metadata"]["labels"].get("app") == "sriovdp"
                and not p["metadata"].get("deletionTimestamp")]
        return pods and plugin not in pods
    c.wait(replaced, timeout=30, what="the device plugin's pod replaced")
    env.settle()
    assert h.pf(E810_A)["num_vfs"] == 0, "report mode repaired the drift"
    reqs = srv.requests[before:]
    assert not [r for r in reqs if r["resource"] in ("leases",) or
                r["subresource"] == "eviction"], breakdown(reqs)
    assert [b for _, b in node_patches(srv, before) if "spec" in b] == [], "cordoned"
    # no VF is left to name: the resource is gone from the plugin's list
    assert E810_RES not in dp_resources(env.dp_config), env.dp_config.read_text()


def test_live_change_and_idle_make_no_requests(env):
    srv, c = env.srv, env.c
    h, _ = e810_node(env)
    env.start(h)
    env.settle()
    plugin = current_plugin(srv, E810_NODE)
    annotations = srv.get("node", None, E810_NODE)["metadata"].get("annotations")
    # its VFs are a resource of the device plugin: the label its DaemonSet selects nodes by
    labels = srv.get("node", None, E810_NODE)["metadata"].get("labels") or {}
    assert labels.get("feature.node.kubernetes.io/network-sriov.capable") == "true", labels
    dp_stat = env.dp_config.stat() if env.dp_config.exists() else None

    # idle: nothing at all
    before = len(srv.requests)
    deadline = time.monotonic() + 3
    c.wait(lambda: time.monotonic() > deadline, timeout=10, what="3 s of idling")
    assert srv.requests[before:] == [], breakdown(srv.requests[before:])

    # a live change (VLAN): applied at once, no drain, no device-plugin restart
    m = c.mark()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=4, vlan=20))
    assert c.wait_applied(E810_A, m) == 0
    env.settle()
    pf = h.pf(E810_A)
    assert pf["num_vfs"] == 4 and all(v["vlan"] == 20 for v in pf["vfs"])
    assert "draining" not in [s for _, s in manager_states(c, m)]
    assert not [s for _, s, _ in pf_state_changes(c, m, E810_A) if s == "deferred"]
    reqs = srv.requests[before:]
    print(f"\nAPI requests for a live change of one node: {len(reqs)} {breakdown(reqs)}")
    # the summary (applied/held/drifted counts, pending reboot) is the same before and after:
    # nothing to publish, and certainly no cordon, eviction, lease or device-plugin request
    assert [r for r in reqs if not (r["method"] == "PATCH" and r["resource"] == "nodes")] == []
    assert [b for _, b in node_patches(srv, before) if "spec" in b] == []
    assert srv.get("node", None, E810_NODE)["metadata"].get("annotations") == annotations
    assert len(reqs) == 0, f"a live change that leaves the summary alone made requests: " \
                           f"{[r['body'] for r in reqs]}"
    assert srv.get("pod", "kube-system", plugin) is not None
    if dp_stat is not None:
        now = env.dp_config.stat()
        assert (now.st_ino, now.st_mtime_ns) == (dp_stat.st_ino, dp_stat.st_mtime_ns), \
            "config.json rewritten though its content cannot have changed"

    # idle again
    before = len(srv.requests)
    deadline = time.monotonic() + 3
    c.wait(lambda: time.monotonic() > deadline, timeout=10, what="3 s of idling")
    assert srv.requests[before:] == [], breakdown(srv.requests[before:])


# --- scenario: credentials that expire ---------------------------------------------------------

def bound_token(issued, expires):
    """A token shaped as kubectl create token makes it (made-up signature)."""
    def b64u(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")
    return ".".join([b64u({"alg": "RS256"}),
                     b64u({"exp": int(expires), "iat": int(issued),
                           "sub": "system:serviceaccount:sriov-persist:sriov-persist"}),
                     "c2lnbmF0dXJl"])


def test_credentials_that_expire_are_warned_of(env):
    """A token of kubectl create token in the kubeconfig lasts an hour: GetStatus and the
    journal say when it expires, from the start and without any request."""
    srv, c = env.srv, env.c
    now = time.time()
    token = bound_token(now - 1800, now + 1800)
    srv.add_token(token, USER, GROUPS)
    env.kubeconfig = write_kubeconfig(env.tmp / "kubeconfig-short", srv.url, srv.ca_path,
                                      token=token)
    h, _ = e810_node(env)
    env.start(h)
    env.settle()
    cred = c.wait(lambda: json.loads(c.call("GetStatus"))["daemon"].get("credentials"),
                  timeout=30, what="daemon.credentials in GetStatus")
    assert cred["kind"] == "token" and cred["source"] == env.kubeconfig, cred
    assert cred["expires"].startswith(time.strftime("%Y-%m-%dT%H:", time.gmtime(now + 1800)))
    assert "nothing renews it" in cred["warning"], cred
    log = env.log()
    assert f"Kubernetes credentials: the token of {env.kubeconfig} expires at" in log, log
    # said once, not at every run
    assert log.count("Kubernetes credentials: the token of") == 1, log
    before = srv.count()
    time.sleep(2)
    assert srv.count() == before


# --- scenario: a drain that fails --------------------------------------------------------------

def test_drain_that_fails_for_now_deletes_nothing_and_is_retried(env):
    """An eviction webhook that is down answers every eviction 500: no budget protects the
    pods, so none is deleted; the drain fails for now (exit 75), the daemon keeps its cordon
    and slot and runs the drain again, which goes through once the webhook is back."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env, DrainTimeoutSec=1)
    env.start(h)
    env.settle()
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 8})
    srv.set_eviction_webhook_down("vpa-admission.example.com")
    m = c.mark()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: "will be tried again" in env.log(), timeout=60,
           what="the drain to fail for now")
    log = env.log()
    assert "none is deleted" in log and "failed calling webhook" in log, log
    # the node says what waits, why and until when (GetStatus too)
    c.wait(lambda: "drain failed for now" in (srv.get("node", None, E810_NODE)["metadata"]
                                              .get("annotations") or {})
           .get("sriov-persist.io/waiting", ""), timeout=30, what="the waiting annotation")
    waiting = srv.get("node", None, E810_NODE)["metadata"]["annotations"][
        "sriov-persist.io/waiting"]
    assert "tried again at 20" in waiting and "failed calling webhook" in waiting, waiting
    api = json.loads(c.call("GetStatus"))["daemon"]["kubernetes_api"]
    assert api["state"] == "answers" and any("drain failed for now" in w
                                             for w in api["waiting"]), api
    # meanwhile: cordoned by us, the slot held, the change waiting, every pod still there
    assert node_flags(srv, E810_NODE)[0] is True
    assert lease_holder(srv) == E810_NODE
    assert h.pf(E810_A)["num_vfs"] == 4
    assert srv.count(method="DELETE", resource="pods", namespace="default") == 0
    for ns, name in SRIOV_PODS:
        assert srv.get("pod", ns, name) is not None
    srv.set_eviction_webhook_down(None)
    c.wait(lambda: applied(c, m, E810_A), timeout=90, what="the apply after the retried drain")
    env.settle()
    assert [r for _, r in applied(c, m, E810_A)] == [0]
    assert h.pf(E810_A)["num_vfs"] == 8
    assert node_flags(srv, E810_NODE) == (False, None) and lease_holder(srv) is None
    assert srv.count(method="DELETE", resource="pods", namespace="default") == 0
    for ns, name in SRIOV_PODS:
        assert srv.get("pod", ns, name) is None  # evicted, the second time


def test_drain_given_up_leaves_no_cordon_of_ours(env):
    """The eviction webhook stays down: every drain run fails for now (exit 75) and keeps its
    cordon for the next; when the daemon gives up after five, it lifts that cordon and gives
    the slot back, and the change waits, deferred, saying why."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env, DrainTimeoutSec=1)
    env.start(h)
    env.settle()
    srv.set_eviction_webhook_down("vpa-admission.example.com")
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: c.get("State", pf_path(E810_A), PF_IFACE) == "deferred"
           and operation(c) is None, timeout=180, what="the drain given up and wound up")
    log = env.log()
    # cordoned by the first drain run, lifted once at the end
    cordons = [cordon_value(b) for _, b in node_patches(srv) if cordon_value(b) != "absent"]
    assert cordons == [True, False], (cordons, log)
    assert log.count("drain will be tried again") == 4, log
    assert node_flags(srv, E810_NODE) == (False, None), log
    assert lease_holder(srv) is None
    assert "drain failed" in c.get("LastError", pf_path(E810_A), PF_IFACE)
    assert h.pf(E810_A)["num_vfs"] == 4
    assert srv.count(method="DELETE", resource="pods", namespace="default") == 0


def test_apply_during_a_drain_queues_no_second_drain(env):
    """Apply() while the drain runs defers the PF again; the drain's own apply takes the
    layout as it is then, and no second drain follows."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env)
    env.start(h)
    env.settle()
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 8})
    before = len(srv.requests)
    m = c.mark()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: (operation(c) or {}).get("step") in ("lease", "drain"), timeout=30,
           what="the drain under way")
    c.call("Apply", "")  # the PF waits for the drain under way: that is no error (NotApplied)
    # sriovctl apply says what it waits for, and exits 1 as the PF is not applied yet
    r = subprocess.run([env.sriovctl_bin, "--no-color", "apply"], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=env.bus.address))
    assert r.stderr == "", r
    if r.returncode == 0:  # the drain's apply came first (a grace period of 1 s: rarely)
        assert f"{E810_A} (ens1f0): applied, " in r.stdout, r
    else:
        assert r.returncode == 1 and r.stdout == (
            f"{E810_A} (ens1f0): deferred: disruptive changes wait for a drain of this node "
            "through Kubernetes ([Disruption] Policy=drain), which sriov-persistd does\n"), r
    c.wait(lambda: applied(c, m, E810_A), timeout=90, what="the apply after the drain")
    env.settle()
    cordons = [cordon_value(b) for _, b in node_patches(srv, before)
               if cordon_value(b) != "absent"]
    assert cordons == [True, False], (cordons, env.log())
    assert env.log().count("Kubernetes drain: starting") == 1, env.log()
    assert h.pf(E810_A)["num_vfs"] == 8


def test_refused_annotations_back_off(env):
    """An admission webhook refuses the node's annotations (403) for 20 s: the daemon tries
    again after a growing delay, not every second, and publishes once it is let through."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env)
    env.start(h)
    env.settle()
    before = len(srv.requests)
    srv.inject_error(403, count=1000, method="PATCH", path=r"/nodes/",
                     message="admission webhook \"policy.example.com\" denied the request")
    # a layout with an error holds the other PF: only the annotations change
    h.layout("60-e810-b.conf", "[Match]\nPCIAddress=0000:3b:00.1\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n[VirtualFunction]\nVLANId=5000\n")
    deadline = time.monotonic() + 20
    c.wait(lambda: time.monotonic() > deadline, timeout=30, what="20 s")
    refused = [r for r in srv.requests[before:] if is_annotation(r)]
    print(f"\nannotations refused in 20 s: {len(refused)}")
    assert 2 <= len(refused) <= 10, breakdown(srv.requests[before:])
    srv.clear_faults()
    c.wait(lambda: (srv.get("node", None, E810_NODE)["metadata"].get("annotations") or {})
           .get("sriov-persist.io/held") == "1", timeout=120, what="the annotation")
    assert "Kubernetes API unreachable" not in env.log()


def test_drain_waits_for_a_namespace_being_deleted(env):
    """A pod whose namespace is being deleted cannot be evicted (403 NamespaceTerminating):
    the drain waits for the namespace controller to delete it, and the change goes on."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env, DrainTimeoutSec=30)
    env.start(h)
    env.settle()
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 8})
    res = f"intel.com/{E810_RES}"
    srv.add_pod("ml-team", "notebook-0", E810_NODE, owner_kind="StatefulSet",
                requests={res: 1})
    srv.terminate_namespace("ml-team", delete_pods_after=2, after_first_refusal=True)
    m = c.mark()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: applied(c, m, E810_A), timeout=90, what="the apply after the drain")
    env.settle()
    log = env.log()
    assert [r for _, r in applied(c, m, E810_A)] == [0], log
    assert srv.get("pod", "ml-team", "notebook-0") is None
    assert srv.count(subresource="eviction", namespace="ml-team", status=403) >= 1
    assert srv.count(method="DELETE", namespace="ml-team") == 0  # the namespace controller's
    assert "refused by RBAC" not in log and "drain failed" not in log, log
    assert node_flags(srv, E810_NODE) == (False, None) and lease_holder(srv) is None


def test_failed_drain_leaves_the_pf_deferred(env):
    srv, c = env.srv, env.c
    h, _ = e810_node(env, DrainTimeoutSec=1, EvictionFallback="fail")
    # the only replica, and a budget that wants it up: the eviction is refused
    srv.add_pdb("default", "trainer", {"app": "trainer"}, min_available=1)
    env.start(h)
    env.settle()
    plugin = current_plugin(srv, E810_NODE)
    host_before = h.pf(E810_A)
    dp_before = env.dp_config.read_text() if env.dp_config.exists() else None
    before = len(srv.requests)

    m = c.mark()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: "draining" in [s for _, s in manager_states(c, m)], timeout=30,
           what="State draining")
    env.settle()
    log = env.log()

    path = pf_path(E810_A)
    assert c.get("State", path, PF_IFACE) == "deferred", log
    last_error = c.get("LastError", path, PF_IFACE)
    assert "drain" in last_error, f"LastError does not name the failed step: {last_error!r}"
    # and so does the record that sriovctl status and the boot gate read
    rec = json.loads((h.dir / "host.json.run" / "pf" / f"{E810_A}.json").read_text())
    assert rec["state"] == "deferred" and rec["error"] == last_error, rec
    assert c.get("State") == "degraded"
    assert operation(c) is None
    assert 0 not in [r for _, r in applied(c, m, E810_A)], applied(c, m, E810_A)
    assert h.pf(E810_A) == host_before, "a PF whose drain failed was changed"
    # the node: drained (cordoned) and given back, the budget's pod still there
    patches = node_patches(srv, before)
    assert [cordon_value(b) for _, b in patches if cordon_value(b) != "absent"] == [True, False]
    assert node_flags(srv, E810_NODE) == (False, None)
    assert srv.get("pod", "default", "trainer-0") is not None
    assert srv.count(method="DELETE") == 0, "EvictionFallback=fail deleted something"
    # the slot: taken, then given back
    assert srv.leases_held_max(SLOT_PREFIX) == 1
    assert lease_holder(srv) is None
    # the device plugin was not restarted, and its configuration does not promise VFs that
    # were never created
    assert srv.get("pod", "kube-system", plugin) is not None
    if dp_before is not None:
        assert env.dp_config.read_text() == dp_before
    # a final failure is not retried on its own
    after = len(srv.requests)
    deadline = time.monotonic() + 3
    c.wait(lambda: time.monotonic() > deadline, timeout=10, what="3 s")
    again = [r for r in srv.requests[after:] if r["resource"] in ("leases", "pods")]
    assert again == [], breakdown(again)
    print(f"\nAPI requests for a failed drain of one node: {after - before} "
          f"{breakdown(srv.requests[before:after])}")
    # nor when the daemon restarts in the same boot (a package upgrade restarts it)
    env.daemons[-1].stop()
    assert (h.dir / "host.json.lib" / "given-up.json").exists(), "nothing kept what failed"
    after = len(srv.requests)
    env.start(h)
    env.settle()
    deadline = time.monotonic() + 3
    c.wait(lambda: time.monotonic() > deadline, timeout=10, what="3 s")
    again = [r for r in srv.requests[after:] if r["resource"] in ("leases", "pods")]
    assert again == [], breakdown(again)
    assert c.get("State", path, PF_IFACE) == "deferred"
    assert h.pf(E810_A) == host_before


def test_retryable_failure_is_retried(env):
    """k8s-notify exits 75 (the API server answered 503 to each of its tries): the daemon runs
    the step again later, and the change goes through."""
    srv, c = env.srv, env.c
    res = f"intel.com/{E810_RES}"
    h, _ = e810_node(env)
    env.start(h)
    env.settle()
    set_plugin_allocatable(srv, {res: 8})
    before = len(srv.requests)
    # k8s-notify tries a request 5 times: all of its first run's reads of the slot fail
    srv.inject_error(503, count=5, path=r"/leases/")
    m = c.mark()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    assert c.wait_applied(E810_A, m, timeout=90) == 0, env.log()
    env.settle()
    reqs = srv.requests[before:]
    assert len([r for r in reqs if r["resource"] == "leases" and r["status"] == 503]) == 5
    assert h.pf(E810_A)["num_vfs"] == 8
    assert lease_holder(srv) is None and node_flags(srv, E810_NODE) == (False, None)
    assert c.get("State") == "idle"
    assert c.get("LastError", pf_path(E810_A), PF_IFACE) == ""


# --- scenario: start -------------------------------------------------------------------------

@pytest.mark.parametrize("whose", ["ours", "someone-elses", "none"])
def test_start_lifts_only_our_own_cordon(env, whose):
    srv, c = env.srv, env.c
    h = env.host("e810.json", E810_NODE)
    h.layout("50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=4, vlan=10))
    env.boot_apply(h)
    annotations = {CORDON_ANNOTATION: "true"} if whose == "ours" else {}
    srv.add_node(E810_NODE, unschedulable=whose != "none", annotations=annotations)
    srv.add_device_plugin("kube-system", {"app": "sriovdp"}, E810_NODE)
    env.start(h)
    env.settle()
    spec_patches = [b for _, b in node_patches(srv) if "spec" in b]
    print(f"\nAPI requests at start ({whose} cordon): {len(srv.requests)} "
          f"{breakdown(srv.requests)}")
    if whose == "ours":
        assert node_flags(srv, E810_NODE) == (False, None), env.log()
        assert [cordon_value(b) for b in spec_patches] == [False]
    elif whose == "someone-elses":
        assert node_flags(srv, E810_NODE) == (True, None)
        assert spec_patches == []
    else:
        assert node_flags(srv, E810_NODE) == (False, None)
        assert spec_patches == []
    # no lease, drain or device-plugin work at start
    assert [r for r in srv.requests if r["resource"] in ("leases", "pods")] == []
    assert c.get("State") == "idle"


# --- scenario: coordinated reboot ----------------------------------------------------------------

# 16 VFs need the firmware limit raised (mstconfig NUM_OF_VFS), which a reboot makes real
CX6_LAYOUT = (f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\nVirtualFunctions=16\n"
              "[VirtualFunction]\nResourceName=cx6_vf\n")


def raised_firmware(h):
    """The host in boot 1, the firmware VF limit of its first ConnectX port already raised to
    16 (by an apply before: the new limit waits for a reboot)."""
    s = h.state()
    s["boot_id"] = BOOT_1
    for pci in (CX6_A, "0000:ca:00.1"):  # one setting of the card, shown by both ports
        h.pf_of(s, pci)["firmware_total_vfs"] = 16
    h.save(s)


def cx6_reboot_host(env, reboot, **kubernetes):
    """The cx6dx host in boot 1 with a layout that needs its raised firmware limit, and the
    stand-in logind watching its operation.json; (host, that file)."""
    h = env.host("cx6dx.json", CX6_NODE, reboot=reboot, **kubernetes)
    raised_firmware(h)
    h.layout("50-cx6.conf", CX6_LAYOUT)
    op_file = Path(f"{h.path}.lib") / "operation.json"
    env.logind.start(op_file)
    return h, op_file


def cx6_node(srv):
    """Its node, a pod that uses its VFs, and the device plugin that will count 16."""
    srv.add_node(CX6_NODE, allocatable={CX6_RES: 0})
    srv.add_pod("default", "vm-launcher-0", CX6_NODE, owner_kind="StatefulSet",
                requests={CX6_RES: 1})
    srv.add_device_plugin("kube-system", {"app": "sriovdp"}, CX6_NODE,
                          allocatable_after={CX6_RES: 16})


def reboot_host(h, firmware=True):
    """What a reboot looks like in the host file: another boot ID, no VFs (the kernel forgot
    them), and with firmware the raised firmware VF limit in force. /run is empty."""
    def change(s):
        s["boot_id"] = BOOT_2
        for pf in s["pfs"]:
            pf["num_vfs"], pf["vfs"] = 0, []
            if firmware and pf["firmware_total_vfs"] is not None:
                pf["total_vfs"] = pf["firmware_total_vfs"]
        place_card_vfs(s)
    h.edit(change)
    subprocess.run(["rm", "-rf", "--", f"{h.path}.run"], check=True)


def test_coordinated_reboot(env):
    srv, c = env.srv, env.c
    h, op_file = cx6_reboot_host(env, "coordinated", ResourcePrefix="nvidia.com")
    cx6_node(srv)
    srv.add_pod("default", "web-5c7b-q8z9w", CX6_NODE, owner_kind="ReplicaSet",
                requests={"cpu": "100m"})
    # a GPU under the same prefix: not a VF, stays
    srv.add_pod("default", "cuda-0", CX6_NODE, owner_kind="StatefulSet",
                requests={"nvidia.com/gpu": 1})

    d = env.start(h)
    c.wait(lambda: env.logind.calls(), timeout=90, what="Reboot() on logind")
    log = env.log()
    calls = env.logind.calls()
    assert [(x["method"], x["interactive"], x["uid"]) for x in calls] == [("Reboot", False, 0)], \
        calls
    # recorded before the call
    assert calls[0]["operation"] is not None, "operation.json did not exist at Reboot()"
    record = json.loads(calls[0]["operation"])
    assert record["kind"] == "reboot" and record["boot_id"] == BOOT_1, record
    assert record["slot"] == SLOT_PREFIX + "0", record
    c.wait_property("State", "rebooting")
    assert c.get("PendingReboot") is True
    assert json.loads(op_file.read_text())["kind"] == "reboot"
    # the node: slot held, cordoned by us, the pod using the VFs evicted, the other left
    assert lease_holder(srv) == CX6_NODE
    assert node_flags(srv, CX6_NODE) == (True, "true"), log
    assert srv.get("pod", "default", "vm-launcher-0") is None
    assert srv.get("pod", "default", "web-5c7b-q8z9w") is not None
    assert srv.get("pod", "default", "cuda-0") is not None, "a GPU pod was evicted"
    # GetMetrics(): a reboot counts when it ends, in the boot after it
    assert json.loads(c.call("GetMetrics"))["reboots"] == {"succeeded": 0, "failed": 0}
    calls_before = len(env.logind.calls())
    time_req = len(srv.requests)
    deadline = time.monotonic() + 2
    c.wait(lambda: time.monotonic() > deadline, timeout=10, what="2 s")
    assert len(env.logind.calls()) == calls_before, "Reboot() called again"
    # waiting for the reboot: no more work on the cluster (publishing the state may go on)
    work = [r for r in srv.requests[time_req:] if not is_annotation(r)]
    assert work == [], breakdown(work)
    before_reboot = len(srv.requests)

    # the reboot
    d.stop()
    reboot_host(h)
    d.start()
    c.wait(lambda: not op_file.exists() and lease_holder(srv) is None
           and node_flags(srv, CX6_NODE) == (False, None), timeout=60,
           what="uncordon, release and operation.json removed after the reboot")
    env.settle()
    log = env.log()
    pf = h.pf(CX6_A)
    assert pf["num_vfs"] == 16 and pf["total_vfs"] == 16, pf
    assert c.get("PendingReboot") is False and c.get("PendingRebootReasons") == []
    assert c.get("State") == "idle", log
    assert c.get("State", pf_path(CX6_A), PF_IFACE) == "applied"
    assert operation(c) is None
    assert len(env.logind.calls()) == 1, "rebooted again after the reboot"
    assert json.loads(c.call("GetMetrics"))["reboots"] == {"succeeded": 1, "failed": 0}
    after = srv.requests[before_reboot:]
    assert [r for r in after if r["subresource"] == "eviction"] == [], "drained again"
    assert [cordon_value(b) for _, b in node_patches(srv, before_reboot) if "spec" in b] == [False]
    assert srv.leases_held_max(SLOT_PREFIX) == 1

    print(f"\nAPI requests for a coordinated reboot of one node: {len(srv.requests)} "
          f"(before the reboot {before_reboot} {breakdown(srv.requests[:before_reboot])}; "
          f"after it {len(after)} {breakdown(after)})")
    assert len(srv.requests) <= 50, breakdown(srv.requests)


def test_immediate_reboot_without_kubernetes_is_not_repeated(env):
    """[Reboot] Policy=immediate reboots through logind with no Kubernetes at all; when the
    reboot did not satisfy the reasons (the firmware did not take the new limit), it is not
    done again on its own: the reasons stay reported."""
    srv, c = env.srv, env.c
    h, op_file = cx6_reboot_host(env, "immediate", Enabled="no")
    d = env.start(h)
    c.wait(lambda: env.logind.calls(), timeout=30, what="Reboot() on logind")
    assert [x["method"] for x in env.logind.calls()] == ["Reboot"]
    assert json.loads(op_file.read_text())["kind"] == "reboot"

    # a reboot after which the firmware still reports the old limit
    d.stop()
    reboot_host(h, firmware=False)
    d.start()
    c.wait(lambda: not op_file.exists(), timeout=30, what="operation.json removed after the boot")
    env.settle()
    assert c.get("PendingReboot") is True, "the reason was not satisfied and must stay"
    deadline = time.monotonic() + 2
    c.wait(lambda: time.monotonic() > deadline, timeout=10, what="2 s")
    assert len(env.logind.calls()) == 1, "rebooted again for reasons a reboot did not satisfy"
    assert srv.requests == [], breakdown(srv.requests)


def test_daemon_killed_mid_drain_undoes_and_finishes(env):
    """The daemon dies while the node is being drained. The next daemon finds the drain in
    operation.json, lifts its cordon and releases its slot, then drains again for the PF that
    still waits, and applies it: nothing is left cordoned or held."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env)
    d = env.start(h)
    env.settle()
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 8})
    op_file = Path(f"{h.path}.lib") / "operation.json"
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    # the drain waits for a pod with a grace period of 100 s (1 s here)
    c.wait(lambda: (operation(c) or {}).get("step") == "drain", timeout=30,
           what="the drain step")
    assert json.loads(op_file.read_text())["step"] == "drain"
    d.proc.kill()
    d.proc.wait(timeout=10)
    assert h.pf(E810_A)["num_vfs"] == 4, "applied before the drain finished"
    m = c.mark()
    d.start()
    assert c.wait_applied(E810_A, m, timeout=90) == 0, env.log()
    env.settle()
    assert "interrupted" in env.log(), env.log()
    assert h.pf(E810_A)["num_vfs"] == 8
    assert node_flags(srv, E810_NODE) == (False, None)
    assert lease_holder(srv) in (None, "")
    assert not op_file.exists()
    assert srv.leases_held_max(SLOT_PREFIX) == 1
    assert c.get("State") == "idle"
    # GetMetrics(): the interrupted drain, undone, counts as failed; the one after it succeeded
    assert json.loads(c.call("GetMetrics"))["drains"] == {"succeeded": 1, "failed": 1}
