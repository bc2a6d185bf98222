# SPDX-License-Identifier: LGPL-2.1-or-later
"""Configuration that cannot say what it means changes nothing; removing a layout keeps its VFs
until `sriovctl reset`."""

import json
import subprocess

import pytest

ICE_A = "0000:3b:00.0"
ICE_B = "0000:3b:00.1"


def running(make_host, n=8):
    """An E810 host whose two ports run n VFs that sriov-persist created."""
    h = make_host("e810.json")
    h.layout("50-e810.conf", f"[Match]\nDevice=0x159b\n[PhysicalFunction]\nVirtualFunctions={n}\n")
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.pf(ICE_A)["num_vfs"] == n and h.pf(ICE_B)["num_vfs"] == n
    return h


def status(h, *args):
    r = h.run("status", "--json", *args)
    return r, {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}


@pytest.mark.parametrize("text,line,message", [
    ("[Match]\nDevcie=0x159b\n[PhysicalFunction]\nVirtualFunctions=0\n", 2,
     "unknown key 'Devcie' in [Match]; did you mean 'Device'?"),
    ("[Match]\nDevice=0x159b\nVendor=8086\n[PhysicalFunction]\nVirtualFunctions=0\n", 3,
     "Vendor=8086: must be globs like 0x8086"),
    ("[Match]\n[PhysicalFunction]\nVirtualFunctions=0\n", 1, "[Match] is empty"),
    ("[Macth]\nDevice=0x159b\n[PhysicalFunction]\nVirtualFunctions=0\n", 1,
     "unknown section [Macth]"),
], ids=["misspelt-key", "bad-value", "empty", "misspelt-section"])
def test_a_broken_match_holds_every_pf(make_host, text, line, message):
    """A typo in [Match] once selected every PF: `plan` showed "remove all VFs" on all of them."""
    h = running(make_host)
    path = h.layout("50-e810.conf", text)
    before = h.path.read_bytes()

    p = h.run("plan")
    assert p.returncode == 1, p.stdout + p.stderr
    assert f"{path}:{line}: {message}" in p.stderr
    assert p.stdout.count(": held: ") == 2 and "remove" not in p.stdout, p.stdout
    a = h.run("apply")
    assert a.returncode == 1 and a.stdout.count("held (nothing applied)") == 2, a.stdout
    assert h.path.read_bytes() == before, "a PF was changed by a layout that cannot say what it means"
    r, st = status(h)
    assert r.returncode == 1
    assert {st[ICE_A]["state"], st[ICE_B]["state"]} == {"held"}
    assert st[ICE_A]["num_vfs"] == 8


def test_a_misspelt_pf_key_holds_the_pf(make_host):
    """VirtualFuntions=4 must not leave the PF "applied" with the count it had."""
    h = running(make_host)
    path = h.layout("50-e810.conf", f"[Match]\nPCIAddress={ICE_A}\n[PhysicalFunction]\n"
                                    "VirtualFuntions=4\n")
    before = h.path.read_bytes()
    a = h.run("apply")
    assert a.returncode == 1
    msg = (f"{path}:4: unknown key 'VirtualFuntions' in [PhysicalFunction]; "
           "did you mean 'VirtualFunctions'?")
    assert msg in a.stderr and "held (nothing applied)" in a.stdout, a.stdout + a.stderr
    assert h.path.read_bytes() == before
    r, st = status(h)
    assert r.returncode == 1 and st[ICE_A]["state"] == "held" and msg in st[ICE_A]["reason"]
    c = h.run("check")
    assert c.returncode == 1 and msg in c.stderr and "1 error(s)" in c.stdout


def test_x_keys_are_the_users_own(make_host):
    h = make_host("e810.json")
    h.layout("50.conf", f"X-Owner=netops\n[Match]\nPCIAddress={ICE_A}\nX-Ticket=OPS-1\n"
                        "[PhysicalFunction]\nVirtualFunctions=2\nX-Why=rdma\n[X-Inventory]\nRack=7\n")
    c = h.run("check")
    assert c.returncode == 0 and c.stderr == "", c.stdout + c.stderr
    assert h.run("apply").returncode == 0
    assert h.pf(ICE_A)["num_vfs"] == 2


