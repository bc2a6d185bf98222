# SPDX-License-Identifier: LGPL-2.1-or-later
"""A Kubernetes API test server for k8s-notify: HTTPS, in memory, in a thread of the test.

It answers the subset of kube-apiserver that k8s-notify uses with the real status codes,
Status objects, content types and JSON shapes (see README.md). Tests drive it in process:

    srv = ApiServer(tmp_path).start()
    srv.add_token("t0k3n", "sriov-persist")
    srv.grant("sriov-persist", ["get", "patch"], "nodes")
    srv.add_node("node-a", allocatable={"intel.com/sriov_rdma": 8})
    write_kubeconfig(tmp_path / "kubeconfig", srv.url, srv.ca_path, token="t0k3n")
    ...
    assert srv.count(user="sriov-persist", verb="patch") == 1
    srv.stop()
"""

import base64
import copy
import re
import ssl
import threading
import time
from pathlib import Path

from fakeapi.api import Api, Response
from fakeapi.auth import Policy
from fakeapi.certs import CertificateAuthority
from fakeapi.cluster import Cluster, DaemonSet, DevicePlugin
from fakeapi.gotime import format_micro
from fakeapi.objects import (MIRROR_ANNOTATION, make_node, make_pdb, make_pod, new_uid,
                             set_pod_ready)
from fakeapi.status import error_for_code
from fakeapi.transport import Front
from fakeapi.writes import Writes

KINDS = {"node": "nodes", "pod": "pods", "poddisruptionbudget": "poddisruptionbudgets",
         "pdb": "poddisruptionbudgets", "lease": "leases"}


def _resource(kind):
    k = kind.lower()
    return KINDS.get(k, KINDS.get(k[:-1], k))


