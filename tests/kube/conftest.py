# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fixtures of the real API server tier: one cluster for the whole session (it takes 10-30 s
to start on 2 cores), the stand-in kubelet, the sriov-persist ServiceAccount of
packaging/k8s/rbac.yaml with a token from the TokenRequest API, and per test a `kube` world
(world.Kube) that removes what the test added.

A cluster that cannot start (no ../shared/kube, no etcd, a server that never becomes ready)
fails every test of the tier: it never skips."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the kubeconfig writer and rbac.yaml's reader (tests/k8s); the daemon on a private bus
# (tests/integration: its conftest is imported as the module "conftest", ours is kube.conftest)
for d in (ROOT / "tests" / "k8s", ROOT / "tests" / "integration"):
    if str(d) not in sys.path:
        sys.path.insert(0, str(d))

from apiserver import write_kubeconfig  # noqa: E402
from rbacfile import SA_NAME, SA_NAMESPACE  # noqa: E402

from .cluster import Cluster, ClusterError  # noqa: E402
from .kubelet import Kubelet  # noqa: E402
from .world import RBAC, Kube, Notify  # noqa: E402


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("kube"))
    t = time.monotonic()
    try:
        c.start()
    except (ClusterError, OSError, subprocess.SubprocessError) as e:
        pytest.fail(f"the real Kubernetes control plane did not start: {e}", pytrace=False)
    print(f"\nkube-apiserver {c.url} ready in {time.monotonic() - t:.1f} s ({c.dir})")
    try:
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="session")
def kubelet(cluster):
    k = Kubelet(cluster.admin).start()
    yield k
    k.stop()


@pytest.fixture(scope="session")
def account(cluster):
    """The kubeconfig of the sriov-persist ServiceAccount, made as rbac.yaml's comment tells
    an operator to: the file applied, a token from the TokenRequest API in a tokenFile."""
    admin = cluster.admin
    admin.apply_file(RBAC)
    req = admin.create(f"/api/v1/namespaces/{SA_NAMESPACE}/serviceaccounts/{SA_NAME}/token", {
        "apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
        "spec": {"expirationSeconds": 7200}})
    d = cluster.dir / "sriov-persist"
    d.mkdir()
    token = d / "token"
    token.write_text(req["status"]["token"] + "\n")
    token.chmod(0o600)
    kubeconfig = Path(write_kubeconfig(d / "kubeconfig", cluster.url, cluster.ca,
                                       token_file=str(token)))
    kubeconfig.chmod(0o600)
    return kubeconfig


@pytest.fixture
def kube(cluster, kubelet, account, tmp_path):
    k = Kube(cluster, kubelet, Notify(account, tmp_path))
    yield k
    k.cluster.recover()
    # RBAC never refused the ServiceAccount of rbac.yaml: the shipped rules are enough
    refused = k.audit(decision="forbid")
    errors = list(kubelet.errors)
    kubelet.errors.clear()
    k.cleanup()
    assert not refused, f"requests refused by RBAC: {refused}"
    assert not errors, f"the stand-in kubelet failed: {errors}"
