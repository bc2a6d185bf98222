# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Kubernetes API test server against the behaviour of kube-apiserver it stands in for."""

import datetime
import http.client
import json
import socket
import ssl
import threading
import time

import pytest
import yaml

from apiserver import ApiServer, write_kubeconfig
from fakeapi.certs import CertificateAuthority
from fakeapi.client import Client, assert_status

NS = "default"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"


# --- TLS and authentication ------------------------------------------------------------------

def test_tls_verifies_with_the_ca_and_fails_with_another(apiserver, admin, tmp_path):
    apiserver.add_node("node-a")
    assert Client(apiserver, token="admin-token", host="localhost").get(
        "/api/v1/nodes/node-a")[0] == 200
    other = CertificateAuthority(tmp_path / "other-ca")
    with pytest.raises(ssl.SSLCertVerificationError):
        Client(apiserver, token="admin-token", ca=str(other.cert_path)).get("/api/v1/nodes/node-a")


def test_401_without_or_with_unknown_credentials(apiserver):
    apiserver.add_token("good", "someone")
    for client in (Client(apiserver), Client(apiserver, token="bad")):
        code, resp, body = client.get("/api/v1/nodes")
        assert code == 401 and resp.getheader("Content-Type") == "application/json"
        assert_status(body, 401, "Unauthorized", "Unauthorized")
    assert apiserver.count(status=401) == 2


def test_anonymous_auth_turns_missing_credentials_into_403(tmp_path):
    srv = ApiServer(tmp_path, anonymous=True).start()
    try:
        code, _, body = Client(srv).get("/api/v1/nodes/x")
        assert code == 403
        assert body["message"] == ('nodes "x" is forbidden: User "system:anonymous" cannot get '
                                   'resource "nodes" in API group "" at the cluster scope')
    finally:
        srv.stop()


def test_client_certificate_user_and_group(apiserver, tmp_path):
    apiserver.add_node("node-a")
    apiserver.grant_group("sriov-nodes", ["get"], "nodes")
    cert = apiserver.client_cert("system:node:node-a", ["sriov-nodes"])
    code, _, body = Client(apiserver, cert=cert).get("/api/v1/nodes/node-a")
    assert code == 200 and body["metadata"]["name"] == "node-a"
    assert apiserver.records()[-1]["user"] == "system:node:node-a"
    # the certificate wins over a bad token, as the x509 authenticator runs first
    assert Client(apiserver, cert=cert, token="nonsense").get("/api/v1/nodes/node-a")[0] == 200
    code, _, body = Client(apiserver, cert=cert).request("PATCH", "/api/v1/nodes/node-a", "{}",
                                                          "application/merge-patch+json")
    assert code == 403 and "cannot patch resource" in body["message"]


def test_foreign_or_expired_client_certificates_fail_the_handshake(apiserver, tmp_path):
    apiserver.grant("mallory", "*", "*")
    foreign = CertificateAuthority(tmp_path / "foreign").client_cert("mallory")
    expired = apiserver.client_cert("mallory", expired=True)
    for cert in (foreign, expired):
        with pytest.raises((ssl.SSLError, ConnectionError)):
            Client(apiserver, cert=cert).get("/api/v1/nodes")


def test_403_messages_name_verb_resource_group_and_scope(apiserver):
    apiserver.add_token("t", "drainer")
    apiserver.add_node("node-a")
    apiserver.add_pod(NS, "x", "node-a")
    c = Client(apiserver, token="t")
    code, _, body = c.request("POST", f"/api/v1/namespaces/{NS}/pods/x/eviction",
                              {"apiVersion": "policy/v1", "kind": "Eviction",
                               "metadata": {"name": "x", "namespace": NS}})
    assert code == 403
    assert_status(body, 403, "Forbidden",
                  'pods "x" is forbidden: User "drainer" cannot create resource "pods/eviction" '
                  'in API group "" in the namespace "default"')
    assert body["details"] == {"name": "x", "kind": "pods"}
    code, _, body = c.get("/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a")
    assert body["message"] == ('pods is forbidden: User "drainer" cannot list resource "pods" '
                               'in API group "" at the cluster scope')
    code, _, body = c.get(LEASES + "/slot-0")
    assert body["message"] == ('leases.coordination.k8s.io "slot-0" is forbidden: User "drainer" '
                               'cannot get resource "leases" in API group "coordination.k8s.io" '
                               'in the namespace "kube-system"')
    assert body["details"] == {"name": "slot-0", "group": "coordination.k8s.io", "kind": "leases"}
    # a namespaced grant covers that namespace only; "pods" does not cover pods/eviction
    apiserver.grant("drainer", ["list", "create"], "pods", namespace=NS)
    assert c.get(f"/api/v1/namespaces/{NS}/pods")[0] == 200
    assert c.get("/api/v1/namespaces/other/pods")[0] == 403
    assert c.request("POST", f"/api/v1/namespaces/{NS}/pods/x/eviction",
                     {"metadata": {"name": "x"}})[0] == 403
    apiserver.grant("drainer", ["create"], "pods/eviction", namespace=NS)
    assert c.request("POST", f"/api/v1/namespaces/{NS}/pods/x/eviction",
                     {"metadata": {"name": "x"}})[0] == 201


