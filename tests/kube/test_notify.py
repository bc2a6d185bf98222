# SPDX-License-Identifier: LGPL-2.1-or-later
"""k8s-notify against the real kube-apiserver, as the sriov-persist ServiceAccount of
packaging/k8s/rbac.yaml (a TokenRequest token): cordon ownership beside the node lifecycle
controller's taint, Lease slots raced for by concurrent nodes, annotations and the label, and a
drain that meets what the eviction API really answers (a PodDisruptionBudget that the
disruption controller keeps, a namespace being deleted)."""

import time
from datetime import datetime

from .world import SLOT, Notify, ok, pdb

RES = "intel.com/e810_rdma"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def taints(kube, node):
    return {t["key"] for t in kube.node(node)["spec"].get("taints") or []}


def test_cordon_uncordon_only_ours(kube):
    kube.add_node("kn-cordon-a")
    kube.add_node("kn-cordon-b")
    n = kube.notify
    out = ok(n.run("cordon", node="kn-cordon-a"), "cordon")
    assert out["owned"] is True and out["changed"] is True
    assert kube.node_flags("kn-cordon-a") == (True, "true")
    # the node lifecycle controller taints a cordoned node (its own write: a new
    # resourceVersion); ours is still ours
    kube.admin.wait(lambda: UNSCHEDULABLE_TAINT in taints(kube, "kn-cordon-a"), 30,
                    "the unschedulable taint")
    again = ok(n.run("cordon", node="kn-cordon-a"), "cordon")
    assert again["owned"] is True and again["changed"] is False
    assert ok(n.run("uncordon", node="kn-cordon-a"), "uncordon")["lifted"] is True
    assert kube.node_flags("kn-cordon-a") == (False, None)
    kube.admin.wait(lambda: UNSCHEDULABLE_TAINT not in taints(kube, "kn-cordon-a"), 30,
                    "the taint lifted")
    assert ok(n.run("uncordon", node="kn-cordon-a"), "uncordon")["lifted"] is False

    # someone else's cordon (kubectl cordon) is neither claimed nor lifted
    kube.admin.patch("/api/v1/nodes/kn-cordon-b", {"spec": {"unschedulable": True}})
    out = ok(n.run("cordon", node="kn-cordon-b"), "cordon")
    assert out["owned"] is False and out["changed"] is False
    assert ok(n.run("uncordon", node="kn-cordon-b"), "uncordon")["lifted"] is False
    assert kube.node_flags("kn-cordon-b") == (True, None)
    # two merge patches, each with the resourceVersion it read; none to kn-cordon-b
    patches = kube.audit(verb="patch", resource="nodes")
    assert [(p["name"], p["code"], p["body"]["spec"]["unschedulable"]) for p in patches] == \
        [("kn-cordon-a", 200, True), ("kn-cordon-a", 200, False)], patches
    assert all(p["body"]["metadata"]["resourceVersion"] for p in patches), patches


def test_annotate_sets_and_removes(kube):
    kube.add_node("kn-annotate")
    n = kube.notify
    state = '{"state":"idle","applied":2,"waiting":"","network-sriov-capable":true}'
    out = ok(n.run("annotate", "--state", state, node="kn-annotate"), "annotate")
    md = kube.node("kn-annotate")["metadata"]
    written = {"sriov-persist.io/state": "idle", "sriov-persist.io/applied": "2",
               "sriov-persist.io/waiting": ""}
    assert {k: v for k, v in md["annotations"].items() if k.startswith("sriov-persist.io/")} \
        == written
    assert md["labels"]["feature.node.kubernetes.io/network-sriov.capable"] == "true"
    assert out["annotations"] == {**written,
                                  "feature.node.kubernetes.io/network-sriov.capable": "true"}
    ok(n.run("annotate", "--state", '{"applied":null,"network-sriov-capable":false}',
             node="kn-annotate"), "annotate")
    md = kube.node("kn-annotate")["metadata"]
    assert "sriov-persist.io/applied" not in md["annotations"]
    assert md["annotations"]["sriov-persist.io/state"] == "idle"
    assert "feature.node.kubernetes.io/network-sriov.capable" not in md["labels"]
    assert md["labels"]["kubernetes.io/hostname"] == "kn-annotate"


