# SPDX-License-Identifier: LGPL-2.1-or-later
"""k8s-notify against the in-process Kubernetes API test server (apiserver.py).

The binary comes from $K8S_NOTIFY (default build/k8s-notify). Each test starts its own server
(the `apiserver` fixture of conftest.py), grants the RBAC rules packaging/k8s ships, and runs
the program as the daemon does: JSON on stdout, messages on stderr, exit 0/1/2/75.
"""

import datetime
import json
import os
import signal
import statistics
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import rbacfile
from apiserver import write_kubeconfig
from rbacfile import LEASE_NAMESPACE as LEASE_NS
from fakeapi.certs import CertificateAuthority
from fakeapi.objects import MIRROR_ANNOTATION

REPO = Path(__file__).resolve().parents[2]
K8S_NOTIFY = os.environ.get("K8S_NOTIFY") or str(REPO / "build" / "k8s-notify")
USER = "sriov-persist"
TOKEN = "sriov-persist-token"
NODE = "node-a"
RES = "intel.com/e810_rdma"
SLOT_PREFIX = "sriov-persist-slot-"
EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_TEMPFAIL = 0, 1, 2, 75


def grant_tool(srv, user=USER):
    """Exactly what packaging/k8s/rbac.yaml gives k8s-notify, and the namespace it creates."""
    rbacfile.grant(srv, user)
    srv.add_namespace(LEASE_NS)


class Result:
    def __init__(self, proc):
        self.rc, self.stderr = proc.returncode, proc.stderr
        lines = proc.stdout.strip().splitlines()
        assert len(lines) <= 1, f"more than one line on stdout: {proc.stdout!r}"
        self.json = json.loads(lines[0]) if lines else None

    def __repr__(self):
        return f"rc={self.rc} json={self.json} stderr={self.stderr!r}"


class Tool:
    """Runs k8s-notify with a main config and kubeconfig in tmp_path."""

    def __init__(self, srv, tmp_path):
        if not os.access(K8S_NOTIFY, os.X_OK):
            pytest.fail(f"k8s-notify not built: {K8S_NOTIFY} (set K8S_NOTIFY)")
        self.srv, self.dir = srv, tmp_path
        self.kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", srv.url, srv.ca_path,
                                           token=TOKEN)
        self.main_config = tmp_path / "sriov-persist.conf"
        self.configure()

    def configure(self, **kubernetes):
        lines = ["[Kubernetes]"] + [f"{k}={v}" for k, v in kubernetes.items()]
        self.main_config.write_text("\n".join(lines) + "\n")

    def argv(self, *args, node=NODE, kubeconfig=True):
        argv = [K8S_NOTIFY, "--main-config", str(self.main_config)]
        if kubeconfig:
            argv += ["--kubeconfig", str(kubeconfig if kubeconfig is not True else self.kubeconfig)]
        return argv + ["--node", node, *args]

    def run(self, *args, node=NODE, kubeconfig=True, env=None, timeout=120):
        proc = subprocess.run(self.argv(*args, node=node, kubeconfig=kubeconfig),
                              capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, **(env or {})))
        return Result(proc)

    def start(self, *args, node=NODE):
        return subprocess.Popen(self.argv(*args, node=node), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)


def make_tool(apiserver, tmp_path):
    """The `tool` fixture (conftest.py): our token, rbac.yaml's grants, this node."""
    apiserver.add_token(TOKEN, USER)
    grant_tool(apiserver)
    apiserver.add_node(NODE, allocatable={RES: 0})
    return Tool(apiserver, tmp_path)


def node_state(srv, name=NODE):
    node = srv.get("node", None, name)
    return (bool(node["spec"].get("unschedulable")),
            node["metadata"].get("annotations", {}).get("sriov-persist.io/cordoned"))


def ok(result, op):
    assert result.rc == EXIT_OK, result
    assert result.json["op"] == op and result.json["ok"] is True, result
    assert result.json["node"] == NODE or op == "lease"
    return result.json


def pod_names(srv, node=NODE):
    return sorted(f"{p['metadata']['namespace']}/{p['metadata']['name']}"
                  for p in srv.list("pods") if p["spec"].get("nodeName") == node)


# --- cordon ownership --------------------------------------------------------------------------

def test_cordon_uncordon_own_cordon(tool, apiserver):
    out = ok(tool.run("cordon"), "cordon")
    assert out["owned"] is True and out["changed"] is True
    assert node_state(apiserver) == (True, "true")
    # the patch is a merge patch (plain application/json would be a 415)
    patches = apiserver.records(verb="patch", resource="nodes")
    assert [p["content_type"] for p in patches] == ["application/merge-patch+json"]

    again = ok(tool.run("cordon"), "cordon")
    assert again["owned"] is True and again["changed"] is False
    assert apiserver.count(verb="patch") == 1

    out = ok(tool.run("uncordon"), "uncordon")
    assert out["lifted"] is True
    assert node_state(apiserver) == (False, None)
    # nothing of ours left: a second uncordon writes nothing
    assert ok(tool.run("uncordon"), "uncordon")["lifted"] is False
    assert apiserver.count(verb="patch") == 2


def test_someone_elses_cordon_is_left_alone(tool, apiserver):
    apiserver.add_node("node-b", unschedulable=True)
    out = tool.run("cordon", node="node-b").json
    assert out["ok"] is True and out["owned"] is False and out["changed"] is False
    out = tool.run("uncordon", node="node-b").json
    assert out["ok"] is True and out["lifted"] is False
    assert node_state(apiserver, "node-b") == (True, None)
    assert apiserver.count(verb="patch") == 0


def test_crash_left_cordon_is_undone_by_next_uncordon(tool, apiserver):
    # a drain killed while a budget holds a pod back: the node stays cordoned by us
    apiserver.add_pod("default", "db-0", NODE, labels={"app": "db"}, owner_kind="StatefulSet",
                      requests={RES: 1})
    apiserver.add_pdb("default", "db", {"app": "db"}, min_available=1)
    tool.configure(DrainTimeoutSec=300)
    proc = tool.start("drain", "--resource", RES)
    try:
        assert apiserver.wait_for(lambda: apiserver.count(subresource="eviction", status=429),
                                  timeout=30)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
    assert node_state(apiserver) == (True, "true")
    # the daemon's start: uncordon undoes only our own cordon
    assert ok(tool.run("uncordon"), "uncordon")["lifted"] is True
    assert node_state(apiserver) == (False, None)
    assert pod_names(apiserver) == ["default/db-0"]


# --- credentials and refusals ------------------------------------------------------------------

def test_401_bad_token(tool, apiserver):
    kc = write_kubeconfig(tool.dir / "bad", apiserver.url, apiserver.ca_path, token="wrong")
    r = tool.run("cordon", kubeconfig=kc)
    assert r.rc == EXIT_FAIL, r
    assert r.json["ok"] is False and r.json["retryable"] is False
    assert "401 Unauthorized" in r.json["error"] and "get node node-a" in r.json["error"]
    # what the operator must renew, and where
    assert f"credentials expired or revoked: the API server did not accept the token or " \
           f"client certificate of {kc}" in r.json["error"], r
    assert "401" in r.stderr
    # a final failure is not retried
    assert apiserver.count(status=401) == 1


def test_403_names_verb_and_resource(tool, apiserver):
    apiserver.add_token("viewer-token", "viewer")
    apiserver.grant("viewer", ["get"], "nodes")
    kc = write_kubeconfig(tool.dir / "viewer", apiserver.url, apiserver.ca_path,
                          token="viewer-token")
    r = tool.run("cordon", kubeconfig=kc)
    assert r.rc == EXIT_FAIL, r
    err = r.json["error"]
    assert "403 Forbidden" in err and "patch node node-a" in err
    # the API server's own Status message names the verb and the resource
    assert 'cannot patch resource "nodes"' in err and 'User "viewer"' in err, err
    assert "refused by RBAC" in err
    assert node_state(apiserver) == (False, None)


