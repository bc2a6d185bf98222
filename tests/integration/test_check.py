# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriovctl check finds everything the files show, and every message names its places:
the rules of the files alone (without a host), files that select no PF (with one),
every bad line of a file, and one text for one problem."""

import re
import subprocess

import pytest

E810 = "0000:3b:00.0"


def check_files(h, *files, strict=False):
    """`sriovctl check FILE...` without a host, as an operator runs it before a layout goes in."""
    cmd = [h.binary, "--no-color", "check", *(["--strict"] if strict else []), *map(str, files)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=h.dir)


def lines(r):
    return r.stderr.splitlines()


def test_without_host_the_files_alone(make_host):
    h = make_host("e810.json")
    a = h.layout("50-e810.conf",
                 "[Match]\nDriver=ice\n"
                 "[PhysicalFunction]\nVirtualFunctions=8\nHardwareTCOffload=yes\nESwitchMode=legacy\n"
                 "[VirtualFunction 9]\nTrust=yes\n"
                 "[VirtualFunction 0]\nMACAddress=02:00:00:00:00:01\nQualityOfService=3\n"
                 "[VirtualFunction 1]\nMACAddress=02:00:00:00:00:01\n")
    r = check_files(h, a)
    assert lines(r) == [
        f"{a}:5: HardwareTCOffload=yes: needs ESwitchMode=switchdev (ESwitchMode=legacy at line 6)",
        f"{a}:7: [VirtualFunction 9]: VF 9 is beyond VirtualFunctions=8",
        f"{a}:11: VF 0: QualityOfService=3 needs a VLANId= other than 0",
        f"{a}:13: MACAddress=02:00:00:00:00:01: VF 0 and VF 1 would have the same address "
        "(VF 0's at line 10)",
    ]
    assert r.stdout == "1 layout file(s) checked: 4 error(s)\n"
    assert r.returncode == 1


def test_without_host_two_files_name_both_places(make_host):
    h = make_host("e810.json")
    a = h.layout("50-e810.conf", "[Match]\nDriver=ice\n[VirtualFunction 0-7]\nTrust=no\n")
    b = h.layout("60-other.conf",
                 "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=4\n"
                 "[VirtualFunction]\nTrust=yes\n")
    r = check_files(h, a, b)
    assert lines(r) == [
        f"{b}:6: warning: Trust=yes overrides Trust=no at {a}:4 for VFs 0-7 (a later file wins)",
        f"{a}:3: [VirtualFunction 0-7]: VFs 4-7 are beyond VirtualFunctions=4 ({b}:4)",
    ]
    assert r.stdout == "2 layout file(s) checked: 1 error(s), 1 warning(s)\n"
    assert r.returncode == 1

    # with the host, the same: the files that select the PF go together
    r = h.run("check")
    assert f"{a}:3: [VirtualFunction 0-7]: VFs 4-7 are beyond VirtualFunctions=4 ({b}:4)" in lines(r)
    assert r.returncode == 1


def test_warnings_alone_exit_0_unless_strict(make_host):
    h = make_host("e810.json")
    a = h.layout("50-e810.conf", "[Match]\nDriver=ice\n[VirtualFunction]\nTrust=no\n")
    b = h.layout("60-e810.conf", "[Match]\nDriver=ice\n[VirtualFunction]\nTrust=yes\n")
    r = check_files(h, a, b)
    assert r.returncode == 0
    assert r.stdout == "2 layout file(s) checked: 0 error(s), 1 warning(s)\n"
    r = check_files(h, a, b, strict=True)
    assert r.returncode == 1
    assert r.stdout == "2 layout file(s) checked: 0 error(s), 1 warning(s) (--strict: errors)\n"


def test_a_file_that_selects_no_pf(make_host):
    h = make_host("e810.json")
    before = h.path.read_bytes()
    p = h.layout("50-e810.conf",
                 "# mistyped\n[Match]\nPCIAddress=0000:99:00.0\n[PhysicalFunction]\nVirtualFunctions=2\n")
    # the line of the [Match] key that selects nothing
    warning = f"{p}:3: warning: [Match] PCIAddress=0000:99:00.0 selects no PF on this host"

    r = h.run("check")
    assert lines(r) == [warning]
    assert r.stdout == ("1 layout file(s) and the main configuration checked: 0 error(s), "
                        "1 warning(s)\n")
    assert r.returncode == 0
    r = h.run("check", "--strict")
    assert lines(r) == [warning]
    assert r.returncode == 1

    # plan and apply say it too, and it is no failure
    r = h.run("plan")
    assert warning in lines(r)
    assert r.returncode == 0
    r = h.run("apply")
    assert warning in lines(r)
    assert r.returncode == 0
    assert h.path.read_bytes() == before


def test_a_file_for_other_hosts_is_no_warning(make_host):
    # Host= names other machines: one directory shipped to a whole fleet
    # passes --strict on every host
    h = make_host("e810.json")
    h.layout("50-fleet.conf", "[Match]\nHost=db-*\nDriver=ice\n")
    r = h.run("check", "--strict")
    assert r.stdout == "1 layout file(s) and the main configuration checked: 0 error(s)\n"
    assert r.returncode == 0
    # where the host name matches, a key that selects nothing still warns
    h.layout("50-fleet.conf", "[Match]\nHost=gpu-worker-*\nDriver=mlx5_core\n")
    r = h.run("check", "--strict")
    assert any("[Match] Driver=mlx5_core Host=gpu-worker-* selects no PF on this host" in x
               for x in lines(r)), r.stdout + r.stderr
    assert r.returncode == 1


def test_every_bad_line_is_reported(make_host):
    h = make_host("e810.json")
    p = h.layout("50-e810.conf",
                 f"[Match]\nPCIAddress={E810}\n"
                 "[PhysicalFunction]\nVirtualFunctions=2\nLinkUp=maybe\n"
                 "[VirtualFunction 0-5]\nTrust=yes\n"
                 "[VirtualFunction 1]\nQualityOfService=2\nMTUBytes=9000\n")
    r = h.run("check")
    assert lines(r) == [
        f"{p}:5: LinkUp=maybe: must be a boolean (yes/no/true/false/on/off/1/0)",
        f"{p}:6: [VirtualFunction 0-5]: VFs 2-5 are beyond VirtualFunctions=2",
        f"{p}:9: VF 1: QualityOfService=2 needs a VLANId= other than 0",
        f"{p}:10: MTUBytes=9000: above the PF's MTU 1500; set MTUBytes= in [PhysicalFunction]",
    ]
    assert r.returncode == 1


def test_inline_comment_is_named(make_host):
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", "[Match]\nDriver=ice\n[PhysicalFunction]\nMTUBytes=9000 # jumbo\n")
    r = check_files(h, p)
    assert lines(r) == [
        f"{p}:4: MTUBytes=9000 # jumbo: a '#' after a value is part of the value; comments are "
        "whole lines starting with '#' or ';' (the value must be 68..65535)"]
    assert r.returncode == 1


def test_one_text_for_a_file_selecting_two_pfs(make_host):
    h = make_host("x710.json")
    p = h.layout("50-x710.conf",
                 "[Match]\nDriver=i40e\n[PhysicalFunction]\nVirtualFunctions=4\n"
                 "[VirtualFunction]\nVLANId=10\nVLANProtocol=802.1ad\n")
    r = h.run("check")
    assert lines(r) == [f"{p}:7: VLANProtocol=802.1ad: the i40e driver supports only 802.1Q"]
    assert r.returncode == 1


def test_the_daemon_logs_a_file_that_selects_no_pf(make_host, start_daemon, bus_client):
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", "[Match]\nPCIAddress=0000:99:00.0\n[PhysicalFunction]\nVirtualFunctions=2\n")
    d = start_daemon(h)
    bus_client.wait(lambda: re.search(re.escape(f"{p}:2: warning: [Match] PCIAddress=0000:99:00.0 "
                                                "selects no PF on this host"), d.log_text()),
                    timeout=15, what="a log line saying the file selects no PF")


def test_same_literal_mac_on_two_pfs_holds_both(make_host):
    """A literal address is unique on the host: two PFs with it are both held, also when one
    of them is applied alone (the apply then reads every PF)."""
    h = make_host("e810.json")
    a = h.layout("50-e810.conf",
                 "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=2\n"
                 "[VirtualFunction 0]\nMACAddress=02:00:00:00:00:01\n")
    msg = (f"{a}:6: MACAddress=02:00:00:00:00:01: VF 0 of 0000:3b:00.0 and VF 0 of 0000:3b:00.1"
           " would have the same address")
    r = h.run("check")
    assert msg in lines(r)
    assert r.returncode == 1
    for pf in ("0000:3b:00.1", "ens1f0"):
        r = h.run("apply", pf)
        assert "held (nothing applied)" in r.stdout and msg in r.stdout
        assert r.returncode != 0
    assert all(p["num_vfs"] == 0 for p in h.pfs_by_driver("ice"))


def test_literal_mac_of_another_pfs_permanent_address_holds_the_pf(make_host):
    """A VF given the permanent address of a PF of the host (here the other E810 port) would
    share it with that PF's interface: an error naming the PF that owns the address."""
    h = make_host("e810.json")
    owner = h.pf("0000:3b:00.1")
    a = h.layout("50-e810.conf",
                 "[Match]\nPCIAddress=0000:3b:00.0\n[PhysicalFunction]\nVirtualFunctions=2\n"
                 f"[VirtualFunction 0]\nMACAddress={owner['permanent_mac']}\n")
    msg = (f"{a}:6: MACAddress={owner['permanent_mac']}: PF 0000:3b:00.1 ({owner['name']}) has "
           "this permanent address: VF 0 of 0000:3b:00.0 would have the same")
    r = h.run("check")
    assert lines(r) == [msg], r.stderr
    assert r.returncode == 1
    r = h.run("apply", "0000:3b:00.0")
    assert "held (nothing applied)" in r.stdout and msg in r.stdout
    assert r.returncode == 1
    assert h.pf("0000:3b:00.0")["num_vfs"] == 0


