# SPDX-License-Identifier: LGPL-2.1-or-later
"""Built-in objects as kube-apiserver returns them: constructors for nodes, pods and PDBs,
the PodDisruptionBudget arithmetic of the disruption controller, and pod readiness."""

import math
import random
import string
import uuid

from .gotime import format_time
from .selectors import labels_match, selector_from_match

OWNER_API = {"DaemonSet": "apps/v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1",
             "Deployment": "apps/v1", "Job": "batch/v1", "Node": "v1",
             "ReplicationController": "v1"}
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
DEFAULT_NODE_RESOURCES = {"cpu": "64", "memory": "263921836Ki", "pods": "110",
                          "ephemeral-storage": "936327924Ki", "hugepages-1Gi": "0",
                          "hugepages-2Mi": "0"}
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def new_uid():
    return str(uuid.uuid4())


def random_suffix(n=5):
    # the alphabet of k8s.io/apimachinery/pkg/util/rand (no vowels, no confusable digits)
    return "".join(random.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


def _quantities(values):
    return {k: str(v) for k, v in (values or {}).items()}


def make_node(name, allocatable=None, unschedulable=False, annotations=None, labels=None,
              capacity=None):
    alloc = dict(DEFAULT_NODE_RESOURCES, **_quantities(allocatable))
    cap = dict(alloc, **_quantities(capacity))
    now = format_time()
    spec = {}
    if unschedulable:
        spec["unschedulable"] = True
        spec["taints"] = [{"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule", "timeAdded": now}]
    return {
        "kind": "Node", "apiVersion": "v1",
        "metadata": {"name": name,
                     "labels": dict({"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                     "kubernetes.io/arch": "amd64"}, **(labels or {})),
                     "annotations": dict(annotations or {})},
        "spec": spec,
        "status": {
            "capacity": cap, "allocatable": alloc,
            "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": now,
                            "lastTransitionTime": now, "reason": "KubeletReady",
                            "message": "kubelet is posting ready status"}],
            "addresses": [{"type": "InternalIP", "address": "192.0.2.10"},
                          {"type": "Hostname", "address": name}],
            "nodeInfo": {"kubeletVersion": "v1.30.2", "containerRuntimeVersion": "containerd://1.7.18",
                         "kernelVersion": "6.1.0-21-amd64", "operatingSystem": "linux",
                         "architecture": "amd64", "osImage": "Debian GNU/Linux 12 (bookworm)"}},
    }


def _container(requests):
    req = _quantities(requests)
    resources = {}
    if req:
        resources["requests"] = dict(req)
        # extended resources (vendor.com/x) must have limits equal to requests
        limits = {k: v for k, v in req.items() if "/" in k}
        if limits:
            resources["limits"] = limits
    return {"name": "main", "image": "registry.k8s.io/pause:3.9", "resources": resources,
            "terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent"}


def _pod_status(phase, ready, node):
    now = format_time()
    status = {"phase": phase, "qosClass": "BestEffort"}
    if not node:
        return status
    ready_s = "True" if ready and phase == "Running" else "False"
    status.update({
        "conditions": [
            {"type": "Initialized", "status": "True", "lastProbeTime": None,
             "lastTransitionTime": now},
            {"type": "Ready", "status": ready_s, "lastProbeTime": None, "lastTransitionTime": now},
            {"type": "ContainersReady", "status": ready_s, "lastProbeTime": None,
             "lastTransitionTime": now},
            {"type": "PodScheduled", "status": "True", "lastProbeTime": None,
             "lastTransitionTime": now}],
        "hostIP": "192.0.2.10", "podIP": f"10.244.{random.randint(0, 255)}.{random.randint(2, 254)}",
        "startTime": now,
        "containerStatuses": [{"name": "main", "ready": ready_s == "True", "restartCount": 0,
                               "started": phase == "Running", "image": "registry.k8s.io/pause:3.9",
                               "imageID": "", "containerID": "containerd://" + uuid.uuid4().hex,
                               "state": ({"running": {"startedAt": now}} if phase == "Running"
                                         else {"waiting": {"reason": "ContainerCreating"}})}],
    })
    return status


def make_pod(namespace, name, node, labels=None, owner=None, requests=None, annotations=None,
             phase="Running", grace=30, ready=True):
    """`owner`: None or a dict {kind, name, uid} for the controller ownerReference."""
    meta = {"name": name, "namespace": namespace, "labels": dict(labels or {}),
            "annotations": dict(annotations or {})}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": OWNER_API.get(owner["kind"], "v1"),
                                    "kind": owner["kind"], "name": owner["name"],
                                    "uid": owner["uid"], "controller": True,
                                    "blockOwnerDeletion": True}]
    spec = {"containers": [_container(requests)], "restartPolicy": "Always",
            "terminationGracePeriodSeconds": grace, "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "default", "schedulerName": "default-scheduler",
            "enableServiceLinks": True, "priority": 0}
    if node:
        spec["nodeName"] = node
    pod = {"kind": "Pod", "apiVersion": "v1", "metadata": meta, "spec": spec,
           "status": _pod_status(phase, ready, node)}
    if requests:
        pod["status"]["qosClass"] = "Burstable"
    return pod