def test_403_of_an_admission_webhook_is_not_called_rbac(tool, apiserver):
    apiserver.inject_error(403, method="PATCH", message='admission webhook '
                           '"node-guard.example.com" denied the request: nodes are frozen')
    r = tool.run("cordon")
    assert r.rc == EXIT_FAIL, r
    assert r.json["error"] == ('patch node node-a (cordon): 403 Forbidden, refused by admission '
                               'control: '
                               'admission webhook "node-guard.example.com" denied the request: '
                               'nodes are frozen'), r


def test_bad_ca_fails_closed(tool, apiserver):
    other = CertificateAuthority(tool.dir / "other-ca", cn="not-the-cluster-ca")
    kc = write_kubeconfig(tool.dir / "other", apiserver.url, str(other.cert_path), token=TOKEN)
    r = tool.run("cordon", kubeconfig=kc)
    assert r.rc == EXIT_FAIL, r
    assert "server not trusted" in r.json["error"], r
    assert r.json["retryable"] is False
    garbage = tool.dir / "garbage.crt"
    garbage.write_text("not a certificate\n")
    kc = write_kubeconfig(tool.dir / "garbage", apiserver.url, str(garbage), token=TOKEN)
    r = tool.run("cordon", kubeconfig=kc)
    assert r.rc == EXIT_FAIL and "bad CA" in r.json["error"], r
    # no request ever reached the API with a token
    assert apiserver.count() == 0
    assert node_state(apiserver) == (False, None)


def test_insecure_skip_tls_verify_refused(tool, apiserver):
    kc = Path(write_kubeconfig(tool.dir / "insecure", apiserver.url, apiserver.ca_path,
                               token=TOKEN))
    kc.write_text(kc.read_text().replace("- cluster:\n", "- cluster:\n    insecure-skip-tls-verify: true\n"))
    r = tool.run("cordon", kubeconfig=kc)
    assert r.rc == EXIT_FAIL and "insecure-skip-tls-verify" in r.json["error"], r
    assert apiserver.count() == 0


@pytest.mark.parametrize("embed", [False, True])
def test_client_certificate(tool, apiserver, embed):
    cert, key = apiserver.client_cert("cert-user")
    grant_tool(apiserver, "cert-user")
    kc = write_kubeconfig(tool.dir / "cert", apiserver.url, apiserver.ca_path, cert=cert,
                          key=key, embed=embed)
    ok(tool.run("cordon", kubeconfig=kc), "cordon")
    assert apiserver.count(user="cert-user", verb="patch") == 1


def test_in_cluster_service_account(tool, apiserver, tmp_path):
    sa = tmp_path / "serviceaccount"
    sa.mkdir()
    (sa / "token").write_text(TOKEN + "\n")
    (sa / "ca.crt").write_text(Path(apiserver.ca_path).read_text())
    (sa / "namespace").write_text(LEASE_NS)
    tool.configure(Kubeconfig="/nonexistent/kubeconfig")
    port = apiserver.url.rsplit(":", 1)[1]
    env = {"KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": port}
    r = tool.run("cordon", "--service-account-dir", str(sa), kubeconfig=False, env=env)
    ok(r, "cordon")
    (sa / "token").unlink()
    r = tool.run("uncordon", "--service-account-dir", str(sa), kubeconfig=False, env=env)
    assert r.rc == EXIT_FAIL and "cannot read token file" in r.json["error"], r
    # neither a kubeconfig nor a pod: say so
    r = tool.run("uncordon", kubeconfig=False, env={"KUBERNETES_SERVICE_HOST": ""})
    assert r.rc == EXIT_FAIL, r


def test_token_file_missing(tool, apiserver):
    kc = write_kubeconfig(tool.dir / "tf", apiserver.url, apiserver.ca_path,
                          token_file=str(tool.dir / "no-such-token"))
    r = tool.run("cordon", kubeconfig=kc)
    assert r.rc == EXIT_FAIL and "cannot read token file" in r.json["error"], r
    assert "no-such-token" in r.stderr


@pytest.mark.parametrize("fifo", ["token file", "kubeconfig", "CA"])
def test_credentials_that_are_fifos_fail_at_once(tool, apiserver, fifo):
    """A FIFO where a credential belongs (a tokenFile an operator replaced by hand) once blocked
    k8s-notify in open() for ever: it is refused before anything is read, as a socket or a
    device would be. The timeout fails a regression instead of hanging."""
    path = tool.dir / "fifo"
    os.mkfifo(path, 0o600)
    kc = write_kubeconfig(tool.dir / "kc", apiserver.url,
                          str(path) if fifo == "CA" else apiserver.ca_path,
                          token_file=None if fifo == "CA" else str(path),
                          token=TOKEN if fifo == "CA" else None)
    r = tool.run("cordon", kubeconfig=path if fifo == "kubeconfig" else kc, timeout=20)
    assert r.rc == EXIT_FAIL, r
    error = r.json["error"]
    if fifo == "CA":
        assert f"cannot read CA {path}: not a regular file" in error, r
    else:
        assert f"{fifo} {path} is not a regular file" in error, r
    assert apiserver.count() == 0


# --- drain -------------------------------------------------------------------------------------

def populate(srv):
    """A node's pods: one a budget blocks, one free to go, and what a drain must skip."""
    srv.add_pod("default", "db-0", NODE, labels={"app": "db"}, owner_kind="StatefulSet",
                requests={RES: 1})
    srv.add_pdb("default", "db", {"app": "db"}, min_available=1)
    srv.add_pod("default", "web-7d9f-x2x4k", NODE, owner_kind="ReplicaSet",
                requests={RES: 2, "cpu": "100m"})
    srv.add_pod("default", "plain-5c7b-q8z9w", NODE, owner_kind="ReplicaSet",
                requests={"cpu": "100m"})
    srv.add_pod("kube-system", "sriovdp-abcde", NODE, owner_kind="DaemonSet", requests={"cpu": "50m"})
    srv.add_pod("kube-system", "kube-proxy-node-a", NODE,
                annotations={MIRROR_ANNOTATION: "f00d"})
    srv.add_pod("default", "job-1-abcde", NODE, owner_kind="Job", phase="Succeeded",
                requests={RES: 1})
    srv.add_pod("default", "elsewhere", "node-b", requests={RES: 1})


def test_drain_budget_then_fallback_delete(tool, apiserver):
    populate(apiserver)
    tool.configure(DrainTimeoutSec=1, EvictionFallback="delete", DrainPods="sriov")
    out = ok(tool.run("drain", "--resource", RES), "drain")
    assert out["owned"] is True and out["cordon_changed"] is True
    assert out["evicted"] == ["default/web-7d9f-x2x4k"]
    assert out["deleted"] == ["default/db-0"]
    assert out["blocked"] == ["default/db-0"]
    assert out["failed"] == [] and out["remaining"] == []
    assert out["skipped"] == {"mirror": 1, "daemonset": 1, "finished": 1, "not-sriov": 1}
    assert apiserver.count(subresource="eviction", status=429) >= 1
    # with the pod's own grace period: neither the query nor the DeleteOptions set one
    deletes = apiserver.records(method="DELETE", resource="pods")
    assert len(deletes) == 1 and "gracePeriodSeconds" not in deletes[0]["query"]
    assert "gracePeriodSeconds" not in json.loads(deletes[0]["body"])
    assert pod_names(apiserver) == ["default/job-1-abcde", "default/plain-5c7b-q8z9w",
                                    "kube-system/kube-proxy-node-a", "kube-system/sriovdp-abcde"]
    assert pod_names(apiserver, "node-b") == ["default/elsewhere"]
    assert node_state(apiserver) == (True, "true")
    assert ok(tool.run("uncordon"), "uncordon")["lifted"] is True


