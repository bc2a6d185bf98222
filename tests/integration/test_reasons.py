# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every state and refusal says why: reset held by a refused file, a bare reset that finds
nothing, a PF without its driver, one error on several PFs, a configured PF that left the host."""

import json
import re

ICE_A = "0000:3b:00.0"
ICE_B = "0000:3b:00.1"
LAYOUT = "[Match]\nDevice=0x159b\n[PhysicalFunction]\nVirtualFunctions=4\n"


def running(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", LAYOUT)
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    return h


def test_reset_held_by_a_refused_file_names_it(make_host):
    h = running(make_host)
    path = h.layout("50-e810.conf", LAYOUT.replace("[Match]", "[match]"))
    before = h.path.read_bytes()
    r = h.run("reset", ICE_A)
    assert r.returncode == 1
    assert r.stdout == (
        f"{ICE_A} (ens1f0): not reset: {path} is refused and may select it ({path}:1: unknown "
        "section [match]: section names are case-sensitive, write [Match] (the file has no "
        "[Match] section)); fix or remove it first\n"), r.stdout
    # a bare reset names each PF the refused file holds, and fails as the named one does
    r = h.run("reset")
    assert r.returncode == 1, r.stdout
    assert "Nothing to reset" not in r.stdout
    for pf, name in ((ICE_A, "ens1f0"), (ICE_B, "ens1f1")):
        assert f"{pf} ({name}): not reset: {path} is refused and may select it" in r.stdout
    assert h.path.read_bytes() == before


def test_reset_held_by_a_file_with_a_bad_line_names_its_error(make_host):
    h = running(make_host)
    path = h.layout("50-e810.conf", LAYOUT + "foo\n")
    r = h.run("reset", ICE_B)
    assert r.returncode == 1
    assert r.stdout == (
        f"{ICE_B} (ens1f1): not reset: {path} is refused and may select it ({path}:5: 'foo': "
        "not a Key=value line); fix or remove it first\n"), r.stdout


def test_reset_of_a_selected_pf_names_the_files(make_host):
    h = running(make_host)
    r = h.run("reset", ICE_A)
    assert r.returncode == 1
    assert f"not reset: a layout selects it ({h.confdir}/50-e810.conf): reset removes" in r.stdout
    r = h.run("reset")
    assert r.returncode == 0
    assert r.stdout == (
        f"Nothing to reset: a layout selects {ICE_A} (ens1f0), {ICE_B} (ens1f1), which have "
        "what sriov-persist created; reset removes only what a removed layout left\n"), r.stdout


def test_bare_reset_with_no_record_says_so(make_host):
    h = make_host("e810.json")
    r = h.run("reset")
    assert r.returncode == 0
    assert r.stdout == ("Nothing to reset: no PF of this host has VFs or a switchdev mode that "
                        "sriov-persist created\n"), r.stdout


def unbind(h, pci):
    """The PF's driver unbound (rmmod ice, or echo > unbind): no VFs, no netdev change."""
    s = h.state()
    pf = h.pf_of(s, pci)
    pf["driver"] = None
    pf["num_vfs"] = 0
    pf["vfs"] = []
    h.save(s)


