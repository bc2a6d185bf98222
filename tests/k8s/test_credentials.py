# SPDX-License-Identifier: LGPL-2.1-or-later
"""k8s-notify with kubeconfig exec credential plugins (client.authentication.k8s.io), the way
EKS, GKE, AKS and OIDC clusters hand out credentials, against the API test server."""

import base64
import json
import os
import shutil
import stat
import time
from pathlib import Path

import pytest

from apiserver import write_kubeconfig
from test_k8s_notify import EXIT_FAIL, EXIT_TEMPFAIL, NODE, USER, Tool, grant_tool, ok

PLUGIN = Path(__file__).resolve().parent / "exec_plugin.py"
V1 = "client.authentication.k8s.io/v1"


class Exec:
    """A copy of the test plugin in tmp_path (root-owned, mode 0755 as installed) and a
    kubeconfig that runs it."""

    def __init__(self, srv, tmp_path):
        self.srv, self.dir = srv, tmp_path
        self.plugin = tmp_path / "bin" / "get-token"
        self.plugin.parent.mkdir()
        shutil.copy(PLUGIN, self.plugin)
        self.plugin.chmod(0o755)
        self.log = tmp_path / "plugin.log"
        self.tool = Tool(srv, tmp_path)
        srv.add_node(NODE)
        grant_tool(srv)

    def kubeconfig(self, env=None, **fields):
        spec = {"apiVersion": V1, "command": str(self.plugin), "interactiveMode": "Never"}
        spec.update(fields)
        spec["env"] = dict({"PLUGIN_LOG": str(self.log)}, **(env or {}))
        return write_kubeconfig(self.dir / "kubeconfig-exec", self.srv.url, self.srv.ca_path,
                                exec_=spec)

    def run(self, *args, env=None, kubeconfig=None, **fields):
        return self.tool.run(*args, kubeconfig=kubeconfig or self.kubeconfig(env, **fields))

    def runs(self):
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


@pytest.fixture
def ex(apiserver, tmp_path):
    return Exec(apiserver, tmp_path)


def test_plugin_token_without_a_shell(ex, apiserver):
    """The command runs directly: its arguments reach it as they are written, a shell would
    have run the $(...) in them. Never interactive: stdin is at its end."""
    apiserver.add_token("exec-token", USER)
    marker = ex.dir / "shell-ran"
    args = ["token", "--cluster", f"$(touch {marker})", "a b;c"]
    out = ok(ex.run("cordon", args=args), "cordon")
    assert out["changed"] is True
    runs = ex.runs()
    assert len(runs) == 1 and runs[0]["argv"] == args
    assert not marker.exists()
    assert runs[0]["info"] == {"kind": "ExecCredential", "apiVersion": V1,
                               "spec": {"interactive": False}}
    assert runs[0]["stdin_eof"] is True
    assert all(r["user"] == USER for r in apiserver.requests)


def test_plugin_cluster_info_and_v1beta1(ex, apiserver):
    apiserver.add_token("exec-token", USER)
    ok(ex.run("cordon", apiVersion="client.authentication.k8s.io/v1beta1",
              interactiveMode="IfAvailable", provideClusterInfo="true"), "cordon")
    info = ex.runs()[0]["info"]
    assert info["apiVersion"] == "client.authentication.k8s.io/v1beta1"
    cluster = info["spec"]["cluster"]
    assert cluster["server"] == apiserver.url
    assert base64.b64decode(cluster["certificate-authority-data"]) == \
        Path(apiserver.ca_path).read_bytes()


def test_plugin_cached_until_it_expires(ex, apiserver):
    """One run serves every request of a run while its credential is valid; one that has
    expired is renewed before each request."""
    apiserver.add_token("exec-token", USER)
    apiserver.add_pod("default", "web-1", NODE, owner_kind="ReplicaSet")
    out = ok(ex.run("drain", env={"PLUGIN_EXPIRES": "3600"}), "drain")
    assert out["requests"] >= 3 and len(ex.runs()) == 1
    ex.log.unlink()
    out = ok(ex.run("uncordon", env={"PLUGIN_EXPIRES": "-10"}), "uncordon")
    assert len(ex.runs()) == 1 + out["requests"], (ex.runs(), out)


