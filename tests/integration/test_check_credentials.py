# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriovctl check says what k8s-notify would refuse of the Kubeconfig= file, in k8s-notify's own
words: a kubeconfig that others may write (or that is owned by someone else) can never be used,
so no drain runs and a disruptive change that waits for one waits for good."""

import subprocess

import pytest

from conftest import _binary

E810 = "0000:3b:00.0"
LAYOUT = f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=2\n"
KUBECONFIG = "apiVersion: v1\nkind: Config\ncurrent-context: c\n"


@pytest.fixture
def k8s_notify_bin():
    return _binary("K8S_NOTIFY", "build/asan/k8s-notify")


def with_kubeconfig(h, mode, enabled="auto"):
    kc = h.dir / "kubeconfig"
    kc.write_text(KUBECONFIG)
    kc.chmod(mode)
    h.main.write_text(f"[Disruption]\nPolicy=drain\n[Kubernetes]\nEnabled={enabled}\n"
                      f"Kubeconfig={kc}\nNodeName=node1\n")
    h.layout("50-e810.conf", LAYOUT)
    return kc


def refusal(kc, mode, by="everyone"):
    return (f"refusing kubeconfig {kc}: writable by {by} (mode {mode:04o}); chmod go-w it")


@pytest.mark.parametrize("mode,by", [(0o666, "everyone"), (0o620, "its group")])
def test_a_kubeconfig_others_may_write_is_an_error_in_k8s_notify_words(make_host, k8s_notify_bin,
                                                                       mode, by):
    h = make_host("e810.json")
    kc = with_kubeconfig(h, mode)
    r = h.run("check", "--strict")
    assert r.returncode == 1, r
    assert r.stderr.splitlines() == [
        f"[Kubernetes] Kubeconfig=: {refusal(kc, mode, by)} (k8s-notify refuses it, so no node "
        "can be drained and a disruptive change would wait for good)"], r.stderr
    assert r.stdout == "1 layout file(s) and the main configuration checked: 1 error(s)\n"
    # what k8s-notify says of the same file, word for word
    k = subprocess.run([k8s_notify_bin, "--main-config", str(h.main), "credentials"],
                       capture_output=True, text=True, timeout=60)
    assert k.returncode == 1 and refusal(kc, mode, by) in k.stderr, k
    kc.chmod(0o600)
    r = h.run("check", "--strict")
    assert r.returncode == 0 and r.stderr == "", r
    assert r.stdout == "1 layout file(s) and the main configuration checked: 0 error(s)\n"


def test_a_named_main_configuration_is_checked_alike(make_host):
    h = make_host("e810.json")
    kc = with_kubeconfig(h, 0o666)
    main = h.dir / "sriov-persist.conf"
    r = subprocess.run([h.binary, "--no-color", "check", str(main)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1 and refusal(kc, 0o666) in r.stderr, r


def test_not_with_kubernetes_off(make_host):
    h = make_host("e810.json")
    with_kubeconfig(h, 0o666, enabled="no")
    r = h.run("check", "--strict")
    assert r.returncode == 0 and r.stderr == "", r


def test_a_deferred_pf_says_why_the_drain_cannot_run(make_host):
    """apply defers a disruptive change for a drain; status says why that drain cannot run."""
    h = make_host("e810.json")
    kc = with_kubeconfig(h, 0o600, enabled="yes")
    assert h.run("apply").returncode == 0
    h.layout("50-e810.conf", LAYOUT.replace("=2", "=4"))  # a new count destroys the VFs
    wait = ("disruptive changes wait for a drain of this node through Kubernetes ([Disruption] "
            "Policy=drain), which ")
    r = h.run("apply")
    assert r.returncode == 1 and r.stdout == (
        f"{E810} (ens1f0): deferred: {wait}sriov-persistd does\n"), r
    kc.chmod(0o666)
    r = h.run("apply")
    why = f"{wait}cannot run: k8s-notify is {refusal(kc, 0o666)}"
    assert r.returncode == 1 and r.stdout == f"{E810} (ens1f0): deferred: {why}\n", r
    out = h.run("status", E810).stdout
    assert "  deferred  " in out and f"\n    {why}\n" in out, out
