# SPDX-License-Identifier: LGPL-2.1-or-later
"""A real Kubernetes control plane on 127.0.0.1 for the tests: Debian's etcd, and the
kube-apiserver and kube-controller-manager of ../shared/kube (xz, unpacked once into
build/kube-bin/ and checked against the sums of ../shared/kube/README.md).

    c = Cluster(workdir).start()     # PKI, etcd, kube-apiserver, /readyz, controllers
    c.admin.get("/api/v1/nodes")     # api.Api with the admin's static token
    c.apiserver.pause() / resume()   # SIGSTOP / SIGCONT: a server that hangs
    c.kill_apiserver(); c.start_apiserver()   # refused connections, then back on its port
    c.stop()                         # every process group, SIGTERM then SIGKILL

Each process runs in its own process group (setsid) and dies with the test process
(setpriv --pdeathsig), so that nothing is left behind even when pytest is killed."""

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import time
import urllib.request
from pathlib import Path

from .api import Api
from .pki import Pki

ROOT = Path(__file__).resolve().parents[2]
KUBE_DIR = Path(os.environ.get("SRIOV_KUBE_DIR") or ROOT.parent / "shared" / "kube")
CACHE_DIR = Path(os.environ.get("SRIOV_KUBE_CACHE") or ROOT / "build" / "kube-bin")
BINARIES = ("kube-apiserver", "kube-controller-manager")
# what the README lists as known to work: tokens, PDB status, DaemonSets, node taints
CONTROLLERS = ("serviceaccount-controller,serviceaccount-token-controller,disruption-controller,"
               "daemonset-controller,node-lifecycle-controller")
START_TIMEOUT = 120  # 10-30 s on 2 cores; more while other tests run beside
# the requests of k8s-notify (the ServiceAccounts of sriov-persist): what it wrote to nodes
# and Leases, and of the others what, where and the answer
AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Request
    userGroups: ["system:serviceaccounts:sriov-persist"]
    verbs: ["create", "update", "patch"]
    resources:
      - group: ""
        resources: ["nodes"]
      - group: coordination.k8s.io
        resources: ["leases"]
  - level: Metadata
    userGroups: ["system:serviceaccounts:sriov-persist"]
  - level: None
"""


class ClusterError(Exception):
    pass


def readme_sums(kube_dir):
    """{binary: sha256} from the README's "- NAME `SHA256`" lines."""
    text = (kube_dir / "README.md").read_text()
    return dict(re.findall(r"^- (\S+) `([0-9a-f]{64})`", text, re.M))


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def unpack_binaries(kube_dir=KUBE_DIR, cache=CACHE_DIR):
    """{name: path} of the unpacked binaries; unpacked again only when the sum changed."""
    if not kube_dir.is_dir():
        raise ClusterError(f"{kube_dir} is missing: the real API server tier needs "
                           "kube-apiserver.xz and kube-controller-manager.xz there")
    sums = readme_sums(kube_dir)
    cache.mkdir(parents=True, exist_ok=True)
    out = {}
    for name in BINARIES:
        want = sums.get(name)
        if not want:
            raise ClusterError(f"{kube_dir}/README.md gives no sha256 for {name}")
        path, stamp = cache / name, cache / f"{name}.sha256"
        if not (path.exists() and stamp.exists() and stamp.read_text().strip() == want):
            tmp = cache / f".{name}.tmp"
            with open(tmp, "wb") as f:
                subprocess.run(["xz", "-dc", str(kube_dir / f"{name}.xz")], stdout=f,
                               check=True, timeout=300)
            got = sha256(tmp)
            if got != want:
                tmp.unlink()
                raise ClusterError(f"{name}.xz unpacks to sha256 {got}, README says {want}")
            tmp.chmod(0o755)
            os.rename(tmp, path)
            stamp.write_text(want + "\n")
        out[name] = path
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proc:
    """One server process in its own process group, its output in a log file."""

    def __init__(self, name, argv, log, cwd):
        self.name, self.argv, self.log, self.cwd = name, argv, log, cwd
        self.proc = None

    def start(self):
        with open(self.log, "a") as out:
            self.proc = subprocess.Popen(
                ["setpriv", "--pdeathsig", "SIGKILL", "--", *self.argv], cwd=self.cwd,
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True)
        return self

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig):
        if self.running():
            os.killpg(self.proc.pid, sig)

    def pause(self):
        self.signal(signal.SIGSTOP)

    def resume(self):
        self.signal(signal.SIGCONT)

    def stop(self, timeout=10):
        if self.proc is None:
            return
        if self.running():
            self.signal(signal.SIGCONT)
            self.signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        # the group too: whatever the server started, and a server that ignored SIGTERM
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)

    def tail(self, lines=40):
        try:
            text = self.log.read_text(errors="replace").splitlines()
        except FileNotFoundError:
            return ""
        return "\n".join(text[-lines:])


