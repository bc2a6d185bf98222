# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriovctl check says what k8s-notify refuses of the credentials, in k8s-notify's own words (it
asks k8s-notify's "credentials" verb): a kubeconfig that others may write, one that holds a token
and others may read, a missing one outside a pod: none can ever be used, so no drain runs and a
disruptive change that waits for one waits for good. apply and status say the same."""

import json
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import FIXTURES, _binary, run_as_nobody

E810 = "0000:3b:00.0"
LAYOUT = f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=2\n"


def kubeconfig_text(user):
    return ("apiVersion: v1\nkind: Config\ncurrent-context: c\n"
            "clusters:\n- name: k\n  cluster:\n    server: https://kubernetes.example.net:6443\n"
            "contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n"
            f"users:\n- name: u\n  user:\n    {user}\n")


@pytest.fixture
def k8s_notify_bin():
    return _binary("K8S_NOTIFY", "build/asan/k8s-notify")


def with_kubeconfig(h, mode, enabled="auto", user=None):
    kc = h.dir / "kubeconfig"
    token = h.dir / "token"
    token.write_text("abc\n")
    token.chmod(0o600)
    kc.write_text(kubeconfig_text(user or f"tokenFile: {token}"))
    kc.chmod(mode)
    h.main.write_text(f"[Disruption]\nPolicy=drain\n[Kubernetes]\nEnabled={enabled}\n"
                      f"Kubeconfig={kc}\nNodeName=node1\n")
    h.layout("50-e810.conf", LAYOUT)
    return kc


def refusal(kc, mode, by="everyone"):
    return (f"refusing kubeconfig {kc}: writable by {by} (mode {mode:04o}); chmod go-w it")


def check(h, k8s_notify_bin, *args):
    return h.run("--k8s-notify", k8s_notify_bin, "check", "--strict", *args)


@pytest.mark.parametrize("mode,by", [(0o666, "everyone"), (0o620, "its group")])
def test_a_kubeconfig_others_may_write_is_an_error_in_k8s_notify_words(make_host, k8s_notify_bin,
                                                                       mode, by):
    h = make_host("e810.json")
    kc = with_kubeconfig(h, mode)
    r = check(h, k8s_notify_bin)
    assert r.returncode == 1, r
    assert r.stderr.splitlines() == [
        f"{h.main}:5: [Kubernetes] Kubeconfig={kc}: k8s-notify says: {refusal(kc, mode, by)} (so "
        "no node can be drained, and a disruptive change would wait for good)"], r.stderr
    assert r.stdout == "1 layout file(s) and the main configuration checked: 1 error(s)\n"
    # what k8s-notify says of the same file, word for word
    k = subprocess.run([k8s_notify_bin, "--main-config", str(h.main), "credentials"],
                       capture_output=True, text=True, timeout=60)
    assert k.returncode == 1 and refusal(kc, mode, by) in k.stderr, k
    kc.chmod(0o600)
    r = check(h, k8s_notify_bin)
    assert r.returncode == 0 and r.stderr == "", r
    assert r.stdout == "1 layout file(s) and the main configuration checked: 0 error(s)\n"


def test_a_named_main_configuration_is_checked_alike(make_host, k8s_notify_bin):
    h = make_host("e810.json")
    kc = with_kubeconfig(h, 0o666)
    main = h.dir / "sriov-persist.conf"
    assert main == h.main
    r = subprocess.run([h.binary, "--no-color", "--k8s-notify", k8s_notify_bin, "check",
                        str(main)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1 and refusal(kc, 0o666) in r.stderr, r


def test_not_with_kubernetes_off(make_host, k8s_notify_bin):
    h = make_host("e810.json")
    with_kubeconfig(h, 0o666, enabled="no")
    r = check(h, k8s_notify_bin)
    assert r.returncode == 0 and r.stderr == "", r


WAIT = ("disruptive changes wait for a drain of this node through Kubernetes ([Disruption] "
        "Policy=drain), which ")
CHECKED = "1 layout file(s) and the main configuration checked: "


def deferred(h, k8s_notify_bin):
    """apply after a change that destroys the VFs: the PF's deferred line."""
    h.layout("50-e810.conf", LAYOUT)
    assert h.run("--k8s-notify", k8s_notify_bin, "apply").returncode == 0  # VFs made: no drain
    h.layout("50-e810.conf", LAYOUT.replace("=2", "=4"))  # a new count destroys the VFs
    r = h.run("--k8s-notify", k8s_notify_bin, "apply")
    assert r.returncode == 1, r
    return r.stdout


