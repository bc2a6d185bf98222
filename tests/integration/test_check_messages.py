# SPDX-License-Identifier: LGPL-2.1-or-later
"""What sriovctl check tells a new user about mistakes the format makes easy: commas between
[Match] globs, a comment after a section header, a mistyped [match], a glob that selects
nothing, a --host that cannot be read, no layout files; and that each message names the
place and the cause."""

import subprocess


def lines(r):
    return r.stderr.splitlines()


def check_files(h, *files, host=False):
    cmd = [h.binary, "--no-color", *(["--host", str(h.path)] if host else []), "check",
           *map(str, files)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=h.dir)


def test_commas_between_name_globs(make_host):
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", "[Match]\nName=ens1f0, ens1f1\n[PhysicalFunction]\nVirtualFunctions=2\n")
    comma = (f"{p}:2: warning: Name=ens1f0, ens1f1: globs are separated by spaces, not commas: "
             "write 'Name=ens1f0 ens1f1' (a ',' is taken as part of an interface name)")
    r = check_files(h, p)
    assert lines(r) == [comma]
    assert r.stdout == "1 layout file(s) checked: 0 error(s), 1 warning(s)\n"
    assert r.returncode == 0
    # with the host, the glob that selects nothing is said too
    r = h.run("check")
    assert lines(r) == [comma, f"{p}:2: warning: [Match] Name=ens1f0, selects no PF on this host "
                               "(the file's other Name= globs do)"]
    assert r.returncode == 0
    assert h.run("check", "--strict").returncode == 1


def test_a_glob_that_selects_no_pf(make_host):
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", "[Match]\nDriver=ice\nName=ens1f0 ens1fX\n")
    q = h.layout("60-fleet.conf", "[Match]\nName=ens9 ens8\n")
    r = h.run("check")
    # the file that selects nothing has its one warning, not one per glob
    assert lines(r) == [
        f"{q}:2: warning: [Match] Name=ens9 ens8 selects no PF on this host",
        f"{p}:3: warning: [Match] Name=ens1fX selects no PF on this host "
        "(the file's other Name= globs do)",
    ]
    assert r.returncode == 0
    # only check says it: plan and the daemon are not told of each glob
    assert "ens1fX" not in h.run("plan").stderr


def test_a_glob_that_selects_no_pf_in_a_file_with_errors(make_host):
    """An error elsewhere in the file does not hide the mistyped glob: one pass shows both."""
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", "[Match]\nPCIAddress=0000:3b:00.0 0000:3b:0.1\n"
                 "[PhysicalFunction]\nMTUBytes=90000\n")
    r = h.run("check")
    assert f"{p}:2: warning: [Match] PCIAddress=0000:3b:0.1 selects no PF on this host " \
        "(the file's other PCIAddress= globs do)" in r.stderr, r.stderr
    assert f"{p}:4: MTUBytes=90000" in r.stderr, r.stderr
    assert r.returncode == 1


def test_keys_under_a_mistyped_section_are_checked_against_the_section_meant(make_host):
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", "[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=4\n"
                 "[VF 0-3]\nspoofchk=off\nTrust=yes\n[PhysicalFuntion]\nLinkUpp=yes\n"
                 "MTUBytes=9000\n")
    r = check_files(h, p)
    sections = "sections are [Match], [PhysicalFunction], [VirtualFunction ...] and [Layout]"
    assert lines(r) == [
        f"{p}:5: unknown section [VF 0-3]; {sections}; did you mean '[VirtualFunction 0-3]'?",
        f"{p}:6: unknown key 'spoofchk' in [VF 0-3]; did you mean 'MACSpoofCheck'?",
        f"{p}:8: unknown section [PhysicalFuntion]; {sections}; did you mean '[PhysicalFunction]'?",
        f"{p}:9: unknown key 'LinkUpp' in [PhysicalFuntion]; did you mean 'LinkUp'?",
    ]
    assert r.returncode == 1


