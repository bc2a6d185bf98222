# SPDX-License-Identifier: LGPL-2.1-or-later
"""The REST layer: request info, authentication, authorization, then the verbs.

Paths: /api/v1[/namespaces/NS]/RESOURCE[/NAME[/SUB]] and
/apis/GROUP/VERSION[/namespaces/NS]/RESOURCE[/NAME[/SUB]]. Verbs as RequestInfoFactory
derives them: get, list, watch, create, update, patch, delete, deletecollection.
"""

import base64
import binascii
import copy
import json
import re
import time
import traceback
import uuid
from urllib.parse import parse_qs, urlsplit

from . import status as st
from .selectors import fields_match, labels_match, parse_fields, parse_labels


class Resource:
    def __init__(self, name, group, version, kind, namespaced, verbs, subresources=None):
        self.name, self.group, self.version, self.kind = name, group, version, kind
        self.namespaced, self.verbs = namespaced, verbs
        self.subresources = subresources or {}
        self.api_version = f"{group}/{version}" if group else version


# what this server implements; the real server supports every standard verb on these.
RESOURCES = {
    ("", "v1", "nodes"): Resource("nodes", "", "v1", "Node", False,
                                  {"get", "list", "watch", "patch"}, {"status": set()}),
    ("", "v1", "pods"): Resource("pods", "", "v1", "Pod", True,
                                 {"get", "list", "watch", "delete", "patch"},
                                 {"eviction": {"create"}, "status": set(), "log": set(),
                                  "binding": set(), "exec": set()}),
    ("policy", "v1", "poddisruptionbudgets"): Resource(
        "poddisruptionbudgets", "policy", "v1", "PodDisruptionBudget", True,
        {"get", "list", "watch"}, {"status": set()}),
    ("coordination.k8s.io", "v1", "leases"): Resource(
        "leases", "coordination.k8s.io", "v1", "Lease", True,
        {"get", "list", "watch", "create", "update", "patch", "delete"}),
}
GROUP_VERSIONS = {("", "v1"), ("policy", "v1"), ("coordination.k8s.io", "v1")}
_CORE = re.compile(r"^/api/v1(?:/namespaces/([^/]+))?/([^/]+)(?:/([^/]+))?(?:/([^/]+))?/?$")
_GROUPED = re.compile(
    r"^/apis/([^/]+)/([^/]+)(?:/namespaces/([^/]+))?/([^/]+)(?:/([^/]+))?(?:/([^/]+))?/?$")
MAX_BODY = 3 * 1024 * 1024


class Request:
    def __init__(self, method, target, headers, body, peer_der):
        self.method, self.headers, self.body, self.peer_der = method, headers, body, peer_der
        parts = urlsplit(target)
        self.path = parts.path
        self.query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        self.user = None
        self.verb = self.resource = self.subresource = self.namespace = self.name = None
        self.time = time.time()
        self.rewrite = None  # a fault's change to the JSON answer


class Response:
    def __init__(self, code, body=b"", headers=None, stream=None):
        self.code, self.body, self.stream = code, body, stream
        self.headers = {"Cache-Control": "no-cache, private", "Audit-Id": str(uuid.uuid4())}
        self.headers.update(headers or {})


def encode(obj):
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


def json_response(code, obj, headers=None):
    return Response(code, encode(obj), dict({"Content-Type": "application/json"}, **(headers or {})))


def not_implemented(what):
    return st.plain_failure(501, f"the test server does not implement {what}", "NotImplemented")


def parse_bool(value):
    return value in ("1", "t", "T", "TRUE", "true", "True")


def negotiate(req):
    """406 unless the Accept header allows JSON; protobuf-only is not implemented here."""
    accept = req.headers.get("Accept")
    if not accept:
        return
    types = [part.split(";")[0].strip().lower() for part in accept.split(",")]
    if any(t in ("application/json", "*/*", "application/*", "") for t in types):
        return
    if "application/vnd.kubernetes.protobuf" in types:
        raise not_implemented("protobuf")
    raise st.not_acceptable()