def test_a_deferred_pf_says_why_the_drain_cannot_run(make_host, k8s_notify_bin):
    """apply defers a disruptive change for a drain; status says why that drain cannot run."""
    h = make_host("e810.json")
    kc = with_kubeconfig(h, 0o600, enabled="yes")
    # no sriov-persistd runs for the snapshot, and only it drains
    assert deferred(h, k8s_notify_bin) == (
        f"{E810} (ens1f0): deferred: {WAIT}only sriov-persistd does, and none runs for this "
        "host: nothing drains until one does (start one for it: sriov-persistd --host "
        f"{h.path} --config-dir {h.confdir} --main-config {h.main} --k8s-notify "
        f"{k8s_notify_bin}; see sriov-persistd(8)), or [Disruption] Policy=immediate applies "
        "without a drain\n")
    kc.chmod(0o666)
    why = f"{WAIT}cannot run: k8s-notify says: {refusal(kc, 0o666)}"
    assert deferred(h, k8s_notify_bin) == f"{E810} (ens1f0): deferred: {why}\n"
    out = h.run("status", E810).stdout
    assert "  deferred  " in out and f"\n    {why}\n" in out, out


def k8s_notify_error(k8s_notify_bin, h):
    k = subprocess.run([k8s_notify_bin, "--main-config", str(h.main), "credentials"],
                       capture_output=True, text=True, timeout=60)
    assert k.returncode == 1, k
    return json.loads(k.stdout)["error"]


def assert_refused(h, k8s_notify_bin, error):
    """check says k8s-notify's error, and apply's deferred PF says the drain cannot run."""
    assert k8s_notify_error(k8s_notify_bin, h) == error
    r = check(h, k8s_notify_bin)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{h.main}:5: [Kubernetes] Kubeconfig={h.dir / 'kubeconfig'}: k8s-notify says: {error} "
        "(so no node can be drained, and a disruptive change would wait for good)"], r
    assert r.stdout == CHECKED + "1 error(s)\n", r
    why = f"{WAIT}cannot run: k8s-notify says: {error}"
    assert deferred(h, k8s_notify_bin) == f"{E810} (ens1f0): deferred: {why}\n"


def test_a_kubeconfig_that_holds_a_token_and_others_may_read(make_host, k8s_notify_bin):
    h = make_host("e810.json")
    kc = with_kubeconfig(h, 0o644, enabled="yes", user="token: abc")
    assert_refused(h, k8s_notify_bin,
                   f"refusing kubeconfig (it holds a token) {kc}: readable by everyone (mode "
                   "0644), so the secret in it is no longer one; chmod o-r it (and renew the "
                   "secret)")


def test_a_token_of_a_user_that_is_not_used_is_no_secret_of_ours(make_host, k8s_notify_bin):
    """k8s-notify's rule, not a guess from the text: a token: line of a user that the
    current-context does not use is not read, and the file is not refused for it."""
    h = make_host("e810.json")
    kc = with_kubeconfig(h, 0o644, enabled="yes")
    kc.write_text(kc.read_text() + "- name: other\n  user:\n    token: abc\n")
    r = check(h, k8s_notify_bin)
    assert r.returncode == 0 and r.stderr == "", r