def test_a_pf_whose_driver_is_gone_says_why_as_wait_does(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", LAYOUT.replace("Device=0x159b", "Driver=ice"))
    assert h.run("apply").returncode == 0
    unbind(h, ICE_B)
    w = h.run("wait", "--timeout", "0")
    assert w.returncode == 1 and f"{ICE_B} (no driver yet)" in w.stdout, w.stdout
    why = "no driver yet: a layout may select it once one is bound (sriovctl wait waits for it)"
    r = h.run("status", "--json")
    pf = {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}[ICE_B]
    assert pf["state"] == "unconfigured"
    assert pf["reason"].startswith(why + "; it has no VFs; the 4 that sriov-persist created"), pf
    t = h.run("status")
    assert "unconfigured" in t.stdout and f"    {why}; it has no VFs" in t.stdout, t.stdout
    # a layout may select it yet: no hint to reset it
    assert f"reset {ICE_B}" not in t.stdout, t.stdout


def test_a_pf_without_driver_that_no_layout_may_select_has_no_reason(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", f"[Match]\nPCIAddress={ICE_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=4\n")
    unbind(h, ICE_B)
    r = h.run("status", "--json")
    pf = {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}[ICE_B]
    assert pf["state"] == "unconfigured" and pf["reason"] is None, pf


def check_lines(r):
    return [line for line in r.stderr.splitlines() if line]


def test_one_error_of_several_pfs_is_one_line_naming_all(make_host):
    """HardwareTCOffload=yes on both legacy ports: the message names the PF, and is one line
    naming both, not one per PF (nor the last PF only)."""
    h = make_host("cx6dx.json")
    p = h.layout("50-a.conf", "[Match]\nDriver=mlx5_core\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\nHardwareTCOffload=yes\n")
    r = h.run("check")
    assert r.returncode == 1
    assert check_lines(r) == [
        f"{p}:5: HardwareTCOffload=yes: needs ESwitchMode=switchdev; the PF is in legacy mode "
        "and no file sets ESwitchMode= (on 0000:ca:00.0 (ens3f0np0), 0000:ca:00.1 (ens3f1np1))"
    ], r.stderr
    assert "1 error(s)" in r.stdout


def test_an_error_that_names_one_pf_stays_as_it_is(make_host):
    h = make_host("cx6dx.json")
    p = h.layout("50-a.conf", "[Match]\nName=ens3f0np0\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\nHardwareTCOffload=yes\n")
    r = h.run("check")
    assert check_lines(r)[0] == (
        f"{p}:5: HardwareTCOffload=yes: needs ESwitchMode=switchdev; 0000:ca:00.0 (ens3f0np0) is "
        "in legacy mode and no file sets ESwitchMode="), r.stderr


def unplug(h, pci):
    s = h.state()
    s["pfs"] = [p for p in s["pfs"] if p["pci"] != pci]
    h.save(s)


GONE = re.compile(r"recorded applied at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ with 4 VFs, no longer on the host")


def test_a_configured_pf_that_left_the_host_says_so_everywhere(make_host):
    h = running(make_host)
    unplug(h, ICE_B)
    r = h.run("status", "--json")
    gone = {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}[ICE_B]
    assert gone["state"] == "gone" and GONE.fullmatch(gone["reason"]), gone
    t = h.run("status")
    assert re.search(r"\n    " + GONE.pattern + "\n", t.stdout), t.stdout
    assert f'reset {ICE_B}" drops its status record' in t.stdout, t.stdout
    # not as the layouts say: status fails as plan does, unless a PF on the host is named
    assert t.returncode == 1, t.stdout
    assert h.run("status", ICE_A).returncode == 0

    # apply says it after the PFs it applied, and fails; a PF named is looked for on the host
    a = h.run("apply")
    assert a.returncode == 1, a.stdout + a.stderr
    lines = a.stdout.splitlines()
    assert lines[0] == f"{ICE_A} (ens1f0): already applied", a.stdout
    assert re.fullmatch(f"{ICE_B} \\(ens1f1\\): gone: " + GONE.pattern, lines[1]), a.stdout
    assert lines[2].endswith(f' reset {ICE_B}" drops its status record') and len(lines) == 3
    assert h.run("apply", ICE_A).returncode == 0

    p = h.run("plan")
    assert p.returncode == 1, p.stdout
    assert re.search(f"{ICE_B} \\(ens1f1\\): gone: " + GONE.pattern + "\n", p.stdout), p.stdout
    doc = json.loads(h.run("plan", "--json").stdout)
    g = [x for x in doc["pfs"] if x.get("gone")]
    assert [x["pci"] for x in g] == [ICE_B] and g[0]["actions"] == [] and not doc["changes"]
    # a PF named is looked for on the host
    assert h.run("plan", ICE_A).returncode == 0

    # the boot gate: a hot-unplugged NIC is said, neither counted as applied nor waited for
    w = h.run("wait", "--timeout", "0")
    assert w.returncode == 0, w.stdout
    lines = w.stdout.splitlines()
    assert lines[0] == "1 configured PF(s): 1 applied, 0 not (see sriovctl status)", w.stdout
    assert re.fullmatch(f"Gone, not waited for: {ICE_B} \\(ens1f1\\): " + GONE.pattern, lines[1])


def test_reset_of_a_gone_pf_drops_its_record(make_host):
    h = running(make_host)
    unplug(h, ICE_B)
    r = h.run("reset", "ens1f1")
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(f"{ICE_B} \\(ens1f1\\): " + GONE.pattern +
                        "; its status record is dropped\n", r.stdout), r.stdout
    assert h.run("plan").returncode == 0
    t = h.run("status")
    assert t.returncode == 0 and "gone" not in t.stdout, t.stdout
    assert h.run("apply").returncode == 0
    r = h.run("reset", "ens1f1")
    assert r.returncode == 1 and "No PF 'ens1f1' on this host" in r.stderr