def request_info(req):
    """Fills req.verb/resource/... ; (Resource, version ok) or raises 404/405."""
    m = _CORE.match(req.path)
    if m:
        group, version = "", "v1"
        ns, res, name, sub = m.groups()
    else:
        m = _GROUPED.match(req.path)
        if not m:
            return None
        group, version, ns, res, name, sub = m.groups()
    if (group, version) not in GROUP_VERSIONS:
        raise st.resource_not_found()
    resource = RESOURCES.get((group, version, res))
    if resource is None or (ns and not resource.namespaced):
        raise st.resource_not_found()
    if sub and sub not in resource.subresources:
        raise st.resource_not_found()
    watch = parse_bool(req.query.get("watch", ""))
    verbs = {"GET": "watch" if watch else ("get" if name else "list"), "POST": "create",
             "PUT": "update", "PATCH": "patch",
             "DELETE": "delete" if name else "deletecollection"}
    if req.method not in verbs:
        raise st.method_not_allowed()
    req.verb = verbs[req.method]
    req.resource, req.subresource, req.namespace, req.name = resource, sub, ns, name
    return resource


class Api:
    def __init__(self, cluster, policy, writes):
        self.cluster, self.policy, self.writes = cluster, policy, writes
        self.faults = []        # [{"count", "error": fn() -> ApiError, "match": fn(req)}]
        self.latency = 0.0
        self.hang = None        # threading.Event set while requests must hang
        self.namespaces = {"default", "kube-system", "kube-public", "kube-node-lease"}
        # namespaces being deleted (NamespaceLifecycle refuses creates): a function to call
        # at the first refusal, or None
        self.terminating = {}
        self.webhook_down = None  # an eviction webhook (failurePolicy Fail) that cannot be called
        # just started: the authorizer has not read the roles yet ("refusing": every request
        # refused as by RBAC, /readyz too) or has, but the server is not ready yet ("unready":
        # /readyz 500); None: ready
        self.starting = None
        # the phase that follows the first refused /readyz of "refusing" (a server that finishes
        # starting while a client asks), or False to stay
        self.starting_next = False

    def handle(self, req):
        try:
            resp = self._handle(req)
            if req.rewrite and resp.stream is None and resp.body:
                obj = json.loads(resp.body)
                req.rewrite(obj)
                resp.body = encode(obj)
            return resp
        except st.ApiError as e:
            return json_response(e.code, e.status, e.headers)
        except Exception:  # a bug of this server: answer 500 and let the test see it
            self.cluster.errors.append(traceback.format_exc())
            err = st.internal_error("test server bug, see ApiServer.errors")
            return json_response(err.code, err.status)

    def _handle(self, req):
        req.user = self.policy.authenticate(req.peer_der, req.headers.get("Authorization"))
        if self.latency:
            time.sleep(self.latency)
        if self.hang is not None:
            self.hang.wait()
        resource = request_info(req)
        negotiate(req)
        answer = self._inject(req)
        if answer is not None:
            return answer
        ns_for_authz = req.namespace if resource and resource.namespaced else None
        if self.starting == "refusing" and "system:masters" not in req.user.groups:
            if self.starting_next is not False and req.path == "/readyz":
                self.starting, self.starting_next = self.starting_next, False
            # kube-apiserver before its RBAC informers synced: its authorizer knows no role
            if resource is None:
                raise st.ApiError(st._status(403, "Forbidden", f'forbidden: User '
                                             f'"{req.user.name}" cannot get path "{req.path}"'))
            where = (f'in the namespace "{ns_for_authz}"' if ns_for_authz
                     else "at the cluster scope")
            raise st.forbidden(resource.group, resource.name, req.name,
                               f'User "{req.user.name}" cannot {req.verb} resource '
                               f'"{resource.name}" in API group "{resource.group}" {where}')
        if resource is None:
            return self._non_resource(req)
        self.policy.authorize(req.user, req.verb, resource.group, resource.name,
                              req.subresource, ns_for_authz, req.name)
        if "dryRun" in req.query:
            raise not_implemented("dryRun")
        self._admit(req, resource)
        allowed = resource.subresources.get(req.subresource) if req.subresource else resource.verbs
        if req.verb not in allowed:
            if req.subresource == "eviction":
                raise st.method_not_allowed()
            raise not_implemented(f"{req.verb} on {resource.name}"
                                  + (f"/{req.subresource}" if req.subresource else ""))
        handler = getattr(self, f"_verb_{req.verb}", None) or getattr(self.writes, req.verb)
        return handler(req, resource)

    def _admit(self, req, resource):
        """Admission after authorization, in kube-apiserver's order: NamespaceLifecycle, then
        the validating webhooks (here one on pods/eviction whose service is unreachable)."""
        with self.cluster.lock:
            terminating = req.verb == "create" and req.namespace in self.terminating
            first = self.terminating.get(req.namespace) if terminating else None
            if first:
                self.terminating[req.namespace] = None
            webhook = self.webhook_down if req.subresource == "eviction" else None
        if first:
            first()
        if terminating:
            raise st.namespace_terminating(resource.group, resource.name, req.name,
                                           req.namespace)
        if webhook:
            raise st.internal_error(
                f'failed calling webhook "{webhook}": failed to call webhook: Post '
                f'"https://{webhook.split(".")[0]}.kube-system.svc:443/validate?timeout=10s": '
                f"dial tcp 10.96.0.42:443: connect: connection refused")

    def _inject(self, req):
        """The first fault that matches: its error is raised, its Response (an answer no
        kube-apiserver gives) returned, its rewrite kept for the answer; None: answer as
        usual."""
        with self.cluster.lock:
            for fault in self.faults:
                if fault["count"] > 0 and fault["match"](req):
                    fault["count"] -= 1
                    break
            else:
                return None
        if "rewrite" in fault:
            req.rewrite = fault["rewrite"]
            return None
        # outside the lock: a slow or down fault waits; an error is raised
        error = fault["error"]()
        if isinstance(error, Response):
            return error
        if error is not None:
            raise error
        return None

    def _non_resource(self, req):
        if req.method != "GET":
            raise st.method_not_allowed()
        if req.path == "/readyz" and self.starting:
            return Response(500, b"[-]poststarthook/rbac/bootstrap-roles failed: not finished\n"
                            b"readyz check failed\n", {"Content-Type": "text/plain; charset=utf-8",
                                                    "X-Content-Type-Options": "nosniff"})
        if req.path in ("/healthz", "/livez", "/readyz"):
            return Response(200, b"ok", {"Content-Type": "text/plain; charset=utf-8",
                                         "X-Content-Type-Options": "nosniff"})
        if req.path == "/version":
            return json_response(200, {"major": "1", "minor": "30", "gitVersion": "v1.30.2",
                                       "platform": "linux/amd64"})
        return Response(404, b"404 page not found\n", {"Content-Type": "text/plain; charset=utf-8",
                                                       "X-Content-Type-Options": "nosniff"})

    # --- reads ------------------------------------------------------------------------------

    def view(self, resource, obj):
        if resource.name == "poddisruptionbudgets":
            return self.cluster.pdb_view(obj)
        return copy.deepcopy(obj)

    def _verb_get(self, req, resource):
        with self.cluster.lock:
            obj = self.cluster.get(resource.name, req.namespace, req.name)
            if obj is None:
                raise st.not_found(resource.group, resource.name, req.name)
            return json_response(200, self.view(resource, obj))

    def selectors(self, req, resource):
        labels = parse_labels(req.query.get("labelSelector", ""))
        fields = parse_fields(req.query.get("fieldSelector", ""), resource.name)
        return labels, fields

    def matches(self, resource, ns, labels, fields, obj):
        meta = obj["metadata"]
        return ((ns is None or meta.get("namespace") == ns)
                and labels_match(labels, meta.get("labels"))
                and fields_match(fields, resource.name, obj))

    def _verb_list(self, req, resource):
        labels, fields = self.selectors(req, resource)
        limit = _int_param(req.query, "limit", 0)
        start = _decode_continue(req.query.get("continue", ""))
        with self.cluster.lock:
            keys = sorted(k for k in self.cluster.objects[resource.name] if k > start)
            items = [self.view(resource, self.cluster.objects[resource.name][k]) for k in keys]
            items = [i for i in items if self.matches(resource, req.namespace, labels, fields, i)]
            meta = {"resourceVersion": str(self.cluster.rv)}
        if limit > 0 and len(items) > limit:
            last = items[limit - 1]["metadata"]
            meta["continue"] = _encode_continue(int(meta["resourceVersion"]),
                                                (last.get("namespace", ""), last["name"]))
            if not labels and not fields:
                meta["remainingItemCount"] = len(items) - limit
            items = items[:limit]
        for item in items:
            item.pop("kind", None)
            item.pop("apiVersion", None)
        return json_response(200, {"kind": resource.kind + "List",
                                   "apiVersion": resource.api_version,
                                   "metadata": meta, "items": items})

    def _verb_watch(self, req, resource):
        labels, fields = self.selectors(req, resource)
        timeout = _int_param(req.query, "timeoutSeconds", 1800)
        since = req.query.get("resourceVersion", "")
        stream = _watch_stream(self, resource, req, labels, fields, since, timeout)
        return Response(200, headers={"Content-Type": "application/json"}, stream=stream)


