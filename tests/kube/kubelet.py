# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the kubelets (and the scheduler, for DaemonSet pods) would do, played from the test
process against the real API server, which runs neither:

- registers its nodes (Ready, with allocatable) and renews their Leases in kube-node-lease,
  so that the node lifecycle controller keeps them Ready;
- binds the pods the DaemonSet controller makes for its nodes (pods/binding), and marks every
  pod bound to them Running and Ready (pods/status);
- finishes a pod that is being deleted (an eviction or a delete with a grace period) once its
  grace period, scaled down, has passed: a delete with grace period 0, as the kubelet sends
  when the containers stopped;
- plays the device plugin: when a pod of the plugin (DEVICE_PLUGIN_LABEL) is going away its
  resources go to 0; when a new one is Ready, the node's allocatable shows what
  `devices(node)` counts (a test gives the function: the VFs that exist, say).

One thread polls the pods every POLL seconds. Errors of the server (it may be stopped or
restarted by a test) are retried at the next poll; anything else unexpected goes to `errors`,
which the fixture checks."""

import threading
import time
from datetime import datetime, timezone

from .api import ApiError

POLL = 0.2
LEASE_RENEW = 10
DEVICE_PLUGIN_LABEL = ("app", "sriovdp")


def now_rfc3339(micro=False):
    t = datetime.now(timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ" if micro else "%Y-%m-%dT%H:%M:%SZ")


def parse_rfc3339(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()


def is_ready(pod):
    return any(c["type"] == "Ready" and c["status"] == "True"
               for c in (pod.get("status") or {}).get("conditions") or [])


def ds_target(pod):
    """The node a DaemonSet pod is meant for (its matchFields metadata.name), or None."""
    aff = ((pod["spec"].get("affinity") or {}).get("nodeAffinity") or {}) \
        .get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    for term in aff.get("nodeSelectorTerms") or []:
        for f in term.get("matchFields") or []:
            if f.get("key") == "metadata.name" and f.get("operator") == "In" and f["values"]:
                return f["values"][0]
    return None


class Kubelet:
    def __init__(self, api, grace_scale=0.02):
        self.api, self.grace_scale = api, grace_scale
        self.nodes = {}  # name -> devices function (or None)
        self.errors = []
        self.plugin_uids = {}  # node -> uid of the plugin pod the allocatable counts are from
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = None
        self.leases = {}

    # --- nodes ---------------------------------------------------------------------------------

    def add_node(self, name, labels=None, allocatable=None, devices=None):
        """Registers the node as a kubelet does (Ready), played from now on."""
        res = {"cpu": "32", "memory": "128Gi", "pods": "110"}
        res.update({k: str(v) for k, v in (allocatable or {}).items()})
        self.api.create("/api/v1/nodes", {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "kubernetes.io/os": "linux",
                                                  **(labels or {})}}})
        self._node_status(name, res)
        self._renew(name)
        with self.lock:
            self.nodes[name] = devices

    def remove_node(self, name):
        with self.lock:
            self.nodes.pop(name, None)
            self.plugin_uids.pop(name, None)
        if self.leases.pop(name, None) is not None:
            self.api.delete(f"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/"
                            f"{name}")

    def _node_status(self, name, resources):
        t = now_rfc3339()
        self.api.patch(f"/api/v1/nodes/{name}/status", {"status": {
            "capacity": resources, "allocatable": resources,
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "message": "kubelet is posting ready status (a test plays it)",
                            "lastHeartbeatTime": t, "lastTransitionTime": t}]}})

    def set_resources(self, node, values):
        res = {k: str(v) for k, v in values.items()}
        self.api.patch(f"/api/v1/nodes/{node}/status",
                       {"status": {"capacity": res, "allocatable": res}})

    def _renew(self, name):
        path = f"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{name}"
        lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                 "metadata": {"name": name},
                 "spec": {"holderIdentity": name, "leaseDurationSeconds": 40,
                          "renewTime": now_rfc3339(micro=True)}}
        if name not in self.leases:
            self.api.create("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
                            lease)
        else:
            self.api.patch(path, {"spec": {"renewTime": lease["spec"]["renewTime"]}})
        self.leases[name] = time.monotonic()

    # --- the loop ------------------------------------------------------------------------------

    def start(self):
        self.thread = threading.Thread(target=self._run, name="kubelet", daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.stopping.set()
        if self.thread:
            self.thread.join(timeout=30)

    def _run(self):
        while not self.stopping.wait(POLL):
            try:
                self.tick()
            except (OSError, ApiError) as e:
                # stopped or restarting: retried at the next poll; a refusal is a bug of ours
                if isinstance(e, ApiError) and e.status < 500 and e.status not in (404, 409):
                    self.errors.append(str(e))
            except Exception as e:  # noqa: BLE001 - reported by the fixture
                self.errors.append(f"{type(e).__name__}: {e}")

    def tick(self):
        with self.lock:
            nodes = dict(self.nodes)
        for name in nodes:
            if time.monotonic() - self.leases.get(name, 0) > LEASE_RENEW:
                self._renew(name)
        for pod in self.api.items("/api/v1/pods"):
            node = pod["spec"].get("nodeName")
            if not node:
                target = ds_target(pod)
                if target in nodes:
                    self._bind(pod, target)
                continue
            if node not in nodes:
                continue
            if pod["metadata"].get("deletionTimestamp"):
                self._terminate(pod, node, nodes[node])
            elif not is_ready(pod) and pod["status"].get("phase") in (None, "Pending"):
                self._run_pod(pod, node, nodes[node])

    def _bind(self, pod, node):
        md = pod["metadata"]
        self.api.create(f"/api/v1/namespaces/{md['namespace']}/pods/{md['name']}/binding", {
            "apiVersion": "v1", "kind": "Binding",
            "metadata": {"name": md["name"], "namespace": md["namespace"]},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node}})

    def _run_pod(self, pod, node, devices):
        md = pod["metadata"]
        t = now_rfc3339()
        conditions = [{"type": k, "status": "True", "lastTransitionTime": t}
                      for k in ("PodScheduled", "Initialized", "ContainersReady", "Ready")]
        containers = [{"name": c["name"], "image": c["image"], "imageID": "", "ready": True,
                       "restartCount": 0, "started": True,
                       "state": {"running": {"startedAt": t}}}
                      for c in pod["spec"]["containers"]]
        self.api.patch(f"/api/v1/namespaces/{md['namespace']}/pods/{md['name']}/status", {
            "status": {"phase": "Running", "conditions": conditions, "startTime": t,
                       "hostIP": "127.0.0.1", "podIP": "127.0.0.1",
                       "containerStatuses": containers}})
        if self._is_plugin(pod) and devices:
            # the plugin registered: the kubelet advertises what it found
            self.set_resources(node, devices(node))
            with self.lock:
                self.plugin_uids[node] = md["uid"]

    def _terminate(self, pod, node, devices):
        md = pod["metadata"]
        grace = md.get("deletionGracePeriodSeconds") or 0
        began = parse_rfc3339(md["deletionTimestamp"]) - grace
        if self._is_plugin(pod) and devices:
            with self.lock:
                was = self.plugin_uids.pop(node, None)
            if was == md["uid"]:
                # the plugin stopped: its devices are no longer allocatable
                self.set_resources(node, {k: 0 for k in devices(node)})
        if time.time() < began + max(grace * self.grace_scale, 0.2):
            return
        self.api.delete(f"/api/v1/namespaces/{md['namespace']}/pods/{md['name']}", grace=0,
                        uid=md["uid"])

    @staticmethod
    def _is_plugin(pod):
        k, v = DEVICE_PLUGIN_LABEL
        return (pod["metadata"].get("labels") or {}).get(k) == v