def test_a_comment_after_a_section_header(make_host):
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", "[Match] # ports\nName=ens1f0\nBogus=1\n"
                 "[PhysicalFunction] ; pf\nVirtualFunctions=2\nLinkUp=maybe\n")
    r = h.run("check")
    assert lines(r) == [
        f"{p}:1: '[Match] # ports': a comment after a section header is not allowed; comments "
        "are whole lines starting with '#' or ';'",
        f"{p}:3: unknown key 'Bogus' in [Match]",
        f"{p}:4: '[PhysicalFunction] ; pf': a comment after a section header is not allowed; "
        "comments are whole lines starting with '#' or ';'",
        f"{p}:6: LinkUp=maybe: must be a boolean (yes/no/true/false/on/off/1/0)",
    ]
    assert r.stdout.endswith(": 4 error(s)\n")
    assert r.returncode == 1


def test_the_main_configuration_among_the_layouts_says_where_it_belongs(make_host):
    """sriov-persist.conf copied into conf.d by mistake: each of its sections is said to be the
    main configuration's, and the missing [Match] says where that file belongs, not to select
    every PF with PCIAddress=*."""
    h = make_host("e810.json")
    p = h.layout("10-main.conf", "[Disruption]\nPolicy=drain\n[Drift]\nMode=report\n"
                                 "[Kubernetes]\nEnabled=auto\n")
    r = h.run("check")
    main = "a section of the main configuration (sriov-persist.conf), not of a layout"
    assert lines(r) == [
        f"{p}:1: unknown section [Disruption]: {main}",
        f"{p}:3: unknown section [Drift]: {main}",
        f"{p}:5: unknown section [Kubernetes]: {main}",
        f"{p}: no [Match] section: with [Disruption] [Drift] [Kubernetes] this looks like the main "
        "configuration, which belongs in /etc/sriov-persist/sriov-persist.conf (or a drop-in in "
        "/etc/sriov-persist/sriov-persist.conf.d/), not among the layouts",
    ], r.stderr
    assert "PCIAddress=*" not in r.stdout + r.stderr
    assert r.returncode == 1