def _int_param(query, key, default):
    if key not in query:
        return default
    try:
        return int(query[key])
    except ValueError:
        raise st.bad_request(f'strconv.ParseInt: parsing "{query[key]}": invalid syntax') from None


def _encode_continue(rv, key):
    token = {"v": "meta.k8s.io/v1", "rv": rv, "start": f"{key[0]}/{key[1]}\x00"}
    return base64.urlsafe_b64encode(json.dumps(token).encode()).decode()


def _decode_continue(text):
    if not text:
        return ("", "")
    try:
        token = json.loads(base64.urlsafe_b64decode(text.encode()))
        ns, _, name = token["start"].rstrip("\x00").partition("/")
        return (ns, name)
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise st.bad_request("continue key is not valid: incorrect encoded start "
                             "resourceVersion (version meta.k8s.io/v1)") from None


def _watch_event(kind, obj):
    return encode({"type": kind, "object": obj})


def _transition(api, resource, ns, labels, fields, kind, old, new):
    """The event a filtered watch shows for a change, or None."""
    was = old is not None and api.matches(resource, ns, labels, fields, old)
    now = new is not None and kind != "DELETED" and api.matches(resource, ns, labels, fields, new)
    if kind == "DELETED":
        return "DELETED" if was else None
    if was and now:
        return "MODIFIED"
    if now:
        return "ADDED"
    if was:
        return "DELETED"
    return None