@pytest.mark.parametrize("option", ["--config-dir", "--main-config"])
@pytest.mark.parametrize("verb", ["apply", "plan", "status", "check", "reset"])
def test_a_missing_directory_or_file_is_a_usage_error(make_host, option, verb):
    """`--config-dir <typo> apply` once saw no layouts and removed what it had created."""
    h = running(make_host)
    before = h.path.read_bytes()
    missing = str(h.dir / "typo")
    args = []
    for opt, val in (("--config-dir", str(h.confdir)), ("--main-config", str(h.main))):
        args += [opt, missing if opt == option else val]
    r = h.run(*args, verb)  # the later option wins over Host.run's own
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{option}={missing}: does not exist" in r.stderr
    assert h.path.read_bytes() == before


def test_a_file_where_a_directory_belongs_is_a_usage_error(make_host):
    h = make_host("e810.json")
    r = h.run("--config-dir", str(h.main), "plan")
    assert r.returncode == 2 and "is not a directory" in r.stderr
    r = h.run("--main-config", str(h.confdir), "plan")
    assert r.returncode == 2 and "is a directory, not a file" in r.stderr


@pytest.mark.parametrize("name", ["50-e810.conf~", ".50-e810.conf.swp", "50-e810.conf.dpkg-new",
                                  "50-e810.conf.rpmnew", "50-e810.conf.orig", ".#50-e810.conf"])
def test_only_conf_files_are_read(make_host, name):
    h = running(make_host)
    h.layout(name, "[Match]\nDevice=0x159b\n[PhysicalFunction]\nVirtualFunctions=2\n")
    p = h.run("plan")
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("nothing to do") == 2


def test_a_removed_layout_keeps_its_vfs_until_reset(make_host):
    h = running(make_host)
    (h.confdir / "50-e810.conf").unlink()
    before = h.path.read_bytes()

    p = h.run("plan")
    assert p.returncode == 0 and p.stdout.count("unconfigured (no layout selects it)") == 2, p.stdout
    a = h.run("apply")
    assert a.returncode == 0, a.stdout + a.stderr
    assert h.path.read_bytes() == before, "removing a layout changed the host"
    r, st = status(h)
    assert r.returncode == 0
    assert st[ICE_A]["state"] == "unconfigured"
    assert st[ICE_A]["reason"] == "8 VFs left from a removed layout"
    t = h.run("status")
    # with the options this status was given: the hint works on the same host
    assert (f'"sriovctl --host {h.path} --config-dir {h.confdir} --main-config {h.main} '
            f'reset {ICE_A}" removes the VFs left from its removed layout') in t.stdout, t.stdout

    # a layout that comes back finds its VFs in place: nothing to do
    h.layout("50-e810.conf", "[Match]\nDevice=0x159b\n[PhysicalFunction]\nVirtualFunctions=8\n")
    p = h.run("plan")
    assert p.returncode == 0 and p.stdout.count("nothing to do") == 2, p.stdout
    (h.confdir / "50-e810.conf").unlink()

    r = h.run("reset", ICE_A)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{ICE_A} (ens1f0): reset, 1 action(s); 0 VFs" in r.stdout, r.stdout
    assert h.pf(ICE_A)["num_vfs"] == 0 and h.pf(ICE_B)["num_vfs"] == 8
    _, st = status(h)
    assert st[ICE_A]["state"] == "unconfigured" and st[ICE_A]["reason"] is None
    assert st[ICE_B]["state"] == "unconfigured" and "left from a removed layout" in st[ICE_B]["reason"]
    r = h.run("reset", ICE_A)
    assert r.returncode == 0 and r.stdout == \
        f"{ICE_A} (ens1f0): nothing reset: it has no VFs, and nothing that sriov-persist " \
        "created is left on it\n", r.stdout
    r = h.run("reset")
    assert r.returncode == 0 and f"{ICE_B} (ens1f1): reset" in r.stdout, r.stdout
    assert h.pf(ICE_B)["num_vfs"] == 0
    r = h.run("reset")
    assert r.returncode == 0 and "Nothing to reset" in r.stdout