# --- nodes and patches -------------------------------------------------------------------------

def test_node_get_shape(apiserver, admin):
    apiserver.add_node("node-a", allocatable={"intel.com/sriov_rdma": 8},
                       annotations={"a": "b"})
    code, resp, node = admin.get("/api/v1/nodes/node-a")
    assert code == 200 and resp.getheader("Content-Type") == "application/json"
    assert node["kind"] == "Node" and node["apiVersion"] == "v1"
    meta = node["metadata"]
    assert meta["resourceVersion"].isdigit() and len(meta["uid"]) == 36
    assert datetime.datetime.strptime(meta["creationTimestamp"], "%Y-%m-%dT%H:%M:%SZ")
    assert node["status"]["allocatable"]["intel.com/sriov_rdma"] == "8"
    assert "unschedulable" not in node["spec"]
    code, _, body = admin.get("/api/v1/nodes/nope")
    assert_status(body, 404, "NotFound", 'nodes "nope" not found')
    assert body["details"] == {"name": "nope", "kind": "nodes"}


def test_patch_with_application_json_is_415(apiserver, admin):
    apiserver.add_node("node-a")
    code, _, body = admin.patch("/api/v1/nodes/node-a", {"spec": {"unschedulable": True}},
                                "application/json")
    assert code == 415
    assert_status(body, 415, "UnsupportedMediaType",
                  "the body of the request was in an unknown format - accepted media types "
                  "include: application/json-patch+json, application/merge-patch+json, "
                  "application/strategic-merge-patch+json, application/apply-patch+yaml")
    assert admin.request("PATCH", "/api/v1/nodes/node-a", "{}")[0] == 415  # no Content-Type
    assert not apiserver.get("node", None, "node-a")["spec"].get("unschedulable")


def test_merge_patch_sets_and_null_deletes(apiserver, admin):
    apiserver.add_node("node-a", annotations={"keep": "1", "drop": "2"})
    rv0 = apiserver.get("node", None, "node-a")["metadata"]["resourceVersion"]
    code, _, node = admin.patch("/api/v1/nodes/node-a", {
        "spec": {"unschedulable": True},
        "metadata": {"annotations": {"drop": None, "sriov-persist/cordoned": "true"}}})
    assert code == 200
    assert node["spec"]["unschedulable"] is True
    assert node["metadata"]["annotations"] == {"keep": "1", "sriov-persist/cordoned": "true"}
    assert int(node["metadata"]["resourceVersion"]) > int(rv0)
    # the node lifecycle controller adds the unschedulable taint shortly after
    assert apiserver.wait_for(lambda: apiserver.get("node", None, "node-a")["spec"].get("taints"))
    code, _, node = admin.patch("/api/v1/nodes/node-a", {"spec": {"unschedulable": False}})
    assert code == 200 and "unschedulable" not in node["spec"]  # false is omitempty
    assert apiserver.wait_for(
        lambda: "taints" not in apiserver.get("node", None, "node-a")["spec"])


def test_strategic_merge_patch_null_deletes_and_status_is_ignored(apiserver, admin):
    apiserver.add_node("node-a", annotations={"x": "1"}, allocatable={"intel.com/a": 2})
    code, _, node = admin.patch("/api/v1/nodes/node-a", {
        "metadata": {"annotations": {"x": None, "y": "2"}},
        "spec": {"unschedulable": True},
        "status": {"allocatable": {"intel.com/a": "99"}}},
        "application/strategic-merge-patch+json; charset=utf-8")
    assert code == 200
    assert node["metadata"]["annotations"] == {"y": "2"}
    assert node["spec"]["unschedulable"] is True
    assert node["status"]["allocatable"]["intel.com/a"] == "2"


