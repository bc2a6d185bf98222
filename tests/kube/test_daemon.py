# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriov-persistd against the real kube-apiserver: the daemon on a simulated e810 host and a
private system bus (as tests/integration/test_daemon_k8s.py starts it), k8s-notify with the
ServiceAccount of packaging/k8s/rbac.yaml, the device plugin as packaging/k8s ships its
DaemonSet (the real DaemonSet controller makes its pods, the stand-in kubelet runs them and
advertises the VFs the plugin's config.json names), and pods that use the VFs.

- a disruptive change (4 -> 8 VFs) drains the node: Lease, cordon, evictions, the apply, the
  device plugin replaced until the node advertises 8, uncordon, release;
- the API server hangs (SIGSTOP) and later is killed and started again on its port with the
  same etcd, while that drain waits: the daemon waits quietly, one run at a time, changes no
  VF, and finishes the drain once the server is back."""

import json
import os
import time

import pytest

# tests/integration's conftest (the daemon on a private bus) and helpers
from conftest import PF_IFACE, Bus, Client, Daemon, Host, pf_path
from test_daemon_k8s import (E810_A, E810_LAYOUT, E810_RES, NO_BUS, OP_STEPS, applied,
                             dp_resources, operation, replace_layout)
from test_daemon_k8s_faults import most_at_once, runs

from .world import DEVICE_PLUGIN_DS, K8S_NOTIFY, ROOT, pdb

RES = f"intel.com/{E810_RES}"
SRIOVPERSISTD = os.environ.get("SRIOVPERSISTD") or str(ROOT / "build" / "asan" / "sriov-persistd")
SRIOVCTL = os.environ.get("SRIOVCTL") or str(ROOT / "build" / "asan" / "sriovctl")
# test_daemon_k8s_faults.RUN_LOGGER with a gate: while the API server starts again, a new
# run waits until /readyz says it is ready, as a load balancer in front of it would (a server
# that has just started answers 403 to everything for ~50 ms until its RBAC caches are filled)
GATED_RUN_LOGGER = """#!/bin/sh
echo "$(date +%s.%N) $$ S $*" >> {log}
while [ -e {gate} ]; do sleep 0.05; done
{real} "$@"
rc=$?
echo "$(date +%s.%N) $$ E $rc" >> {log}
exit $rc
"""


def vf_ranges(text):
    """"0-3,5" -> {0, 1, 2, 3, 5}"""
    out = set()
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


def plugin_devices(dp_config, host):
    """What the SR-IOV device plugin would advertise when it starts: per resource of its
    config.json, the VFs its pfNames selectors name that exist on the host now."""
    def devices(node):
        if not dp_config.exists():
            return {}
        vfs = {p["name"]: p["num_vfs"] for p in host.state()["pfs"]}
        out = {}
        for entry in json.loads(dp_config.read_text())["resourceList"]:
            name = f"{entry['resourcePrefix']}/{entry['resourceName']}"
            out[name] = sum(len([i for i in vf_ranges(r) if i < vfs.get(pf, 0)])
                            for s in entry["selectors"] for sel in s["pfNames"]
                            for pf, _, r in [sel.partition("#")])
        return out
    return devices


class DaemonEnv:
    """The daemon on the e810 host for one node of the real cluster."""

    def __init__(self, kube, tmp, node, **kubernetes):
        self.kube, self.tmp, self.node = kube, tmp, node
        self.notify_bin = K8S_NOTIFY
        self.bus = Bus()
        self.c = Client(self.bus.address)
        self.daemons = []
        self.dp_config = tmp / "pcidp" / "config.json"
        d = tmp / "host"
        d.mkdir()
        self.h = Host(d, "e810.json", SRIOVCTL)
        k8s = {"Enabled": "yes", "Kubeconfig": kube.notify.kubeconfig, "NodeName": node,
               "DrainTimeoutSec": 60, "EvictionFallback": "delete", "DrainPods": "sriov",
               "ResourcePrefix": "intel.com", "DevicePluginNamespace": "kube-system",
               "DevicePluginSelector": "app=sriovdp", "DevicePluginConfig": self.dp_config,
               "MaxParallelNodes": 1, **kubernetes}
        self.h.main.write_text("[Apply]\nSysfsWriteTimeoutSec=1\n[Drift]\nMode=repair\n"
                               "[Disruption]\nPolicy=drain\n[Reboot]\nPolicy=never\n"
                               "[Kubernetes]\n" + "".join(f"{k}={v}\n"
                                                         for k, v in k8s.items()))

    def log_runs(self, gate):
        """k8s-notify through a wrapper that logs each run's start and end (the format of
        test_daemon_k8s_faults.runs()), and holds a run while the file gate exists."""
        log = self.tmp / "k8s-notify-runs.log"
        wrapper = self.tmp / "k8s-notify-logged"
        wrapper.write_text(GATED_RUN_LOGGER.format(log=log, real=self.notify_bin, gate=gate))
        wrapper.chmod(0o755)
        self.notify_bin = str(wrapper)
        return log

    def start(self):
        d = Daemon(SRIOVPERSISTD, self.h, self.bus, ["--k8s-notify", self.notify_bin])
        self.daemons.append(d)
        d.start()
        return d

    def log(self):
        return "\n".join(d.log_text() for d in self.daemons)

    def close(self):
        errors = []
        for d in self.daemons:
            if d.running():
                try:
                    d.stop()
                except AssertionError as e:
                    errors.append(str(e))
        self.c.close()
        self.bus.stop()
        assert not errors, "\n".join(errors)


@pytest.fixture
def denv(kube, tmp_path):
    envs = []

    def make(node, **kubernetes):
        e = DaemonEnv(kube, tmp_path, node, **kubernetes)
        envs.append(e)
        return e
    yield make
    for e in envs:
        e.close()


def e810_node(kube, env):
    """The node with 4 VFs applied at boot, the device plugin's DaemonSet, and pods: two that
    use the VFs (evicted), one that does not (kept), and a DPDK DaemonSet that uses them
    (evicted last, and replaced once more after the plugin restart)."""
    h, node = env.h, env.node
    h.layout("50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=4, vlan=10))
    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 0, r.stdout + r.stderr
    kube.add_node(node, allocatable={RES: 0}, devices=plugin_devices(env.dp_config, h))
    kube.admin.apply_file(DEVICE_PLUGIN_DS)
    ns = f"{node}-apps"
    kube.namespace(ns)
    kube.add_pod(ns, "rdma-job-7d9f-x2x4k", node, owner_kind="ReplicaSet",
                 requests={RES: 2}, grace=100)
    kube.add_pod(ns, "trainer-0", node, owner_kind="StatefulSet", labels={"app": "trainer"},
                 requests={RES: 1})
    kube.add_pod(ns, "web-5c7b-q8z9w", node, owner_kind="ReplicaSet", requests={"cpu": "1"})
    kube.admin.apply({
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "dpdk-fwd", "namespace": ns},
        "spec": {"selector": {"matchLabels": {"app": "dpdk-fwd"}},
                 "template": {"metadata": {"labels": {"app": "dpdk-fwd"}}, "spec": {
                     "nodeSelector": {"kubernetes.io/hostname": node},
                     "containers": [{"name": "fwd", "image": "registry.invalid/dpdk:1",
                                     "resources": {"requests": {RES: "1"},
                                                   "limits": {RES: "1"}}}]}}}})
    for p in ("rdma-job-7d9f-x2x4k", "trainer-0", "web-5c7b-q8z9w"):
        kube.wait_ready(ns, p)
    return ns


def pods_on(kube, node, ns=None, label=None):
    path = f"/api/v1/namespaces/{ns}/pods" if ns else "/api/v1/pods"
    q = {"fieldSelector": f"spec.nodeName={node}"}
    if label:
        q["labelSelector"] = label
    return [p for p in kube.admin.items(path, **q) if not p["metadata"].get("deletionTimestamp")]


def ready_uid(kube, node, ns=None, label=None):
    """The uid of the one Ready pod that matches, or None."""
    ps = [p for p in pods_on(kube, node, ns, label)
          if any(c["type"] == "Ready" and c["status"] == "True"
                 for c in p["status"].get("conditions") or [])]
    return ps[0]["metadata"]["uid"] if len(ps) == 1 else None


def allocatable(kube, node):
    return kube.node(node)["status"]["allocatable"].get(RES)


def settle(env, timeout=60):
    """Until the daemon runs no operation and the node is neither cordoned nor holds a slot."""
    kube, c = env.kube, env.c
    c.wait(lambda: operation(c) is None and c.get("State") == "idle"
           and kube.node_flags(env.node) == (False, None)
           and not any(kube.leases().values()), timeout, "the daemon idle, the node given back")


class Watch:
    """What must never be seen, looked at on every tick while a test waits."""

    def __init__(self, env, sriov_pods, vfs_after):
        self.env, self.sriov_pods, self.vfs_after = env, sriov_pods, vfs_after
        self.violations, self.steps = [], []
        self.cordoned_seen = False

    def tick(self):
        env, kube = self.env, self.env.kube
        op = operation(env.c)
        if op and (not self.steps or self.steps[-1] != op["step"]):
            self.steps.append(op["step"])
        cordoned, _ = kube.node_flags(env.node)
        self.cordoned_seen |= cordoned
        applied_now = env.h.pf(E810_A)["num_vfs"] == self.vfs_after
        if self.cordoned_seen and not cordoned and not applied_now:
            self.violations.append("uncordoned before the apply")
        if env.h.pf(E810_A)["num_vfs"] == self.vfs_after:
            left = [n for ns, n in self.sriov_pods if kube.get_pod(ns, n)]
            if left:
                self.violations.append(f"applied while {left} still on the node")
        return True


def test_disruptive_change_drains_the_node(kube, denv):
    """4 -> 8 VFs under [Disruption] Policy=drain: the slot, the cordon, the evictions (the
    DPDK DaemonSet's pod last), the apply once they are gone, the device plugin's pod replaced
    by its DaemonSet until the node advertises 8 VFs, the DPDK pod replaced again, the
    uncordon and the slot given back, in that order as the API server answered them."""
    env = denv("kn-daemon-drain")
    node, c = env.node, env.c
    ns = e810_node(kube, env)
    sriov = {(ns, "rdma-job-7d9f-x2x4k"), (ns, "trainer-0")}
    env.start()
    # the daemon labels the node capable: the DaemonSet controller runs the plugin there
    c.wait(lambda: ready_uid(kube, node, "kube-system", "app=sriovdp"), 60,
           "the device plugin Ready on the node")
    c.wait(lambda: allocatable(kube, node) == "4", 30, "4 VFs advertised")
    dpdk = c.wait(lambda: ready_uid(kube, node, ns, "app=dpdk-fwd"), 30, "the DPDK pod")
    plugin = ready_uid(kube, node, "kube-system", "app=sriovdp")
    settle(env)
    assert c.get("State", pf_path(E810_A), PF_IFACE) == "applied"
    since = kube.cluster.audit_mark()

    t = time.monotonic()
    watch = Watch(env, sriov, vfs_after=8)
    m = c.mark()
    replace_layout(env.h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: watch.tick() and applied(c, m, E810_A), 90, "Applied after the drain")
    c.wait(lambda: watch.tick() and operation(c) is None, 90, "the drain done")
    settle(env)
    print(f"\ndrain, apply, device plugin, uncordon, release: {time.monotonic() - t:.1f} s; "
          f"steps {watch.steps}")
    log = env.log()
    assert not watch.violations, watch.violations
    assert [r for _, r in applied(c, m, E810_A)] == [0], log
    # GetStatus showed the steps in order (a short one may pass between two looks)
    assert watch.steps == sorted(watch.steps, key=OP_STEPS.index), watch.steps
    assert {"drain", "device-plugin"} <= set(watch.steps), watch.steps
    assert env.h.pf(E810_A)["num_vfs"] == 8
    assert [s["pfNames"] for s in dp_resources(env.dp_config)[E810_RES]["selectors"]] == \
        [["ens1f0#0-7"]]
    assert "Kubernetes drain done" in log, log
    # the pods that used the VFs are gone, the others stay
    for p in sriov:
        assert kube.get_pod(*p) is None, p
    assert kube.get_pod(ns, "web-5c7b-q8z9w")["metadata"].get("deletionTimestamp") is None
    # a new plugin found the 8 VFs; the DPDK pod that runs now was admitted after it
    assert allocatable(kube, node) == "8"
    new_plugin = ready_uid(kube, node, "kube-system", "app=sriovdp")
    assert new_plugin and new_plugin != plugin
    c.wait(lambda: ready_uid(kube, node, ns, "app=dpdk-fwd") not in (None, dpdk), 30,
           "the DaemonSet's new DPDK pod")
    # the requests, in the order the server answered them
    assert steps(kube.audit(since)) == ["lease", "cordon", "evict", "evict-dpdk", "plugin",
                                        "evict-dpdk", "uncordon", "release"], kube.audit(since)


def step_of(r):
    """What one of k8s-notify's requests did, for the writes that make the steps."""
    res, verb, sub, body = r["resource"], r["verb"], r["subresource"], r["body"] or {}
    if r["code"] >= 300:
        return None
    if res == "leases" and verb in ("create", "update"):
        return "lease" if body["spec"].get("holderIdentity") else "release"
    if res == "nodes" and verb == "patch":
        cordon = (body.get("spec") or {}).get("unschedulable")
        return {True: "cordon", False: "uncordon"}.get(cordon, "annotate")
    if sub == "eviction":
        return "evict-dpdk" if r["name"].startswith("dpdk-fwd") else "evict"
    if res == "pods" and verb == "delete" and r["namespace"] == "kube-system":
        return "plugin"
    return None


def steps(rows):
    """The steps in the order the server answered them, a run of the same once; annotations
    left out (they may come at any time)."""
    out = []
    for r in rows:
        s = step_of(r)
        if s and s != "annotate" and (not out or out[-1] != s):
            out.append(s)
    return out


def one_at_a_time(rs, begin, end):
    """Once a run failed in [begin, end], the runs that start after it in the window run one
    at a time, beside no other run."""
    failed = [r for r in rs if r[1] and begin <= r[1] <= end]
    assert failed, f"no run failed between {begin} and {end}: {rs}"
    known = min(r[1] for r in failed)
    later = [r for r in rs if known <= r[0] <= end]
    assert most_at_once(later) == 1, later
    for r in later:
        for o in rs:
            if o is not r:
                assert (o[1] or end) <= r[0] or o[0] >= (r[1] or end), (r, o)
    return later


def test_api_outage_while_a_drain_waits(kube, denv):
    """The API server hangs (SIGSTOP, 15 s) as a change comes that needs a drain, and later,
    while the drain waits for a PodDisruptionBudget, it is killed (refused connections) and
    started again on its port with the same etcd. Each outage is logged once when it begins and
    once when it ends; while it lasts one k8s-notify runs at a time and no VF changes; the
    cluster's state (our cordon, our slot) survives the restart, and the drain finishes."""
    env = denv("kn-daemon-outage", RetryMaxDelaySec=4)
    gate = env.tmp / "apiserver-starting"
    runlog = env.log_runs(gate)
    node, c, cluster, admin = env.node, env.c, kube.cluster, kube.admin
    ns = e810_node(kube, env)
    sriov = {(ns, "rdma-job-7d9f-x2x4k"), (ns, "trainer-0")}
    pdbs = f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets"
    admin.create(pdbs, pdb(ns, "trainer", {"app": "trainer"}, 1))
    admin.wait(lambda: admin.get(f"{pdbs}/trainer").get("status", {}).get(
        "observedGeneration") == 1, 30, "the budget processed")
    env.start()
    c.wait(lambda: allocatable(kube, node) == "4", 60, "4 VFs advertised")
    settle(env)
    watch = Watch(env, sriov, vfs_after=8)

    def outage_tick():
        assert env.h.pf(E810_A)["num_vfs"] == 4, "a VF changed while the API server was away"
        return True

    def count(what):
        return env.log().count(what)

    # 1: the server hangs as the change comes: the runs time out connecting
    m = c.mark()
    cluster.apiserver.pause()
    hang = time.time()
    replace_layout(env.h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: outage_tick() and time.time() - hang > 15, 40, "15 s of a hung server")
    assert count("Kubernetes API unreachable") == 1, env.log()
    cluster.apiserver.resume()
    back = time.time()
    c.wait(lambda: count("Kubernetes API answers again") == 1, 30, "an answer")
    print(f"\nhang: answered {time.time() - back:.1f} s after SIGCONT")
    one_at_a_time(runs(runlog), hang, back)

    # the drain goes on; the budget keeps trainer-0
    c.wait(lambda: watch.tick() and kube.audit(subresource="eviction", name="trainer-0",
                                               code=429), 60, "a 429 of the budget")
    assert kube.node_flags(node) == (True, "true")

    # 2: killed while the drain waits: refused connections, then it starts again
    killed = time.time()
    cluster.kill_apiserver()
    c.wait(lambda: outage_tick() and count("Kubernetes API unreachable") == 2, 60,
           "the outage noticed")
    c.wait(lambda: outage_tick() and time.time() - killed > 15, 30, "15 s of a dead server")
    gate.touch()
    cluster.start_apiserver()
    gate.unlink()
    # the controller manager too: its watches would come back only after client-go's
    # backoff (up to 30 s), and the DaemonSet controller must replace the device plugin
    cluster.restart_controllers()
    back = time.time()
    print(f"killed for {back - killed:.1f} s")
    # the next try is a drain that the server answers (k8s-notify tells the daemon only when
    # the run ends: the budget holds it meanwhile)
    since = kube.cluster.audit_mark()
    c.wait(lambda: outage_tick() and kube.audit(since, subresource="eviction",
                                                name="trainer-0", code=429), 30,
           "the drain answered again")
    print(f"a drain answered {time.time() - back:.1f} s after the server was ready again")
    one_at_a_time(runs(runlog), killed, time.time())
    # etcd kept the cluster: our cordon and our slot are there
    assert kube.node_flags(node) == (True, "true")
    assert kube.leases() == {"sriov-persist-slot-0": node}
    assert env.h.pf(E810_A)["num_vfs"] == 4

    # the budget's owner removes it (a changed budget would wait for the disruption
    # controller, whose watches come back slowly after the restart): the drain finishes
    admin.delete(f"{pdbs}/trainer")
    t = time.time()
    c.wait(lambda: watch.tick() and applied(c, m, E810_A), 60, "Applied after the drain")
    settle(env)
    print(f"drained and applied {time.time() - t:.1f} s after the budget let go")
    log = env.log()
    assert not watch.violations, watch.violations
    assert [r for _, r in applied(c, m, E810_A)] == [0], log
    assert count("Kubernetes API unreachable") == 2 and \
        count("Kubernetes API answers again") == 2, log
    assert env.h.pf(E810_A)["num_vfs"] == 8
    assert allocatable(kube, node) == "8"
    assert "Kubernetes drain done" in log, log
