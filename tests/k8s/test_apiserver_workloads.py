# SPDX-License-Identifier: LGPL-2.1-or-later
"""The API test server's pods, evictions, deletions, device plugin and leases against the
behaviour of kube-apiserver."""

import datetime
from urllib.parse import quote

import pytest

from fakeapi.client import assert_status

NS = "default"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"


def micro(dt=None):
    dt = dt or datetime.datetime.now(datetime.timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def lease_body(name, holder="node-a", duration=30, rv=None, renew=None):
    meta = {"name": name, "namespace": "kube-system"}
    if rv is not None:
        meta["resourceVersion"] = rv
    now = renew or micro()
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta,
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": duration,
                     "acquireTime": now, "renewTime": now}}


# --- pods: selectors ---------------------------------------------------------------------------

@pytest.fixture
def pods(apiserver):
    for node in ("node-a", "node-b"):
        apiserver.add_node(node)
    apiserver.add_pod(NS, "web-1", "node-a", labels={"app": "web", "tier": "front"},
                      owner_kind="ReplicaSet", requests={"intel.com/sriov_rdma": 1})
    apiserver.add_pod(NS, "db-1", "node-a", labels={"app": "db"}, phase="Pending")
    apiserver.add_pod("kube-system", "sriovdp-x", "node-a", labels={"app": "sriovdp"},
                      owner_kind="DaemonSet")
    apiserver.add_pod("kube-system", "kube-apiserver-node-a", "node-a",
                      annotations={"kubernetes.io/config.mirror": "abc"})
    apiserver.add_pod("other", "web-2", "node-b", labels={"app": "web"})
    apiserver.add_pod("other", "done", "node-a", phase="Succeeded")


def names(body):
    return sorted(f'{i["metadata"]["namespace"]}/{i["metadata"]["name"]}' for i in body["items"])


@pytest.mark.parametrize("selector,expected", [
    ("spec.nodeName=node-a", ["default/db-1", "default/web-1", "kube-system/kube-apiserver-node-a",
                              "kube-system/sriovdp-x", "other/done"]),
    ("spec.nodeName==node-b", ["other/web-2"]),
    ("spec.nodeName=node-a,status.phase!=Succeeded,status.phase!=Failed",
     ["default/db-1", "default/web-1", "kube-system/kube-apiserver-node-a",
      "kube-system/sriovdp-x"]),
    ("status.phase=Pending", ["default/db-1"]),
    ("metadata.namespace=other,metadata.name!=done", ["other/web-2"]),
    ("spec.nodeName=", []),
])
def test_field_selectors(pods, admin, selector, expected):
    code, _, body = admin.get(f"/api/v1/pods?fieldSelector={selector}")
    assert code == 200 and body["kind"] == "PodList" and body["apiVersion"] == "v1"
    assert names(body) == expected
    assert body["metadata"]["resourceVersion"].isdigit()
    assert all("kind" not in i for i in body["items"])


@pytest.mark.parametrize("selector,expected", [
    ("app=web", ["default/web-1", "other/web-2"]),
    ("app==web,tier=front", ["default/web-1"]),
    ("app!=web", ["default/db-1", "kube-system/kube-apiserver-node-a", "kube-system/sriovdp-x",
                  "other/done"]),
    ("app in (db, sriovdp)", ["default/db-1", "kube-system/sriovdp-x"]),
    ("app notin (web,db),app", ["kube-system/sriovdp-x"]),
    ("tier", ["default/web-1"]),
    ("!app", ["kube-system/kube-apiserver-node-a", "other/done"]),
])
def test_label_selectors(pods, admin, selector, expected):
    code, _, body = admin.get(f"/api/v1/pods?labelSelector={quote(selector)}")
    assert code == 200 and names(body) == expected


