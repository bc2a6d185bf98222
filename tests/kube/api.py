# SPDX-License-Identifier: LGPL-2.1-or-later
"""A small client of the real API server for the tests (http.client over TLS, the admin's
token or any other): requests, object paths, and manifests applied object by object."""

import http.client
import json
import ssl
import time
import urllib.parse

import yaml

CT_JSON = "application/json"
CT_MERGE = "application/merge-patch+json"


class ApiError(Exception):
    def __init__(self, method, path, status, body):
        self.status, self.body = status, body
        msg = body.get("message") if isinstance(body, dict) else body
        super().__init__(f"{method} {path}: {status} {msg}")


def plural(kind):
    """Every kind the tests use has a regular plural."""
    return kind.lower() + "s"


def collection(api_version, kind, namespace=None):
    """/api/v1/namespaces/NS/pods, /apis/apps/v1/daemonsets, ..."""
    base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
    ns = f"/namespaces/{namespace}" if namespace else ""
    return f"{base}{ns}/{plural(kind)}"


def object_path(obj):
    md = obj["metadata"]
    return collection(obj["apiVersion"], obj["kind"], md.get("namespace")) + "/" + md["name"]


class Api:
    """One request per connection: the tests make few, and a server that was stopped or
    restarted leaves no stale connection behind."""

    def __init__(self, url, ca, token, timeout=10):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port
        self.token, self.timeout = token, timeout
        self.ctx = ssl.create_default_context(cafile=str(ca))

    def request(self, method, path, body=None, content_type=CT_JSON, timeout=None):
        """(status, parsed body or text); raises OSError when the server does not answer."""
        conn = http.client.HTTPSConnection(self.host, self.port, context=self.ctx,
                                           timeout=timeout or self.timeout)
        headers = {"Authorization": f"Bearer {self.token}", "Accept": CT_JSON}
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = content_type
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            text = resp.read().decode(errors="replace")
        finally:
            conn.close()
        try:
            return resp.status, json.loads(text)
        except ValueError:
            return resp.status, text

    def call(self, method, path, body=None, content_type=CT_JSON, ok=(200, 201, 202)):
        status, out = self.request(method, path, body, content_type)
        if status not in ok:
            raise ApiError(method, path, status, out)
        return out

    def get(self, path):
        """The object, or None when it does not exist."""
        status, out = self.request("GET", path)
        if status == 404:
            return None
        if status != 200:
            raise ApiError("GET", path, status, out)
        return out

    def items(self, path, **query):
        q = ("?" + urllib.parse.urlencode(query)) if query else ""
        return self.call("GET", path + q)["items"]

    def create(self, path, obj):
        return self.call("POST", path, obj)

    def patch(self, path, patch):
        return self.call("PATCH", path, patch, CT_MERGE)

    def delete(self, path, grace=None, uid=None):
        """True when deleted or terminating, False when it was not there."""
        opts = {"apiVersion": "v1", "kind": "DeleteOptions"}
        if grace is not None:
            opts["gracePeriodSeconds"] = grace
        if uid:
            opts["preconditions"] = {"uid": uid}
        status, out = self.request("DELETE", path, opts)
        if status in (404, 409):
            return False
        if status not in (200, 202):
            raise ApiError("DELETE", path, status, out)
        return True

    def apply(self, obj):
        """Creates obj, or replaces the object of that name (its resourceVersion kept)."""
        md = obj["metadata"]
        status, out = self.request("POST", collection(obj["apiVersion"], obj["kind"],
                                                      md.get("namespace")), obj)
        if status == 409:
            cur = self.call("GET", object_path(obj))
            obj = dict(obj, metadata=dict(md, resourceVersion=cur["metadata"]["resourceVersion"]))
            return self.call("PUT", object_path(obj), obj)
        if status != 201:
            raise ApiError("POST", object_path(obj), status, out)
        return out

    def apply_file(self, path):
        return [self.apply(d) for d in yaml.safe_load_all(path.read_text()) if d]

    def wait(self, predicate, timeout=30, what="a condition", interval=0.1):
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}")
            time.sleep(interval)