def test_broken_match_says_it_holds_every_pf(make_host):
    h = make_host("e810.json")
    a = h.layout("50-a.conf", "[Match]\nPCIAddress=0000:3b:00.O\n[PhysicalFunction]\nVirtualFunctions=2\n")
    h.layout("60-b.conf", "[Match]\nPCIAddress=0000:3b:00.1\n[PhysicalFunction]\nVirtualFunctions=2\n")
    r = h.run("plan")
    assert (f"0000:3b:00.1 (ens1f1): held: {a}:2: PCIAddress=0000:3b:00.O: must be PCI address globs"
            " (hex digits, ':', '.', and * ? [ ] ! -) (a [Match] with an error holds every PF)"
            in r.stdout.splitlines())


def test_a_bad_host_still_checks_the_files(make_host, tmp_path):
    h = make_host("e810.json")
    a = h.layout("50-a.conf", "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFuncions=2\n")
    bad = tmp_path / "passwd"
    bad.write_text("root:x:0:0:root:/root:/bin/bash\n")
    r = subprocess.run([h.binary, "--no-color", "--host", str(bad), "check", str(a)],
                       capture_output=True, text=True, timeout=60)
    err = r.stderr.splitlines()
    assert err[0].startswith(f"{bad}: not a simulated host snapshot")
    assert err[1:] == [
        "The files are checked without the host.",
        f"{a}:4: unknown key 'VirtualFuncions' in [PhysicalFunction]; did you mean 'VirtualFunctions'?",
    ]
    assert "Checking failed" not in r.stderr
    # the host that cannot be read is counted
    assert r.stdout == "1 layout file(s) checked: 2 error(s)\n"
    assert r.returncode == 1