def test_plugin_renewed_on_401(ex, apiserver):
    """A token the server no longer takes (revoked, or expired early) is renewed once and the
    request sent again, as kubectl does."""
    apiserver.add_token("new-token", USER)
    out = ok(ex.run("cordon", env={"PLUGIN_TOKENS": "old-token,new-token"}), "cordon")
    assert len(ex.runs()) == 2
    assert apiserver.count(status=401) == 1 and out["requests"] == apiserver.count()
    # a plugin that keeps giving a refused token: renewed once per call, then the 401 stands
    ex.log.unlink()
    r = ex.run("uncordon", env={"PLUGIN_TOKENS": "bad-token"})
    assert r.rc == EXIT_FAIL and "credentials expired or revoked" in r.json["error"], r
    assert f"that the exec plugin {ex.plugin} gave (kubeconfig " in r.json["error"], r
    assert len(ex.runs()) == 2


def test_plugin_client_certificate(ex, apiserver):
    cert, key = apiserver.client_cert(USER)
    ok(ex.run("cordon", env={"PLUGIN_MODE": "cert", "PLUGIN_CERT": cert, "PLUGIN_KEY": key}),
       "cordon")
    assert apiserver.requests and all(r["user"] == USER for r in apiserver.requests)


def test_plugin_token_after_a_client_certificate(ex, apiserver):
    """A plugin renewed (its credential expired) that gives a token where it gave a client
    certificate before: the certificate is dropped, and the token is what the server sees."""
    cert, key = apiserver.client_cert(USER)
    apiserver.add_token("exec-token", USER)
    out = ok(ex.run("cordon", env={"PLUGIN_MODE": "cert,token", "PLUGIN_CERT": cert,
                                   "PLUGIN_KEY": key, "PLUGIN_EXPIRES": "-10"}), "cordon")
    assert len(ex.runs()) == 1 + out["requests"], (ex.runs(), out)
    assert apiserver.requests and all(r["user"] == USER for r in apiserver.requests)


@pytest.mark.parametrize("mode,rc,message", [
    ("fail", EXIT_TEMPFAIL, "failed: error: could not get a token: the identity service is "
                            "unreachable"),
    ("flood", EXIT_FAIL, "more than 256 KiB of output, refused"),
    ("garbage", EXIT_FAIL, "its output is not a JSON object"),
    ("other-version", EXIT_FAIL, f"not an ExecCredential of {V1}"),
])
def test_plugin_failures(ex, apiserver, mode, rc, message):
    r = ex.run("cordon", env={"PLUGIN_MODE": mode})
    assert r.rc == rc and message in r.json["error"], r
    assert str(ex.plugin) in r.json["error"]
    assert apiserver.count() == 0
    if mode == "fail":  # its own words reach our standard error (the journal)
        assert f"k8s-notify: {NODE}: exec plugin {ex.plugin}: error: could not get a token" \
            in r.stderr


def test_plugin_noisy_on_stderr_still_gives_its_credential(ex, apiserver):
    """Its standard error is for messages only, bounded apart from the credential: 1 MiB of
    log lines fails nothing (it counted against the 256 KiB of output once), and the journal
    gets its last 64 KiB, from a line's start, after a note of what was dropped."""
    apiserver.add_token("exec-token", USER)
    r = ex.run("cordon", env={"PLUGIN_MODE": "noisy"})
    out = ok(r, "cordon")
    assert out["changed"] is True
    lines = [line for line in r.stderr.splitlines() if f"exec plugin {ex.plugin}: " in line]
    assert ": (its standard error was long: the first " in lines[0], lines[0]
    assert lines[-1].endswith(": info: token issued")
    assert lines[1].endswith("." * 47) and len(lines) - 1 <= (64 << 10) // 64


def test_plugin_that_hangs_is_killed(ex, apiserver):
    start = time.monotonic()
    r = ex.tool.run("--request-timeout", "1", "cordon",
                    kubeconfig=ex.kubeconfig({"PLUGIN_MODE": "hang"}))
    assert r.rc == EXIT_TEMPFAIL and "no credential within 1 s, killed" in r.json["error"], r
    assert time.monotonic() - start < 10
    pgid = ex.runs()[0]["pgid"]
    assert pgid == ex.runs()[0]["pid"]  # its own process group, so that all of it goes

    def group_gone():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        return False
    assert apiserver.wait_for(group_gone, timeout=5), "the plugin's child outlived it"