def test_drain_evicts_only_pods_of_the_resources_named(tool, apiserver):
    """Same vendor prefix, other resources (another PF's, a GPU): not evicted; no resource named
    (no ResourceName= in the layouts): no pod is known to use the VFs, and none is evicted. That
    is no usage error, since sriov-persistd drains so for such a PF, but the result says why."""
    apiserver.add_pod("default", "rdma-0", NODE, owner_kind="StatefulSet", requests={RES: 1})
    apiserver.add_pod("default", "x710-0", NODE, owner_kind="StatefulSet",
                      requests={"intel.com/x710_vf": 1})
    apiserver.add_pod("default", "gpu-0", NODE, owner_kind="StatefulSet",
                      requests={"nvidia.com/gpu": 1})
    tool.configure(DrainPods="sriov", ResourcePrefix="nvidia.com")
    r = tool.run("drain")
    out = ok(r, "drain")
    assert out["evicted"] == [] and out["skipped"]["not-sriov"] == 3, out
    assert out["reason"] == "no resource given: under DrainPods=sriov no pod uses these VFs"
    assert "none is evicted (DrainPods=all evicts every pod)" in r.stderr
    ok(tool.run("uncordon"), "uncordon")
    out = ok(tool.run("drain", "--resource", "intel.com/e810_vf", "--resource", RES), "drain")
    assert out["evicted"] == ["default/rdma-0"], out
    assert "reason" not in out
    assert pod_names(apiserver) == ["default/gpu-0", "default/x710-0"]


def test_drain_fallback_fail_uncordons(tool, apiserver):
    populate(apiserver)
    tool.configure(DrainTimeoutSec=1, EvictionFallback="fail")
    r = tool.run("drain", "--resource", RES)
    assert r.rc == EXIT_FAIL, r
    assert r.json["ok"] is False and r.json["retryable"] is False
    assert r.json["uncordoned"] is True
    assert "EvictionFallback=fail" in r.json["error"] and "default/db-0" in r.json["error"]
    assert [p["pod"] for p in r.json["remaining"]] == ["default/db-0"]
    assert "disruption budget db needs 1 healthy pods" in r.json["remaining"][0]["reason"]
    assert node_state(apiserver) == (False, None)
    assert "default/db-0" in pod_names(apiserver)
    assert apiserver.count(method="DELETE") == 0


def test_drain_fail_keeps_foreign_cordon(tool, apiserver):
    apiserver.modify("node", None, NODE, lambda n: n["spec"].update(unschedulable=True))
    populate(apiserver)
    tool.configure(DrainTimeoutSec=1, EvictionFallback="fail")
    r = tool.run("drain", "--resource", RES)
    assert r.rc == EXIT_FAIL and r.json["owned"] is False, r
    assert "uncordoned" not in r.json
    assert node_state(apiserver) == (True, None)


@pytest.mark.parametrize("mode,evicted", [
    ("sriov", ["default/web-7d9f-x2x4k"]),
    ("all", ["default/plain-5c7b-q8z9w", "default/web-7d9f-x2x4k"]),
])
def test_drain_pods_sriov_vs_all(tool, apiserver, mode, evicted):
    populate(apiserver)
    apiserver.remove("pdb", "default", "db")
    apiserver.remove("pod", "default", "db-0")
    tool.configure(DrainTimeoutSec=10, DrainPods=mode)
    out = ok(tool.run("drain", "--resource", RES), "drain")
    assert sorted(out["evicted"]) == evicted
    assert out["deleted"] == []
    # DaemonSet and mirror pods are never evicted
    evictions = {r["name"] for r in apiserver.records(subresource="eviction")}
    assert evictions == {e.split("/")[1] for e in evicted}
    assert "kube-system/sriovdp-abcde" in pod_names(apiserver)
    assert "kube-system/kube-proxy-node-a" in pod_names(apiserver)


def test_drain_pod_under_two_budgets_fails(tool, apiserver):
    apiserver.add_pod("default", "db-0", NODE, labels={"app": "db", "tier": "x"},
                      owner_kind="StatefulSet", requests={RES: 1})
    apiserver.add_pod("default", "db-1", "node-b", labels={"app": "db", "tier": "x"},
                      owner_kind="StatefulSet", requests={RES: 1})
    apiserver.add_pdb("default", "by-app", {"app": "db"}, max_unavailable=1)
    apiserver.add_pdb("default", "by-tier", {"tier": "x"}, max_unavailable=1)
    tool.configure(DrainTimeoutSec=30, EvictionFallback="delete")
    r = tool.run("drain", "--resource", RES)
    assert r.rc == EXIT_FAIL, r
    assert r.json["failed"][0]["pod"] == "default/db-0"
    assert "more than one PodDisruptionBudget" in r.json["failed"][0]["reason"]
    # reported at once, not retried until the timeout, and not deleted by the fallback
    assert apiserver.count(subresource="eviction", status=500) == 1
    assert apiserver.count(method="DELETE") == 0
    assert r.json["uncordoned"] is True and node_state(apiserver) == (False, None)


def test_drain_delete_now_spares_statefulset_pods(tool, apiserver):
    """EvictionFallback=delete-now deletes what a budget keeps at once, except a StatefulSet
    pod, which is deleted with its grace period: two copies of it must never run."""
    populate(apiserver)
    apiserver.add_pod("default", "cache-6f8d-k2j4h", NODE, labels={"app": "cache"},
                      owner_kind="ReplicaSet", requests={RES: 1})
    apiserver.add_pdb("default", "cache", {"app": "cache"}, min_available=1)
    tool.configure(DrainTimeoutSec=1, EvictionFallback="delete-now")
    out = ok(tool.run("drain", "--resource", RES), "drain")
    assert sorted(out["deleted"]) == ["default/cache-6f8d-k2j4h", "default/db-0"]
    assert sorted(out["blocked"]) == ["default/cache-6f8d-k2j4h", "default/db-0"]
    grace = {r["name"]: r["query"].get("gracePeriodSeconds")
             for r in apiserver.records(method="DELETE", resource="pods")}
    assert grace == {"cache-6f8d-k2j4h": "0", "db-0": None}
    assert "default/db-0" not in pod_names(apiserver)


def test_drain_pods_already_terminating_are_only_awaited(tool, apiserver):
    apiserver.add_pod("default", "old-5d4c-7h8j9", NODE, owner_kind="ReplicaSet",
                      requests={RES: 1}, grace=100)
    with apiserver.cluster.lock:
        apiserver.cluster.delete_pod("default", "old-5d4c-7h8j9")
    out = ok(tool.run("drain", "--resource", RES), "drain")
    assert out["terminating"] == ["default/old-5d4c-7h8j9"] and out["evicted"] == []
    assert apiserver.count(subresource="eviction") == 0
    assert pod_names(apiserver) == []


