# SPDX-License-Identifier: LGPL-2.1-or-later
"""The permissions packaging/k8s/rbac.yaml gives the sriov-persist ServiceAccount, and how to
grant exactly those in the API test server: every test of k8s-notify runs with them."""

from collections import namedtuple
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
RBAC = REPO / "packaging" / "k8s" / "rbac.yaml"
# [Kubernetes] LeaseNamespace='s default, which rbac.yaml creates
LEASE_NAMESPACE = "sriov-persist"
SA_NAMESPACE, SA_NAME = "sriov-persist", "sriov-persist"
RULE_KEYS = {"apiGroups", "resources", "verbs", "resourceNames"}

# One verb/resource/namespace of a rule; rule names the role and the rule's index in it.
# names: the rule's resourceNames (a tuple), or None.
Permission = namedtuple("Permission", "verb group resource subresource namespace rule names")


def _role_key(kind, namespace, name):
    return (kind, namespace if kind == "Role" else None, name)


def _binds_our_account(binding):
    return any(s.get("kind") == "ServiceAccount" and s.get("name") == SA_NAME
               and s.get("namespace") == SA_NAMESPACE for s in binding.get("subjects") or [])


def _rule_permissions(role, index, rule, namespace):
    extra = set(rule) - RULE_KEYS
    # the test server does not model nonResourceURLs: say so, loudly
    assert not extra, f"{role} rule {index}: {sorted(extra)} cannot be checked here"
    names = tuple(rule["resourceNames"]) if "resourceNames" in rule else None
    out = []
    for group in rule["apiGroups"]:
        for res in rule["resources"]:
            for verb in rule["verbs"]:
                assert "*" not in (group, res, verb), f"{role} rule {index}: a wildcard"
                name, _, sub = res.partition("/")
                out.append(Permission(verb, group, name, sub or None, namespace,
                                      f"{role}[{index}]", names))
    return out


def load_permissions(path=RBAC):
    """The permissions rbac.yaml gives the sriov-persist ServiceAccount, through its bindings."""
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
    roles = {_role_key(d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]): d
             for d in docs if d["kind"] in ("ClusterRole", "Role")}
    perms = []
    for b in docs:
        if b["kind"] not in ("ClusterRoleBinding", "RoleBinding") or not _binds_our_account(b):
            continue
        ns = b["metadata"]["namespace"] if b["kind"] == "RoleBinding" else None
        ref = b["roleRef"]
        role = roles.get(_role_key(ref["kind"], ns, ref["name"]))
        assert role is not None, \
            f"{b['kind']} {b['metadata']['name']}: no {ref['kind']} {ref['name']}"
        # a Role's rules hold only in its own namespace
        for i, rule in enumerate(role.get("rules") or []):
            perms += _rule_permissions(f"{ref['kind']} {ref['name']}", i, rule, ns)
    return perms




def resource_spec(p):
    res = f"{p.resource}/{p.subresource}" if p.subresource else p.resource
    return f"{p.group}/{res}" if p.group else f"/{res}"


def grant(srv, user, perms=None):
    """Grants user exactly perms (default: all of rbac.yaml's) in the test server."""
    for p in load_permissions() if perms is None else perms:
        srv.grant(user, [p.verb], resource_spec(p), namespace=p.namespace, names=p.names)