def test_reset_leaves_what_is_not_ours(make_host):
    h = running(make_host)
    (h.confdir / "50-e810.conf").unlink()
    # someone else changed the VF count since: those VFs are theirs now
    s = h.state()
    pf = h.pf_of(s, ICE_A)
    pf["num_vfs"] = 3
    pf["vfs"] = pf["vfs"][:3]
    h.save(s)
    _, st = status(h)
    assert st[ICE_A]["state"] == "unconfigured" and st[ICE_A]["reason"] == \
        "3 VF(s) exist, but not the 8 sriov-persist created (the count was changed outside " \
        "sriov-persist since its last apply); left as they are"
    r = h.run("reset", ICE_A)
    assert r.returncode == 0 and r.stdout == \
        f"{ICE_A} (ens1f0): nothing reset: 3 VF(s) exist, but not the 8 sriov-persist created " \
        "(the count was changed outside sriov-persist since its last apply); left as they are; " \
        "sriov-persist's record of what it created is dropped\n", r.stdout
    assert h.pf(ICE_A)["num_vfs"] == 3
    # the record of what was ours is gone with them: the VFs are someone else's, and the
    # message does not claim that sriov-persist never made them
    r = h.run("reset", ICE_A)
    assert r.returncode == 0 and r.stdout == \
        f"{ICE_A} (ens1f0): nothing reset: 3 VF(s) exist, none on sriov-persist's record " \
        "(another tool or an administrator made them, or an earlier reset dropped the " \
        "record); left as they are\n", r.stdout
    assert h.pf(ICE_A)["num_vfs"] == 3


def test_a_reset_of_every_pf_says_which_record_it_drops(make_host):
    """sriov-persist made 8 VFs, its layout was removed, someone set 2: status says what a
    reset finds, and a reset of every PF says that it drops the record, so that a later reset
    does not blame another tool for the VFs sriov-persist made."""
    h = running(make_host)
    (h.confdir / "50-e810.conf").unlink()
    s = h.state()
    pf = h.pf_of(s, ICE_A)
    pf["num_vfs"] = 2
    pf["vfs"] = pf["vfs"][:2]
    h.save(s)
    gone = "2 VF(s) exist, but not the 8 sriov-persist created (the count was changed outside " \
        "sriov-persist since its last apply); left as they are"
    t = h.run("status")
    assert t.returncode == 0 and f"    {gone}\n" in t.stdout, t.stdout
    assert f'reset {ICE_A}" drops sriov-persist\'s record of them' in t.stdout, t.stdout
    assert f'reset {ICE_B}" removes the VFs left from its removed layout' in t.stdout, t.stdout

    h.layout("50-e810.conf", f"[Match]\nPCIAddress={ICE_B}\n[PhysicalFunction]\n"
             "VirtualFunctions=8\n")
    r = h.run("reset")
    assert r.returncode == 0 and r.stdout == \
        f"{ICE_A} (ens1f0): nothing reset: {gone}; sriov-persist's record of what it created " \
        f"is dropped\nNothing to reset: a layout selects {ICE_B} (ens1f1), which has what " \
        "sriov-persist created; reset removes only what a removed layout left\n", r.stdout
    assert h.pf(ICE_A)["num_vfs"] == 2
    _, st = status(h)
    assert st[ICE_A]["state"] == "unconfigured" and st[ICE_A]["reason"] is None
    r = h.run("reset")
    assert r.returncode == 0 and r.stdout == \
        f"Nothing to reset: a layout selects {ICE_B} (ens1f1), which has what sriov-persist " \
        "created; reset removes only what a removed layout left\n", r.stdout