def test_drain_namespace_terminating_is_waited_for(tool, apiserver):
    """An eviction in a namespace being deleted is a 403 with the cause NamespaceTerminating,
    which is no permission refusal: as kubectl drain does, the pod is looked at and the
    eviction tried again until the namespace controller deletes the pod."""
    apiserver.add_pod("doomed", "app-0", NODE, owner_kind="StatefulSet", requests={RES: 1},
                      grace=600)
    apiserver.terminate_namespace("doomed", delete_pods_after=1.0)
    tool.configure(DrainTimeoutSec=60)
    out = ok(tool.run("drain", "--resource", RES), "drain")
    assert out["terminating"] == ["doomed/app-0"] and out["evicted"] == [], out
    refused = apiserver.records(subresource="eviction", status=403)
    assert refused, apiserver.records(subresource="eviction")
    assert apiserver.count(method="DELETE") == 0
    assert pod_names(apiserver) == []


def test_drain_namespace_terminating_past_the_timeout(tool, apiserver):
    apiserver.add_pod("doomed", "app-0", NODE, owner_kind="StatefulSet", requests={RES: 1})
    apiserver.terminate_namespace("doomed", delete_pods_after=600)
    tool.configure(DrainTimeoutSec=1, EvictionFallback="delete")
    r = tool.run("drain", "--resource", RES)
    assert r.rc == EXIT_TEMPFAIL and r.json["retryable"] is True, r
    assert "unreachable" not in r.json, r  # the server answered: waiting for it cures nothing
    assert "RBAC" not in r.stderr and "RBAC" not in r.json["error"]
    [left] = r.json["remaining"]
    assert left["pod"] == "doomed/app-0"
    assert left["reason"] == ('pods "app-0" is forbidden: unable to create new content in '
                              'namespace doomed because it is being terminated '
                              '(NamespaceTerminating)')
    assert r.json["blocked"] == [] and apiserver.count(method="DELETE") == 0
    # a failure that passes by itself: our cordon stays for the next run
    assert node_state(apiserver) == (True, "true")


@pytest.mark.parametrize("fault", ["webhook", "flow-control"])
def test_drain_refusals_that_are_no_budget_delete_nothing(tool, apiserver, fault):
    """An eviction webhook that cannot be called (500), or the server's own flow control (429
    without a DisruptionBudget cause), keeps pods no budget protects: retried until
    DrainTimeoutSec, then the drain fails for now and EvictionFallback deletes nothing."""
    populate(apiserver)
    if fault == "webhook":
        apiserver.set_eviction_webhook_down("pdb-guard.example.com")
    else:
        apiserver.inject_error(429, count=1000, path=r"/eviction$",
                               message="Too many requests, please try again later.",
                               retry_after=1)
    # a 500 without Retry-After is tried again after 5 s
    tool.configure(DrainTimeoutSec=6, EvictionFallback="delete")
    r = tool.run("drain", "--resource", RES)
    assert r.rc == EXIT_TEMPFAIL and r.json["retryable"] is True, r
    # an eviction's 429 or 500 is the server's answer, not its absence
    assert "unreachable" not in r.json, r
    assert "no budget is why, so none is deleted" in r.json["error"]
    assert sorted(p["pod"] for p in r.json["remaining"]) == ["default/db-0",
                                                             "default/web-7d9f-x2x4k"]
    why = r.json["remaining"][0]["reason"]
    if fault == "webhook":
        assert why.startswith('Internal error occurred: failed calling webhook '
                              '"pdb-guard.example.com": failed to call webhook: Post ')
        assert why.endswith("(500 InternalError)")
    else:
        assert why == "Too many requests, please try again later. (429 TooManyRequests)"
    assert r.json["blocked"] == [] and r.json["deleted"] == []
    assert apiserver.count(method="DELETE") == 0
    assert apiserver.count(subresource="eviction") >= 4  # retried, not given up at once
    assert node_state(apiserver) == (True, "true")

    # once the webhook works again, the budget decides, and the fallback is for it alone
    apiserver.set_eviction_webhook_down(None)
    apiserver.clear_faults()
    out = ok(tool.run("drain", "--resource", RES), "drain")
    assert out["evicted"] == ["default/web-7d9f-x2x4k"] and out["deleted"] == ["default/db-0"]


def test_api_down_mid_drain_then_rerun(tool, apiserver):
    populate(apiserver)
    tool.configure(DrainTimeoutSec=60, EvictionFallback="fail")
    before = set(pod_names(apiserver))
    proc = tool.start("drain", "--resource", RES)
    try:
        assert apiserver.wait_for(
            lambda: apiserver.count(subresource="eviction", status=429)
            and not any(p.endswith("web-7d9f-x2x4k") for p in pod_names(apiserver)), timeout=30)
        apiserver.set_down(True)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    result = json.loads(stdout)
    assert proc.returncode == EXIT_TEMPFAIL, (stdout, stderr)
    assert result["ok"] is False and result["retryable"] is True
    assert result["evicted"] == ["default/web-7d9f-x2x4k"]
    # our cordon stays (the rerun or the daemon's uncordon finishes the job)
    assert node_state(apiserver) == (True, "true")

    apiserver.set_down(False)
    # the budget can now allow the disruption: a second replica is up elsewhere
    apiserver.add_pod("default", "db-1", "node-b", labels={"app": "db"},
                      owner_kind="StatefulSet", requests={RES: 1})
    out = ok(tool.run("drain", "--resource", RES), "drain")
    assert out["owned"] is True and out["cordon_changed"] is False
    assert out["evicted"] == ["default/db-0"]
    ok(tool.run("uncordon"), "uncordon")
    assert node_state(apiserver) == (False, None)
    # nothing lost: exactly the two evictable pods went, each evicted once, nothing deleted
    assert before - set(pod_names(apiserver)) == {"default/db-0", "default/web-7d9f-x2x4k"}
    assert apiserver.count(subresource="eviction", name="web-7d9f-x2x4k", status=201) == 1
    assert apiserver.count(subresource="eviction", name="db-0", status=201) == 1
    assert apiserver.count(method="DELETE") == 0


def test_requests_per_cordon_drain_uncordon_cycle(tool, apiserver):
    for i in range(3):
        apiserver.add_pod("default", f"app-{i}", NODE, owner_kind="ReplicaSet",
                          requests={RES: 1}, grace=1)
    tool.configure(DrainTimeoutSec=30)
    counts = {}
    for verb in ("cordon", "drain", "uncordon"):
        before = apiserver.count(user=USER)
        result = ok(tool.run(verb, *(["--resource", RES] if verb == "drain" else [])), verb)
        counts[verb] = apiserver.count(user=USER) - before
        assert counts[verb] == result["requests"]  # the tool counts what the server saw
    total = sum(counts.values())
    print(f"\nAPI requests for cordon+drain+uncordon with 3 pods: {counts} = {total}")
    # cordon 2 (get, patch), drain 1 (get) + 1 list + 3 evictions + a few lists while the
    # pods terminate, uncordon 2
    assert counts["cordon"] == 2 and counts["uncordon"] == 2
    assert 6 <= counts["drain"] <= 12


# --- device plugin -----------------------------------------------------------------------------

def test_restart_device_plugin(tool, apiserver):
    old = apiserver.add_device_plugin("kube-system", {"app": "sriovdp"}, NODE,
                                      allocatable_after={RES: 8})["metadata"]
    out = ok(tool.run("restart-device-plugin", "--expect", f"{RES}=8", "--timeout", "30"),
             "restart-device-plugin")
    assert out["deleted"] == [old["name"]]
    assert out["new_pod"] != old["name"] and out["new_pod"] in apiserver.device_plugin_replacements()
    assert out["allocatable"][RES] == "8"
    assert apiserver.get("node", None, NODE)["status"]["allocatable"][RES] == "8"