def test_merge_patch_with_stale_resource_version_is_409(apiserver, admin):
    apiserver.add_node("node-a")
    rv = apiserver.get("node", None, "node-a")["metadata"]["resourceVersion"]
    admin.patch("/api/v1/nodes/node-a", {"metadata": {"labels": {"a": "1"}}})
    code, _, body = admin.patch("/api/v1/nodes/node-a", {"metadata": {"resourceVersion": rv,
                                                                      "labels": {"b": "1"}}})
    assert_status(body, 409, "Conflict",
                  'Operation cannot be fulfilled on nodes "node-a": the object has been modified; '
                  'please apply your changes to the latest version and try again')


def test_json_patch_add_replace_remove_test(apiserver, admin):
    apiserver.add_node("node-a", annotations={"old": "1"})
    ops = [{"op": "test", "path": "/metadata/annotations/old", "value": "1"},
           {"op": "add", "path": "/metadata/annotations/sriov-persist~1state", "value": "ok"},
           {"op": "replace", "path": "/metadata/annotations/old", "value": "2"},
           {"op": "add", "path": "/spec/unschedulable", "value": True}]
    code, _, node = admin.patch("/api/v1/nodes/node-a", ops, "application/json-patch+json")
    assert code == 200
    assert node["metadata"]["annotations"] == {"old": "2", "sriov-persist/state": "ok"}
    assert node["spec"]["unschedulable"] is True
    rv = node["metadata"]["resourceVersion"]
    failing = [{"op": "test", "path": "/spec/unschedulable", "value": False},
               {"op": "remove", "path": "/metadata/annotations/old"}]
    code, _, body = admin.patch("/api/v1/nodes/node-a", failing, "application/json-patch+json")
    assert code == 422 and body["reason"] == "Invalid"
    assert "test failed" in body["details"]["causes"][0]["message"]
    code, _, body = admin.patch("/api/v1/nodes/node-a",
                                [{"op": "remove", "path": "/metadata/annotations/nope"}],
                                "application/json-patch+json")
    assert code == 422
    code, _, node = admin.patch("/api/v1/nodes/node-a",
                                [{"op": "remove", "path": "/metadata/annotations/old"}],
                                "application/json-patch+json")
    assert code == 200 and node["metadata"]["annotations"] == {"sriov-persist/state": "ok"}
    assert int(node["metadata"]["resourceVersion"]) > int(rv)
    assert admin.patch("/api/v1/nodes/node-a", {"op": "add"}, "application/json-patch+json")[0] == 400


def test_noop_patch_keeps_the_resource_version(apiserver, admin):
    apiserver.add_node("node-a", annotations={"a": "1"})
    rv = apiserver.get("node", None, "node-a")["metadata"]["resourceVersion"]
    code, _, node = admin.patch("/api/v1/nodes/node-a", {"metadata": {"annotations": {"a": "1"}}})
    assert code == 200 and node["metadata"]["resourceVersion"] == rv


# --- transport ---------------------------------------------------------------------------------

def test_down_refuses_and_resets_then_recovers(apiserver, admin):
    apiserver.add_node("node-a")
    keepalive = http.client.HTTPSConnection("127.0.0.1", apiserver.front.port, context=admin.ctx)
    keepalive.request("GET", "/api/v1/nodes/node-a",
                      headers={"Authorization": "Bearer admin-token"})
    assert keepalive.getresponse().read()
    apiserver.set_hang(True)
    result = {}

    def in_flight():
        try:
            result["ok"] = admin.get("/api/v1/nodes/node-a")
        except (ConnectionError, ssl.SSLError, http.client.HTTPException, OSError) as e:
            result["error"] = e
    t = threading.Thread(target=in_flight)
    t.start()
    assert apiserver.wait_for(lambda: apiserver.api.hang is not None and len(
        apiserver.front._conns) >= 2)
    time.sleep(0.05)
    apiserver.set_down(True)
    t.join(5)
    assert "error" in result and "ok" not in result
    with pytest.raises((ConnectionError, OSError)):
        socket.create_connection(("127.0.0.1", apiserver.front.port), timeout=2).close()
        admin.get("/api/v1/nodes/node-a")
    with pytest.raises((ConnectionError, http.client.HTTPException, ssl.SSLError, OSError)):
        keepalive.request("GET", "/api/v1/nodes/node-a",
                          headers={"Authorization": "Bearer admin-token"})
        keepalive.getresponse().read()
    apiserver.set_hang(False)
    apiserver.set_down(False)
    assert admin.get("/api/v1/nodes/node-a")[0] == 200
    assert apiserver.count(status=None, path="/api/v1/nodes/node-a") == 1