def test_a_token_file_others_may_read(make_host, k8s_notify_bin):
    h = make_host("e810.json")
    with_kubeconfig(h, 0o600, enabled="yes")
    token = h.dir / "token"
    token.chmod(0o644)
    assert_refused(h, k8s_notify_bin,
                   f"refusing token file {token}: readable by everyone (mode 0644), so the "
                   "secret in it is no longer one; chmod o-r it (and renew the secret)")


def test_enabled_without_a_kubeconfig_outside_a_pod(make_host, k8s_notify_bin):
    h = make_host("e810.json")
    kc = with_kubeconfig(h, 0o600, enabled="yes")
    kc.unlink()
    assert_refused(h, k8s_notify_bin,
                   f"no Kubernetes credentials: {kc} does not exist and this is not a pod "
                   "(KUBERNETES_SERVICE_HOST is not set)")


def test_enabled_without_k8s_notify(make_host):
    h = make_host("e810.json")
    with_kubeconfig(h, 0o600, enabled="yes")
    missing = h.dir / "no-k8s-notify"
    r = check(h, str(missing))
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{h.main}:4: [Kubernetes] Enabled=yes: Kubernetes is enabled but k8s-notify is not "
        f"installed ({missing}): install sriov-persist-k8s"], r
    why = (f"{WAIT}cannot run: Kubernetes is enabled but k8s-notify is not installed "
           f"({missing}): install sriov-persist-k8s")
    assert deferred(h, str(missing)) == f"{E810} (ens1f0): deferred: {why}\n"


def test_a_deferred_reset_says_why_the_drain_cannot_run(make_host, k8s_notify_bin):
    h = make_host("e810.json")
    kc = with_kubeconfig(h, 0o644, enabled="yes", user="token: abc")
    assert h.run("--k8s-notify", k8s_notify_bin, "apply").returncode == 0  # VFs made: no drain
    (h.confdir / "50-e810.conf").unlink()
    before = h.path.read_bytes()
    r = h.run("--k8s-notify", k8s_notify_bin, "reset", E810)
    error = k8s_notify_error(k8s_notify_bin, h)
    assert str(kc) in error
    assert r.returncode == 1 and r.stdout == (
        f"{E810} (ens1f0): deferred: resetting what sriov-persist created waits: {WAIT}"
        f"cannot run: k8s-notify says: {error}\n"), r
    assert h.path.read_bytes() == before