def test_lease_slots_raced_for(kube):
    """MaxParallelNodes=2 and three nodes at once, round after round on the same Leases: two
    win a slot each, the third watches until one is given back and then takes that one. The
    Leases exist from the second round on, so that the losers of a race meet a 409 Conflict of
    the resourceVersion they read (about every other round; at most 12 rounds)."""
    n = kube.notify
    n.configure(MaxParallelNodes=2)
    conflicts = []
    for rnd in range(12):
        holders = [f"kn-lease-{rnd}-{i}" for i in range(3)]
        procs = {h: n.start("lease", "acquire", "--holder", h, "--timeout", "30", node=h)
                 for h in holders}
        kube.admin.wait(lambda: sum(p.poll() is not None for p in procs.values()) >= 2, 30,
                        "two of three acquirers to finish")
        time.sleep(0.3)
        done = {h: Notify.finish(p) for h, p in procs.items() if p.poll() is not None}
        assert len(done) == 2, done
        waiting = next(h for h in holders if h not in done)
        assert {ok(r, "lease")["slot"] for r in done.values()} == {SLOT + "0", SLOT + "1"}
        assert sorted(kube.leases().values()) == sorted(done), kube.leases()
        # one gives its slot back: the waiter takes it
        first = sorted(done)[0]
        rel = ok(n.run("lease", "release", "--holder", first, node=first), "lease")
        got = ok(Notify.finish(procs[waiting]), "lease")
        assert got["holder"] == waiting and rel["released"] == [got["slot"]], (rel, got)
        assert sorted(kube.leases().values()) == sorted(h for h in holders if h != first)
        for h in holders:
            ok(n.run("lease", "release", "--holder", h, node=h), "lease")
        assert set(kube.leases().values()) == {None}
        conflicts = kube.audit(resource="leases", verb="update", code=409)
        if conflicts:
            break
    assert conflicts, "no race for a Lease lost in 12 rounds"
    # every slot held: the watch runs out at --timeout, and the run says who holds what
    for h in ("kn-lease-x", "kn-lease-y"):
        ok(n.run("lease", "acquire", "--holder", h, node=h), "lease")
    t = time.monotonic()
    r = n.run("lease", "acquire", "--holder", "kn-lease-z", "--timeout", "2", node="kn-lease-z")
    assert r.rc == 75 and r.json["retryable"] is True, r
    assert 2 <= time.monotonic() - t < 10, r
    assert "all 2 slot(s) in sriov-persist are held" in r.json["error"], r
    assert kube.audit(resource="leases", verb="watch", code=200), kube.audit(resource="leases")


def seconds(rfc3339):
    return datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).timestamp()