def test_a_mistyped_match_header(make_host):
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", "[match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=2\n")
    r = check_files(h, p)
    # one typo, one error
    err = (f"{p}:1: unknown section [match]: section names are case-sensitive, write [Match] "
           "(the file has no [Match] section)")
    assert lines(r) == [err]
    assert r.stdout.endswith(": 1 error(s)\n")
    assert r.returncode == 1
    r = h.run("plan")
    assert f"0000:3b:00.0 (ens1f0): held: {err} (a file without a [Match] holds every PF)" \
        in r.stdout.splitlines(), r.stdout


def test_a_host_that_does_not_exist_is_the_error(make_host):
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", "[Match]\nDriver=ice\n")
    missing = h.dir / "nonexistent.json"
    r = subprocess.run([h.binary, "--no-color", "--host", str(missing), "check", str(p)],
                       capture_output=True, text=True, timeout=60)
    assert lines(r) == [f"{missing}: cannot open the simulated host: No such file or directory",
                        "The files are checked without the host."]
    assert r.stdout == "1 layout file(s) checked: 1 error(s)\n"
    assert r.returncode == 1


def test_no_layout_files(make_host):
    h = make_host("e810.json")
    r = h.run("check")
    assert lines(r) == [f"warning: no layout files (*.conf) in {h.confdir}"]
    assert r.stdout == ("0 layout file(s) and the main configuration checked: 0 error(s), "
                        "1 warning(s)\n")
    assert r.returncode == 0
    assert h.run("check", "--strict").returncode == 1


def test_firmware_vfs_no_names_its_line(make_host):
    h = make_host("cx6dx.json")
    p = h.layout("50-cx.conf", "[Match]\nDriver=mlx5_core\n[PhysicalFunction]\n"
                 "FirmwareVirtualFunctions=no\nVirtualFunctions=16\n")
    r = h.run("check")
    assert lines(r) == [
        f"{p}:5: VirtualFunctions=16: the PF supports at most 8 VFs (sriov_totalvfs), and "
        "FirmwareVirtualFunctions=no (line 4) forbids raising the firmware limit"]
    assert r.returncode == 1


def test_tc_offload_names_the_pf_and_its_mode(make_host):
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", "[Match]\nName=ens1f0\n[PhysicalFunction]\nHardwareTCOffload=yes\n")
    r = h.run("check")
    assert lines(r) == [
        f"{p}:4: HardwareTCOffload=yes: needs ESwitchMode=switchdev; 0000:3b:00.0 (ens1f0) is "
        "in legacy mode and no file sets ESwitchMode="]
    assert r.returncode == 1


def test_a_value_the_files_set_is_changed_only_by_a_later_file(make_host):
    """60-b.conf's VirtualFunctions=2 wins over 50-a.conf's 4 wherever both select a PF: its VF 3
    is beyond it on every PF it selects, unless a file after it sets the count; a key the files
    do not set, any other file may supply."""
    h = make_host("e810.json")
    a = h.layout("50-a.conf", "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=4\n")
    b = h.layout("60-b.conf", "[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=2\n"
                 "[VirtualFunction 3]\nTrust=yes\n")
    beyond = f"{b}:5: [VirtualFunction 3]: VF 3 is beyond VirtualFunctions=2"
    r = check_files(h, a, b)
    assert r.returncode == 1 and lines(r) == [beyond], r.stderr
    c = h.layout("70-c.conf", "[Match]\nName=ens1f1\n[PhysicalFunction]\nVirtualFunctions=8\n")
    r = check_files(h, a, b, c)
    assert r.returncode == 1 and lines(r) == [
        f"{beyond} (on every PF where no later file sets VirtualFunctions=)"], r.stderr
    # QualityOfService= without VLANId=: a file before it or after it may give the VLAN
    b.write_text("[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=2\n"
                 "[VirtualFunction 1]\nQualityOfService=3\n")
    r = check_files(h, a, b)
    assert r.returncode == 1 and lines(r) == [
        f"{b}:6: VF 1: QualityOfService=3 needs a VLANId= other than 0 (on every PF where no "
        "other file sets VLANId=)"], r.stderr
    # ... but not against the VLANId=0 of the file itself: only a later one changes that
    b.write_text("[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=2\n"
                 "[VirtualFunction 1]\nVLANId=0\nQualityOfService=3\n")
    r = check_files(h, a, b)
    assert r.returncode == 1 and lines(r) == [
        f"{b}:7: VF 1: QualityOfService=3 needs a VLANId= other than 0"], r.stderr


def test_qos_after_a_rejected_vlan_is_one_error(make_host):
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=2\n"
                 "[VirtualFunction 0]\nVLANId=9999\nQualityOfService=3\n")
    for r in (check_files(h, p), h.run("check")):
        assert lines(r) == [f"{p}:6: VLANId=9999: must be 0..4095"]
        assert r.returncode == 1


def test_an_error_of_merged_values_says_where_it_holds(make_host):
    # 60-b.conf gives ens1f0 the VLAN that 50-a.conf's QoS needs; ens1f1 has none
    h = make_host("e810.json")
    a = h.layout("50-a.conf", "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=2\n"
                 "[VirtualFunction 0]\nQualityOfService=3\n")
    b = h.layout("60-b.conf", "[Match]\nName=ens1f0\n[VirtualFunction 0]\nVLANId=100\n")
    r = check_files(h, a, b)
    assert lines(r) == [f"{a}:6: VF 0: QualityOfService=3 needs a VLANId= other than 0 (on every PF "
                        "where no other file sets VLANId=)"]
    assert r.returncode == 1
    # alone, the file's error is its own
    r = check_files(h, a)
    assert lines(r) == [f"{a}:6: VF 0: QualityOfService=3 needs a VLANId= other than 0"]
    r = h.run("check")
    assert lines(r) == [f"{a}:6: VF 0: QualityOfService=3 needs a VLANId= other than 0 "
                        "(on 0000:3b:00.1 (ens1f1))"]
    assert r.returncode == 1
    out = h.run("plan").stdout
    assert "0000:3b:00.0 (ens1f0): held" not in out
    assert f"0000:3b:00.1 (ens1f1): held: {a}:6: VF 0: QualityOfService=3" in out