def test_restart_device_plugin_wrong_count_times_out(tool, apiserver):
    apiserver.add_device_plugin("kube-system", {"app": "sriovdp"}, NODE,
                                allocatable_after={RES: 4})
    r = tool.run("restart-device-plugin", "--expect", f"{RES}=8", "--timeout", "2")
    assert r.rc == EXIT_TEMPFAIL, r
    assert f"allocatable {RES} is 4, expected 8" in r.json["error"]


def test_restart_device_plugin_absent(tool, apiserver):
    apiserver.add_device_plugin("kube-system", {"app": "sriovdp"}, "node-b")
    r = tool.run("restart-device-plugin")
    assert r.rc == EXIT_FAIL and "no device-plugin pod on node node-a" in r.json["error"], r
    assert apiserver.count(method="DELETE") == 0


# --- DaemonSet pods that hold the VFs -----------------------------------------------------------

def pod_events(srv, name_prefix):
    """(resourceVersion, what) of a pod's deletion steps, in the server's order: "terminating"
    when its deletionTimestamp was set, "gone" when it left the store."""
    out = []
    with srv.cluster.lock:
        for rv, kind, resource, old, new in srv.cluster.events:
            if resource != "pods" or not new["metadata"]["name"].startswith(name_prefix):
                continue
            if kind == "DELETED":
                out.append((rv, "gone"))
            elif (kind == "MODIFIED" and new["metadata"].get("deletionTimestamp")
                  and not old["metadata"].get("deletionTimestamp")):
                out.append((rv, "terminating"))
    return out


def running_pod(srv, ns, name):
    """The DaemonSet's pod that is not terminating, once the kubelet admitted it."""
    def find():
        pods = [p for p in srv.daemonset_pods(ns, name)
                if not p["metadata"].get("deletionTimestamp")
                and srv.admission(p["metadata"]["uid"]) is not None]
        return pods[0] if len(pods) == 1 else None
    pod = srv.wait_for(find, timeout=10)
    assert pod, srv.daemonset_pods(ns, name)
    return pod


@pytest.mark.parametrize("surge", [False, True], ids=["replace-after-gone", "max-surge"])
def test_drain_evicts_daemonset_pods_that_hold_vfs_last(tool, apiserver, surge):
    """A DPDK DaemonSet that requests the resource must not hold VFs across the change: it is
    evicted (UID precondition) once every other pod is gone. Its DaemonSet puts a new pod on
    the cordoned node at once; other DaemonSet pods are left alone."""
    populate(apiserver)
    tool.configure(DrainTimeoutSec=1, EvictionFallback="delete", DrainPods="sriov")
    old = apiserver.add_daemonset("dpdk", "dpdk-fwd", NODE, requests={RES: 2, "cpu": "2"},
                                  grace=10, max_surge=surge)
    out = ok(tool.run("drain", "--resource", RES), "drain")
    name = old["metadata"]["name"]
    assert out["replaced"] == [f"dpdk/{name}"]
    assert out["evicted"] == ["default/web-7d9f-x2x4k"] and out["deleted"] == ["default/db-0"]
    assert out["remaining"] == [] and out["failed"] == []
    assert out["skipped"]["daemonset"] == 1  # the device plugin requests none of it
    # deleted only once the evicted and the deleted pods were gone
    last_other = max(rv for prefix in ("web-", "db-0") for rv, what in
                     pod_events(apiserver, prefix) if what == "gone")
    mine = pod_events(apiserver, name)
    assert mine[0][1] == "terminating" and mine[0][0] > last_other, (mine, last_other)
    assert mine[-1][1] == "gone"
    eviction = apiserver.records(subresource="eviction", name=name)
    assert len(eviction) == 1 and old["metadata"]["uid"] in eviction[0]["body"]
    assert eviction[0]["status"] == 201 and apiserver.count(method="DELETE", name=name) == 0
    # the DaemonSet controller replaced it on the cordoned node, with the devices of the plugin
    # that ran before the change: restart-device-plugin --resource must replace it again
    new = running_pod(apiserver, "dpdk", "dpdk-fwd")
    assert new["metadata"]["uid"] != old["metadata"]["uid"]
    assert apiserver.get("node", None, NODE)["spec"]["unschedulable"] is True
    assert apiserver.admission(new["metadata"]["uid"]) == 0


def test_drain_daemonset_pods_without_the_resource_stay(tool, apiserver):
    tool.configure(DrainPods="all")
    apiserver.add_daemonset("monitoring", "node-exporter", NODE, requests={"cpu": "100m"})
    apiserver.add_daemonset("dpdk", "other-nic", NODE, requests={"nvidia.com/cx7_vf": 1})
    holder = apiserver.add_daemonset("dpdk", "dpdk-fwd", NODE, requests={RES: 1})
    out = ok(tool.run("drain", "--resource", RES), "drain")
    assert out["replaced"] == [f"dpdk/{holder['metadata']['name']}"]
    assert out["skipped"]["daemonset"] == 2 and out["evicted"] == []
    assert apiserver.count(method="DELETE") == 0 and apiserver.count(subresource="eviction") == 1
    # without --resource no DaemonSet pod holds anything of ours
    tool.configure(DrainPods="all")
    assert ok(tool.run("drain"), "drain")["replaced"] == []


def test_drain_that_fails_leaves_daemonset_pods(tool, apiserver):
    """A drain that does not empty the node does not touch the DaemonSet pods: they keep
    their VFs as long as the VFs stay."""
    apiserver.add_pod("default", "db-0", NODE, labels={"app": "db"}, owner_kind="StatefulSet",
                      requests={RES: 1})
    apiserver.add_pdb("default", "db", {"app": "db"}, min_available=1)
    holder = apiserver.add_daemonset("dpdk", "dpdk-fwd", NODE, requests={RES: 1})
    tool.configure(DrainTimeoutSec=1, EvictionFallback="fail")
    r = tool.run("drain", "--resource", RES)
    assert r.rc == EXIT_FAIL and "EvictionFallback=fail" in r.json["error"], r
    assert r.json["replaced"] == []
    name = holder["metadata"]["name"]
    assert r.json["remaining"] == [
        {"pod": "default/db-0", "reason": r.json["remaining"][0]["reason"]},
        {"pod": f"dpdk/{name}", "reason": "a DaemonSet pod that requests the resources: "
                                          "evicted once the other pods are gone"}]
    assert apiserver.count(method="DELETE") == 0 and r.json["uncordoned"] is True
    assert apiserver.count(subresource="eviction", name=name) == 0


def test_drain_daemonset_pods_under_a_budget(tool, apiserver):
    """A budget over a CNF DaemonSet (one pod of it down somewhere in the cluster) keeps its
    pod here too: the eviction is refused, and EvictionFallback=fail gives up without having
    touched it; with delete, it is deleted with its grace period after DrainTimeoutSec."""
    holder = apiserver.add_daemonset("cnf", "upf", NODE, requests={RES: 2},
                                     labels={"app": "upf"})
    name = holder["metadata"]["name"]
    apiserver.add_pdb("cnf", "upf", {"app": "upf"}, min_available=1)
    tool.configure(DrainTimeoutSec=1, EvictionFallback="fail")
    r = tool.run("drain", "--resource", RES)
    assert r.rc == EXIT_FAIL and "EvictionFallback=fail" in r.json["error"], r
    assert r.json["blocked"] == [f"cnf/{name}"] and r.json["replaced"] == []
    assert apiserver.count(method="DELETE") == 0
    assert apiserver.get("pod", "cnf", name)["metadata"].get("deletionTimestamp") is None
    tool.configure(DrainTimeoutSec=1, EvictionFallback="delete")
    out = ok(tool.run("drain", "--resource", RES), "drain")
    assert out["replaced"] == [f"cnf/{name}"] and out["blocked"] == [f"cnf/{name}"]
    delete = apiserver.records(method="DELETE", name=name)
    assert len(delete) == 1 and "gracePeriodSeconds" not in delete[0]["body"]


