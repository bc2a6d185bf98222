# SPDX-License-Identifier: LGPL-2.1-or-later
"""The sixteenth fresh-eyes trial: the daemon's ConfigErrors holds the errors of the rules that
need only the files, as sriovctl check says them (F1); no message names a [Kubernetes] key that
no file sets, and every one about a key that is set names its file:line (F4); check says the
errors of a file in line order (F5)."""

import subprocess

import pytest

from conftest import _binary

E810 = "0000:3b:00.0"

# Rules of the files alone: a key that needs another (SharedWith= without ExternallyManaged=yes),
# VFs beyond VirtualFunctions=, QualityOfService= without a VLAN, a MAC given to two VFs; and,
# last, an unknown key that the parser reports before the rules run.
RULES = (f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=2\n"
         "SharedWith=NetworkManager\n[VirtualFunction 0-3]\nTrust=yes\n[VirtualFunction 0]\n"
         "QualityOfService=3\nMACAddress=02:00:00:00:00:01\n[VirtualFunction 1]\n"
         "MACAddress=02:00:00:00:00:01\n")
# A file that selects no PF of this host: its rules are checked all the same.
ELSEWHERE = ("[Match]\nPCIAddress=0000:99:00.0\n[VirtualFunction 0]\nQualityOfService=2\n")


def rules_errors(p):
    return [
        f"{p}:5: SharedWith=NetworkManager: needs ExternallyManaged=yes, so that sriov-persist "
        "leaves the VF count to NetworkManager and configures only the VFs it makes",
        f"{p}:6: [VirtualFunction 0-3]: VFs 2-3 are beyond VirtualFunctions=2",
        f"{p}:9: VF 0: QualityOfService=3 needs a VLANId= other than 0",
        f"{p}:12: MACAddress=02:00:00:00:00:01: VF 0 and VF 1 would have the same address "
        "(VF 0's at line 10)"]


def check_without_host(h):
    """sriovctl check of the files alone, as a user with only the man pages runs it."""
    return subprocess.run([h.binary, "--no-color", "--config-dir", str(h.confdir),
                           "--main-config", str(h.main), "check"],
                          capture_output=True, text=True, timeout=60)


def test_check_says_the_errors_of_a_file_in_line_order(make_host):
    """F5: the unknown key of the last line, which the parser reports first, comes after the
    errors of the rules at the lines above it."""
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", RULES + "SpoofCheck=maybe\n")
    want = rules_errors(p) + [
        f"{p}:13: unknown key 'SpoofCheck' in [VirtualFunction 1]; did you mean "
        "'MACSpoofCheck'?"]
    r = check_without_host(h)
    assert r.returncode == 1 and r.stderr.splitlines() == want, r.stderr
    r = h.run("check")
    lines = [int(s.split(":")[1]) for s in r.stderr.splitlines() if s.startswith(f"{p}:")]
    assert lines == sorted(lines) and 13 in lines, r.stderr


def test_config_errors_are_what_check_says(make_host, start_daemon, bus_client):
    """F1: the daemon's ConfigErrors holds the errors of the rules of the files alone, in check's
    words and order, also of a file that selects no PF of this host."""
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", RULES + "SpoofCheck=maybe\n")
    q = h.layout("60-elsewhere.conf", ELSEWHERE)
    r = check_without_host(h)
    said = r.stderr.splitlines()
    assert (f"{q}:4: VF 0: QualityOfService=2 needs a VLANId= other than 0 (on every PF where no "
            "other file sets VLANId=)") in said, said
    mine = [s for s in said if s.startswith(f"{p}:")]
    # with a file of another [Match], each says on which PFs it holds
    assert len(mine) == 5 and all(m.startswith(e) for m, e in zip(mine, rules_errors(p))), said
    start_daemon(h)
    assert bus_client.get("ConfigErrors") == said


def test_config_errors_of_rules_alone(make_host, start_daemon, bus_client):
    """F1: a file with no error of the parser, only errors of the rules: each in ConfigErrors
    with its file:line, and gone once the file is fixed and reloaded."""
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", RULES)
    start_daemon(h)
    assert bus_client.get("ConfigErrors") == rules_errors(p)
    assert check_without_host(h).stderr.splitlines() == rules_errors(p)
    h.layout("50-e810.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n")
    bus_client.call("Reload")
    assert bus_client.get("ConfigErrors") == []


@pytest.fixture
def k8s_notify_bin():
    return _binary("K8S_NOTIFY", "build/asan/k8s-notify")


