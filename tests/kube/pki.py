# SPDX-License-Identifier: LGPL-2.1-or-later
"""The keys and certificates of a test cluster, made with openssl: a CA, the API server's
certificate for 127.0.0.1, the service-account signing key pair, and a static admin token."""

import secrets
import subprocess
from pathlib import Path

EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
DAYS = "2"


def _openssl(*args, cwd):
    r = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed: {r.stderr.strip()}")


class Pki:
    """Files in dir: ca.crt/ca.key, server.crt/server.key, sa.key/sa.pub, tokens.csv (the
    admin's static token, group system:masters). Made once per cluster."""

    def __init__(self, dir):
        self.dir = Path(dir)
        self.ca = self.dir / "ca.crt"
        self.ca_key = self.dir / "ca.key"
        self.server_cert = self.dir / "server.crt"
        self.server_key = self.dir / "server.key"
        self.sa_key = self.dir / "sa.key"
        self.sa_pub = self.dir / "sa.pub"
        self.tokens = self.dir / "tokens.csv"
        self.admin_token = None

    def make(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        d = self.dir
        _openssl("req", "-x509", *EC_KEY, "-keyout", "ca.key", "-out", "ca.crt", "-days", DAYS,
                 "-subj", "/CN=sriov-persist-test-ca",
                 "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
        # the server's name as k8s-notify and the controller manager reach it
        _openssl("req", "-x509", "-CA", "ca.crt", "-CAkey", "ca.key", *EC_KEY,
                 "-keyout", "server.key", "-out", "server.crt", "-days", DAYS,
                 "-subj", "/CN=kube-apiserver",
                 "-addext", "basicConstraints=critical,CA:FALSE",
                 "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                 "-addext", "extendedKeyUsage=serverAuth",
                 "-addext", "keyUsage=critical,digitalSignature", cwd=d)
        _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                 "-out", "sa.key", cwd=d)
        _openssl("pkey", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=d)
        self.admin_token = secrets.token_hex(16)
        # token,user,uid,"group1,group2"
        self.tokens.write_text(f'{self.admin_token},kube-admin,kube-admin,"system:masters"\n')
        for p in (self.ca_key, self.server_key, self.sa_key, self.tokens):
            p.chmod(0o600)
        return self
