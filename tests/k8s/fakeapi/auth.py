# SPDX-License-Identifier: LGPL-2.1-or-later
"""Authentication (client certificates, bearer tokens) and an RBAC-like authorizer.

As in kube-apiserver the x509 authenticator runs before the token authenticator, every
authenticated user is in system:authenticated, system:masters may do anything, and a denial
names the verb, resource[/subresource], API group and namespace (or the cluster scope).
"""

import threading

from . import status as st
from .certs import identity_from_peer_cert

KNOWN_GROUPS = {"policy", "coordination.k8s.io", "apps", "batch"}


class User:
    def __init__(self, name, groups):
        self.name, self.groups = name, list(groups)

    def __repr__(self):
        return f"User({self.name!r}, {self.groups!r})"


def parse_resource(spec):
    """"pods", "pods/eviction", "policy/poddisruptionbudgets", "coordination.k8s.io/leases",
    "/nodes" (core, explicit), "*" -> (group, resource, subresource or None)."""
    parts = spec.split("/")
    if parts[0] == "" and len(parts) > 1:
        group, rest = "", parts[1:]
    elif parts[0] in KNOWN_GROUPS or "." in parts[0] or (parts[0] == "*" and len(parts) > 1
                                                         and parts[1] != "*"):
        group, rest = parts[0], parts[1:]
    else:
        group, rest = "", parts
    if not rest or len(rest) > 2 or not rest[0]:
        raise ValueError(f"bad resource {spec!r}")
    return group, rest[0], (rest[1] if len(rest) == 2 else None)


class Policy:
    def __init__(self, anonymous=False):
        self._lock = threading.Lock()
        self.tokens = {}
        # (subject kind, subject, verbs, group, resource, subresource, namespace, names)
        self.rules = []
        self.anonymous = anonymous

    def add_token(self, token, user, groups=()):
        with self._lock:
            self.tokens[token] = User(user, groups)

    def remove_token(self, token):
        with self._lock:
            self.tokens.pop(token, None)

    def grant(self, kind, subject, verbs, resource, namespace=None, names=None):
        if isinstance(verbs, str):
            verbs = [verbs]
        group, res, sub = parse_resource(resource)
        with self._lock:
            self.rules.append((kind, subject, frozenset(verbs), group, res, sub, namespace,
                               frozenset(names) if names else None))

    def revoke(self, kind, subject):
        with self._lock:
            self.rules = [r for r in self.rules if (r[0], r[1]) != (kind, subject)]

    def authenticate(self, peer_der, authorization):
        ident = identity_from_peer_cert(peer_der)
        if ident:
            return User(ident[0], ident[1] + ["system:authenticated"])
        if authorization:
            scheme, _, token = authorization.partition(" ")
            with self._lock:
                user = self.tokens.get(token.strip()) if scheme.lower() == "bearer" else None
            if user is None:
                raise st.unauthorized()
            return User(user.name, user.groups + ["system:authenticated"])
        if self.anonymous:
            return User("system:anonymous", ["system:unauthenticated"])
        raise st.unauthorized()

    def _matches(self, rule, user, verb, group, resource, sub, namespace, name):
        kind, subject, verbs, rgroup, rres, rsub, rns, rnames = rule
        if kind == "user" and subject != user.name:
            return False
        if kind == "group" and subject not in user.groups:
            return False
        if "*" not in verbs and verb not in verbs:
            return False
        if rgroup != "*" and rgroup != group:
            return False
        if rres != "*" and rres != resource:
            return False
        if rsub is None:
            if sub and rres != "*":
                return False
        elif not sub or rsub not in ("*", sub):
            return False
        # resourceNames: only requests that name one of them (never a list, watch or create)
        if rnames is not None and (not name or name not in rnames):
            return False
        return rns is None or rns == namespace

    def authorize(self, user, verb, group, resource, sub, namespace, name):
        if "system:masters" in user.groups:
            return
        with self._lock:
            rules = list(self.rules)
        if any(self._matches(r, user, verb, group, resource, sub, namespace, name)
               for r in rules):
            return
        shown = f"{resource}/{sub}" if sub else resource
        where = (f'in the namespace "{namespace}"' if namespace else "at the cluster scope")
        why = f'User "{user.name}" cannot {verb} resource "{shown}" in API group "{group}" {where}'
        raise st.forbidden(group, resource, name, why)