def kubeconfig(h, mode=0o600):
    kc = h.dir / "kubeconfig"
    kc.write_text("apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n"
                  "  cluster:\n    server: https://kubernetes.example.net:6443\ncontexts:\n"
                  "- name: c\n  context:\n    cluster: k\n    user: u\nusers:\n- name: u\n"
                  "  user:\n    token: abc\n")
    kc.chmod(mode)
    return kc


NOT_INSTALLED = "Kubernetes is enabled but k8s-notify is not installed ({}): install sriov-persist-k8s"


def check_main(h, k8s_notify, main):
    h.main.write_text(main)
    h.layout("50-e810.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n")
    r = h.run("--k8s-notify", str(k8s_notify), "check")
    assert "Enabled=:" not in r.stderr + r.stdout, r
    return r


def test_kubeconfig_alone_is_named_not_enabled(make_host):
    """F4: Kubeconfig= alone enables Kubernetes (auto): the error is at the Kubeconfig= line and
    says that no file sets Enabled=, instead of "[Kubernetes] Enabled=: ..." at no line."""
    h = make_host("e810.json")
    kc = kubeconfig(h)
    missing = h.dir / "no-k8s-notify"
    r = check_main(h, missing, f"[Kubernetes]\nNodeName=node1\nKubeconfig={kc}\n")
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{h.main}:3: [Kubernetes] Kubeconfig={kc}: {NOT_INSTALLED.format(missing)}, or set "
        f"Enabled=no to do without Kubernetes ([Kubernetes] Enabled= is not set in any of: "
        f"{h.main}, so auto, the default, applies, and auto takes a Kubeconfig= that is set for "
        "Kubernetes)"], r


def test_an_empty_enabled_is_said_as_empty(make_host):
    """F4: an Enabled= with an empty value is the default, auto: said as written, at its line."""
    h = make_host("e810.json")
    kc = kubeconfig(h)
    missing = h.dir / "no-k8s-notify"
    dropins = h.dir / "sriov-persist.conf.d"
    dropins.mkdir()
    (dropins / "10-k8s.conf").write_text("[Kubernetes]\nEnabled=\n")
    r = check_main(h, missing, f"[Kubernetes]\nEnabled=yes\nKubeconfig={kc}\n")
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{h.main}:3: [Kubernetes] Kubeconfig={kc}: {NOT_INSTALLED.format(missing)}, or set "
        f"Enabled=no to do without Kubernetes ([Kubernetes] Enabled= is empty at "
        f"{dropins / '10-k8s.conf'}:2, so auto, the default, applies, and auto takes a "
        "Kubeconfig= that is set for Kubernetes)"], r


def test_enabled_yes_is_named_with_its_value(make_host):
    h = make_host("e810.json")
    missing = h.dir / "no-k8s-notify"
    r = check_main(h, missing, "[Kubernetes]\nNodeName=node1\nEnabled=true\n")
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{h.main}:3: [Kubernetes] Enabled=true: {NOT_INSTALLED.format(missing)}"], r


def test_node_name_alone_enables_nothing(make_host):
    """F4: NodeName= alone (no credentials) says nothing of Kubernetes in check; a disruptive
    plan under Policy=drain says that Enabled= is not set, not "Enabled=auto"."""
    h = make_host("e810.json")
    r = check_main(h, h.dir / "no-k8s-notify",
                   "[Disruption]\nPolicy=drain\n[Kubernetes]\nNodeName=node1\n")
    assert r.returncode == 0 and r.stderr == "", r
    assert h.run("apply").returncode == 0
    h.layout("50-e810.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\n"
             "VirtualFunctions=4\n")
    out = h.run("plan").stdout
    assert ("note: disruptive, without a drain: Kubernetes is not enabled ([Kubernetes] "
            "Enabled= is not set, and auto, its default, found no credentials)") in out, out
    assert "Enabled=auto" not in out, out


def test_what_k8s_notify_says_is_at_the_kubeconfig_line(make_host, k8s_notify_bin):
    """F4: k8s-notify's refusal of a Kubeconfig= that a file sets is said at that line, with the
    key's value, not as "[Kubernetes] Kubeconfig=:" at no line."""
    h = make_host("e810.json")
    kc = kubeconfig(h, 0o666)
    r = check_main(h, k8s_notify_bin, f"[Kubernetes]\nEnabled=yes\nNodeName=node1\n"
                   f"Kubeconfig={kc}\n")
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{h.main}:4: [Kubernetes] Kubeconfig={kc}: k8s-notify says: refusing kubeconfig {kc}: "
        "writable by everyone (mode 0666); chmod go-w it (so no node can be drained, and a "
        "disruptive change would wait for good)"], r
