# SPDX-License-Identifier: LGPL-2.1-or-later
"""k8s-notify(8): every line on standard error is "k8s-notify: NODE: ...", its failure too;
only what is said before the node is known (usage, the main configuration's errors, a bad node
name) is "k8s-notify: ..."."""

from apiserver import write_kubeconfig
from test_k8s_notify import EXIT_FAIL, NODE, TOKEN


def test_a_refused_secret_names_the_node(tool, apiserver):
    path = tool.dir / "token"
    path.write_text(TOKEN + "\n")
    path.chmod(0o644)
    kc = write_kubeconfig(tool.dir / "kc-file", apiserver.url, apiserver.ca_path,
                          token_file=str(path))
    r = tool.run("cordon", kubeconfig=kc)
    assert r.rc == EXIT_FAIL, r
    assert r.stderr.splitlines() == [
        f"k8s-notify: {NODE}: refusing token file {path}: readable by everyone (mode 0644), "
        "so the secret in it is no longer one; chmod o-r it (and renew the secret)"], r
    assert apiserver.count() == 0


def test_a_kubeconfig_others_may_write_names_the_node(tool, apiserver):
    kc = tool.dir / "kubeconfig"
    kc.chmod(0o666)
    r = tool.run("credentials")
    assert r.rc == EXIT_FAIL, r
    assert r.stderr.splitlines() == [
        f"k8s-notify: {NODE}: refusing kubeconfig {kc}: writable by everyone (mode 0666); "
        "chmod go-w it"], r


def test_before_the_node_is_known_lines_say_no_node(tool):
    tool.main_config.write_text("[Kubernetes]\nDrainTimeoutSec=soon\n")
    r = tool.run("credentials")
    assert r.rc == EXIT_FAIL, r
    lines = r.stderr.splitlines()
    assert len(lines) == 2 and all(line.startswith("k8s-notify: ") for line in lines), r
    assert lines[0].startswith(f"k8s-notify: {tool.main_config}:2: "), r
    assert lines[1] == f"k8s-notify: {tool.main_config}: 1 error(s), see above", r

    tool.configure()
    r = tool.run("credentials", node="Not_A_Node")
    assert r.rc == EXIT_FAIL, r
    assert r.stderr.splitlines() == [
        'k8s-notify: node name "Not_A_Node" is not a DNS subdomain'], r
