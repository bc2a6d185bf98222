# SPDX-License-Identifier: LGPL-2.1-or-later
"""packaging/k8s/rbac.yaml is exactly what k8s-notify needs.

The rules bound to the sriov-persist ServiceAccount are granted, as they are written, to the
account's user in the API test server (ClusterRole rules cluster-wide, Role rules only in the
Role's namespace). Then:
  - every verb of k8s-notify succeeds with them (the order the daemon runs them in);
  - every verb/resource of the file was used by some request (nothing more than needed);
  - without any single one of them, some verb fails with a 403 that names it.
"""

import json
import os
import subprocess
import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest

import rbacfile
from apiserver import write_kubeconfig
from rbacfile import LEASE_NAMESPACE, SA_NAMESPACE, SA_NAME, load_permissions

REPO = Path(__file__).resolve().parents[2]
K8S_NOTIFY = os.environ.get("K8S_NOTIFY") or str(REPO / "build" / "k8s-notify")
USER = f"system:serviceaccount:{SA_NAMESPACE}:{SA_NAME}"
GROUPS = ["system:serviceaccounts", f"system:serviceaccounts:{SA_NAMESPACE}"]
TOKEN = "sa-token"
NODE = "node-a"
RES = "intel.com/e810_rdma"
PERMISSIONS = load_permissions()


def perm_id(p):
    res = f"{p.resource}/{p.subresource}" if p.subresource else p.resource
    return f"{p.verb}-{res}" + (f"-in-{p.namespace}" if p.namespace else "")


def grant(srv, perms):
    rbacfile.grant(srv, USER, perms)


def request_group(path):
    """The API group of a request path: "" for /api/v1, GROUP for /apis/GROUP/VERSION."""
    parts = path.split("/")
    return parts[2] if len(parts) > 2 and parts[1] == "apis" else ""


def used_by(p, record):
    return (record["verb"] == p.verb and record["resource"] == p.resource
            and record["subresource"] == p.subresource
            and request_group(record["path"]) == p.group
            and (p.namespace is None or record["namespace"] == p.namespace)
            and record["status"] not in (None, 401, 403))


class Node:
    """A node with pods a drain must go through, a device plugin and k8s-notify's files."""

    def __init__(self, srv, tmp_path):
        if not os.access(K8S_NOTIFY, os.X_OK):
            pytest.fail(f"k8s-notify not built: {K8S_NOTIFY} (set K8S_NOTIFY)")
        self.srv, self.dir = srv, tmp_path
        srv.add_token(TOKEN, USER, GROUPS)
        srv.add_node(NODE, allocatable={RES: 0})
        # a budget blocks db-0 until the delete fallback; web goes by eviction
        srv.add_pod("default", "db-0", NODE, labels={"app": "db"}, owner_kind="StatefulSet",
                    requests={RES: 1})
        srv.add_pdb("default", "db", {"app": "db"}, min_available=1)
        srv.add_pod("default", "web-7d9f-x2x4k", NODE, owner_kind="ReplicaSet",
                    requests={RES: 2})
        srv.add_pod("default", "plain-5c7b-q8z9w", NODE, owner_kind="ReplicaSet",
                    requests={"cpu": "100m"})
        # a pod whose namespace is being deleted: its eviction is refused, the drain reads it
        # (get), and it goes with its namespace
        srv.add_pod("doomed", "job-0", NODE, owner_kind="Job", requests={RES: 1}, grace=100)
        srv.terminate_namespace("doomed", delete_pods_after=0.3, after_first_refusal=True)
        self.plugin = srv.add_device_plugin("kube-system", {"app": "sriovdp"}, NODE,
                                            allocatable_after={RES: 8})["metadata"]["name"]
        # the one slot is another node's until it deletes its Lease, a second after acquire
        # starts: acquire lists, watches, then creates it anew
        srv.add_namespace(LEASE_NAMESPACE)
        srv.add_lease(LEASE_NAMESPACE, "sriov-persist-slot-0", holder="node-z", duration=3600,
                      renew_time=datetime.now(timezone.utc), transitions=0)
        self.kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", srv.url, srv.ca_path,
                                           token=TOKEN)
        self.main_config = tmp_path / "sriov-persist.conf"
        self.configure()

    def configure(self, **extra):
        # the eviction refused in the namespace being deleted is tried again after 5 s
        conf = {"DrainTimeoutSec": 7, "EvictionFallback": "delete", "DrainPods": "sriov",
                "MaxParallelNodes": 1, **extra}
        self.main_config.write_text(
            "[Kubernetes]\n" + "".join(f"{k}={v}\n" for k, v in conf.items()))

    def _slot_given_back(self):
        lease = self.srv.get("lease", LEASE_NAMESPACE, "sriov-persist-slot-0")
        if lease and lease["spec"].get("holderIdentity") == "node-z":
            self.srv.remove("lease", LEASE_NAMESPACE, "sriov-persist-slot-0")

    def run(self, *args):
        if args[:2] == ("lease", "acquire"):
            threading.Timer(1.0, self._slot_given_back).start()
        proc = subprocess.run([K8S_NOTIFY, "--main-config", str(self.main_config),
                               "--kubeconfig", self.kubeconfig, "--node", NODE, *args],
                              capture_output=True, text=True, timeout=120)
        lines = proc.stdout.strip().splitlines()
        assert len(lines) == 1, (proc.returncode, proc.stdout, proc.stderr)
        return proc.returncode, json.loads(lines[0]), proc.stderr