def test_selectors_in_one_namespace_and_errors(pods, admin):
    code, _, body = admin.get(f"/api/v1/namespaces/{NS}/pods?labelSelector=app%3Dweb")
    assert names(body) == ["default/web-1"]
    code, _, body = admin.get("/api/v1/pods?fieldSelector=spec.foo%3Dbar")
    assert_status(body, 400, "BadRequest", "field label not supported: spec.foo")
    code, _, body = admin.get("/api/v1/pods?fieldSelector=nonsense")
    assert code == 400 and body["reason"] == "BadRequest"
    assert admin.get("/api/v1/pods?labelSelector=app%20in%20web")[0] == 400
    code, _, body = admin.get("/api/v1/nodes?fieldSelector=spec.nodeName%3Dx")
    assert_status(body, 400, "BadRequest", "field label not supported: spec.nodeName")


def test_pod_shapes_owner_and_mirror(pods, admin):
    code, _, pod = admin.get(f"/api/v1/namespaces/{NS}/pods/web-1")
    ref = pod["metadata"]["ownerReferences"][0]
    assert (ref["kind"], ref["apiVersion"], ref["controller"]) == ("ReplicaSet", "apps/v1", True)
    res = pod["spec"]["containers"][0]["resources"]
    assert res["requests"]["intel.com/sriov_rdma"] == "1" == res["limits"]["intel.com/sriov_rdma"]
    ready = [c for c in pod["status"]["conditions"] if c["type"] == "Ready"][0]
    assert ready["status"] == "True"
    _, _, ds = admin.get("/api/v1/namespaces/kube-system/pods/sriovdp-x")
    assert ds["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet"
    _, _, mirror = admin.get("/api/v1/namespaces/kube-system/pods/kube-apiserver-node-a")
    assert mirror["metadata"]["annotations"]["kubernetes.io/config.mirror"] == "abc"
    assert mirror["metadata"]["ownerReferences"][0]["kind"] == "Node"


def test_list_pagination(pods, admin):
    seen, cont = [], ""
    while True:
        code, _, body = admin.get(f"/api/v1/pods?limit=2&continue={cont}")
        assert code == 200 and len(body["items"]) <= 2
        seen += names(body)
        cont = body["metadata"].get("continue")
        if not cont:
            break
    assert len(seen) == 6 and len(set(seen)) == 6


# --- eviction and deletion ---------------------------------------------------------------------

def evict(client, name, ns=NS, **extra):
    body = {"apiVersion": "policy/v1", "kind": "Eviction",
            "metadata": {"name": name, "namespace": ns}}
    body.update(extra)
    return client.request("POST", f"/api/v1/namespaces/{ns}/pods/{name}/eviction", body)


@pytest.fixture
def replicas(apiserver):
    apiserver.add_node("node-a")
    for i in range(3):
        apiserver.add_pod(NS, f"web-{i}", "node-a", labels={"app": "web"}, grace=30)


def test_eviction_201_then_terminating_then_gone(replicas, apiserver, admin):
    code, resp, body = evict(admin, "web-0")
    assert code == 201
    assert body == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                    "code": 201}
    pod = apiserver.get("pod", NS, "web-0")
    assert pod["metadata"]["deletionTimestamp"] and pod["metadata"]["deletionGracePeriodSeconds"] == 30
    assert apiserver.wait_for(lambda: apiserver.get("pod", NS, "web-0") is None)
    code, _, body = evict(admin, "web-0")
    assert_status(body, 404, "NotFound", 'pods "web-0" not found')