def test_drain_meets_a_budget(kube):
    """Evictions as the real server answers them: 429 while the disruption controller's
    budget allows none (with no Retry-After: k8s-notify waits its 5 s), 201 once a second
    replica is Ready elsewhere, and 403 NamespaceTerminating for a pod whose namespace is being
    deleted, which k8s-notify waits for until the namespace controller (played here) deletes
    it. Pods that use no VF, DaemonSet pods and pods of other nodes stay."""
    admin = kube.admin
    node, other = "kn-drain", "kn-drain-other"
    kube.add_node(node, allocatable={RES: 4})
    kube.add_node(other, allocatable={RES: 4})
    kube.namespace("kt-shop")
    pods = {"rdma-7d9f-x2x4k": dict(owner_kind="ReplicaSet", requests={RES: 2}),
            "db-0": dict(labels={"app": "db"}, owner_kind="StatefulSet", requests={RES: 1}),
            "web-5c7b-q8z9w": dict(owner_kind="ReplicaSet", requests={"cpu": "100m"}),
            "exporter-abcde": dict(owner_kind="DaemonSet", requests={"cpu": "50m"})}
    for name, kw in pods.items():
        kube.add_pod("kt-shop", name, node, **kw)
    kube.add_pod("kt-shop", "elsewhere-0", other, requests={RES: 1})
    for p in [*pods, "elsewhere-0"]:
        kube.wait_ready("kt-shop", p)
    path = "/apis/policy/v1/namespaces/kt-shop/poddisruptionbudgets"
    admin.create(path, pdb("kt-shop", "db", {"app": "db"}, 1))
    # the disruption controller's status: one healthy, none may go
    admin.wait(lambda: (s := admin.get(f"{path}/db").get("status", {})).get(
        "observedGeneration") == 1 and s.get("currentHealthy") == 1, 30, "the budget processed")
    # a namespace being deleted (no namespace controller runs: it stays Terminating)
    kube.namespace("kt-leaving")
    kube.add_pod("kt-leaving", "old-0", node, owner_kind="StatefulSet", requests={RES: 1})
    kube.wait_ready("kt-leaving", "old-0")
    admin.call("DELETE", "/api/v1/namespaces/kt-leaving")

    kube.notify.configure(DrainTimeoutSec=60, EvictionFallback="fail")
    proc = kube.notify.start("drain", "--resource", RES, node=node)
    try:
        admin.wait(lambda: kube.audit(subresource="eviction", name="db-0", code=429), 30,
                   "a 429 of the budget")
        admin.wait(lambda: kube.audit(subresource="eviction", name="old-0", code=403), 30,
                   "a 403 of the namespace")
        # the namespace controller deletes the pod; a second replica elsewhere becomes Ready,
        # and the budget lets one go
        admin.delete("/api/v1/namespaces/kt-leaving/pods/old-0")
        kube.add_pod("kt-shop", "db-1", other, labels={"app": "db"}, owner_kind="StatefulSet",
                     requests={RES: 1})
    finally:
        r = Notify.finish(proc)
    out = ok(r, "drain")
    assert out["owned"] is True and out["cordon_changed"] is True
    assert sorted(out["evicted"]) == ["kt-shop/db-0", "kt-shop/rdma-7d9f-x2x4k"], out
    assert out["blocked"] == ["kt-shop/db-0"] and out["gone"] == ["kt-leaving/old-0"], out
    assert out["failed"] == [] and out["remaining"] == [] and out["deleted"] == [], out
    assert out["skipped"] == {"mirror": 0, "daemonset": 1, "finished": 0, "not-sriov": 1}
    assert "The disruption budget db needs 1 healthy pods and has 1 currently" in r.stderr, r
    assert "(NamespaceTerminating)" in r.stderr, r
    for ns, name in (("kt-shop", "db-0"), ("kt-shop", "rdma-7d9f-x2x4k"),
                     ("kt-leaving", "old-0")):
        assert kube.get_pod(ns, name) is None, name
    for ns, name in (("kt-shop", "web-5c7b-q8z9w"), ("kt-shop", "exporter-abcde"),
                     ("kt-shop", "elsewhere-0")):
        assert kube.get_pod(ns, name)["metadata"].get("deletionTimestamp") is None, name
    # the budget's 429 asks for no particular wait: the next try came after k8s-notify's 5 s
    db = kube.audit(subresource="eviction", name="db-0")
    assert len(db) >= 2 and db[0]["code"] == 429 and db[-1]["code"] == 201, db
    gap = seconds(db[1]["time"]) - seconds(db[0]["time"])
    assert 4.5 <= gap < 8, db
    # the namespace's pod was read (get) once its eviction was refused
    assert kube.audit(verb="get", resource="pods", name="old-0")
    assert kube.node_flags(node) == (True, "true")
    assert ok(kube.notify.run("uncordon", node=node), "uncordon")["lifted"] is True
