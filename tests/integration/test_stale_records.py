# SPDX-License-Identifier: LGPL-2.1-or-later
"""A status record of an apply that what came after overtook: a layout removed after its apply
deferred leaves the PF unconfigured, not deferred; a hold whose reason is fixed while the host
is already as the layouts say leaves it pending, not applied. status, its JSON, metrics and wait
say the same."""

import json
import re

from test_daemon import NO_BUS

X710_A = "0000:18:00.0"
LEFT = "4 VFs left from a removed layout"
def never(h, line=2):
    """Why [Disruption] Policy=never, at line of h's main configuration, holds a change."""
    return (f"disruptive changes held by [Disruption] Policy=never in {h.main}:{line}; set "
            "Policy=drain or immediate there to let them run, or make the change by hand")
def lifted(h):
    """The reason, with the command to copy as sriovctl was given its options (h.run's)."""
    return ("not applied since its last apply held it, and what held it is fixed now (sriovctl "
            f"--host {h.path} --config-dir {h.confdir} --main-config {h.main} apply {X710_A} "
            "applies it)")


def run(h, *args):
    return h.run(*args, env=NO_BUS)


def status_of(h):
    r = run(h, "status", "--json", X710_A)
    return r.returncode, json.loads(r.stdout)["pfs"][0]


def state_series(h):
    """The PF's sriov_persist_pf_state series that are 1."""
    out = run(h, "metrics").stdout
    return re.findall(rf'^sriov_persist_pf_state{{[^}}]*pf_pci="{X710_A}",state="(\w+)"}} 1$',
                      out, re.M)


def test_a_layout_removed_after_its_apply_deferred_leaves_the_pf_unconfigured(make_host):
    h = make_host("x710.json")
    h.main.write_text("[Disruption]\nPolicy=never\n")
    f = h.layout("50.conf", f"[Match]\nPCIAddress={X710_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\n")
    assert run(h, "apply").returncode == 0
    f.write_text(f.read_text().replace("=4", "=6"))
    r = run(h, "apply")
    assert r.returncode == 1 and f"(ens2f0): deferred: {never(h)}\n" in r.stdout, r
    f.unlink()
    # the deferred change was the removed layout's: what is left is the PF's state
    rc, pf = status_of(h)
    assert rc == 0 and pf["state"] == "unconfigured" and pf["reason"] == LEFT, pf
    assert pf["last_apply"]["state"] == "deferred", pf
    r = run(h, "status", X710_A)
    assert r.returncode == 0 and re.search(r"ens2f0 +i40e +4 +- +64 +unconfigured ", r.stdout), r
    assert (f"    {LEFT}\n    no layout selects it; \"sriovctl --host {h.path} --config-dir "
            f"{h.confdir} --main-config {h.main} reset {X710_A}\" removes the VFs left from its removed layout, but is deferred "
            f"now: {never(h)}\n"
            f"    last apply: deferred: {never(h)}\n") in r.stdout, r.stdout
    assert state_series(h) == ["unconfigured"]
    # as after the apply that drops the record
    assert run(h, "apply").returncode == 0
    rc, pf = status_of(h)
    assert rc == 0 and pf["state"] == "unconfigured" and pf["reason"] == LEFT, pf
    assert pf["last_apply"] is None, pf


def test_a_hold_fixed_while_the_host_is_as_wanted_is_pending(make_host):
    h = make_host("x710.json")
    good = (f"[Match]\nPCIAddress={X710_A}\n[PhysicalFunction]\nVirtualFunctions=2\n"
            "[VirtualFunction]\nVLANId=5\n")
    f = h.layout("50.conf", good)
    assert run(h, "apply").returncode == 0
    f.write_text(good + "QualityOfService=9\n")
    r = run(h, "apply")
    held = f"{f}:7: QualityOfService=9: must be 0..7"
    assert r.returncode == 1 and f"(ens2f0): held (nothing applied): {held}\n" in r.stdout, r
    f.write_text(good)
    # nothing is left to do, but no apply of now has written the record: not applied
    assert run(h, "plan", X710_A).stdout.startswith(f"{X710_A} (ens2f0): nothing to do\n")
    rc, pf = status_of(h)
    assert rc == 0 and pf["state"] == "pending" and pf["reason"] == lifted(h), pf
    assert pf["last_apply"]["state"] == "held" and pf["pending_actions"] == 0, pf
    r = run(h, "status", X710_A)
    assert re.search(r"ens2f0 +i40e +2 +2 +64 +pending ", r.stdout), r.stdout
    assert f"    {lifted(h)}\n    last apply: held: {held}\n" in r.stdout, r.stdout
    assert state_series(h) == ["pending"]
    r = run(h, "wait", "--timeout", "0")
    assert r.returncode == 1 and r.stdout == (
        "1 configured PF(s): 0 applied, 1 not (see sriovctl status)\n"
        f"Not applied: {X710_A} (ens2f0): pending: {lifted(h)}\n"
        f"    \"sriovctl --host {h.path} --config-dir {h.confdir} --main-config {h.main} apply "
        f"{X710_A}\" applies it now\n"), r
    # the apply the reason asks for
    assert run(h, "apply").returncode == 0
    rc, pf = status_of(h)
    assert rc == 0 and pf["state"] == "applied" and pf["reason"] is None, pf
    assert state_series(h) == ["applied"]
    assert run(h, "wait", "--timeout", "0").returncode == 0