def test_drain_waits_for_a_terminating_daemonset_pod(tool, apiserver):
    # 600 s of grace is 6 s of real time: a loaded machine still finds the pod terminating
    holder = apiserver.add_daemonset("dpdk", "dpdk-fwd", NODE, requests={RES: 1}, grace=600)
    name = holder["metadata"]["name"]
    with apiserver.cluster.lock:
        apiserver.cluster.delete_pod("dpdk", name)
    out = ok(tool.run("drain", "--resource", RES), "drain")
    assert out["terminating"] == [f"dpdk/{name}"] and out["replaced"] == []
    assert apiserver.count(method="DELETE") == 0


def test_restart_device_plugin_replaces_daemonset_pods_again(tool, apiserver):
    """The whole change as the daemon runs it: drain, (the VFs change), restart the plugin.
    The DPDK pod that runs afterwards got its devices from the plugin started after the change,
    never from the one before."""
    apiserver.add_device_plugin("kube-system", {"app": "sriovdp"}, NODE,
                                allocatable_after={RES: 4}, replace_after_gone=True)
    apiserver.add_daemonset("dpdk", "dpdk-fwd", NODE, requests={RES: 1})
    ok(tool.run("drain", "--resource", RES), "drain")
    stale = running_pod(apiserver, "dpdk", "dpdk-fwd")
    assert apiserver.admission(stale["metadata"]["uid"]) == 0
    out = ok(tool.run("restart-device-plugin", "--expect", f"{RES}=4", "--resource", RES,
                      "--timeout", "30"), "restart-device-plugin")
    assert out["replaced"] == [f"dpdk/{stale['metadata']['name']}"]
    assert apiserver.plugin_registration(NODE) == 1
    fresh = running_pod(apiserver, "dpdk", "dpdk-fwd")
    assert fresh["metadata"]["uid"] != stale["metadata"]["uid"]
    assert apiserver.admission(fresh["metadata"]["uid"]) == 1
    # deleted after the plugin registered: its allocatable was written first
    node_rv = max(rv for rv, kind, res, old, new in apiserver.cluster.events
                  if res == "nodes" and new["status"]["allocatable"].get(RES) == "4"
                  and (old or {}).get("status", {}).get("allocatable", {}).get(RES) != "4")
    assert pod_events(apiserver, stale["metadata"]["name"])[0][0] > node_rv


def test_restart_device_plugin_without_resource_keeps_stale_pods(tool, apiserver):
    """The control: without --resource the pod admitted before the change stays, with
    devices of the plugin before."""
    apiserver.add_device_plugin("kube-system", {"app": "sriovdp"}, NODE,
                                allocatable_after={RES: 4})
    pod = apiserver.add_daemonset("dpdk", "dpdk-fwd", NODE, requests={RES: 1})
    out = ok(tool.run("restart-device-plugin", "--expect", f"{RES}=4", "--timeout", "30"),
             "restart-device-plugin")
    assert "replaced" not in out
    assert running_pod(apiserver, "dpdk", "dpdk-fwd")["metadata"]["uid"] == pod["metadata"]["uid"]
    assert apiserver.admission(pod["metadata"]["uid"]) == 0 != apiserver.plugin_registration(NODE)


# --- answers no kube-apiserver gives ---------------------------------------------------------

@pytest.mark.parametrize("headers,message", [
    # one line of 5 MB: libcurl 7.88 says only "Out of memory", which was final
    ({"X-Big": "a" * (5 << 20)}, "a response header line beyond libcurl's bound of 100 KiB"),
    # headers without end: beyond libcurl's 300 KiB in all
    ({f"X-Header-{i}": "b" * 100 for i in range(4000)}, ""),
], ids=["one-5MB-line", "endless"])
def test_response_headers_too_large_are_temporary(tool, apiserver, headers, message):
    """Response headers libcurl will not take are a server (or proxy) in trouble, as a
    connection that breaks is: the run fails for now, once the server had answered after every
    attempt, at its first request at once (its caller waits for the server)."""
    apiserver.inject_answer(200, headers, b"{}", count=100)
    r = tool.run("cordon")
    assert r.rc == EXIT_TEMPFAIL and r.json["retryable"] is True, r
    assert "Out of memory" not in r.json["error"] and message in r.json["error"], r
    assert r.json["unreachable"] is True, r
    assert r.json["unanswered"] == 1 and apiserver.count() == 1
    assert node_state(apiserver) == (False, None)
    # after an answer (the GET of the node), the PATCH is tried 5 times
    apiserver.clear_faults()
    apiserver.inject_answer(200, headers, b"{}", count=100, method="PATCH")
    r = tool.run("cordon")
    assert r.rc == EXIT_TEMPFAIL and r.json["unreachable"] is True, r
    assert r.json["unanswered"] == 5 and r.json["requests"] == 1, r


def test_redirect_is_not_followed_and_says_where(tool, apiserver):
    """A redirect (a proxy, a moved server) would take our credentials elsewhere: it is a final
    failure that names the status and where it points, for a request and for a watch."""
    apiserver.inject_answer(302, {"Location": "https://elsewhere.example/api/v1/nodes/node-a",
                                  "Content-Type": "text/html; charset=utf-8"},
                            b'<a href="https://elsewhere.example/api/v1/nodes/node-a">Found</a>.\n',
                            verb="get")
    r = tool.run("cordon")
    assert r.rc == EXIT_FAIL and r.json["retryable"] is False, r
    assert r.json["error"] == ("get node node-a: 302 Found: redirects are not followed "
                               "(Location: https://elsewhere.example/api/v1/nodes/node-a)"), r
    assert apiserver.count() == 1 and node_state(apiserver) == (False, None)
    tool.configure(MaxParallelNodes=1)
    apiserver.add_lease(LEASE_NS, SLOT_PREFIX + "0", holder="node-z", duration=3600,
                        renew_time=datetime.datetime.now(datetime.timezone.utc))
    apiserver.inject_answer(307, {"Location": "/readyz"}, verb="watch")
    r = tool.run("lease", "acquire", "--timeout", "10")
    assert r.rc == EXIT_FAIL, r
    assert r.json["error"].endswith(": 307 Temporary Redirect: redirects are not followed "
                                    f"(Location: {apiserver.url}/readyz)"), r


# --- leases ------------------------------------------------------------------------------------

def test_lease_take_over_expired_keep_ours_and_busy(tool, apiserver):
    tool.configure(MaxParallelNodes=1)
    apiserver.add_lease(LEASE_NS, SLOT_PREFIX + "0", holder="node-z", duration=10,
                        renew_time="2020-01-01T00:00:00.000000Z", transitions=2)
    out = ok(tool.run("lease", "acquire"), "lease")
    assert out["slot"] == SLOT_PREFIX + "0" and out["already"] is False
    spec = apiserver.get("lease", LEASE_NS, SLOT_PREFIX + "0")["spec"]
    assert spec["holderIdentity"] == NODE and spec["leaseTransitions"] == 3
    assert len(spec["renewTime"]) == 27 and spec["renewTime"].endswith("Z")
    assert ok(tool.run("lease", "acquire"), "lease")["already"] is True
    assert ok(tool.run("lease", "renew"), "lease")["slot"] == SLOT_PREFIX + "0"

    r = tool.run("lease", "acquire", "--timeout", "2", node="node-b")
    assert r.rc == EXIT_TEMPFAIL and r.json["retryable"] is True, r
    assert "unreachable" not in r.json, r
    assert f"{SLOT_PREFIX}0 ({NODE})" in r.json["error"]
    r = tool.run("lease", "renew", node="node-b")
    assert r.rc == EXIT_FAIL and "holds no slot" in r.json["error"], r
    # release by someone else changes nothing
    assert ok(tool.run("lease", "release", node="node-b"), "lease")["released"] == []
    assert ok(tool.run("lease", "release"), "lease")["released"] == [SLOT_PREFIX + "0"]
    assert "holderIdentity" not in apiserver.get("lease", LEASE_NS, SLOT_PREFIX + "0")["spec"]