def test_eviction_429_while_the_budget_allows_no_disruption(replicas, apiserver, admin):
    apiserver.add_pdb(NS, "web-pdb", {"app": "web"}, min_available=2)
    _, _, pdb = admin.get(f"/apis/policy/v1/namespaces/{NS}/poddisruptionbudgets/web-pdb")
    assert pdb["status"]["disruptionsAllowed"] == 1 and pdb["status"]["currentHealthy"] == 3
    assert evict(admin, "web-0")[0] == 201
    code, resp, body = evict(admin, "web-1")
    assert code == 429 and resp.getheader("Retry-After") is None
    assert_status(body, 429, "TooManyRequests",
                  "Cannot evict pod as it would violate the pod's disruption budget.")
    assert body["details"]["causes"] == [{
        "reason": "DisruptionBudget",
        "message": "The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}]
    assert apiserver.get("pod", NS, "web-1")["metadata"].get("deletionTimestamp") is None
    # a replacement becoming ready frees one disruption again
    apiserver.add_pod(NS, "web-3", "node-a", labels={"app": "web"})
    assert evict(admin, "web-1")[0] == 201


def test_eviction_max_unavailable_with_expected_pods(replicas, apiserver, admin):
    apiserver.add_pdb(NS, "web-pdb", {"app": "web"}, max_unavailable=1, expected_pods=3)
    assert evict(admin, "web-0")[0] == 201
    assert apiserver.wait_for(lambda: apiserver.get("pod", NS, "web-0") is None)
    assert evict(admin, "web-1")[0] == 429  # the controller still wants 3 - 1 = 2 healthy


def test_eviction_of_an_unready_pod_is_allowed_when_the_budget_is_met(replicas, apiserver, admin):
    apiserver.add_pdb(NS, "web-pdb", {"app": "web"}, min_available=2)
    apiserver.set_pod_ready(NS, "web-2", False)
    assert evict(admin, "web-2")[0] == 201
    assert evict(admin, "web-1")[0] == 429


def test_eviction_retry_after_while_the_budget_is_not_processed(replicas, apiserver, admin):
    apiserver.add_pdb(NS, "web-pdb", {"app": "web"}, min_available=1, processed=False)
    code, resp, body = evict(admin, "web-0")
    assert code == 429 and resp.getheader("Retry-After") == "10"
    assert body["details"]["retryAfterSeconds"] == 10
    apiserver.set_pdb_processed(NS, "web-pdb")
    assert evict(admin, "web-0")[0] == 201


def test_eviction_500_with_two_budgets(replicas, apiserver, admin):
    apiserver.add_pdb(NS, "a", {"app": "web"}, min_available=0)
    apiserver.add_pdb(NS, "b", {"app": "web"}, max_unavailable=3)
    code, _, body = evict(admin, "web-0")
    assert code == 500
    assert body == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "This pod has more than one PodDisruptionBudget, which the "
                               "eviction subresource does not support.", "code": 500}


def test_eviction_bad_requests(replicas, admin):
    code, _, body = evict(admin, "web-0", metadata={"name": "web-1"})
    assert_status(body, 400, "BadRequest", "name in URL does not match name in Eviction object")
    assert admin.request("GET", f"/api/v1/namespaces/{NS}/pods/web-0/eviction")[0] == 405


def test_evicting_a_terminating_pod_skips_the_budget(replicas, apiserver, admin):
    apiserver.add_pdb(NS, "web-pdb", {"app": "web"}, min_available=3)
    assert admin.request("DELETE", f"/api/v1/namespaces/{NS}/pods/web-0")[0] == 200
    assert evict(admin, "web-0")[0] == 201
    assert evict(admin, "web-1")[0] == 429


def test_delete_pod_graceful_and_immediate(replicas, apiserver, admin):
    code, _, pod = admin.request("DELETE", f"/api/v1/namespaces/{NS}/pods/web-0")
    assert code == 200 and pod["kind"] == "Pod" and pod["metadata"]["deletionTimestamp"]
    assert apiserver.get("pod", NS, "web-0") is not None
    code, _, pod = admin.request("DELETE", f"/api/v1/namespaces/{NS}/pods/web-1?gracePeriodSeconds=0")
    assert code == 200 and apiserver.get("pod", NS, "web-1") is None
    code, _, pod = admin.request("DELETE", f"/api/v1/namespaces/{NS}/pods/web-2",
                                 {"kind": "DeleteOptions", "apiVersion": "v1",
                                  "gracePeriodSeconds": 0})
    assert code == 200 and apiserver.get("pod", NS, "web-2") is None
    assert apiserver.wait_for(lambda: apiserver.get("pod", NS, "web-0") is None)


def test_delete_with_a_stale_uid_precondition_is_409(replicas, apiserver, admin):
    code, _, body = admin.request("DELETE", f"/api/v1/namespaces/{NS}/pods/web-0",
                                  {"preconditions": {"uid": "0000"}, "gracePeriodSeconds": 0})
    assert code == 409 and body["reason"] == "Conflict"
    assert "Precondition failed: UID in precondition: 0000" in body["message"]
    assert apiserver.get("pod", NS, "web-0") is not None


def test_device_plugin_replacement(apiserver, admin):
    apiserver.add_node("node-a", allocatable={"intel.com/sriov_rdma": 0})
    old = apiserver.add_device_plugin("kube-system", {"app": "sriovdp"}, "node-a",
                                      allocatable_after={"intel.com/sriov_rdma": 8})
    path = "/api/v1/namespaces/kube-system/pods"
    assert admin.request("DELETE", f"{path}/{old['metadata']['name']}")[0] == 200

    def ready_replacement():
        _, _, body = admin.get(f"{path}?labelSelector=app%3Dsriovdp&fieldSelector=spec.nodeName%3Dnode-a")
        return [p for p in body["items"] if not p["metadata"].get("deletionTimestamp")
                and any(c["type"] == "Ready" and c["status"] == "True"
                        for c in p["status"].get("conditions", []))]
    new = apiserver.wait_for(ready_replacement)
    assert len(new) == 1
    assert new[0]["metadata"]["name"] != old["metadata"]["name"]
    assert new[0]["metadata"]["uid"] != old["metadata"]["uid"]
    assert new[0]["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet"
    assert apiserver.wait_for(lambda: apiserver.get("node", None, "node-a")["status"]
                              ["allocatable"]["intel.com/sriov_rdma"] == "8")
    assert apiserver.device_plugin_replacements() == [new[0]["metadata"]["name"]]


# --- leases ------------------------------------------------------------------------------------

def test_lease_create_get_list_delete(apiserver, admin):
    code, _, lease = admin.request("POST", LEASES, lease_body("slot-0"))
    assert code == 201 and lease["kind"] == "Lease"
    assert lease["apiVersion"] == "coordination.k8s.io/v1"
    assert lease["spec"]["holderIdentity"] == "node-a"
    code, _, body = admin.request("POST", LEASES, lease_body("slot-0", holder="node-b"))
    assert_status(body, 409, "AlreadyExists",
                  'leases.coordination.k8s.io "slot-0" already exists')
    assert body["details"] == {"name": "slot-0", "group": "coordination.k8s.io", "kind": "leases"}
    code, _, lst = admin.get(LEASES)
    assert lst["kind"] == "LeaseList" and [i["metadata"]["name"] for i in lst["items"]] == ["slot-0"]
    code, _, body = admin.request("DELETE", f"{LEASES}/slot-0",
                                  {"preconditions": {"resourceVersion": "999999"}})
    assert code == 409 and "Precondition failed: ResourceVersion" in body["message"]
    code, _, body = admin.request("DELETE", f"{LEASES}/slot-0", {"preconditions": {
        "resourceVersion": lease["metadata"]["resourceVersion"]}})
    assert code == 200 and body["status"] == "Success"
    assert body["details"]["kind"] == "leases" and body["details"]["uid"] == lease["metadata"]["uid"]
    assert admin.get(f"{LEASES}/slot-0")[0] == 404


def test_lease_update_conflict_and_missing_resource_version(apiserver, admin):
    _, _, lease = admin.request("POST", LEASES, lease_body("slot-0"))
    rv = lease["metadata"]["resourceVersion"]
    code, _, updated = admin.request("PUT", f"{LEASES}/slot-0", lease_body("slot-0", rv=rv))
    assert code == 200 and int(updated["metadata"]["resourceVersion"]) > int(rv)
    code, _, body = admin.request("PUT", f"{LEASES}/slot-0", lease_body("slot-0", rv=rv))
    assert_status(body, 409, "Conflict",
                  'Operation cannot be fulfilled on leases.coordination.k8s.io "slot-0": the '
                  'object has been modified; please apply your changes to the latest version '
                  'and try again')
    code, _, body = admin.request("PUT", f"{LEASES}/slot-0", lease_body("slot-0"))
    assert_status(body, 422, "Invalid",
                  'leases.coordination.k8s.io "slot-0" is invalid: metadata.resourceVersion: '
                  'Invalid value: 0x0: must be specified for an update')
    assert body["details"]["causes"] == [{"reason": "FieldValueInvalid", "field":
                                          "metadata.resourceVersion", "message":
                                          "Invalid value: 0x0: must be specified for an update"}]
    # leases allow create-on-update
    code, _, created = admin.request("PUT", f"{LEASES}/slot-1", lease_body("slot-1"))
    assert code == 201 and created["metadata"]["name"] == "slot-1"


@pytest.mark.parametrize("stamp,tail", [
    ("2024-05-01T10:00:00Z", 'cannot parse "Z" as ".000000"'),
    ("2024-05-01T10:00:00.123Z", 'cannot parse ".123Z" as ".000000"'),
    ("2024-05-01T10:00:00.123456789Z", 'cannot parse "789Z" as "Z07:00"'),
])
def test_lease_times_must_be_microtime(apiserver, admin, stamp, tail):
    code, _, body = admin.request("POST", LEASES, lease_body("slot-0", renew=stamp))
    assert code == 400 and body["reason"] == "BadRequest"
    assert body["message"] == ('Lease in version "v1" cannot be handled as a Lease: parsing time '
                               f'"{stamp}" as "2006-01-02T15:04:05.000000Z07:00": {tail}')
    assert apiserver.get("lease", "kube-system", "slot-0") is None


def test_lease_validation_and_time_normalisation(apiserver, admin):
    code, _, body = admin.request("POST", LEASES, lease_body("slot-0", duration=0))
    assert_status(body, 422, "Invalid", 'Lease.coordination.k8s.io "slot-0" is invalid: '
                  'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0')
    code, _, lease = admin.request("POST", LEASES, lease_body(
        "slot-0", renew="2024-05-01T12:00:00.000001+02:00"))
    assert code == 201 and lease["spec"]["renewTime"] == "2024-05-01T10:00:00.000001Z"
    body = lease_body("slot-1")
    body["spec"]["leaseDurationSeconds"] = "30"
    code, _, err = admin.request("POST", LEASES, body)
    assert code == 400 and "cannot unmarshal string" in err["message"]
    code, _, err = admin.request("POST", "/apis/coordination.k8s.io/v1/namespaces/nope/leases",
                                 dict(lease_body("slot-2"), metadata={"name": "slot-2"}))
    assert_status(err, 404, "NotFound", 'namespaces "nope" not found')


def test_leases_held_max(apiserver, admin):
    expired = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    apiserver.add_lease("kube-system", "sriov-persist-slot-1", holder="old", duration=10,
                        renew_time=expired)
    for i, holder in enumerate(("node-a", "node-b")):
        assert admin.request("POST", LEASES, lease_body(f"sriov-persist-slot-{i + 2}",
                                                        holder=holder))[0] == 201
    _, _, lease = admin.get(f"{LEASES}/sriov-persist-slot-2")
    lease["spec"].pop("holderIdentity")
    assert admin.request("PUT", f"{LEASES}/sriov-persist-slot-2", lease)[0] == 200
    assert admin.request("POST", LEASES, lease_body("other", holder="x"))[0] == 201
    assert apiserver.leases_held_max("sriov-persist-slot-") == 2
    assert apiserver.leases_held_max("") == 2
    assert apiserver.leases_held_max("sriov-persist-slot-", namespace="default") == 0
