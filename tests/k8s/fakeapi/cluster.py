# SPDX-License-Identifier: LGPL-2.1-or-later
"""The in-memory cluster: objects, resourceVersions, the watch event log, and the controllers
the tests need (kubelet pod termination, node unschedulable taint, a device-plugin DaemonSet).

All state is guarded by one re-entrant lock; callers hold it (with cluster.lock:) around a
whole API operation so that each request is atomic, as an etcd transaction would be.
"""

import collections
import copy
import datetime
import heapq
import itertools
import threading
import time
import traceback

from . import status as st
from .gotime import format_time, now_utc
from .leases import held_until
from .objects import (make_pod, new_uid, pdb_selects, pdb_status, pod_is_ready,
                      pod_running_ready, random_suffix, taint_for_unschedulable)

RESOURCES = ("nodes", "pods", "poddisruptionbudgets", "leases")
GROUPS = {"nodes": "", "pods": "", "poddisruptionbudgets": "policy",
          "leases": "coordination.k8s.io"}


class Scheduler:
    """Runs callbacks later on one thread (the kubelet and the controllers of this cluster)."""

    def __init__(self, errors):
        self.errors = errors
        self._heap, self._seq = [], itertools.count()
        self._cond = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="k8s-fake-scheduler", daemon=True)
        self._thread.start()

    def call_later(self, delay, fn):
        with self._cond:
            heapq.heappush(self._heap, (time.monotonic() + max(0.0, delay), next(self._seq), fn))
            self._cond.notify()

    def _run(self):
        while True:
            with self._cond:
                while not self._stopped and (not self._heap
                                             or self._heap[0][0] > time.monotonic()):
                    timeout = self._heap[0][0] - time.monotonic() if self._heap else None
                    self._cond.wait(timeout)
                if self._stopped:
                    return
                _, _, fn = heapq.heappop(self._heap)
            try:
                fn()
            except Exception:  # a bug of this server: keep running, let the test see it
                self.errors.append(traceback.format_exc())

    def stop(self):
        with self._cond:
            self._stopped = True
            self._cond.notify()
        self._thread.join(timeout=5)


# the tolerations the DaemonSet controller adds to every pod it creates (util.AddOrUpdateDaemonPodTolerations)
DAEMONSET_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]


class DaemonSet:
    """A DaemonSet's pod on one node, kept there as kube-controller-manager's DaemonSet
    controller keeps it (pkg/controller/daemon, podsShouldBeOnNode): without maxSurge (the
    default) a terminating pod still counts as the node's pod, so the replacement is created
    once the old one is gone from the API; with max_surge, as soon as it starts terminating.
    Its pods tolerate node.kubernetes.io/unschedulable: a cordon does not keep them off. A
    replacement is Pending; ready_delay later the kubelet admits it (Running, Ready), giving
    it the devices of the device plugin registered on the node at that moment."""

    def __init__(self, namespace, name, node, labels, requests, grace, delays, max_surge):
        self.namespace, self.name, self.node = namespace, name, node
        self.labels, self.requests, self.grace = dict(labels or {}), requests, grace
        self.uid = new_uid()
        self.replace_delay, self.ready_delay = delays
        self.max_surge = max_surge
        self.handled = set()
        self.replacements = []   # names of the pods created as replacements

    def owns(self, pod):
        refs = pod["metadata"].get("ownerReferences") or []
        return (any(r.get("uid") == self.uid for r in refs)
                and pod["spec"].get("nodeName") == self.node)

    def pod(self, phase="Running", ready=True):
        pod = make_pod(self.namespace, f"{self.name}-{random_suffix()}", self.node, self.labels,
                       {"kind": "DaemonSet", "name": self.name, "uid": self.uid}, self.requests,
                       phase=phase, grace=self.grace, ready=ready)
        pod["spec"]["tolerations"] = copy.deepcopy(DAEMONSET_TOLERATIONS)
        return pod

    def deleting(self, cluster):
        """The controller saw one of its pods start terminating or go."""

    def admitted(self, cluster, pod):
        """The kubelet admitted a pod of this DaemonSet (now Running and Ready)."""
        cluster.admissions[pod["metadata"]["uid"]] = cluster.registrations.get(self.node, 0)