def test_lease_1000_node_rollout_with_3_slots(tool, apiserver):
    """A rollout over 1,000 nodes, 32 at a time, with MaxParallelNodes=3: never more than 3
    hold a slot, and the Leases are watched, not polled: at most 8 requests per node on
    average (acquire and release) and 20 at worst."""
    nodes, slots, workers = 1000, 3, 32
    tool.configure(MaxParallelNodes=slots)

    def cycle(i):
        node = f"node-{i:03d}"
        acq = tool.run("lease", "acquire", "--timeout", "300", node=node, timeout=400)
        assert acq.rc == EXIT_OK, acq
        time.sleep(0.05)  # the disruptive work
        rel = tool.run("lease", "release", "--slot", acq.json["slot"], node=node)
        assert rel.rc == EXIT_OK and rel.json["released"] == [acq.json["slot"]], rel
        return acq.json["requests"], rel.json["requests"], acq.json["attempts"]

    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(cycle, range(nodes)))
    per_node = [a + r for a, r, _ in results]
    acquire = [a for a, _, _ in results]
    attempts = [n for _, _, n in results]
    held_max = apiserver.leases_held_max(SLOT_PREFIX)
    print(f"\n{nodes} nodes, {slots} slots, {workers} at once: held at most {held_max}; "
          f"requests per node (acquire+release) mean {statistics.mean(per_node):.1f} "
          f"max {max(per_node)}; acquire mean {statistics.mean(acquire):.1f} max {max(acquire)}; "
          f"writes tried mean {statistics.mean(attempts):.1f} max {max(attempts)}")
    assert len(results) == nodes
    assert 1 <= held_max <= slots
    # every request the server saw is one a node counted
    assert apiserver.count(user=USER) == sum(per_node)
    # a list, a watch, the write that won (and the few that lost), and the release
    assert statistics.mean(per_node) <= 8
    assert max(per_node) <= 20
    assert all(r <= 2 for _, r, _ in results)  # release --slot: get + put
    for i in range(slots):
        lease = apiserver.get("lease", LEASE_NS, f"{SLOT_PREFIX}{i}")
        assert lease is None or "holderIdentity" not in lease["spec"]


def test_lease_list_without_resource_version(tool, apiserver):
    """kube-apiserver gives every list a resourceVersion, from which a watch sees every change
    after it. A LeaseList without one (a proxy that rewrites answers) cannot be watched from:
    the run fails for good with its JSON result (it once crashed on it), holding nothing, and
    opens no watch. A list that shows a slot free needs no watch: that slot is taken."""
    tool.configure(MaxParallelNodes=1)
    apiserver.add_lease(LEASE_NS, SLOT_PREFIX + "0", holder="node-z", duration=3600,
                        renew_time=datetime.datetime.now(datetime.timezone.utc))
    apiserver.inject_rewrite(lambda o: o["metadata"].pop("resourceVersion"), count=10,
                             verb="list", path="/leases$")
    r = tool.run("lease", "acquire", "--timeout", "5")
    assert r.rc == EXIT_FAIL and r.json["ok"] is False and r.json["retryable"] is False, r
    assert "the LeaseList has no metadata.resourceVersion to watch from" in r.json["error"], r
    assert apiserver.count(verb="list") == 1 and apiserver.count(verb="watch") == 0
    assert apiserver.get("lease", LEASE_NS, SLOT_PREFIX + "0")["spec"]["holderIdentity"] == \
        "node-z"
    apiserver.remove("lease", LEASE_NS, SLOT_PREFIX + "0")
    out = ok(tool.run("lease", "acquire", "--timeout", "5"), "lease")
    assert out["slot"] == SLOT_PREFIX + "0" and apiserver.count(verb="watch") == 0


def test_lease_watch_ended_at_once_is_opened_again_after_a_backoff(tool, apiserver):
    """An API server that ends every watch at once (200, an empty body): the watch is opened
    again after 0.5-1 s, then 1-2, 2-4, 4-8 s... (before, at once: 203 watches in 10 s, each
    on a new TLS connection). While every slot is held for 10 s that is 4 or 5 watches, and
    the backoff never delays what is planned: the slot is taken when its holder's time runs
    out, not when the backoff ends."""
    held = 10
    tool.configure(MaxParallelNodes=1)
    apiserver.add_lease(LEASE_NS, SLOT_PREFIX + "0", holder="node-z", duration=held,
                        renew_time=datetime.datetime.now(datetime.timezone.utc))
    start = time.monotonic()
    apiserver.inject_watch_end(count=1000000, verb="watch")
    out = ok(tool.run("lease", "acquire", "--timeout", "60"), "lease")
    took = time.monotonic() - start
    assert out["slot"] == SLOT_PREFIX + "0" and out["already"] is False
    watches = apiserver.records(verb="watch")
    assert 3 <= len(watches) <= 5, [w["time"] - watches[0]["time"] for w in watches]
    gaps = [b["time"] - a["time"] for a, b in zip(watches, watches[1:])]
    assert all(g >= 0.45 * 2 ** i for i, g in enumerate(gaps)), gaps
    assert held - 0.5 <= took < held + 3, took
    assert apiserver.get("lease", LEASE_NS, SLOT_PREFIX + "0")["spec"]["holderIdentity"] == NODE


# --- annotate and usage ------------------------------------------------------------------------

def test_annotate_publishes_state(tool, apiserver):
    state = {"applied": 2, "held": 0, "drifted": False, "pending_reboot": True,
             "pending_reboot_reasons": ["firmware NUM_OF_VFS on 0000:3b:00.0"]}
    out = ok(tool.run("annotate", "--state", json.dumps(state)), "annotate")
    ann = apiserver.get("node", None, NODE)["metadata"]["annotations"]
    assert ann["sriov-persist.io/applied"] == "2"
    assert ann["sriov-persist.io/drifted"] == "false"
    assert ann["sriov-persist.io/pending-reboot"] == "true"
    assert json.loads(ann["sriov-persist.io/pending-reboot-reasons"]) == \
        state["pending_reboot_reasons"]
    assert out["annotations"]["sriov-persist.io/held"] == "0"
    ok(tool.run("annotate", "--state", '{"pending_reboot": null}'), "annotate")
    ann = apiserver.get("node", None, NODE)["metadata"]["annotations"]
    assert "sriov-persist.io/pending-reboot" not in ann and "sriov-persist.io/applied" in ann
    r = tool.run("annotate", "--state", '{"cordoned": "true"}')
    assert r.rc == EXIT_FAIL and "reserved" in r.json["error"], r
    assert node_state(apiserver) == (False, None)
    # the label a device-plugin DaemonSet selects SR-IOV nodes by: set, then removed
    label = "feature.node.kubernetes.io/network-sriov.capable"
    out = ok(tool.run("annotate", "--state", '{"network-sriov-capable": true}'), "annotate")
    assert out["annotations"] == {label: "true"}
    node = apiserver.get("node", None, NODE)["metadata"]
    assert node["labels"][label] == "true"
    assert "sriov-persist.io/network-sriov-capable" not in node["annotations"]
    ok(tool.run("annotate", "--state", '{"network-sriov-capable": false}'), "annotate")
    assert label not in (apiserver.get("node", None, NODE)["metadata"].get("labels") or {})
    # a failed patch lists no annotations: the node carries none of them
    apiserver.inject_error(422, method="PATCH")
    r = tool.run("annotate", "--state", json.dumps(state))
    assert r.rc == EXIT_FAIL and "annotations" not in r.json, r