STATE = json.dumps({"applied": 1, "held": 0, "drifted": False, "pending_reboot": False})
# every verb, in the order the daemon runs them around a disruptive change
SEQUENCE = [
    ("lease", "acquire"),
    ("lease", "renew"),
    ("cordon",),
    ("drain", "--resource", RES),
    ("restart-device-plugin", "--expect", f"{RES}=8", "--timeout", "30"),
    ("annotate", "--state", STATE),
    ("uncordon",),
    ("lease", "release"),
]


def test_rbac_file_binds_rules():
    kinds = {p.rule.split()[0] for p in PERMISSIONS}
    assert kinds == {"ClusterRole", "Role"}, PERMISSIONS
    # the Role is namespaced, the ClusterRole is not
    assert all((p.namespace is None) == p.rule.startswith("ClusterRole") for p in PERMISSIONS)


def test_every_verb_succeeds_and_every_rule_is_used(apiserver, tmp_path):
    node = Node(apiserver, tmp_path)
    grant(apiserver, PERMISSIONS)
    results = {}
    for args in SEQUENCE:
        rc, out, err = node.run(*args)
        assert rc == 0 and out["ok"] is True, (args, out, err)
        results[" ".join(args[:2]) if args[0] == "lease" else args[0]] = out

    # the verbs did their work
    assert results["drain"]["evicted"] == ["default/web-7d9f-x2x4k"]
    assert results["drain"]["deleted"] == ["default/db-0"]
    assert results["restart-device-plugin"]["deleted"] == [node.plugin]
    assert results["lease acquire"]["slot"] == results["lease release"]["released"][0]
    n = apiserver.get("node", None, NODE)
    assert not n["spec"].get("unschedulable")
    assert n["metadata"]["annotations"]["sriov-persist.io/applied"] == "1"
    assert "sriov-persist.io/cordoned" not in n["metadata"]["annotations"]
    lease = apiserver.get("lease", LEASE_NAMESPACE, results["lease acquire"]["slot"])
    assert "holderIdentity" not in lease["spec"]

    records = apiserver.records(user=USER)
    # the only 403s are the namespace lifecycle's, for the namespace being deleted
    refused = [r for r in records if r["status"] in (401, 403)
               and not (r["namespace"] == "doomed" and r["subresource"] == "eviction")]
    assert not refused, "refused with the file's rules"
    # read again after the refusal: terminating then, or already gone with its namespace
    assert results["drain"]["terminating"] + results["drain"]["gone"] == ["doomed/job-0"]
    unused = [perm_id(p) for p in PERMISSIONS if not any(used_by(p, r) for r in records)]
    summary = sorted({(r["verb"], r["resource"] + (f"/{r['subresource']}" if r["subresource"]
                                                   else ""), r["namespace"] or "*")
                      for r in records})
    assert not unused, f"rbac.yaml grants what no verb uses: {unused}; used: {summary}"


@pytest.mark.parametrize("removed", PERMISSIONS, ids=perm_id)
def test_without_any_one_permission_a_verb_fails_naming_it(apiserver, tmp_path, removed):
    node = Node(apiserver, tmp_path)
    grant(apiserver, [p for p in PERMISSIONS if p != removed])
    failure = None
    for args in SEQUENCE:
        rc, out, err = node.run(*args)
        if rc != 0:
            failure = (args, rc, out, err)
            break
    assert failure, f"every verb succeeded without {perm_id(removed)}: rbac.yaml grants too much"
    args, rc, out, err = failure
    res = f"{removed.resource}/{removed.subresource}" if removed.subresource else removed.resource
    where = (f'in the namespace "{removed.namespace}"' if removed.namespace else "")
    expected = f'cannot {removed.verb} resource "{res}" in API group "{removed.group}"'
    assert rc == 1 and out["ok"] is False and out["retryable"] is False, failure
    assert "403" in out["error"] and expected in out["error"] and where in out["error"], failure
    assert apiserver.count(user=USER, status=403, verb=removed.verb,
                           resource=removed.resource, subresource=removed.subresource) >= 1


def test_role_rules_hold_only_in_their_namespace(apiserver, tmp_path):
    """Leases outside the Role's namespace are refused: LeaseNamespace= and the Role's
    namespace must agree."""
    lease_ns = {p.namespace for p in PERMISSIONS if p.resource == "leases"}
    assert lease_ns == {LEASE_NAMESPACE}, lease_ns
    node = Node(apiserver, tmp_path)
    grant(apiserver, PERMISSIONS)
    apiserver.add_namespace("sriov-system")
    node.configure(LeaseNamespace="sriov-system")
    rc, out, err = node.run("lease", "acquire")
    assert rc == 1 and "403" in out["error"], (out, err)
    assert 'cannot list resource "leases" in API group "coordination.k8s.io" in the namespace ' \
           '"sriov-system"' in out["error"], out
