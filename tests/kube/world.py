# SPDX-License-Identifier: LGPL-2.1-or-later
"""What a test of the real API server tier works with: k8s-notify as the sriov-persist
ServiceAccount (`Notify`), pods bound to nodes (`pod`), and `Kube`, one test's view of the
session's cluster: what it adds is removed after it, and what k8s-notify sent is read back
from the API server's audit log."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RBAC = ROOT / "packaging" / "k8s" / "rbac.yaml"
DEVICE_PLUGIN_DS = ROOT / "packaging" / "k8s" / "sriovdp-daemonset.yaml"
K8S_NOTIFY = os.environ.get("K8S_NOTIFY") or str(ROOT / "build" / "asan" / "k8s-notify")
LEASE_NAMESPACE = "sriov-persist"  # rbac.yaml's, [Kubernetes] LeaseNamespace='s default
LEASES = f"/apis/coordination.k8s.io/v1/namespaces/{LEASE_NAMESPACE}/leases"
SLOT = "sriov-persist-slot-"
CORDON_ANNOTATION = "sriov-persist.io/cordoned"


class Result:
    def __init__(self, rc, stdout, stderr):
        self.rc, self.stderr = rc, stderr
        lines = stdout.strip().splitlines()
        assert len(lines) <= 1, f"more than one line on stdout: {stdout!r}"
        self.json = json.loads(lines[0]) if lines else None

    def __repr__(self):
        return f"rc={self.rc} json={self.json} stderr={self.stderr!r}"


class Notify:
    """k8s-notify with the ServiceAccount's kubeconfig and a main configuration of its own."""

    def __init__(self, kubeconfig, dir):
        if not os.access(K8S_NOTIFY, os.X_OK):
            pytest.fail(f"k8s-notify not built: {K8S_NOTIFY} (set K8S_NOTIFY)")
        self.kubeconfig, self.main = kubeconfig, dir / "sriov-persist.conf"
        self.configure()

    def configure(self, **kubernetes):
        self.main.write_text("[Kubernetes]\n" + "".join(f"{k}={v}\n"
                                                      for k, v in kubernetes.items()))

    def argv(self, *args, node):
        return [K8S_NOTIFY, "--main-config", str(self.main), "--kubeconfig",
                str(self.kubeconfig), "--node", node, *args]

    def run(self, *args, node, timeout=120):
        p = subprocess.run(self.argv(*args, node=node), capture_output=True, text=True,
                           timeout=timeout)
        return Result(p.returncode, p.stdout, p.stderr)

    def start(self, *args, node):
        return subprocess.Popen(self.argv(*args, node=node), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    @staticmethod
    def finish(proc, timeout=120):
        try:
            out, err = proc.communicate(timeout=timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        return Result(proc.returncode, out, err)


def ok(result, op):
    assert result.rc == 0, result
    assert result.json["op"] == op and result.json["ok"] is True, result
    return result.json


def pod(namespace, name, node, labels=None, requests=None, owner_kind=None, grace=30):
    """A pod bound to node (spec.nodeName: there is no scheduler); extended resources have
    limits equal to their requests, as the API server requires. owner_kind: a controller
    ownerReference of that kind (no such object exists: no garbage collector runs)."""
    res = {k: str(v) for k, v in (requests or {}).items()}
    md = {"name": name, "namespace": namespace, "labels": labels or {}}
    if owner_kind:
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner_kind,
                                  "name": name.rsplit("-", 1)[0], "controller": True,
                                  "uid": f"00000000-0000-4000-8000-{len(name):012d}"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md,
            "spec": {"nodeName": node, "terminationGracePeriodSeconds": grace,
                     "containers": [{"name": "main", "image": "registry.invalid/app:1",
                                     "resources": {"requests": res, "limits": {
                                         k: v for k, v in res.items() if "/" in k}}}]}}


def pdb(namespace, name, labels, min_available):
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": labels}}}


def is_ready(p):
    return any(c["type"] == "Ready" and c["status"] == "True"
               for c in (p.get("status") or {}).get("conditions") or [])


class Kube:
    """One test's view of the session's cluster."""

    def __init__(self, cluster, kubelet, notify):
        self.cluster, self.kubelet, self.notify = cluster, kubelet, notify
        self.admin = cluster.admin
        self.nodes, self.namespaces = [], []
        self.audit_since = cluster.audit_mark()

    def add_node(self, name, **kw):
        self.kubelet.add_node(name, **kw)
        self.nodes.append(name)

    def namespace(self, name):
        """A namespace with its default ServiceAccount (every pod needs it)."""
        self.admin.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        self.namespaces.append(name)
        self.admin.wait(lambda: self.admin.get(
            f"/api/v1/namespaces/{name}/serviceaccounts/default"), what=f"{name}/default")

    def add_pod(self, *args, **kw):
        p = pod(*args, **kw)
        return self.admin.create(f"/api/v1/namespaces/{p['metadata']['namespace']}/pods", p)

    def get_pod(self, namespace, name):
        return self.admin.get(f"/api/v1/namespaces/{namespace}/pods/{name}")

    def wait_ready(self, namespace, name, timeout=30):
        self.admin.wait(lambda: is_ready(self.get_pod(namespace, name) or {}), timeout,
                        f"{namespace}/{name} Ready")

    def node(self, name):
        return self.admin.get(f"/api/v1/nodes/{name}")

    def node_flags(self, name):
        """(unschedulable, our cordon annotation)"""
        n = self.node(name)
        return (bool(n["spec"].get("unschedulable")),
                (n["metadata"].get("annotations") or {}).get(CORDON_ANNOTATION))

    def leases(self):
        """{slot: holder} of the Leases in sriov-persist"""
        return {x["metadata"]["name"]: x["spec"].get("holderIdentity")
                for x in self.admin.items(LEASES)}

    def audit(self, since=None, **match):
        """k8s-notify's requests since the test began (or since an audit_mark()), as the
        server logged them when they were answered, as rows whose fields match: verb,
        resource, subresource, namespace, name, code, decision (RBAC's), body (what was sent,
        for nodes and Leases)."""
        out = []
        for e in self.cluster.audit(self.audit_since if since is None else since):
            if e.get("stage") != "ResponseComplete":
                continue
            ref = e.get("objectRef") or {}
            row = {"verb": e["verb"], "resource": ref.get("resource"),
                   "subresource": ref.get("subresource"), "namespace": ref.get("namespace"),
                   "name": ref.get("name"), "code": e["responseStatus"]["code"],
                   "user": e["user"]["username"], "uri": e["requestURI"],
                   "time": e["stageTimestamp"], "body": e.get("requestObject"),
                   "decision": (e.get("annotations") or {}).get(
                       "authorization.k8s.io/decision")}
            if all(row.get(k) == v for k, v in match.items()):
                out.append(row)
        return out

    def cleanup(self):
        a = self.admin
        for ns in self.namespaces:
            for ds in a.items(f"/apis/apps/v1/namespaces/{ns}/daemonsets"):
                a.delete(f"/apis/apps/v1/namespaces/{ns}/daemonsets/{ds['metadata']['name']}")
        for name in self.nodes:
            self.kubelet.remove_node(name)
            for p in a.items("/api/v1/pods", fieldSelector=f"spec.nodeName={name}"):
                md = p["metadata"]
                a.delete(f"/api/v1/namespaces/{md['namespace']}/pods/{md['name']}", grace=0)
            a.delete(f"/api/v1/nodes/{name}")
        for ns in self.namespaces:
            for p in a.items(f"/api/v1/namespaces/{ns}/pods"):
                a.delete(f"/api/v1/namespaces/{ns}/pods/{p['metadata']['name']}", grace=0)
        for x in a.items(LEASES):
            a.delete(f"{LEASES}/{x['metadata']['name']}")