def set_pod_ready(pod, ready):
    now = format_time()
    for cond in pod.get("status", {}).get("conditions", []):
        if cond["type"] in ("Ready", "ContainersReady"):
            cond["status"] = "True" if ready else "False"
            cond["lastTransitionTime"] = now
    for cs in pod.get("status", {}).get("containerStatuses", []):
        cs["ready"] = ready


def pod_running_ready(pod):
    pod["status"] = _pod_status("Running", True, pod["spec"].get("nodeName"))


def pod_is_ready(pod):
    conds = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conds)


def make_pdb(namespace, name, match_labels, min_available=None, max_unavailable=None,
             match_expressions=None, unhealthy_pod_eviction_policy=None):
    selector = {}
    if match_labels is not None:
        selector["matchLabels"] = dict(match_labels)
    if match_expressions:
        selector["matchExpressions"] = list(match_expressions)
    spec = {"selector": selector}
    if min_available is not None:
        spec["minAvailable"] = min_available
    if max_unavailable is not None:
        spec["maxUnavailable"] = max_unavailable
    if unhealthy_pod_eviction_policy:
        spec["unhealthyPodEvictionPolicy"] = unhealthy_pod_eviction_policy
    return {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
            "metadata": {"name": name, "namespace": namespace, "generation": 1},
            "spec": spec, "status": {}}


def pdb_selects(pdb, pod):
    """The eviction subresource's rule: same namespace, and an empty selector selects nothing."""
    if pdb["metadata"]["namespace"] != pod["metadata"]["namespace"]:
        return False
    sel = pdb["spec"].get("selector") or {}
    reqs = selector_from_match(sel.get("matchLabels"), sel.get("matchExpressions"))
    return bool(reqs) and labels_match(reqs, pod["metadata"].get("labels"))


def _scaled(value, total):
    if isinstance(value, str) and value.endswith("%"):
        return math.ceil(total * int(value[:-1]) / 100)
    return int(value)


def pdb_status(pdb, pods, expected=None, observed=True):
    """The status the disruption controller would write for `pdb` given all pods."""
    matching = [p for p in pods if pdb_selects(pdb, p)
                and p["status"].get("phase") not in ("Succeeded", "Failed")]
    expected_pods = len(matching) if expected is None else expected
    healthy = sum(1 for p in matching
                  if pod_is_ready(p) and not p["metadata"].get("deletionTimestamp"))
    spec = pdb["spec"]
    if spec.get("maxUnavailable") is not None:
        desired = max(0, expected_pods - _scaled(spec["maxUnavailable"], expected_pods))
    elif spec.get("minAvailable") is not None:
        desired = _scaled(spec["minAvailable"], expected_pods)
    else:
        desired = 0
    allowed = max(0, healthy - desired)
    generation = pdb["metadata"].get("generation", 1)
    return {"observedGeneration": generation if observed else generation - 1,
            "disruptionsAllowed": allowed, "currentHealthy": healthy,
            "desiredHealthy": desired, "expectedPods": expected_pods,
            "conditions": [{"type": "DisruptionAllowed",
                            "status": "True" if allowed > 0 else "False",
                            "reason": "SufficientPods" if allowed > 0 else "InsufficientPods",
                            "message": "", "observedGeneration": generation,
                            "lastTransitionTime": pdb["metadata"].get("creationTimestamp", "")}]}


def taint_for_unschedulable(node, now):
    """What the node lifecycle controller does after a cordon or uncordon; True if changed."""
    spec = node.setdefault("spec", {})
    taints = spec.get("taints") or []
    has = any(t.get("key") == UNSCHEDULABLE_TAINT for t in taints)
    if spec.get("unschedulable") and not has:
        spec["taints"] = taints + [{"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule",
                                    "timeAdded": now}]
        return True
    if not spec.get("unschedulable") and has:
        rest = [t for t in taints if t.get("key") != UNSCHEDULABLE_TAINT]
        if rest:
            spec["taints"] = rest
        else:
            spec.pop("taints", None)
        return True
    return False


DNS1123_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
NAME_CHARS = string.ascii_lowercase + string.digits + "-."