def test_requests_count_only_what_reached_the_server(tool, apiserver):
    apiserver.set_down(True)
    r = tool.run("cordon", "--timeout", "2")
    assert r.rc == EXIT_TEMPFAIL, r
    # a server that never answered is tried once: whoever runs us waits for it
    assert r.json["requests"] == 0 and r.json["unanswered"] == 1, r
    assert r.json["unreachable"] is True and "retry_after" not in r.json, r
    assert "Couldn't connect" in r.stderr, r
    apiserver.set_down(False)
    out = ok(tool.run("cordon"), "cordon")
    assert out["requests"] == 2 and out["unanswered"] == 0 and "unreachable" not in out


def test_unreachable_is_quiet_when_asked(tool, apiserver):
    apiserver.set_down(True)
    r = tool.run("--quiet-unreachable", "cordon")
    assert r.rc == EXIT_TEMPFAIL and r.json["unreachable"] is True, r
    assert r.stderr == "", r
    apiserver.set_down(False)
    # any other failure is still said
    apiserver.inject_error(403, path=r"/nodes/")
    r = tool.run("--quiet-unreachable", "cordon")
    assert r.rc == EXIT_FAIL and "403 Forbidden" in r.stderr, r
    assert "unreachable" not in r.json, r


@pytest.mark.parametrize("code,retry_after", [(503, 7), (429, 3), (500, 0)])
def test_unavailable_first_answer_is_not_retried(tool, apiserver, code, retry_after):
    """Only 429 or 5xx and nothing else: the server is not there yet, one attempt; its
    Retry-After goes to the caller."""
    apiserver.inject_error(code, count=5, retry_after=retry_after, path=r"/nodes/")
    r = tool.run("cordon")
    assert r.rc == EXIT_TEMPFAIL, r
    assert r.json["unreachable"] is True and r.json["requests"] == 1, r
    assert r.json.get("retry_after", 0) == retry_after, r
    assert apiserver.count(status=code) == 1


def test_server_gone_during_a_run_is_unreachable(tool, apiserver):
    """Answered at first, then gone for longer than the run's retries: the run says so, as the
    caller then waits for the server rather than counting a failure of the step."""
    apiserver.inject_down(30, method="PATCH", path=r"/nodes/")
    r = tool.run("cordon", "--timeout", "10")
    assert r.rc == EXIT_TEMPFAIL and r.json["unreachable"] is True, r
    assert r.json["requests"] >= 1 and r.json["unanswered"] >= 2, r


def test_rbac_refusal_while_the_server_starts_is_temporary(tool, apiserver):
    """kube-apiserver refuses everything as RBAC would for a moment after it starts (its /readyz
    too), then says it is not ready: such a 403 is no refusal of ours to give up on."""
    apiserver.set_starting("refusing", then="unready")
    r = tool.run("cordon")
    assert r.rc == EXIT_TEMPFAIL and r.json["unreachable"] is True, r
    assert "403 Forbidden while the API server is starting" in r.json["error"], r
    apiserver.set_starting(None)
    ok(tool.run("cordon"), "cordon")
    # ready while k8s-notify asks: the refusal it had may be from before, tried again later
    apiserver.set_starting("refusing", then=None)
    r = tool.run("uncordon")
    assert r.rc == EXIT_TEMPFAIL and r.json["unreachable"] is True, r
    ok(tool.run("uncordon"), "uncordon")


def test_rbac_refusal_of_a_ready_server_stands(tool, apiserver):
    apiserver.revoke(USER)
    r = tool.run("cordon")
    assert r.rc == EXIT_FAIL and "refused by RBAC" in r.json["error"], r
    assert "unreachable" not in r.json, r
    # asked once whether the server is ready
    assert apiserver.count(path="/readyz") == 1
    # an RBAC that hides /readyz as well: the refusal stands, after about a second
    apiserver.set_starting("refusing")
    t = time.monotonic()
    r = tool.run("cordon")
    assert r.rc == EXIT_FAIL and "refused by RBAC" in r.json["error"], r
    assert apiserver.count(path="/readyz") == 6 and time.monotonic() - t < 5


def test_lease_namespace_missing_is_final(tool, apiserver):
    """LeaseNamespace= that names no namespace (rbac.yaml not applied, a typo): no slot can
    ever be had there, which is said at once, not as "all slots held" after the timeout."""
    tool.configure(LeaseNamespace="sriov-missing", MaxParallelNodes=1)
    # RBAC allows it (a Role can name a namespace that does not exist)
    apiserver.grant(USER, ["get", "list", "watch", "create", "update"],
                    "coordination.k8s.io/leases", namespace="sriov-missing")
    t = time.monotonic()
    r = tool.run("lease", "acquire", "--timeout", "30")
    assert r.rc == EXIT_FAIL, r
    assert "the namespace sriov-missing does not exist" in r.json["error"], r
    assert time.monotonic() - t < 10 and r.json["requests"] <= 3, r


def test_blip_after_an_answer_is_retried(tool, apiserver):
    """Once the server has answered, a 503 in the middle of a run is retried within it."""
    apiserver.inject_error(503, count=2, method="PATCH", path=r"/nodes/")
    out = ok(tool.run("cordon"), "cordon")
    assert out["requests"] == 4, out
    assert apiserver.count(status=503) == 2


@pytest.mark.parametrize("args", [
    [], ["frobnicate"], ["lease"], ["lease", "grab"], ["annotate"], ["cordon", "extra"],
    ["cordon", "--expect", "a=1"], ["restart-device-plugin", "--expect", "nocount"],
    ["lease", "acquire", "--slot", SLOT_PREFIX + "0"], ["--timeout", "soon", "cordon"],
    ["--main-config", "/nonexistent/sriov-persist.conf", "cordon"],
    ["drain", "--resource", "e810_rdma"], ["drain", "--resource", "intel.com/"],
    ["cordon", "--resource", RES],
])
def test_usage_errors(tool, apiserver, args):
    r = tool.run(*args)
    assert r.rc == EXIT_USAGE, r
    assert r.stderr
    assert apiserver.count() == 0


@pytest.mark.parametrize("args,named", [
    (["drain", "--resource", RES, "--slot", SLOT_PREFIX + "0"], "--slot"),
    (["restart-device-plugin", "--resource", RES, "--expect", f"{RES}=4", "--state", "{}"],
     "--state"),
    (["cordon", "--resource", RES], "--resource"),
])
def test_usage_error_names_only_what_does_not_apply(tool, apiserver, args, named):
    """An option given to a verb that does not take it is named, with the verbs it is for; the
    options the verb does take are not (drain --resource was once told it did not apply)."""
    r = tool.run(*args)
    assert r.rc == EXIT_USAGE and r.json is None, r
    assert f"k8s-notify: {args[0]}: {named} does not apply to {args[0]}, only to " in r.stderr
    others = {"--expect", "--state", "--slot", "--resource"} - {named}
    assert not [o for o in others if o in r.stderr], r.stderr
    assert apiserver.count() == 0
