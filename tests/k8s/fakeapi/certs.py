# SPDX-License-Identifier: LGPL-2.1-or-later
"""A throw-away certificate authority: server and client certificates for the test API server.

Keys are ECDSA P-256 so that hundreds of TLS handshakes stay cheap. Client certificates carry
the user in the subject CN and the groups in O, which is how kube-apiserver reads them.
"""

import datetime
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _now():
    return datetime.datetime.now(datetime.timezone.utc)


def _write_key(path, key):
    data = key.private_bytes(serialization.Encoding.PEM,
                             serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption())
    path.write_bytes(data)
    path.chmod(0o600)


def _write_cert(path, cert):
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _name(cn, orgs=()):
    attrs = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs]
    attrs.append(x509.NameAttribute(NameOID.COMMON_NAME, cn))
    return x509.Name(attrs)


class CertificateAuthority:
    """A CA whose files live in `directory`: ca.crt and ca.key."""

    def __init__(self, directory, cn="test-kubernetes-ca"):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = _now()
        self.cert = (x509.CertificateBuilder()
                     .subject_name(_name(cn))
                     .issuer_name(_name(cn))
                     .public_key(self.key.public_key())
                     .serial_number(x509.random_serial_number())
                     .not_valid_before(now - datetime.timedelta(minutes=5))
                     .not_valid_after(now + datetime.timedelta(days=2))
                     .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                     .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True,
                                                  crl_sign=True, content_commitment=False,
                                                  key_encipherment=False, data_encipherment=False,
                                                  key_agreement=False, encipher_only=False,
                                                  decipher_only=False), critical=True)
                     .sign(self.key, hashes.SHA256()))
        self.cert_path = self.dir / "ca.crt"
        _write_cert(self.cert_path, self.cert)
        _write_key(self.dir / "ca.key", self.key)

    def _issue(self, subject, usage, sans=None, valid_days=1, expired=False):
        key = ec.generate_private_key(ec.SECP256R1())
        now = _now()
        if expired:
            start, end = now - datetime.timedelta(days=2), now - datetime.timedelta(days=1)
        else:
            start, end = now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=valid_days)
        builder = (x509.CertificateBuilder()
                   .subject_name(subject)
                   .issuer_name(self.cert.subject)
                   .public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(start)
                   .not_valid_after(end)
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))
        if sans:
            builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        return key, builder.sign(self.key, hashes.SHA256())

    def server_cert(self, name="server", hosts=("127.0.0.1", "::1", "localhost")):
        """Writes <name>.crt/.key valid for `hosts` (IP addresses or DNS names); returns the paths."""
        sans = []
        for host in hosts:
            try:
                sans.append(x509.IPAddress(ipaddress.ip_address(host)))
            except ValueError:
                sans.append(x509.DNSName(host))
        key, cert = self._issue(_name("kube-apiserver"), ExtendedKeyUsageOID.SERVER_AUTH, sans)
        return self._store(name, key, cert)

    def client_cert(self, user, groups=(), name=None, expired=False):
        """Writes a client certificate for `user` (CN) in `groups` (O); returns (cert, key) paths."""
        key, cert = self._issue(_name(user, groups), ExtendedKeyUsageOID.CLIENT_AUTH,
                                expired=expired)
        stem = name or "client-" + "".join(c if c.isalnum() else "_" for c in user)
        return self._store(stem, key, cert)

    def _store(self, stem, key, cert):
        cert_path, key_path = self.dir / f"{stem}.crt", self.dir / f"{stem}.key"
        _write_cert(cert_path, cert)
        _write_key(key_path, key)
        return str(cert_path), str(key_path)


def identity_from_peer_cert(der):
    """(user, groups) from a verified client certificate in DER form, or None."""
    if not der:
        return None
    cert = x509.load_der_x509_certificate(der)
    cns = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if not cns:
        return None
    groups = [a.value for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
    return cns[0].value, groups