def test_200_concurrent_clients(apiserver, admin):
    apiserver.add_node("node-a")
    barrier = threading.Barrier(200)
    codes = []

    def one():
        conn = http.client.HTTPSConnection("127.0.0.1", apiserver.front.port, context=admin.ctx,
                                           timeout=30)
        conn.connect()
        barrier.wait(timeout=30)
        conn.request("GET", "/api/v1/nodes/node-a", headers={"Authorization": "Bearer admin-token"})
        resp = conn.getresponse()
        resp.read()
        codes.append(resp.status)
        conn.close()
    threads = [threading.Thread(target=one) for _ in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert codes.count(200) == 200


def test_request_body_limit(apiserver, admin):
    code, _, body = admin.request("POST", LEASES, b"x" * (3 * 1024 * 1024 + 1),
                                  "application/json")
    assert_status(body, 413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728")


def test_watch_pods_on_a_node(apiserver, admin):
    apiserver.add_node("node-a")
    apiserver.add_pod(NS, "p0", "node-a")
    rv = admin.get("/api/v1/pods")[2]["metadata"]["resourceVersion"]
    conn = http.client.HTTPSConnection("127.0.0.1", apiserver.front.port, context=admin.ctx,
                                       timeout=10)
    conn.request("GET", f"/api/v1/pods?watch=true&resourceVersion={rv}&timeoutSeconds=2"
                        "&fieldSelector=spec.nodeName%3Dnode-a",
                 headers={"Authorization": "Bearer admin-token"})
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Transfer-Encoding") == "chunked"
    apiserver.add_pod(NS, "p1", "node-a")
    apiserver.add_pod(NS, "elsewhere", "node-b")
    admin.request("DELETE", f"/api/v1/namespaces/{NS}/pods/p0?gracePeriodSeconds=0")
    events = [json.loads(resp.readline()) for _ in range(2)]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "p1"), ("DELETED", "p0")]
    conn.close()


def test_injected_errors_and_unknown_paths(apiserver, admin):
    apiserver.add_node("node-a")
    apiserver.inject_error(503, count=1, verb="get", retry_after=2)
    code, resp, body = admin.get("/api/v1/nodes/node-a")
    assert code == 503 and resp.getheader("Retry-After") == "2"
    assert body["reason"] == "ServiceUnavailable"
    assert admin.get("/api/v1/nodes/node-a")[0] == 200
    code, _, body = admin.get("/api/v1/widgets")
    assert_status(body, 404, "NotFound", "the server could not find the requested resource")
    assert admin.get("/nonsense")[0] == 404
    code, _, body = admin.request("GET", "/api/v1/nodes/node-a", headers={"Accept": "text/html"})
    assert code == 406 and body["reason"] == "NotAcceptable"
    assert admin.request("GET", "/api/v1/nodes/node-a", headers={
        "Accept": "application/json, */*"})[0] == 200
    assert admin.get("/version")[2]["major"] == "1"


def test_write_kubeconfig(apiserver, tmp_path):
    cert, key = apiserver.client_cert("u")
    path = write_kubeconfig(tmp_path / "kc", apiserver.url, apiserver.ca_path, token="t",
                            cert=cert, key=key)
    cfg = yaml.safe_load(open(path))
    assert cfg["current-context"] == "test"
    assert cfg["clusters"][0]["cluster"] == {"certificate-authority": apiserver.ca_path,
                                             "server": apiserver.url}
    assert cfg["users"][0]["user"] == {"client-certificate": cert, "client-key": key,
                                       "token": "t"}
    path = write_kubeconfig(tmp_path / "kc2", apiserver.url, apiserver.ca_path, cert=cert,
                            key=key, embed=True, style="quoted")
    user = yaml.safe_load(open(path))["users"][0]["user"]
    import base64
    assert base64.b64decode(user["client-certificate-data"]) == open(cert, "rb").read()