class DevicePlugin(DaemonSet):
    """The device plugin's DaemonSet: once a new pod of it runs, it registers with the kubelet
    (allocatable_delay later), which then admits pods with the devices it found at its start."""

    def __init__(self, namespace, labels, node, name, allocatable_after, allocatable_during,
                 delays, replace_after_gone):
        super().__init__(namespace, name, node, labels, None, 30, delays[:2],
                         not replace_after_gone)
        self.allocatable_after = {k: str(v) for k, v in (allocatable_after or {}).items()}
        self.allocatable_during = (None if allocatable_during is None else
                                   {k: str(v) for k, v in allocatable_during.items()})
        self.allocatable_delay = delays[2]

    def deleting(self, cluster):
        if self.allocatable_during is not None:
            cluster._set_allocatable(self.node, self.allocatable_during)

    def admitted(self, cluster, pod):
        cluster.sched.call_later(self.allocatable_delay, lambda: cluster._register_plugin(self))


class Cluster:
    def __init__(self, grace_scale=0.01, taint_delay=0.05, event_log=20000):
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.objects = {r: {} for r in RESOURCES}
        self.rv = 0
        self.events = collections.deque(maxlen=event_log)  # (rv, type, resource, old, new)
        self.grace_scale, self.taint_delay = grace_scale, taint_delay
        self.pdb_extra = {}        # (ns, name) -> {"expected": n|None, "observed": bool}
        self.daemonsets = []       # DaemonSet and DevicePlugin stand-ins
        self.registrations = {}    # node -> device plugin registrations since the start
        self.admissions = {}       # pod uid -> the registration its devices came from
        self.lease_history = []    # (time, frozenset of (ns, name) held) after lease writes
        self.deadlines = {}        # pod uid -> monotonic time its termination completes
        self.errors = []           # tracebacks of this server's own bugs
        self.sched = Scheduler(self.errors)

    # --- primitives (lock held) -------------------------------------------------------------

    def _bump(self):
        self.rv += 1
        return str(self.rv)

    def _event(self, kind, resource, old, new):
        self.events.append((self.rv, kind, resource, copy.deepcopy(old), copy.deepcopy(new)))
        self.changed.notify_all()
        hook = {"leases": self._after_lease_write, "pods": self._after_pod_write,
                "nodes": self._after_node_write}.get(resource)
        if hook:
            hook(kind, old, new)

    def get(self, resource, ns, name):
        return self.objects[resource].get((ns or "", name))

    def create(self, resource, obj):
        _omit_empty(obj)
        meta = obj["metadata"]
        meta["uid"] = new_uid()
        meta["creationTimestamp"] = format_time()
        meta["resourceVersion"] = self._bump()
        self.objects[resource][(meta.get("namespace", ""), meta["name"])] = obj
        self._event("ADDED", resource, None, obj)
        return obj

    def replace(self, resource, obj):
        """Stores an update; a no-op update keeps the old resourceVersion, as etcd3 store does."""
        _omit_empty(obj)
        key = (obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
        old = self.objects[resource][key]
        obj["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        if obj == old:
            return old
        obj["metadata"]["resourceVersion"] = self._bump()
        self.objects[resource][key] = obj
        self._event("MODIFIED", resource, old, obj)
        return obj

    def remove(self, resource, ns, name):
        obj = self.objects[resource].pop((ns or "", name))
        old = copy.deepcopy(obj)
        obj["metadata"]["resourceVersion"] = self._bump()
        self._event("DELETED", resource, old, obj)
        return obj

    def mutate(self, resource, ns, name, fn):
        """Applies fn to a copy of the object and stores it; returns the stored object."""
        obj = copy.deepcopy(self.get(resource, ns, name))
        fn(obj)
        return self.replace(resource, obj)

    def pdb_view(self, pdb):
        """A PDB with the status the disruption controller would have written."""
        view = copy.deepcopy(pdb)
        extra = self.pdb_extra.get((pdb["metadata"]["namespace"], pdb["metadata"]["name"]), {})
        view["status"] = pdb_status(pdb, list(self.objects["pods"].values()),
                                    extra.get("expected"), extra.get("observed", True))
        return view

    # --- pods: graceful deletion and eviction (lock held) --------------------------------------

    def delete_pod(self, ns, name, grace=None, preconditions=None):
        """DELETE semantics of the pod registry; returns the pod as the response shows it."""
        pod = self.get("pods", ns, name)
        if pod is None:
            raise st.not_found("", "pods", name)
        check_preconditions("", "pods", name, pod, preconditions)
        period = grace if grace is not None else pod["spec"].get("terminationGracePeriodSeconds", 30)
        if not pod["spec"].get("nodeName") or pod["status"].get("phase") in ("Succeeded", "Failed"):
            period = 0
        if period < 0:
            period = 1
        meta = pod["metadata"]
        if period == 0:
            return self.remove("pods", ns, name)
        if meta.get("deletionTimestamp") and period >= meta.get("deletionGracePeriodSeconds", 0):
            return pod  # already terminating at least as fast
        deadline = now_utc() + datetime.timedelta(seconds=period)

        def mark(p):
            p["metadata"]["deletionTimestamp"] = format_time(deadline)
            p["metadata"]["deletionGracePeriodSeconds"] = period

        pod = self.mutate("pods", ns, name, mark)
        uid = meta["uid"]
        self.deadlines[uid] = time.monotonic() + period * self.grace_scale
        self.sched.call_later(period * self.grace_scale, lambda: self._finish_termination(ns, name, uid))
        return pod

    def _finish_termination(self, ns, name, uid):
        with self.lock:
            pod = self.get("pods", ns, name)
            if pod is None or pod["metadata"]["uid"] != uid:
                return
            if time.monotonic() + 1e-3 < self.deadlines.get(uid, 0):
                return  # a later deadline replaced this one
            self.deadlines.pop(uid, None)
            self.remove("pods", ns, name)

    def evict(self, ns, name, grace=None, preconditions=None):
        """The eviction subresource (pkg/registry/core/pod/storage/eviction.go)."""
        pod = self.get("pods", ns, name)
        if pod is None:
            raise st.not_found("", "pods", name)
        if (pod["status"].get("phase") in ("Succeeded", "Failed", "Pending")
                or pod["metadata"].get("deletionTimestamp")):
            return self.delete_pod(ns, name, grace, preconditions)
        pdbs = [p for p in self.objects["poddisruptionbudgets"].values() if pdb_selects(p, pod)]
        if len(pdbs) > 1:
            raise st.plain_failure(500, "This pod has more than one PodDisruptionBudget, which "
                                        "the eviction subresource does not support.")
        if pdbs:
            self._check_budget(self.pdb_view(pdbs[0]), pod)
        return self.delete_pod(ns, name, grace, preconditions)

    @staticmethod
    def _check_budget(pdb, pod):
        s, name = pdb["status"], pdb["metadata"]["name"]
        if not pod_is_ready(pod):
            if pdb["spec"].get("unhealthyPodEvictionPolicy") == "AlwaysAllow":
                return
            if s["currentHealthy"] >= s["desiredHealthy"] > 0:
                return
        message = "Cannot evict pod as it would violate the pod's disruption budget."
        if s["observedGeneration"] < pdb["metadata"].get("generation", 1):
            raise st.too_many_requests(message, 10, [{
                "reason": "DisruptionBudget",
                "message": f"The disruption budget {name} is still being processed by the server."}])
        if s["disruptionsAllowed"] == 0:
            raise st.too_many_requests(message, 0, [{
                "reason": "DisruptionBudget",
                "message": f"The disruption budget {name} needs {s['desiredHealthy']} healthy pods "
                           f"and has {s['currentHealthy']} currently"}])

    # --- controllers ----------------------------------------------------------------------------

    @property
    def device_plugins(self):
        return [ds for ds in self.daemonsets if isinstance(ds, DevicePlugin)]

    def _after_pod_write(self, kind, old, new):
        started = (kind == "MODIFIED" and new["metadata"].get("deletionTimestamp")
                   and not old["metadata"].get("deletionTimestamp"))
        gone = kind == "DELETED"
        if not (started or gone):
            return
        pod = new
        for ds in self.daemonsets:
            if not ds.owns(pod) or pod["metadata"]["uid"] in ds.handled:
                continue
            if not ds.max_surge and not gone:
                continue
            ds.handled.add(pod["metadata"]["uid"])
            ds.deleting(self)
            self.sched.call_later(ds.replace_delay, lambda ds=ds: self._replace_daemon_pod(ds))

    def _replace_daemon_pod(self, ds):
        with self.lock:
            pod = self.create("pods", ds.pod(phase="Pending", ready=False))
            name = pod["metadata"]["name"]
            ds.replacements.append(name)
        self.sched.call_later(ds.ready_delay, lambda: self._admit_daemon_pod(ds, name))

    def _admit_daemon_pod(self, ds, name):
        with self.lock:
            if self.get("pods", ds.namespace, name) is None:
                return
            pod = self.mutate("pods", ds.namespace, name, pod_running_ready)
            ds.admitted(self, pod)

    def _register_plugin(self, dp):
        with self.lock:
            self.registrations[dp.node] = self.registrations.get(dp.node, 0) + 1
        self._set_allocatable(dp.node, dp.allocatable_after)

    def _set_allocatable(self, node, values):
        with self.lock:
            if self.get("nodes", "", node) is None:
                return

            def put(n):
                n["status"]["allocatable"].update(values)
                n["status"]["capacity"].update(values)
            self.mutate("nodes", "", node, put)

    def _after_node_write(self, kind, old, new):
        if kind != "MODIFIED" or self.taint_delay is None:
            return
        if bool(old["spec"].get("unschedulable")) == bool(new["spec"].get("unschedulable")):
            return
        name = new["metadata"]["name"]

        def taint():
            with self.lock:
                node = self.get("nodes", "", name)
                if node is None:
                    return
                updated = copy.deepcopy(node)
                if taint_for_unschedulable(updated, format_time()):
                    self.replace("nodes", updated)
        self.sched.call_later(self.taint_delay, taint)

    def _after_lease_write(self, kind, old, new):
        now = now_utc()
        held = frozenset(key for key, lease in self.objects["leases"].items()
                         if _is_held(lease, now))
        if not self.lease_history or self.lease_history[-1][1] != held:
            self.lease_history.append((time.time(), held))

    def leases_held_max(self, prefix="", namespace=None):
        with self.lock:
            return max((sum(1 for ns, name in held if name.startswith(prefix)
                            and (namespace is None or ns == namespace))
                        for _, held in self.lease_history), default=0)

    def stop(self):
        self.sched.stop()


def _omit_empty(obj):
    """Go's omitempty on ObjectMeta maps and lists: empty ones are not shown."""
    meta = obj["metadata"]
    for key in ("labels", "annotations", "ownerReferences", "finalizers"):
        if key in meta and not meta[key]:
            del meta[key]


def _is_held(lease, now):
    try:
        until = held_until(lease)
    except ValueError:  # a malformed time put in by a test: count it as held
        return True
    return until is True or (until is not None and until > now)


def check_preconditions(group, resource, name, obj, preconditions):
    """DeleteOptions.preconditions: a mismatch is a 409 Conflict."""
    if not preconditions:
        return
    meta = obj["metadata"]
    uid, rv = preconditions.get("uid"), preconditions.get("resourceVersion")
    if uid is not None and uid != meta.get("uid"):
        raise st.conflict(group, resource, name, f"Precondition failed: UID in precondition: "
                                                 f"{uid}, UID in object meta: {meta.get('uid')}")
    if rv is not None and rv != meta.get("resourceVersion"):
        raise st.conflict(group, resource, name,
                          f"Precondition failed: ResourceVersion in precondition: {rv}, "
                          f"ResourceVersion in object meta: {meta.get('resourceVersion')}")