def test_plugin_relative_to_the_kubeconfig(ex, apiserver):
    """A relative command is the kubeconfig's, whatever directory k8s-notify runs in; PATH
    entries that are not absolute are never searched."""
    apiserver.add_token("exec-token", USER)
    kc = ex.kubeconfig(command="./bin/get-token")
    r = ex.tool.run("cordon", kubeconfig=kc)
    assert r.rc == 0, r
    r = ex.tool.run("uncordon", kubeconfig=ex.kubeconfig(command="get-token"),
                    env={"PATH": "bin:.:"})
    assert r.rc == EXIT_FAIL and "get-token: not found in PATH" in r.json["error"], r


def test_plugin_refused_before_it_runs(ex, apiserver):
    # not found: the kubeconfig's installHint says what to install
    r = ex.run("cordon", command="no-such-get-token", installHint="apt install get-token")
    assert r.rc == EXIT_FAIL and "not found in PATH: apt install get-token" in r.json["error"], r
    # a program that someone else may change is not run as root
    ex.plugin.chmod(0o775)
    r = ex.run("cordon")
    assert r.rc == EXIT_FAIL, r
    assert "refused, writable by its group (mode 0775); chmod go-w it" in r.json["error"], r
    assert not ex.runs()
    ex.plugin.chmod(0o755)
    # needs a terminal
    r = ex.run("cordon", interactiveMode="Always")
    assert r.rc == EXIT_FAIL and "without a terminal" in r.json["error"], r
    assert apiserver.count() == 0 and not ex.runs()


def test_plugin_found_in_path(ex, apiserver):
    apiserver.add_token("exec-token", USER)
    kc = ex.kubeconfig(command="get-token")
    r = ex.tool.run("cordon", kubeconfig=kc,
                    env={"PATH": f"{ex.plugin.parent}:{os.environ.get('PATH', '')}"})
    assert r.rc == 0, r
    assert len(ex.runs()) == 1
    assert stat.S_IMODE(ex.plugin.stat().st_mode) == 0o755


# --- tokens that expire ------------------------------------------------------------------------