def test_a_reset_of_every_pf_prints_each_pf_together_in_pci_order(make_host):
    """Bare reset with one PF that has nothing to reset and one whose VFs go: each PF's lines
    come together, in PCI order, its progress then its outcome."""
    h = running(make_host)
    (h.confdir / "50-e810.conf").unlink()
    s = h.state()
    pf = h.pf_of(s, ICE_A)
    pf["num_vfs"] = 2
    pf["vfs"] = pf["vfs"][:2]
    h.save(s)
    r = h.run("reset")
    gone = "2 VF(s) exist, but not the 8 sriov-persist created (the count was changed outside " \
        "sriov-persist since its last apply); left as they are"
    assert r.returncode == 0 and r.stdout == \
        f"{ICE_A} (ens1f0): nothing reset: {gone}; sriov-persist's record of what it created " \
        f"is dropped\n{ICE_B} (ens1f1): resetting\n  done remove all VFs\n" \
        f"{ICE_B} (ens1f1): reset, 1 action(s); 0 VFs\n", r.stdout
    assert h.pf(ICE_A)["num_vfs"] == 2 and h.pf(ICE_B)["num_vfs"] == 0


def test_reset_says_who_has_the_vfs_now(make_host):
    """sriov-persist created 8 on a PF; the VFs are gone (a reboot), or someone wrote a larger
    count: reset destroys nothing, and says whose VFs are there."""
    h = running(make_host)
    (h.confdir / "50-e810.conf").unlink()
    s = h.state()
    h.pf_of(s, ICE_A).update(num_vfs=0, vfs=[])
    h.save(s)
    r = h.run("reset", ICE_A)
    assert r.returncode == 0 and r.stdout == \
        f"{ICE_A} (ens1f0): nothing reset: it has no VFs; the 8 that sriov-persist created " \
        "are gone (a reboot, or a change outside sriov-persist); sriov-persist's record of what " \
        "it created is dropped\n", r.stdout

    # the other way: sriov-persist made 8, another tool made 16 of them since
    h.layout("50-e810.conf", f"[Match]\nPCIAddress={ICE_B}\n[PhysicalFunction]\n"
             "VirtualFunctions=16\n")
    other = h.dir / "other.lib"
    a = h.run("apply", "--state-dir", str(other))
    assert a.returncode == 0 and h.pf(ICE_B)["num_vfs"] == 16, a
    (h.confdir / "50-e810.conf").unlink()
    r = h.run("reset", ICE_B)
    assert r.returncode == 0 and r.stdout == \
        f"{ICE_B} (ens1f1): nothing reset: 16 VF(s) exist, but not the 8 sriov-persist " \
        "created (the count was changed outside sriov-persist since its last apply); left as " \
        "they are; sriov-persist's record of what it created is dropped\n", r.stdout
    assert h.pf(ICE_B)["num_vfs"] == 16


def test_reset_refuses_a_configured_pf(make_host):
    h = running(make_host)
    before = h.path.read_bytes()
    r = h.run("reset", ICE_A)
    assert r.returncode == 1
    assert "not reset: a layout selects it (" in r.stdout, r.stdout
    r = h.run("reset")
    assert r.returncode == 0 and r.stdout.startswith("Nothing to reset: a layout selects "), \
        r.stdout
    assert h.path.read_bytes() == before


def test_reset_follows_the_disruption_policy(make_host):
    h = running(make_host)
    (h.confdir / "50-e810.conf").unlink()
    h.main.write_text("[Disruption]\nPolicy=never\n")
    before = h.path.read_bytes()
    r = h.run("reset", ICE_A)
    assert r.returncode == 1
    assert "deferred: resetting what sriov-persist created waits: disruptive changes held by " \
           "[Disruption] Policy=never" in r.stdout, r.stdout
    assert h.path.read_bytes() == before
    # status says the reset waits, and fails, until it has happened
    s = h.run("status", "--json")
    assert s.returncode == 1
    pf = next(p for p in json.loads(s.stdout)["pfs"] if p["pci"] == ICE_A)
    assert pf["state"] == "deferred" and "Policy=never" in pf["reason"], pf


def test_reset_names_a_missing_pf(make_host):
    h = make_host("e810.json")
    r = h.run("reset", "0000:ff:1f.7")
    assert r.returncode == 1 and "No PF '0000:ff:1f.7'" in r.stderr


def test_a_pf_is_named_by_its_address_in_either_case(make_host):
    h = make_host("e810.json")
    h.layout("50.conf", f"[Match]\nPCIAddress={ICE_A}\n[PhysicalFunction]\nVirtualFunctions=4\n")
    upper = ICE_A.upper()
    assert upper != ICE_A
    p = h.run("plan", upper)
    assert p.returncode == 10 and f"{ICE_A} (ens1f0): " in p.stdout, p.stdout + p.stderr