def test_a_rate_conflict_is_one_error(make_host):
    h = make_host("e810.json")
    a = h.layout("50-a.conf", "[Match]\nDriver=ice\n[VirtualFunction]\nMaxTxRateMbps=100\n"
                 "MinTxRateMbps=200\n")
    for r in (check_files(h, a), h.run("check")):
        assert lines(r) == [f"{a}:5: MinTxRateMbps=200: must not exceed MaxTxRateMbps=100 (line 4)"]
        assert "1 error(s)" in r.stdout


def test_a_named_file_in_a_writable_directory_is_refused(make_host):
    """check FILE follows the rule of the directories: the file's directory is judged too."""
    h = make_host("e810.json")
    d = h.dir / "p2"
    d.mkdir()
    a = d / "60-b.conf"
    a.write_text("[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=2\n")
    d.chmod(0o777)
    r = check_files(h, a)
    assert lines(r) == [f"{d}: writable by group or others (mode 0777); refusing it: chmod go-w"]
    assert r.stdout == "1 layout file(s) checked: 1 error(s)\n"
    assert r.returncode == 1
    d.chmod(0o755)
    r = check_files(h, a)
    assert r.stdout == "1 layout file(s) checked: 0 error(s)\n" and r.returncode == 0


def test_summary_counts_files_only_and_says_when_there_is_no_main_configuration(make_host):
    """A layout directory that is refused is no layout file; without --main-config and without
    the default main configuration (under --root), its defaults are used and the summary says
    so."""
    h = make_host("e810.json")
    h.confdir.chmod(0o777)
    r = h.run("check")
    assert r.returncode == 1
    assert r.stdout == "0 layout file(s) and the main configuration checked: 1 error(s)\n", r.stdout
    assert "refusing it" in r.stderr, r.stderr
    h.confdir.chmod(0o755)
    # an empty root: whatever this machine's /etc has, there is no main configuration there
    root = h.dir / "root"
    root.mkdir()
    h.layout("50-e810.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    r = subprocess.run([h.binary, "--no-color", "--root", str(root), "--config-dir", str(h.confdir),
                        "check"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "1 layout file(s) checked (no main configuration: defaults): 0 error(s)\n"


QOS_AND_MAC = ("[VirtualFunction {sections}]\nQualityOfService=3\n"
               "[VirtualFunction 0]\nMACAddress=02:00:00:00:00:01\n"
               "[VirtualFunction 1]\nMACAddress=02:00:00:00:00:01\n")


@pytest.mark.parametrize("pf,sections", [
    ("[PhysicalFunction]\nVirtualFunctions=2\n", ""),
    ("", "0-1"),
    ("[PhysicalFunction]\nVirtualFunctions=2\nExternallyManaged=yes\n", ""),
])
def test_with_host_the_vfs_the_layout_wants_are_checked_before_they_exist(make_host, pf,
                                                                          sections):
    """The rules of the files alone hold for every VF a layout wants, also on a PF without VFs
    yet: check with a host says at least what check without one says, and plan holds the PF."""
    h = make_host("e810.json")
    a = h.layout("50-a.conf", "[Match]\nName=ens1f0\n" + pf +
                 QOS_AND_MAC.format(sections=sections).replace("[VirtualFunction ]",
                                                              "[VirtualFunction]"))
    alone = check_files(h, a)
    assert alone.returncode == 1 and "2 error(s)" in alone.stdout, alone.stdout + alone.stderr
    r = h.run("check", "--strict")
    assert lines(r) == lines(alone), r.stderr
    assert "2 error(s)" in r.stdout and r.returncode == 1, r.stdout
    r = h.run("plan", "ens1f0")
    assert f"0000:3b:00.0 (ens1f0): held: {lines(alone)[0]} (and 1 more error)" in r.stdout, r.stdout
    assert r.returncode == 1
    r = h.run("apply", "ens1f0")
    assert "held (nothing applied)" in r.stdout and r.returncode != 0, r.stdout
    assert h.pf(E810)["num_vfs"] == 0


def test_an_error_of_the_parser_and_the_rules_is_said_and_counted_once(make_host):
    """A rate conflict in one section is the parser's error and the rules' too: plan, status
    and apply say it once, and the held reason counts the errors as check does."""
    h = make_host("e810.json")
    a = h.layout("50-a.conf", "[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=4\n"
                 "MTUBytes=99999999\n[VirtualFunction]\nMinTxRateMbps=500\nMaxTxRateMbps=100\n"
                 "Trust=maybe\n[VirtualFunction 1-2]\nMinTxRateMbps=700\nMaxTxRateMbps=200\n")
    want = [f"{a}:5: MTUBytes=99999999: must be 68..65535",
            f"{a}:7: MinTxRateMbps=500: must not exceed MaxTxRateMbps=100 (line 8)",
            f"{a}:9: Trust=maybe: must be a boolean (yes/no/true/false/on/off/1/0)",
            f"{a}:11: MinTxRateMbps=700: must not exceed MaxTxRateMbps=200 (line 12)"]
    for r in (check_files(h, a), h.run("check")):
        assert lines(r) == want, r.stderr
        assert "4 error(s)" in r.stdout, r.stdout
    held = f"{want[0]} (and 3 more errors)\n"
    for verb in ("plan", "status", "apply"):
        r = h.run(verb)
        assert sorted(lines(r)) == sorted(want), (verb, r.stderr)
        assert held in r.stdout, (verb, r.stdout)
    h.layout("50-a.conf", "[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=4\n"
             "[VirtualFunction]\nMinTxRateMbps=500\nMaxTxRateMbps=100\n")
    one = f"{a}:6: MinTxRateMbps=500: must not exceed MaxTxRateMbps=100 (line 7)"
    assert lines(h.run("check")) == [one]
    r = h.run("plan")
    assert lines(r) == [one] and f"held: {one}\n" in r.stdout, r.stdout + r.stderr


def test_a_rate_conflict_across_files_is_the_later_files_error(make_host):
    """The later file made the conflict: its line carries the error, naming the other."""
    h = make_host("e810.json")
    a = h.layout("50-a.conf", "[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=2\n"
                 "[VirtualFunction 1]\nMaxTxRateMbps=100\n")
    b = h.layout("60-b.conf", "[Match]\nName=ens1f0\n[VirtualFunction 1]\nMinTxRateMbps=500\n")
    want = f"{b}:4: MinTxRateMbps=500: must not exceed MaxTxRateMbps=100 ({a}:6)"
    for r in (check_files(h, a, b), h.run("check"), h.run("plan")):
        assert lines(r) == [want], r.stderr
    assert f"held: {want}\n" in h.run("plan").stdout
    # the other way round: the maximum comes later
    a.write_text("[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=2\n"
                 "[VirtualFunction 1]\nMinTxRateMbps=500\n")
    b.write_text("[Match]\nName=ens1f0\n[VirtualFunction 1]\nMaxTxRateMbps=100\n")
    want = f"{b}:4: MaxTxRateMbps=100: below MinTxRateMbps=500 ({a}:6)"
    for r in (check_files(h, a, b), h.run("check"), h.run("plan")):
        assert lines(r) == [want], r.stderr


def test_a_mac_given_twice_by_files_of_two_pfs_names_both_places(make_host):
    h = make_host("e810.json")
    a = h.layout("50-a.conf", "[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=2\n"
                 "[VirtualFunction 0]\nMACAddress=02:00:00:00:00:01\n")
    b = h.layout("60-b.conf", "[Match]\nName=ens1f1\n[PhysicalFunction]\nVirtualFunctions=2\n"
                 "[VirtualFunction 1]\nMACAddress=02:00:00:00:00:01\n")
    msg = ("MACAddress=02:00:00:00:00:01: VF 0 of 0000:3b:00.0 and VF 1 of 0000:3b:00.1 would have"
           " the same address")
    want = [f"{a}:6: {msg} (VF 1 of 0000:3b:00.1's at {b}:6)",
            f"{b}:6: {msg} (VF 0 of 0000:3b:00.0's at {a}:6)"]
    r = h.run("check")
    assert lines(r) == want and "2 error(s)" in r.stdout, r.stdout + r.stderr
    r = h.run("plan")
    assert lines(r) == want, r.stderr
    assert f"0000:3b:00.0 (ens1f0): held: {want[0]}\n" in r.stdout, r.stdout
    assert f"0000:3b:00.1 (ens1f1): held: {want[1]}\n" in r.stdout, r.stdout


def test_a_comment_after_the_match_header_holds_every_pf(make_host):
    # "[Match] # x" is a [Match] with an error: which PFs it meant is not
    # known, so it holds them all, not only those its keys select
    h = make_host("mixed.json")
    a = h.layout("50-a.conf", "[Match] # x\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=2\n")
    r = h.run("plan")
    err = (f"held: {a}:1: '[Match] # x': a comment after a section header is not allowed; "
           "comments are whole lines starting with '#' or ';' (a [Match] with an error holds every PF)")
    out = r.stdout.splitlines()
    for pf in ("0000:3b:00.0 (ens1f0)", "ens2f0np0", "ens5f0"):
        assert any(pf in line and line.endswith(err) for line in out), (pf, out)
    assert r.returncode != 0