def _events_after(cluster, seen):
    out = []
    for event in reversed(cluster.events):
        if event[0] <= seen:
            break
        out.append(event)
    out.reverse()
    return out


def _watch_start(api, resource, req, labels, fields, since):
    """(start rv, initial objects) or (oldest available rv, None) when `since` is too old."""
    cluster = api.cluster
    if since in ("", "0"):
        initial = [api.view(resource, o)
                   for _, o in sorted(cluster.objects[resource.name].items())
                   if api.matches(resource, req.namespace, labels, fields, o)]
        return cluster.rv, initial
    if not since.isdigit():
        raise st.bad_request(f'invalid resource version "{since}"')
    start = int(since)
    oldest = cluster.events[0][0] if cluster.events else cluster.rv + 1
    if start < oldest - 1:
        return oldest - 1, None
    return start, []


def _watch_stream(api, resource, req, labels, fields, since, timeout):
    cluster = api.cluster
    deadline = time.monotonic() + timeout
    with cluster.lock:
        seen, initial = _watch_start(api, resource, req, labels, fields, since)
    if initial is None:
        yield _watch_event("ERROR", {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f"too old resource version: {since} ({seen})", "reason": "Expired",
            "code": 410})
        return
    for obj in initial:
        yield _watch_event("ADDED", obj)
    while True:
        out = []
        with cluster.lock:
            for _, kind, res, old, new in _events_after(cluster, seen):
                shown = res == resource.name and _transition(
                    api, resource, req.namespace, labels, fields, kind, old, new)
                if shown:
                    out.append(_watch_event(shown, api.view(resource, new)))
            seen = cluster.rv
            if not out:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                cluster.changed.wait(min(remaining, 0.5))
        yield from out or [None]  # None: nothing to send, lets the transport check the line