def deferral_lifted(h, what, verb):
    does = "runs" if verb == "reset" else "applies"
    return (f"not {what} since its last {verb} was deferred by [Disruption] Policy=never, which "
            f"is now Policy=immediate (sriovctl --host {h.path} --config-dir {h.confdir} "
            f"--main-config {h.main} {verb} {X710_A} {does} it)")


def test_a_deferral_whose_policy_lets_it_run_now_is_pending(make_host):
    h = make_host("x710.json")
    f = h.layout("50.conf", f"[Match]\nPCIAddress={X710_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=2\n")
    assert run(h, "apply").returncode == 0
    h.main.write_text("[Disruption]\nPolicy=never\n")
    f.write_text(f.read_text().replace("=2", "=4"))
    r = run(h, "apply")
    assert r.returncode == 1 and f"(ens2f0): deferred: {never(h)}\n" in r.stdout, r
    # still deferred while the policy is the same
    rc, pf = status_of(h)
    assert rc == 1 and pf["state"] == "deferred" and pf["reason"] == never(h), pf
    lifted = deferral_lifted(h, "applied", "apply")
    h.main.write_text("[Disruption]\nPolicy=immediate\n")
    rc, pf = status_of(h)
    assert rc == 0 and pf["state"] == "pending" and pf["reason"] == lifted, pf
    assert pf["last_apply"]["state"] == "deferred", pf
    r = run(h, "status", X710_A)
    assert f"    {lifted}\n    last apply: deferred: {never(h)}\n    \"sriovctl --host" in r.stdout, \
        r.stdout
    assert f"reset {X710_A}\" applies it now\n" not in r.stdout
    assert f" apply {X710_A}\" applies it now\n" in r.stdout, r.stdout
    assert state_series(h) == ["pending"]
    r = run(h, "wait", "--timeout", "0")
    assert r.returncode == 1 and r.stdout == (
        "1 configured PF(s): 0 applied, 1 not (see sriovctl status)\n"
        f"Not applied: {X710_A} (ens2f0): pending: {lifted}\n"
        f"    \"sriovctl --host {h.path} --config-dir {h.confdir} --main-config {h.main} apply "
        f"{X710_A}\" applies it now\n"), r
    # drain where Kubernetes is not enabled runs as immediate does
    h.main.write_text("[Disruption]\nPolicy=drain\n[Kubernetes]\nEnabled=no\n")
    assert status_of(h)[1]["state"] == "pending"
    assert run(h, "apply").returncode == 0
    rc, pf = status_of(h)
    assert rc == 0 and pf["state"] == "applied" and pf["reason"] is None, pf


def test_a_reset_deferral_whose_policy_lets_it_run_now_is_pending(make_host):
    h = make_host("x710.json")
    f = h.layout("50.conf", f"[Match]\nPCIAddress={X710_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\n")
    assert run(h, "apply").returncode == 0
    f.unlink()
    h.main.write_text("[Disruption]\nPolicy=never\n")
    r = run(h, "reset", X710_A)
    assert r.returncode == 1 and "deferred: resetting what sriov-persist created waits: " \
        f"{never(h)}\n" in r.stdout, r
    assert status_of(h)[1]["state"] == "deferred"
    h.main.write_text("[Disruption]\nPolicy=immediate\n")
    rc, pf = status_of(h)
    assert rc == 0 and pf["state"] == "pending", pf
    assert pf["reason"] == f"{LEFT}; {deferral_lifted(h, 'reset', 'reset')}", pf
    assert state_series(h) == ["pending"]
    assert run(h, "reset", X710_A).returncode == 0
    rc, pf = status_of(h)
    assert rc == 0 and pf["state"] == "unconfigured", pf
