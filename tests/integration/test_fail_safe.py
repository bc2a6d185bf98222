# SPDX-License-Identifier: LGPL-2.1-or-later
"""Configuration that cannot say what it means changes nothing; removing a layout keeps its VFs
until `sriovctl reset`."""

import json

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
    assert p.returncode == 0 and p.stdout.count("not configured") == 2, p.stdout
    a = h.run("apply")
    assert a.returncode == 0, a.stdout + a.stderr
    assert h.path.read_bytes() == before, "removing a layout changed the host"
    r, st = status(h)
    assert r.returncode == 0
    assert st[ICE_A]["state"] == "unconfigured"
    assert st[ICE_A]["reason"] == "8 VFs left from a removed layout"
    t = h.run("status")
    assert f'"sriovctl reset {ICE_A}" removes them' in t.stdout, t.stdout

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
    assert st[ICE_A]["state"] == "not-configured" and st[ICE_B]["state"] == "unconfigured"
    r = h.run("reset", ICE_A)
    assert r.returncode == 0 and "nothing that sriov-persist created is left" in r.stdout
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
    assert st[ICE_A]["state"] == "not-configured"
    r = h.run("reset", ICE_A)
    assert r.returncode == 0 and "nothing that sriov-persist created is left" in r.stdout
    assert h.pf(ICE_A)["num_vfs"] == 3


def test_reset_refuses_a_configured_pf(make_host):
    h = running(make_host)
    before = h.path.read_bytes()
    r = h.run("reset", ICE_A)
    assert r.returncode == 1
    assert "not reset: a layout selects it" in r.stdout, r.stdout
    r = h.run("reset")
    assert r.returncode == 0 and "Nothing to reset" in r.stdout
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


def test_reset_names_a_missing_pf(make_host):
    h = make_host("e810.json")
    r = h.run("reset", "0000:ff:1f.7")
    assert r.returncode == 1 and "No PF '0000:ff:1f.7'" in r.stderr


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