def test_the_apply_unit_says_why_the_drain_cannot_run(make_host, k8s_notify_bin):
    """udev-helper apply (the per-PF apply unit) asks k8s-notify as sriovctl does: its status
    record says why the drain cannot run."""
    helper = _binary("SRIOV_UDEV_HELPER", "build/asan/udev-helper")
    h = make_host("e810.json")
    with_kubeconfig(h, 0o600, enabled="yes")
    (h.dir / "token").chmod(0o644)
    assert h.run("--k8s-notify", k8s_notify_bin, "apply").returncode == 0  # VFs made: no drain
    h.layout("50-e810.conf", LAYOUT.replace("=2", "=4"))
    r = subprocess.run([helper, "--k8s-notify", k8s_notify_bin, "--host", str(h.path),
                        "--config-dir", str(h.confdir), "--main-config", str(h.main),
                        "apply", E810], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r
    error = k8s_notify_error(k8s_notify_bin, h)
    assert "refusing token file" in error
    out = h.run("status", E810).stdout
    assert "  deferred  " in out and f"\n    {WAIT}cannot run: k8s-notify says: {error}\n" in out, out


def test_as_another_user_the_refusal_is_a_warning(sriovctl_bin, k8s_notify_bin):
    """k8s-notify's word depends on who runs it (who may read, who owns): the daemon runs it as
    root, so check run by anyone else says what it was told as a warning, and which uid."""
    d = Path(tempfile.mkdtemp(prefix="creds-nobody-"))
    try:
        d.chmod(0o755)
        shutil.copy(FIXTURES / "e810.json", d / "h.json")
        (d / "conf.d").mkdir()
        (d / "conf.d" / "50-e810.conf").write_text(LAYOUT)
        kc = d / "kubeconfig"
        kc.write_text(kubeconfig_text("token: abc"))
        kc.chmod(0o600)  # root's: nobody may not read it
        (d / "main.conf").write_text(f"[Kubernetes]\nEnabled=yes\nKubeconfig={kc}\n"
                                     "NodeName=node1\n")
        for f in ("h.json", "conf.d/50-e810.conf", "main.conf"):
            (d / f).chmod(0o644)
        r = run_as_nobody([sriovctl_bin, "--no-color", "--host", str(d / "h.json"),
                           "--config-dir", str(d / "conf.d"), "--main-config",
                           str(d / "main.conf"), "--runtime-dir", str(d / "run"),
                           "--state-dir", str(d / "lib"), "--k8s-notify", k8s_notify_bin,
                           "check"])
        assert r.returncode == 0 and r.stderr.splitlines() == [
            f"{d / 'main.conf'}:3: warning: [Kubernetes] Kubeconfig={kc}: k8s-notify, run as uid "
            f"{pwd.getpwnam('nobody').pw_uid}, says: cannot "
            f"read kubeconfig {kc}: Permission denied (sriov-persistd runs it as root: check "
            "as root says what it will say)"], r
        assert r.stdout == CHECKED + "0 error(s), 1 warning(s)\n", r
    finally:
        shutil.rmtree(d)


def test_auto_with_a_kubeconfig_set_that_names_nothing(make_host, k8s_notify_bin):
    """Enabled=auto with a Kubeconfig= set by hand means Kubernetes: a path that names nothing
    is an error at its line, and the disruptive change waits for a drain rather than being made
    without one."""
    h = make_host("e810.json")
    kc = with_kubeconfig(h, 0o600)
    kc.unlink()
    r = check(h, k8s_notify_bin)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{h.main}:5: [Kubernetes] Kubeconfig={kc}: No such file or directory; a Kubeconfig= "
        "set with Enabled=auto means Kubernetes, so disruptive changes wait for a drain that "
        "cannot run (fix the path, or set Enabled=no to do without Kubernetes)"], r
    assert r.stdout == CHECKED + "1 error(s)\n", r
    why = (f"{WAIT}cannot run: k8s-notify says: no Kubernetes credentials: {kc} does not exist "
           "and this is not a pod (KUBERNETES_SERVICE_HOST is not set)")
    assert deferred(h, k8s_notify_bin) == f"{E810} (ens1f0): deferred: {why}\n"


@pytest.mark.parametrize("enabled,why", [
    ("no", "[Kubernetes] Enabled=no"),
    ("auto", "[Kubernetes] Enabled=auto found no credentials")])
def test_drain_without_kubernetes_says_so(make_host, enabled, why):
    """Policy=drain where Kubernetes is not enabled: plan and apply say that the disruptive
    change is made without a drain, and why."""
    h = make_host("e810.json")
    h.main.write_text(f"[Disruption]\nPolicy=drain\n[Kubernetes]\nEnabled={enabled}\n")
    h.layout("50-e810.conf", LAYOUT)
    assert h.run("apply").returncode == 0  # VFs made: nothing disruptive
    h.layout("50-e810.conf", LAYOUT.replace("=2", "=4"))  # a new count destroys the VFs
    note = f"  note: disruptive, without a drain: Kubernetes is not enabled ({why})"
    r = h.run("plan")
    assert note in r.stdout.splitlines(), r
    r = h.run("apply")
    assert r.returncode == 0, r
    lines = r.stdout.splitlines()
    assert lines[-2].startswith(f"{E810} (ens1f0): applied, ") and lines[-1] == note, r
    assert lines.count(note) == 1, r