def test_plan_shows_every_pf_when_one_is_held(make_host):
    h = make_host("e810.json")
    h.layout("50-a.conf", f"[Match]\nPCIAddress={ICE_A}\n[PhysicalFunction]\nVirtualFunctions=4\n")
    h.layout("60-b.conf", f"[Match]\nPCIAddress={ICE_B}\n[VirtualFunction]\nVLANId=5000\n")
    p = h.run("plan")
    assert p.returncode == 1
    assert f"{ICE_A} (ens1f0): 2 action(s), all live" in p.stdout, p.stdout
    assert f"{ICE_B} (ens1f1): held" in p.stdout


def test_main_config_accepts_time_spans_and_rejects_unknown_keys(make_host):
    h = make_host("e810.json")
    h.main.write_text("[Apply]\nTimeoutSec=2min\nSysfsWriteTimeoutSec=1min 30s\n"
                      "[Kubernetes]\nDrainTimeoutSec=5min\n")
    c = h.run("check")
    assert c.returncode == 0, c.stdout + c.stderr
    h.main.write_text("[Apply]\nTimeoutSec=2min\n[Disruption]\nPolcy=never\n")
    c = h.run("check")
    assert c.returncode == 1
    assert f"{h.main}:4: unknown key 'Polcy' in [Disruption]; did you mean 'Policy'?" in c.stderr
    h.layout("50.conf", f"[Match]\nPCIAddress={ICE_A}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    a = h.run("apply")
    assert a.returncode == 1 and "The main configuration has errors" in a.stderr
    assert h.pf(ICE_A)["num_vfs"] == 0
    # plan and status say what apply does: every PF a layout selects is held, and why
    held = (f"the main configuration has errors, nothing is applied: {h.main}:4: unknown key "
            "'Polcy' in [Disruption]; did you mean 'Policy'?")
    for verb in ("plan", "status"):
        r = h.run(verb)
        assert r.returncode == 1, (verb, r.stdout, r.stderr)
        assert held in r.stdout and "did you mean 'Policy'?" in r.stderr, (verb, r.stdout)
    st = json.loads(h.run("status", "--json").stdout)
    assert next(p for p in st["pfs"] if p["pci"] == ICE_A)["state"] == "held"


def test_a_broken_main_configuration_holds_every_pf_with_a_record(make_host):
    """apply says held, with why, for every configured PF and records it, so that the boot gate
    fails at once instead of waiting its timeout for records that never come."""
    import time
    h = make_host("e810.json")
    h.main.write_text("[Disruption]\nPolicy=drain # for k8s\n")
    h.layout("50.conf", "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=2\n")
    held = (f"the main configuration has errors, nothing is applied: {h.main}:2: Policy=drain # for "
            "k8s: a '#' after a value is part of the value; comments are whole lines starting "
            "with '#' or ';' (the value must be immediate, drain or never)")
    a = h.run("apply")
    assert a.returncode == 1 and "The main configuration has errors" in a.stderr, a
    assert a.stdout == (f"{ICE_A} (ens1f0): held (nothing applied): {held}\n"
                        f"{ICE_B} (ens1f1): held (nothing applied): {held}\n"), a.stdout
    assert h.pf(ICE_A)["num_vfs"] == 0 and h.pf(ICE_B)["num_vfs"] == 0
    for pci in (ICE_A, ICE_B):
        rec = json.loads((h.dir / "host.json.run" / "pf" / f"{pci}.json").read_text())
        assert (rec["state"], rec["error"]) == ("held", held), rec
    st = json.loads(h.run("status", "--json").stdout)["pfs"]
    assert [(p["state"], p["reason"]) for p in st] == [("held", held)] * 2, st
    t0 = time.monotonic()
    w = h.run("wait", "--timeout", "30")
    assert time.monotonic() - t0 < 10, "wait waited for PFs that nothing will apply"
    assert w.returncode == 1 and "2 configured PF(s): 0 applied, 2 not" in w.stdout, w
    assert f"Not applied: {ICE_A} (ens1f0): held: {held}\n" in w.stdout, w.stdout
    # reset still refuses to act on a policy it cannot read
    assert h.run("reset").returncode == 1


def test_state_directories_behind_a_link_are_refused(make_host, tmp_path):
    """FILE.run and FILE.lib of a simulated host are ours: a link there is never written through."""
    h = make_host("e810.json")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (h.dir / "host.json.run").symlink_to(elsewhere)
    h.layout("50.conf", f"[Match]\nPCIAddress={ICE_A}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    r = h.run("apply")
    assert r.returncode == 1
    assert "Too many levels of symbolic links" in r.stdout + r.stderr, r.stdout + r.stderr
    assert list(elsewhere.iterdir()) == []
    assert h.pf(ICE_A)["num_vfs"] == 0


# --- the host and the records agree, or the result is a failure ---------------------------------

def test_a_created_record_that_cannot_be_written_touches_nothing(make_host):
    """/var/lib full or read-only: the VFs are not made, since a later reset could not know them."""
    h = make_host("e810.json")
    state = h.dir / "state"
    state.mkdir()
    (state / "pf").write_text("not a directory\n")
    h.layout("50.conf", f"[Match]\nPCIAddress={ICE_A}\n[PhysicalFunction]\nVirtualFunctions=4\n")
    before = h.path.read_bytes()
    r = h.run("--state-dir", str(state), "apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"nothing done: recording what sriov-persist creates in {state} failed: " \
           "Not a directory" in r.stdout, r.stdout
    assert h.path.read_bytes() == before
    s = h.run("--state-dir", str(state), "status", "--json")
    assert s.returncode == 1
    pf = {p["pci"]: p for p in json.loads(s.stdout)["pfs"]}[ICE_A]
    assert pf["state"] == "failed" and "recording what sriov-persist creates" in pf["reason"], pf


def test_a_status_record_that_cannot_be_written_fails_the_pf(make_host):
    """/run full or read-only: the apply is reported as failed, not "applied" with the boot gate
    left waiting."""
    h = make_host("e810.json")
    run = h.dir / "run"
    run.mkdir()
    (run / "pf").write_text("not a directory\n")
    h.layout("50.conf", f"[Match]\nPCIAddress={ICE_A}\n[PhysicalFunction]\nVirtualFunctions=4\n")
    r = h.run("--runtime-dir", str(run), "apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"failed after 2 action(s): writing the status record in {run}/pf failed: " \
           "Not a directory (the apply itself: applied)" in r.stdout, r.stdout
    assert h.pf(ICE_A)["num_vfs"] == 4


def test_a_failed_bind_puts_the_vf_back_and_goes_on(make_host):
    """A bind that fails once left the VF on no driver and stopped the other VFs."""
    h = make_host("e810.json")
    s = h.state()
    s["faults"] = [{"op": "bind_vf", "pci": "0000:3b:01.1", "errno": "ENODEV", "times": 1}]
    h.save(s)
    h.layout("50.conf", f"[Match]\nPCIAddress={ICE_A}\n[PhysicalFunction]\nVirtualFunctions=4\n"
                        "[VirtualFunction 0-3]\nDriver=vfio-pci\nVLANId=7\n")
    r = h.run("apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "VF 1: bind vfio-pci failed: No such device" in r.stdout, r.stdout
    assert "VF 1 is back on iavf" in r.stdout, r.stdout
    vfs = h.pf(ICE_A)["vfs"]
    assert [v["driver"] for v in vfs] == ["vfio-pci", "iavf", "vfio-pci", "vfio-pci"], vfs
    assert [v["vlan"] for v in vfs] == [7, 7, 7, 7]
    st = {p["pci"]: p for p in json.loads(h.run("status", "--json").stdout)["pfs"]}[ICE_A]
    assert st["state"] == "failed" and "VF 1 is back on iavf" in st["reason"]
    assert st["vfs"][1]["layout"] == "differs: driver iavf (wanted vfio-pci)"
    # the fault is spent: the next apply finishes the job
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [v["driver"] for v in h.pf(ICE_A)["vfs"]] == ["vfio-pci"] * 4


def test_machine_id_option_over_a_snapshots_own_says_so_once(make_host):
    """A snapshot with a machine_id of its own and --machine-id giving another: the option wins
    for plan and check, and stderr says so once (apply takes the snapshot's own); the same ID
    given again says nothing."""
    h = make_host("e810.json")
    own = h.state()["machine_id"]
    given = "0123456789abcdef0123456789abcdef"
    assert own != given
    h.layout("50.conf", f"[Match]\nPCIAddress={ICE_A}\n[PhysicalFunction]\nVirtualFunctions=2\n"
                        "[VirtualFunction]\nMACAddress=stable\n")
    note = (f"note: --machine-id {given} replaces the machine_id {own} of {h.path}; apply derives "
            "stable values from the snapshot's own")
    with_own = h.run("plan", "--json")
    for verb in (("plan", "--json"), ("check",)):
        r = h.run("--machine-id", given, *verb)
        assert r.stderr.splitlines() == [note], r.stderr
    r = h.run("--machine-id", given, "plan", "--json")
    assert r.returncode == 10 and r.stdout != with_own.stdout
    r = h.run("--machine-id", own, "plan", "--json")
    assert (r.stderr, r.stdout) == ("", with_own.stdout)


def test_machine_id_for_offline_planning(make_host):
    """Snapshots of real hosts leave the machine ID out: plan holds the PF as apply does and says
    that --machine-id supplies it; plan then shows the stable MACs the host itself will compute."""
    h = make_host("e810.json")
    s = h.state()
    machine_id = s.pop("machine_id", None) or "6f3c1d2e8a9b4c5d7e6f8091a2b3c4d5"
    h.save(s)
    h.layout("50.conf", f"[Match]\nPCIAddress={ICE_A}\n[PhysicalFunction]\nVirtualFunctions=2\n"
                        "[VirtualFunction]\nMACAddress=stable\n")
    # planned without it: held, as apply holds it, saying how to give it
    p = h.run("plan")
    assert p.returncode == 1, p.stdout + p.stderr
    assert (f"{ICE_A} (ens1f0): held: {h.confdir}/50.conf:6: MACAddress=stable: the machine ID "
            "is unknown: this snapshot leaves it out (--machine-id gives it)") in p.stdout, p.stdout
    assert "action(s)" not in p.stdout and "mac " not in p.stdout, p.stdout
    # status: held, so no count wanted ("-" and null), no VF rows to be created
    st = h.run("status")
    assert st.returncode == 1, st.stdout + st.stderr
    row = next(line for line in st.stdout.splitlines() if line.startswith(ICE_A))
    assert row.split()[3:7] == ["0", "-", "128", "held"], row
    pf = {x["pci"]: x for x in json.loads(h.run("status", "--json").stdout)["pfs"]}[ICE_A]
    assert pf["state"] == "held" and pf["desired_num_vfs"] is None and pf["vfs"] == [], pf
    assert pf["pending_actions"] == 0 and "--machine-id gives it" in pf["reason"], pf
    # applied without it: held, nothing made up
    before = h.path.read_bytes()
    a = h.run("apply")
    assert a.returncode == 1 and "machine ID is unknown" in a.stdout + a.stderr, a.stdout
    assert h.path.read_bytes() == before
    p = h.run("--machine-id", machine_id, "plan", "--json")
    assert p.returncode == 10, p.stdout + p.stderr
    planned = [a["description"] for a in json.loads(p.stdout)["pfs"][0]["actions"]
               if "mac " in a["description"]]
    assert len(planned) == 2, planned
    # the host with that machine ID computes the same
    s = h.state()
    s["machine_id"] = machine_id
    h.save(s)
    h.run("apply")
    macs = [v["mac"] for v in h.pf(ICE_A)["vfs"]]
    assert all(mac in line for mac, line in zip(macs, planned)), (macs, planned)
    assert h.run("--machine-id", "xyz", "plan").returncode == 2
    # this machine's own is read, never overridden
    r = subprocess.run([h.binary, "--machine-id", machine_id, "plan"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "only with --host" in r.stderr, r.stderr