class Cluster:
    def __init__(self, workdir):
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.pki = Pki(self.dir / "pki")
        self.ports = {}
        self.etcd = self.apiserver = self.controllers = None
        self.bins = {}
        self.admin = None
        self.audit_log = self.dir / "audit.log"

    @property
    def url(self):
        return f"https://127.0.0.1:{self.ports['apiserver']}"

    @property
    def ca(self):
        return self.pki.ca

    # --- start and stop ------------------------------------------------------------------------

    def start(self):
        etcd = shutil.which("etcd")
        if not etcd:
            raise ClusterError("etcd is not installed (Debian's etcd-server: scripts/install-deps)")
        self.bins = unpack_binaries()
        self.pki.make()
        (self.dir / "audit-policy.yaml").write_text(AUDIT_POLICY)
        self.ports = {k: free_port() for k in ("etcd", "peer", "apiserver", "controllers")}
        try:
            self._start_etcd(etcd)
            self.start_apiserver()
            self._start_controllers()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self):
        for p in (self.controllers, self.apiserver, self.etcd):
            if p:
                p.stop()

    def procs(self):
        return [p for p in (self.etcd, self.apiserver, self.controllers) if p]

    def _wait(self, proc, ready, timeout=START_TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not proc.running():
                raise ClusterError(f"{proc.name} exited with {proc.proc.returncode}:\n"
                                   f"{proc.tail()}")
            try:
                if ready():
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise ClusterError(f"{proc.name} not ready within {timeout}s:\n{proc.tail()}")

    def _start_etcd(self, etcd):
        pe, pp = self.ports["etcd"], self.ports["peer"]
        self.etcd = Proc("etcd", [
            etcd, "--name", "t", "--data-dir", str(self.dir / "etcd"),
            "--listen-client-urls", f"http://127.0.0.1:{pe}",
            "--advertise-client-urls", f"http://127.0.0.1:{pe}",
            "--listen-peer-urls", f"http://127.0.0.1:{pp}",
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{pp}",
            "--initial-cluster", f"t=http://127.0.0.1:{pp}",
            "--quota-backend-bytes", "1073741824", "--log-level", "warn"],
            self.dir / "etcd.log", self.dir).start()

        def healthy():
            with urllib.request.urlopen(f"http://127.0.0.1:{pe}/health", timeout=2) as r:
                return json.loads(r.read()).get("health") == "true"
        self._wait(self.etcd, healthy)

    def start_apiserver(self, wait=True):
        """kube-apiserver on its port (the same after a kill), with the same etcd and keys."""
        p, d = self.pki, self.dir
        self.apiserver = Proc("kube-apiserver", [
            str(self.bins["kube-apiserver"]),
            f"--etcd-servers=http://127.0.0.1:{self.ports['etcd']}",
            "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
            f"--secure-port={self.ports['apiserver']}",
            f"--tls-cert-file={p.server_cert}", f"--tls-private-key-file={p.server_key}",
            f"--client-ca-file={p.ca}",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={p.sa_pub}",
            f"--service-account-signing-key-file={p.sa_key}",
            "--authorization-mode=Node,RBAC", f"--token-auth-file={p.tokens}",
            "--service-cluster-ip-range=10.96.0.0/24", "--allow-privileged=true",
            f"--audit-policy-file={d / 'audit-policy.yaml'}",
            f"--audit-log-path={self.audit_log}", "--audit-log-maxsize=0",
            f"--cert-dir={d / 'apiserver-certs'}", "--profiling=false", "--v=1"],
            d / "kube-apiserver.log", d).start()
        self.admin = Api(self.url, p.ca, p.admin_token)
        if wait:
            self.wait_ready()

    def wait_ready(self, timeout=START_TIMEOUT):
        self._wait(self.apiserver,
                   lambda: self.admin.request("GET", "/readyz", timeout=5)[0] == 200, timeout)

    def recover(self):
        """After a test that stopped or killed the API server: running and ready again."""
        if self.apiserver.running():
            self.apiserver.resume()
            self.wait_ready()
        else:
            self.start_apiserver()

    def kill_apiserver(self):
        """SIGKILL: connections are refused until start_apiserver()."""
        self.apiserver.signal(signal.SIGKILL)
        self.apiserver.proc.wait(timeout=30)

    def _kubeconfig(self, path, token):
        from apiserver import write_kubeconfig
        return write_kubeconfig(path, self.url, self.ca, token=token)

    def _start_controllers(self):
        d = self.dir
        kubeconfig = self._kubeconfig(d / "admin.kubeconfig", self.pki.admin_token)
        port = self.ports["controllers"]
        self.controllers = Proc("kube-controller-manager", [
            str(self.bins["kube-controller-manager"]),
            f"--kubeconfig={kubeconfig}", f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}",
            "--bind-address=127.0.0.1", f"--secure-port={port}",
            f"--cert-dir={d / 'kcm-certs'}", "--leader-elect=false",
            "--use-service-account-credentials=false", f"--controllers={CONTROLLERS}",
            f"--service-account-private-key-file={self.pki.sa_key}",
            f"--root-ca-file={self.pki.ca}",
            "--node-monitor-grace-period=60s", "--concurrent-daemonset-syncs=2", "--v=1"],
            d / "kube-controller-manager.log", d).start()
        # its own serving certificate is self-signed: only whether it answers matters here
        insecure = ssl._create_unverified_context()

        def healthy():
            with urllib.request.urlopen(f"https://127.0.0.1:{port}/healthz", timeout=2,
                                        context=insecure) as r:
                return r.status == 200
        self._wait(self.controllers, healthy)
        # the service-account controller makes each namespace's "default" account, which
        # every pod needs (ServiceAccount admission)
        self._wait(self.controllers, lambda: self.admin.get(
            "/api/v1/namespaces/default/serviceaccounts/default") is not None)

    def restart_controllers(self):
        """After the API server was away: client-go's watches would come back only after
        their backoff (up to 30 s), which a test need not wait for."""
        self.controllers.stop()
        self._start_controllers()

    # --- what the server saw -------------------------------------------------------------------

    def audit(self, since=0):
        """The audit events of k8s-notify's requests (ResponseComplete), from line `since`."""
        if not self.audit_log.exists():
            return []
        lines = self.audit_log.read_text().splitlines()[since:]
        return [json.loads(x) for x in lines if x.strip()]

    def audit_mark(self):
        if not self.audit_log.exists():
            return 0
        return len(self.audit_log.read_text().splitlines())

    def logs(self):
        return "\n".join(f"--- {p.name} ({p.log}) ---\n{p.tail()}" for p in self.procs())