def jwt(issued, expires, sub="system:serviceaccount:sriov-persist:sriov-persist"):
    """A token shaped as kubectl create token makes it (the signature is made up: the API test
    server knows its tokens by their text)."""
    def b64u(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")
    return ".".join([b64u({"alg": "RS256", "kid": "test"}),
                     b64u({"aud": ["https://kubernetes.default.svc"], "exp": int(expires),
                           "iat": int(issued), "iss": "https://kubernetes.default.svc",
                           "sub": sub}),
                     "c2lnbmF0dXJl"])


def test_token_that_expires_soon_warns(tool, apiserver):
    """A bound token from kubectl create token lasts an hour and nothing renews it in a
    kubeconfig: every run says so, in its result and on standard error (the journal)."""
    now = time.time()
    token = jwt(now - 60, now + 3540)
    apiserver.add_token(token, USER)
    kc = write_kubeconfig(tool.dir / "kc-jwt", apiserver.url, apiserver.ca_path, token=token)
    out = ok(tool.run("cordon", kubeconfig=kc), "cordon")
    cred = out["credentials"]
    assert cred["kind"] == "token" and cred["source"] == kc
    assert cred["expires"].startswith(time.strftime("%Y-%m-%dT%H:%M:", time.gmtime(now + 3540)))
    assert "expires at" in cred["warning"] and "nothing renews it" in cred["warning"]
    r = tool.run("credentials", kubeconfig=kc)
    assert r.rc == 0 and r.json["credentials"] == cred, r
    assert r.json["requests"] == 0 and "warning: the token of" in r.stderr
    assert apiserver.count() == 2  # the cordon's get and patch; `credentials` asks nothing


def test_token_file_read_at_every_run(tool, apiserver):
    """A token file is read at every run: a kubelet or an operator that writes a new one is
    heard at once. Quiet while it has more than a fifth of its life left."""
    now = time.time()
    first, second = jwt(now - 600, now + 3000), jwt(now - 3000, now + 600)
    apiserver.add_token(first, USER)
    path = tool.dir / "token"
    path.write_text(first + "\n")
    path.chmod(0o600)
    kc = write_kubeconfig(tool.dir / "kc-file", apiserver.url, apiserver.ca_path,
                          token_file=str(path))
    out = ok(tool.run("cordon", kubeconfig=kc), "cordon")
    assert out["credentials"]["kind"] == "token-file"
    assert out["credentials"]["source"] == str(path) and out["credentials"]["warning"] is None
    # revoked and replaced: the next run uses the new one, which has 10 of its 60 min left
    apiserver.remove_token(first)
    apiserver.add_token(second, USER)
    path.write_text(second + "\n")
    out = ok(tool.run("uncordon", kubeconfig=kc), "uncordon")
    assert "the token in the file" in out["credentials"]["warning"]
    assert "has not been renewed" in out["credentials"]["warning"]


def test_token_expired_says_so(tool, apiserver):
    now = time.time()
    token = jwt(now - 7200, now - 3600)
    kc = write_kubeconfig(tool.dir / "kc-old", apiserver.url, apiserver.ca_path, token=token)
    r = tool.run("cordon", kubeconfig=kc)
    assert r.rc == EXIT_FAIL and "credentials expired or revoked" in r.json["error"], r
    assert "expired at" in r.json["credentials"]["warning"]


def test_exec_plugin_credentials_reported(ex, apiserver):
    apiserver.add_token("exec-token", USER)
    r = ex.run("credentials", env={"PLUGIN_EXPIRES": "900"})
    assert r.rc == 0, r
    cred = r.json["credentials"]
    assert cred["kind"] == "exec" and cred["source"] == str(ex.plugin)
    assert cred["expires"] and cred["warning"] is None and cred["plugin_runs"] == 1
    assert apiserver.count() == 0


def test_client_certificate_expiry(tool, apiserver):
    """A client certificate says until when it is valid: reported, and warned of once it has
    less than a fifth of its life left (at most 30 days); here, after it expired."""
    from cryptography import x509
    cert, key = apiserver.client_cert(USER)
    kc = write_kubeconfig(tool.dir / "kc-cert", apiserver.url, apiserver.ca_path, cert=cert,
                          key=key)
    out = ok(tool.run("cordon", kubeconfig=kc), "cordon")
    cred = out["credentials"]
    not_after = x509.load_pem_x509_certificate(Path(cert).read_bytes()).not_valid_after
    assert cred["kind"] == "client-certificate" and cred["source"] == kc
    assert cred["expires"] == not_after.strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    assert cred["warning"] is None
    old_cert, old_key = apiserver.client_cert("sriov-persist-old", expired=True)
    kc = write_kubeconfig(tool.dir / "kc-old-cert", apiserver.url, apiserver.ca_path,
                          cert=old_cert, key=old_key)
    r = tool.run("credentials", kubeconfig=kc)
    assert r.rc == 0 and r.json["requests"] == 0, r
    assert f"the client certificate of {kc} expired at" in r.json["credentials"]["warning"]
    # a server that checks it in the TLS handshake: no retry cures that
    r = tool.run("cordon", kubeconfig=kc)
    assert r.rc == EXIT_FAIL and r.json["retryable"] is False, r
    assert "our client certificate expired at" in r.json["error"], r
    assert r.json["unanswered"] == 1, r


def test_token_beside_a_client_certificate(tool, apiserver):
    """Both are sent; what is reported is what expires first: the certificate beside a token
    that never expires, the token when it is an hour's JWT."""
    cert, key = apiserver.client_cert(USER)
    kc = write_kubeconfig(tool.dir / "kc-both", apiserver.url, apiserver.ca_path,
                          token="static-token", cert=cert, key=key)
    cred = ok(tool.run("credentials", kubeconfig=kc), "credentials")["credentials"]
    assert cred["kind"] == "client-certificate" and cred["expires"]
    now = time.time()
    kc = write_kubeconfig(tool.dir / "kc-both-jwt", apiserver.url, apiserver.ca_path,
                          token=jwt(now - 60, now + 3540), cert=cert, key=key)
    cred = ok(tool.run("credentials", kubeconfig=kc), "credentials")["credentials"]
    assert cred["kind"] == "token" and "nothing renews it" in cred["warning"]


# --- packaging/k8s/kubeconfig.example ---------------------------------------------------------

EXAMPLE = Path(__file__).resolve().parents[2] / "packaging" / "k8s" / "kubeconfig.example"


def filled_example(directory, server, ca, token_file=None, cert=None, key=None):
    """The shipped example with its FILL IN values replaced as its comments say, and for a client
    certificate its commented lines taken instead of tokenFile."""
    text = EXAMPLE.read_text()
    for placeholder, value in (("https://kubernetes.example.net:6443", server),
                               ("/etc/sriov-persist/kubernetes-ca.crt", ca)):
        assert text.count(f": {placeholder}\n") == 1, placeholder
        text = text.replace(f": {placeholder}\n", f": {value}\n")
    if token_file:
        assert text.count("    tokenFile: /etc/sriov-persist/token\n") == 1
        text = text.replace("tokenFile: /etc/sriov-persist/token", f"tokenFile: {token_file}")
    else:
        text = text.replace("    tokenFile: /etc/sriov-persist/token\n", "")
        for field, value in (("client-certificate", cert), ("client-key", key)):
            line = f"    # {field}: /etc/sriov-persist/client.{'crt' if 'cert' in field else 'key'}\n"
            assert text.count(line) == 1, line
            text = text.replace(line, f"    {field}: {value}\n")
    path = directory / "kubeconfig"
    path.write_text(text)
    path.chmod(0o600)
    return path


def test_shipped_example_kubeconfig_with_a_token_file(tool, apiserver):
    token = tool.dir / "token"
    token.write_text("example-token\n")
    token.chmod(0o600)
    apiserver.add_token("example-token", USER)
    kc = filled_example(tool.dir, apiserver.url, apiserver.ca_path, token_file=token)
    r = tool.run("credentials", kubeconfig=kc)
    assert r.rc == 0 and r.json["requests"] == 0, r
    assert r.json["credentials"]["kind"] == "token-file", r
    assert r.json["credentials"]["source"] == str(token), r
    # and the API server takes it, with the rules of the shipped rbac.yaml
    assert ok(tool.run("cordon", kubeconfig=kc), "cordon")["changed"] is True
    assert ok(tool.run("uncordon", kubeconfig=kc), "uncordon")["lifted"] is True


def test_shipped_example_kubeconfig_with_a_client_certificate(tool, apiserver):
    cert, key = apiserver.client_cert(USER)
    os.chmod(key, 0o600)
    kc = filled_example(tool.dir, apiserver.url, apiserver.ca_path, cert=cert, key=key)
    r = tool.run("credentials", kubeconfig=kc)
    assert r.rc == 0 and r.json["credentials"]["kind"] == "client-certificate", r
    assert ok(tool.run("cordon", kubeconfig=kc), "cordon")["changed"] is True


def test_secrets_readable_by_everyone_are_refused(tool, apiserver):
    """A token file or client key that everyone may read is refused, as ssh refuses such a
    private key; so is a kubeconfig that holds a token or key itself. Its group may read it
    (an administrator's choice of readers). The service account's files are the kubelet's."""
    apiserver.add_token(TOKEN_OTHERS, USER)
    path = tool.dir / "token"
    path.write_text(TOKEN_OTHERS + "\n")
    path.chmod(0o644)
    kc = write_kubeconfig(tool.dir / "kc-file", apiserver.url, apiserver.ca_path,
                          token_file=str(path))
    r = tool.run("cordon", kubeconfig=kc)
    assert r.rc == EXIT_FAIL, r
    assert r.json["error"] == (f"refusing token file {path}: readable by everyone (mode 0644), "
                               "so the secret in it is no longer one; chmod o-r it (and renew "
                               "the secret)"), r
    path.chmod(0o640)
    ok(tool.run("cordon", kubeconfig=kc), "cordon")

    cert, key = apiserver.client_cert("cert-user")
    Path(key).chmod(0o604)
    kc = write_kubeconfig(tool.dir / "kc-cert", apiserver.url, apiserver.ca_path, cert=cert,
                          key=key)
    r = tool.run("cordon", kubeconfig=kc)
    assert r.rc == EXIT_FAIL and f"refusing client key {key}: readable by everyone (mode 0604)" \
        in r.json["error"], r

    kc = Path(write_kubeconfig(tool.dir / "kc-inline", apiserver.url, apiserver.ca_path,
                               token=TOKEN_OTHERS))
    kc.chmod(0o644)
    r = tool.run("cordon", kubeconfig=kc)
    assert r.rc == EXIT_FAIL and f"refusing kubeconfig (it holds a token) {kc}: readable by " \
        "everyone (mode 0644)" in r.json["error"], r
    # a kubeconfig that only names its secrets holds none
    kc = Path(write_kubeconfig(tool.dir / "kc-named", apiserver.url, apiserver.ca_path,
                               token_file=str(path)))
    kc.chmod(0o644)
    ok(tool.run("uncordon", kubeconfig=kc), "uncordon")
    assert apiserver.count(user="cert-user") == 0


TOKEN_OTHERS = "token-in-a-file"