class ApiServer:
    def __init__(self, tmpdir, grace_scale=0.01, anonymous=False, taint_delay=0.05):
        """grace_scale: seconds of real time per second of pod grace period (30 s -> 0.3 s).
        anonymous: like --anonymous-auth=true, requests without credentials become
        system:anonymous (then 403) instead of 401. taint_delay: how long after a cordon the
        node lifecycle controller adds the unschedulable taint (None: never)."""
        self.dir = Path(tmpdir)
        self.cluster = Cluster(grace_scale, taint_delay)
        self.policy = Policy(anonymous)
        self.api = Api(self.cluster, self.policy, None)
        self.api.writes = Writes(self.api)
        self.requests = []
        self._records_lock = threading.Lock()
        self._owner_uids = {}
        self._hang = threading.Event()
        self.ca = self.front = self.url = None

    # --- lifecycle -----------------------------------------------------------------------------

    def start(self):
        self.ca = CertificateAuthority(self.dir / "pki")
        cert, key = self.ca.server_cert()
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        ctx.load_verify_locations(cafile=str(self.ca.cert_path))
        ctx.verify_mode = ssl.CERT_OPTIONAL
        ctx.set_alpn_protocols(["http/1.1"])
        self.front = Front(self.api, ctx, self._record)
        self.front.start()
        self.url = f"https://127.0.0.1:{self.front.port}"
        return self

    def stop(self):
        self._hang.set()
        self.api.hang = None
        if self.front:
            self.front.stop()
        self.cluster.stop()

    @property
    def ca_path(self):
        return str(self.ca.cert_path)

    @property
    def errors(self):
        """Tracebacks of this server's own bugs (answered as 500s); tests assert it is empty."""
        return list(self.cluster.errors)

    # --- identities and RBAC ---------------------------------------------------------------------

    def add_token(self, token, user, groups=()):
        self.policy.add_token(token, user, groups)

    def remove_token(self, token):
        self.policy.remove_token(token)

    def client_cert(self, user, groups=(), expired=False):
        """(cert path, key path) of a client certificate signed by the CA: CN=user, O=groups."""
        return self.ca.client_cert(user, groups, expired=expired)

    def grant(self, user, verbs, resource, namespace=None, names=None):
        """Allows `user` `verbs` ("*" for all) on "pods", "pods/eviction", "nodes",
        "policy/poddisruptionbudgets", "coordination.k8s.io/leases", "*"; namespace None is a
        cluster-wide grant (also needed for cluster-scoped resources and all-namespace lists);
        names, as RBAC's resourceNames, limits it to requests naming one of them."""
        self.policy.grant("user", user, verbs, resource, namespace, names)

    def grant_group(self, group, verbs, resource, namespace=None):
        self.policy.grant("group", group, verbs, resource, namespace)

    def revoke(self, user):
        self.policy.revoke("user", user)

    # --- objects ---------------------------------------------------------------------------------

    def add_namespace(self, name):
        with self.cluster.lock:
            self.api.namespaces.add(name)

    def terminate_namespace(self, name, delete_pods_after=0.0, after_first_refusal=False):
        """`kubectl delete namespace`: creates in it are refused (403 NamespaceTerminating)
        and, `delete_pods_after` seconds later (counted from the first create refused, with
        after_first_refusal), the namespace controller deletes its pods, each with its own
        grace period."""
        if name in ("default", "kube-system", "kube-public"):
            raise ValueError(f"namespace {name} cannot be deleted")

        def controller():
            self.cluster.sched.call_later(delete_pods_after,
                                          lambda: self._delete_namespace_pods(name))
        with self.cluster.lock:
            self.api.namespaces.add(name)
            self.api.terminating[name] = controller if after_first_refusal else None
        if not after_first_refusal:
            controller()

    def _delete_namespace_pods(self, name):
        with self.cluster.lock:
            for pod in [p for p in self.cluster.objects["pods"].values()
                        if p["metadata"]["namespace"] == name]:
                self.cluster.delete_pod(name, pod["metadata"]["name"])

    def set_eviction_webhook_down(self, name):
        """A validating webhook on pods/eviction with failurePolicy Fail whose service cannot
        be reached (None: working again): every eviction is a 500 InternalError naming it."""
        with self.cluster.lock:
            self.api.webhook_down = name

    def _create(self, resource, obj):
        with self.cluster.lock:
            ns = obj["metadata"].get("namespace")
            if ns:
                self.api.namespaces.add(ns)
            return copy.deepcopy(self.cluster.create(resource, obj))

    def add_node(self, name, allocatable=None, unschedulable=False, annotations=None, labels=None,
                 capacity=None):
        return self._create("nodes", make_node(name, allocatable, unschedulable, annotations,
                                               labels, capacity))

    def _owner(self, namespace, name, node, owner_kind, owner_name, annotations):
        if owner_kind:
            owner = owner_name or (name.rsplit("-", 1)[0] if "-" in name else name)
            key = (namespace, owner_kind, owner)
            uid = self._owner_uids.setdefault(key, new_uid())
            return {"kind": owner_kind, "name": owner, "uid": uid}
        if MIRROR_ANNOTATION in (annotations or {}) and node:
            node_obj = self.get("nodes", None, node)
            return {"kind": "Node", "name": node,
                    "uid": node_obj["metadata"]["uid"] if node_obj else new_uid()}
        return None

    def add_pod(self, namespace, name, node, labels=None, owner_kind=None, requests=None,
                annotations=None, phase="Running", grace=30, ready=True, owner_name=None):
        """A pod bound to `node`. owner_kind: None, "DaemonSet", "ReplicaSet", "StatefulSet",
        "Job"...; a pod with the kubernetes.io/config.mirror annotation is a mirror pod owned by
        its Node. requests: {"intel.com/sriov_rdma": 1, "cpu": "100m"}."""
        owner = self._owner(namespace, name, node, owner_kind, owner_name, annotations)
        return self._create("pods", make_pod(namespace, name, node, labels, owner, requests,
                                             annotations, phase, grace, ready))

    def add_pdb(self, namespace, name, match_labels, min_available=None, max_unavailable=None,
                expected_pods=None, processed=True, match_expressions=None,
                unhealthy_pod_eviction_policy=None):
        """A PodDisruptionBudget; its status is computed from the pods at every read.
        expected_pods: the scale of the pods' controller (default: the matching pods).
        processed=False: the disruption controller has not observed it yet (evictions get
        429 with Retry-After: 10 until set_pdb_processed)."""
        pdb = self._create("poddisruptionbudgets",
                           make_pdb(namespace, name, match_labels, min_available, max_unavailable,
                                    match_expressions, unhealthy_pod_eviction_policy))
        with self.cluster.lock:
            self.cluster.pdb_extra[(namespace, name)] = {"expected": expected_pods,
                                                         "observed": processed}
        return pdb

    def set_pdb_processed(self, namespace, name, processed=True):
        with self.cluster.lock:
            self.cluster.pdb_extra[(namespace, name)]["observed"] = processed

    def add_lease(self, namespace, name, holder=None, duration=None, renew_time=None,
                  acquire_time=None, transitions=None):
        """A Lease created by someone else. Times are datetimes or MicroTime strings."""
        spec = {}
        for key, value in (("holderIdentity", holder), ("leaseDurationSeconds", duration),
                           ("leaseTransitions", transitions)):
            if value is not None:
                spec[key] = value
        for key, value in (("acquireTime", acquire_time), ("renewTime", renew_time)):
            if value is not None:
                spec[key] = value if isinstance(value, str) else format_micro(value)
        return self._create("leases", {"kind": "Lease", "apiVersion": "coordination.k8s.io/v1",
                                       "metadata": {"name": name, "namespace": namespace},
                                       "spec": spec})

    def add_device_plugin(self, namespace, labels, node, allocatable_after=None,
                          delays=(0.05, 0.1, 0.05), name="sriov-device-plugin",
                          allocatable_during=None, replace_after_gone=False):
        """A device-plugin DaemonSet's pod on `node`. When that pod is deleted (or evicted), a
        replacement (new name suffix, new uid, Pending) appears after delays[0] s, becomes
        Running and Ready after delays[1] s more, and delays[2] s later it has registered: the
        node's allocatable and capacity get `allocatable_after`. allocatable_during: set at the
        deletion (e.g. the counts dropping to 0). replace_after_gone: wait until the old pod is
        gone (a DaemonSet without maxSurge)."""
        dp = DevicePlugin(namespace, labels, node, name, allocatable_after, allocatable_during,
                          delays, replace_after_gone)
        with self.cluster.lock:
            self.cluster.daemonsets.append(dp)
            return self._create("pods", dp.pod())

    def add_daemonset(self, namespace, name, node, requests=None, labels=None, grace=30,
                      max_surge=False, delays=(0.05, 0.1)):
        """A workload DaemonSet (a DPDK or CNF pod, say) with its pod on `node`, kept there as
        the DaemonSet controller does: deleted, it is replaced delays[0] s after it is gone
        (max_surge: after it starts terminating), and the replacement is admitted delays[1] s
        later with the devices of the device plugin registered then (see admission())."""
        ds = DaemonSet(namespace, name, node, labels, requests, grace, delays, max_surge)
        with self.cluster.lock:
            self.api.namespaces.add(namespace)
            self.cluster.daemonsets.append(ds)
            pod = self.cluster.create("pods", ds.pod())
            ds.admitted(self.cluster, pod)
            return copy.deepcopy(pod)

    def daemonset_pods(self, namespace, name):
        """The pods of a DaemonSet added with add_daemonset, oldest first."""
        with self.cluster.lock:
            ds = next(d for d in self.cluster.daemonsets
                      if d.namespace == namespace and d.name == name)
            # the store keeps creation order
            return [copy.deepcopy(p) for p in self.cluster.objects["pods"].values() if ds.owns(p)]

    def admission(self, uid):
        """Which device-plugin registration of its node a pod got its devices from (0: the
        plugin running when the test began, 1 after its first restart...), None if the kubelet
        has not admitted it."""
        with self.cluster.lock:
            return self.cluster.admissions.get(uid)

    def plugin_registration(self, node):
        """How many times the device plugin registered on `node` again since the start."""
        with self.cluster.lock:
            return self.cluster.registrations.get(node, 0)

    def device_plugin_replacements(self):
        with self.cluster.lock:
            return [n for dp in self.cluster.device_plugins for n in dp.replacements]

    def get(self, kind, ns, name):
        """A copy of the stored object (PDBs with their computed status), or None."""
        resource = _resource(kind)
        with self.cluster.lock:
            obj = self.cluster.get(resource, ns, name)
            if obj is None:
                return None
            return self.cluster.pdb_view(obj) if resource == "poddisruptionbudgets" else copy.deepcopy(obj)

    def list(self, kind, ns=None):
        resource = _resource(kind)
        with self.cluster.lock:
            return [copy.deepcopy(o) for (n, _), o in sorted(self.cluster.objects[resource].items())
                    if ns is None or n == ns]

    def modify(self, kind, ns, name, fn):
        """Changes an object as a controller would (new resourceVersion, watch event)."""
        with self.cluster.lock:
            return copy.deepcopy(self.cluster.mutate(_resource(kind), ns, name, fn))

    def remove(self, kind, ns, name):
        with self.cluster.lock:
            return copy.deepcopy(self.cluster.remove(_resource(kind), ns, name))

    def set_pod_ready(self, ns, name, ready):
        self.modify("pods", ns, name, lambda p: set_pod_ready(p, ready))

    # --- faults ----------------------------------------------------------------------------------

    def clear_faults(self):
        """Drops the injected faults not used up yet."""
        with self.cluster.lock:
            self.api.faults.clear()

    def set_down(self, down):
        """Down: the port refuses connections and every open connection is reset, including
        requests in flight (their response is never sent)."""
        self.front.set_down(down)

    def set_starting(self, phase, then=False):
        """As kube-apiserver right after it starts: "refusing" (every request but system:masters'
        refused with RBAC's 403, /readyz included, as before its authorizer has read the roles),
        "unready" (requests served, /readyz 500), or None (ready). With then: "refusing" turns
        into that phase right after it refuses /readyz once, as a server that finishes starting
        while the client asks (whatever the client's own speed)."""
        with self.cluster.lock:
            self.api.starting, self.api.starting_next = phase, then

    def set_latency(self, seconds):
        self.api.latency = seconds

    def set_hang(self, hang):
        """While set, requests are accepted but not answered (until cleared or set_down)."""
        if hang:
            self._hang.clear()
            self.api.hang = self._hang
        else:
            self.api.hang = None
            self._hang.set()

    @staticmethod
    def _matcher(method=None, path=None, verb=None, user=None, body=None):
        pattern = re.compile(path) if path else None
        body_pattern = re.compile(body) if body else None

        def match(req):
            return ((method is None or req.method == method)
                    and (verb is None or req.verb == verb)
                    and (user is None or (req.user and req.user.name == user))
                    and (pattern is None or pattern.search(req.path))
                    and (body_pattern is None
                         or body_pattern.search((req.body or b"").decode(errors="replace"))))
        return match

    def inject_error(self, code, count=1, method=None, path=None, verb=None, user=None,
                     message=None, retry_after=0, body=None):
        """The next `count` requests matching method/verb/user, the regex `path` and the regex
        `body` (searched in the request body) get a Status with HTTP `code` (and Retry-After
        when retry_after > 0)."""
        match = self._matcher(method, path, verb, user, body)
        with self.cluster.lock:
            self.api.faults.append({"count": count, "match": match,
                                    "error": lambda: error_for_code(code, message, retry_after)})

    def inject_slow(self, seconds, count=1, **match):
        """The next `count` matching requests (as inject_error matches) are answered `seconds`
        late."""
        def slow():
            time.sleep(seconds)
        with self.cluster.lock:
            self.api.faults.append({"count": count, "match": self._matcher(**match),
                                    "error": slow})

    def inject_down(self, seconds, count=1, **match):
        """The next matching request takes the server down for `seconds`: it and every
        connection open are reset, new ones refused, until the server comes back."""
        def down():
            self.set_down(True)
            threading.Timer(seconds, self.set_down, (False,)).start()
            time.sleep(0.2)  # the reset reaches the client before any answer could
            return error_for_code(503)  # never delivered: the request is not carried out
        with self.cluster.lock:
            self.api.faults.append({"count": count, "match": self._matcher(**match),
                                    "error": down})

    def inject_answer(self, code, headers=None, body=b"", count=1, **match):
        """The next `count` matching requests (as inject_error matches) get this raw answer,
        one no kube-apiserver gives: a redirect, headers of any size."""
        with self.cluster.lock:
            self.api.faults.append({"count": count, "match": self._matcher(**match),
                                    "error": lambda: Response(code, body, headers)})

    def inject_watch_end(self, count=1, **match):
        """The next `count` matching watches are ended at once: 200, then an empty chunked
        body (a server shedding load, a proxy that cuts long requests)."""
        with self.cluster.lock:
            self.api.faults.append({
                "count": count, "match": self._matcher(**match),
                "error": lambda: Response(200, headers={"Content-Type": "application/json"},
                                          stream=iter(()))})

    def inject_rewrite(self, fn, count=1, **match):
        """The next `count` matching requests are carried out and answered as usual, except
        that fn(obj) first changes the JSON answer in place (a list without
        metadata.resourceVersion, say)."""
        with self.cluster.lock:
            self.api.faults.append({"count": count, "match": self._matcher(**match),
                                    "rewrite": fn})

    # --- observation -----------------------------------------------------------------------------

    def _record(self, req, code):
        rec = {"user": req.user.name if req.user else None,
               "groups": list(req.user.groups) if req.user else [],
               "verb": req.verb, "method": req.method, "path": req.path,
               "query": dict(req.query), "status": code, "time": req.time,
               "resource": req.resource.name if req.resource else None,
               "subresource": req.subresource, "namespace": req.namespace, "name": req.name,
               "content_type": req.headers.get("Content-Type"),
               "body": req.body.decode(errors="replace")}
        with self._records_lock:
            self.requests.append(rec)

    def count(self, **match):
        """How many recorded requests have all the given fields, e.g. count(user="u",
        verb="create", subresource="eviction", status=429)."""
        with self._records_lock:
            return sum(1 for r in self.requests if all(r.get(k) == v for k, v in match.items()))

    def records(self, **match):
        with self._records_lock:
            return [dict(r) for r in self.requests if all(r.get(k) == v for k, v in match.items())]

    def leases_held_max(self, prefix="", namespace=None):
        """The most Leases named prefix* held at once by an unexpired holder, over every write."""
        return self.cluster.leases_held_max(prefix, namespace)

    def wait_for(self, predicate, timeout=5.0, interval=0.01):
        """Polls predicate() until it is true; returns its last value."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value or time.monotonic() >= deadline:
                return value
            time.sleep(interval)


# --- kubeconfig --------------------------------------------------------------------------------

_PLAIN = re.compile(r"^[A-Za-z0-9_./][A-Za-z0-9_./:@+=-]*$")


def _scalar(value, style):
    value = str(value)
    if style == "kubectl" and _PLAIN.match(value) and value not in ("true", "false", "null", "~"):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_kubeconfig(path, server, ca, token=None, cert=None, key=None, token_file=None,
                     embed=False, namespace=None, style="kubectl", name="test", exec_=None):
    """A kubeconfig in the shape kubectl writes. embed=True puts the CA (and the client
    certificate and key) inline as *-data base64; style "kubectl" writes plain scalars where
    YAML allows, "quoted" double-quotes every scalar. exec_: a user's exec plugin, a dict of
    its fields (apiVersion, command, args: list, env: dict, interactiveMode...)."""
    def data(p):
        return base64.b64encode(Path(p).read_bytes()).decode()

    cluster = ([("certificate-authority-data", data(ca))] if embed else
               [("certificate-authority", ca)]) + [("server", server)]
    user = []
    if cert:
        user += ([("client-certificate-data", data(cert))] if embed else
                 [("client-certificate", cert)])
    if key:
        user += [("client-key-data", data(key))] if embed else [("client-key", key)]
    if token:
        user.append(("token", token))
    if token_file:
        user.append(("tokenFile", token_file))
    context = [("cluster", name)] + ([("namespace", namespace)] if namespace else []) + [
        ("user", name)]
    s = lambda v: _scalar(v, style)  # noqa: E731
    lines = ["apiVersion: v1", "clusters:", "- cluster:"]
    lines += [f"    {k}: {s(v)}" for k, v in cluster]
    lines += [f"  name: {s(name)}", "contexts:", "- context:"]
    lines += [f"    {k}: {s(v)}" for k, v in context]
    lines += [f"  name: {s(name)}", f"current-context: {s(name)}", "kind: Config",
              "preferences: {}", "users:", f"- name: {s(name)}",
              "  user:" + ("" if user else " {}")]
    lines += [f"    {k}: {s(v)}" for k, v in user]
    if exec_:
        if not user:
            lines[-1] = "  user:"
        lines.append("    exec:")
        for k, v in exec_.items():
            if k == "args":
                lines += ["      args:"] + [f"      - {s(a)}" for a in v]
            elif k == "env":
                lines += ["      env:"] + [f"      - name: {s(n)}\n        value: {s(x)}"
                                           for n, x in v.items()]
            else:
                lines.append(f"      {k}: {s(v)}")
    Path(path).write_text("\n".join(lines) + "\n")
    Path(path).chmod(0o600)  # as kubectl writes it: it may hold a token or a key
    return str(path)


def main(argv=None):
    """Runs a server with one node for manual experiments; prints the kubeconfig path."""
    import argparse
    import tempfile
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=None)
    parser.add_argument("--node", default="node-a")
    args = parser.parse_args(argv)
    directory = Path(args.dir or tempfile.mkdtemp(prefix="k8s-fake-"))
    srv = ApiServer(directory).start()
    srv.add_token("admin-token", "admin", ["system:masters"])
    srv.add_node(args.node)
    kubeconfig = write_kubeconfig(directory / "kubeconfig", srv.url, srv.ca_path,
                                  token="admin-token")
    print(f"{srv.url}  kubeconfig: {kubeconfig}  (Ctrl-C to stop)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        srv.stop()


if __name__ == "__main__":
    main()
