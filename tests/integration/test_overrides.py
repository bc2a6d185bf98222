# SPDX-License-Identifier: LGPL-2.1-or-later
"""A later file that replaces an earlier file's values on purpose says so ([Layout] Overrides=),
and then passes `check --strict`; an override from a file it does not name still warns, and a
declaration that no longer says what happens is a warning. The shipped examples (conf.d/ and the
fleet example of sriov-persist.layout(5)) pass `check --strict` on a host they are written for."""

import subprocess
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
X710 = "0000:18:00.0"


def lines(r):
    return r.stderr.splitlines()


def host_named(h, name):
    s = h.state()
    s["hostname"] = name
    h.save(s)


# each shipped example with the snapshot of the hardware it is written for and a host name
# its Host= matches; the fleet file goes with its per-host override
SHIPPED = [
    (["50-e810-rdma.conf"], "e810.json", None),
    (["60-cx6dx-switchdev.conf"], "cx6dx.json", None),
    (["65-cx7-infiniband.conf"], "cx7-ib.json", None),
    (["40-fleet-x710.conf", "60-nfv-compute-11.conf"], "x710.json", None),
]


@pytest.mark.parametrize("names,fixture,hostname", SHIPPED)
def test_shipped_examples_pass_strict(make_host, names, fixture, hostname):
    h = make_host(fixture)
    if hostname:
        host_named(h, hostname)
    for n in names:
        h.layout(n, (ROOT / "conf.d" / n).read_text())
    r = h.run("check", "--strict")
    assert lines(r) == []
    assert r.stdout == (f"{len(names)} layout file(s) and the main configuration checked: "
                        "0 error(s)\n")
    assert r.returncode == 0


def test_every_shipped_example_is_checked():
    shipped = sorted(p.name for p in (ROOT / "conf.d").glob("*.conf"))
    assert shipped == sorted(n for names, _, _ in SHIPPED for n in names)


def test_fleet_override_applies_as_the_example_says(make_host):
    h = make_host("x710.json")  # nfv-compute-11.lab.example.org
    for n in ("40-fleet-x710.conf", "60-nfv-compute-11.conf"):
        h.layout(n, (ROOT / "conf.d" / n).read_text())
    r = h.run("apply")
    assert r.returncode == 0, r.stderr
    assert "overrides" not in r.stderr
    pf = h.pf(X710)
    assert len(pf["vfs"]) == 8
    assert pf["vfs"][0]["trust"] is True
    assert len(h.pf("0000:18:00.1")["vfs"]) == 4  # the fleet file alone


def test_shipped_fleet_files_are_the_manuals():
    """The shipped fleet file and its override select the hosts the manual's example names
    (the x710.json host, nfv-compute-11), with the same keys."""
    def keys(text):
        return [x for x in text.splitlines() if x and not x.startswith("#")]
    shipped = {n: (ROOT / "conf.d" / n).read_text()
               for n in ("40-fleet-x710.conf", "60-nfv-compute-11.conf")}
    assert {n: keys(t) for n, t in shipped.items()} == \
        {n: keys(t) for n, t in manual_examples().items()}


def manual_examples():
    """The files of the manual's "A fleet file with a per-host override", as an operator
    copies them out of the page."""
    page = (ROOT / "man" / "sriov-persist.layout.5").read_text()
    section = page.split('.SS "A fleet file with a per-host override"')[1].split(".SS")[0]
    files = {}
    for block in re.findall(r"\.EX\n(.*?)\.EE", section, re.S):
        text = block.replace("\\-", "-")
        first = text.splitlines()[0]
        assert first.startswith("# /etc/sriov-persist/conf.d/")
        files[first.rsplit("/", 1)[1]] = text
    assert len(files) == 2
    return files


def test_manual_fleet_example_passes_strict(make_host):
    h = make_host("x710.json")  # nfv-compute-11.lab.example.org, two X710 ports
    for name, text in manual_examples().items():
        h.layout(name, text)
    r = h.run("check", "--strict")
    assert lines(r) == []
    assert r.returncode == 0
    plan = h.run("plan").stdout
    assert f"{X710} (ens2f0)" in plan and "set 8 VFs" in plan and "set 4 VFs" in plan


def test_a_third_file_still_warns(make_host):
    h = make_host("x710.json")
    a = h.layout("40-fleet.conf", "[Match]\nDriver=i40e\n[PhysicalFunction]\nVirtualFunctions=4\n"
                 "[VirtualFunction]\nVLANId=42\n")
    b = h.layout("50-rack.conf", "[Match]\nDriver=i40e\n[PhysicalFunction]\nVirtualFunctions=2\n")
    c = h.layout("70-host.conf", "[Layout]\nOverrides=40-fleet.conf\n"
                 "[Match]\nDriver=i40e\n[PhysicalFunction]\nVirtualFunctions=8\n"
                 "[VirtualFunction]\nVLANId=7\n")
    r = h.run("check", "--strict")
    # 70-host.conf over 40-fleet.conf (VirtualFunctions=, VLANId=) is declared; over
    # 50-rack.conf it is not, nor is 50-rack.conf's over 40-fleet.conf
    assert lines(r) == [
        f"{b}:4: warning: VirtualFunctions=2 overrides VirtualFunctions=4 at {a}:4 (a later file wins)",
        f"{c}:6: warning: VirtualFunctions=8 overrides VirtualFunctions=2 at {b}:4 (a later file wins)",
    ]
    assert r.returncode == 1


def test_stale_declarations(make_host):
    h = make_host("x710.json")
    h.layout("40-fleet.conf", "[Match]\nDriver=i40e\n[VirtualFunction]\nVLANId=42\n")
    late = h.layout("80-late.conf", "[Match]\nDriver=i40e\n[VirtualFunction]\nTrust=yes\n")
    c = h.layout("70-host.conf", "[Match]\nDriver=i40e\n[VirtualFunction]\nVLANId=42\n"
                 "[Layout]\nOverrides=40-fleet.conf 30-gone.conf\nOverrides=80-late.conf\n")
    r = h.run("check", "--strict")
    assert lines(r) == [
        f"{c}:6: warning: Overrides=30-gone.conf: no layout file of that name is read, so this "
        "declaration is stale",
        f"{c}:6: warning: Overrides=40-fleet.conf: this file overrides no value of "
        "40-fleet.conf, so this declaration is stale",
        f"{c}:7: warning: Overrides=80-late.conf: 80-late.conf is read after this file, so its "
        "values win over this file's (files are read in the lexical order of their names)",
    ]
    assert r.returncode == 1
    assert late.exists()


def test_bad_layout_section_holds_the_pf(make_host):
    h = make_host("x710.json")
    before = h.path.read_bytes()
    p = h.layout("70-host.conf", "[Layout]\nOverride=40-fleet.conf\nOverrides=../40-fleet.conf\n"
                 "Overrides=40-fleet\nOverrides=70-host.conf\n"
                 "[Match]\nDriver=i40e\nOverrides=40-fleet.conf\n"
                 "[PhysicalFunction]\nVirtualFunctions=2\n")
    r = h.run("check")
    assert lines(r) == [
        f"{p}:2: unknown key 'Override' in [Layout]; did you mean 'Overrides'?",
        f"{p}:3: Overrides=../40-fleet.conf: must be file names as in the conf directory "
        "(no '/'), such as 40-fleet.conf",
        f"{p}:4: Overrides=40-fleet: must name layout files, which end in .conf",
        f"{p}:5: Overrides=70-host.conf: a file cannot override itself",
        f"{p}:8: unknown key 'Overrides' in [Match]; it belongs in [Layout]",
    ]
    assert r.returncode == 1
    r = h.run("apply")
    assert r.returncode != 0
    assert h.path.read_bytes() == before


def test_each_bad_override_name_is_its_own_error_and_the_good_ones_stay(make_host):
    h = make_host("x710.json")
    fleet = h.layout("40-fleet-x710.conf", "[Match]\nDriver=i40e\n[PhysicalFunction]\n"
                     "VirtualFunctions=2\n")
    me = h.layout("60-me.conf", "[Layout]\nOverrides=40-fleet-x710.conf 60-me.conf ../x.conf\n"
                  "[Match]\nDriver=i40e\n[PhysicalFunction]\nVirtualFunctions=4\n")
    r = h.run("check")
    assert lines(r) == [
        f"{me}:2: Overrides=60-me.conf: a file cannot override itself",
        f"{me}:2: Overrides=../x.conf: must be file names as in the conf directory (no '/'), "
        "such as 40-fleet.conf",
    ], r.stderr
    assert "overrides VirtualFunctions=2" not in r.stderr and str(fleet) not in r.stderr
    assert r.returncode == 1


def test_check_of_a_drop_in_alone_reads_the_directory_as_context(make_host):
    """check FILE on a drop-in whose Overrides= names a fleet file: the layout directory is read
    as context (the fleet file is there), so the declaration is not stale and --strict passes;
    the context's own problems are not FILE's and are not reported, FILE's are."""
    h = make_host("e810.json")
    h.layout("50-fleet.conf", "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=4\n"
                              "[VirtualFunction 0-3]\nTrust=no\n")
    h.layout("40-broken.conf", "[Match]\nPCIAddress=0000:3b:00.0\n[PhysicalFunction]\nBogus=1\n")
    drop = h.dir / "70-local.conf"
    drop.write_text("[Match]\nDriver=ice\n[Layout]\nOverrides=50-fleet.conf\n"
                    "[VirtualFunction 0-3]\nTrust=yes\n")
    summary = (f"1 layout file(s) and the main configuration checked (with the 2 other layout "
               f"file(s) of {h.confdir} as context): 0 error(s)\n")
    for host in ((), ("--host", str(h.path))):
        cmd = [h.binary, "--no-color", *host, "--config-dir", str(h.confdir), "--main-config",
               str(h.main), "check", "--strict", str(drop)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert (r.stderr, r.stdout, r.returncode) == ("", summary, 0)
    # without the declaration, the override is FILE's to say
    drop.write_text("[Match]\nDriver=ice\n[VirtualFunction 0-3]\nTrust=yes\n")
    r = h.run("check", str(drop))
    assert r.stderr.splitlines() == [
        f"{drop}:4: warning: Trust=yes overrides Trust=no at {h.confdir}/50-fleet.conf:6 for VFs "
        "0-3 (a later file wins)"], r.stderr
    assert r.returncode == 0


def test_stale_declaration_suggests_the_file_meant(make_host):
    h = make_host("x710.json")
    h.layout("40-fleet-x710.conf", "[Match]\nDriver=i40e\n[VirtualFunction]\nVLANId=42\n")
    c = h.layout("70-host.conf", "[Layout]\nOverrides=40-fleet-x71.conf\n"
                 "[Match]\nDriver=i40e\n[VirtualFunction]\nVLANId=7\n")
    r = h.run("check", "--strict")
    assert f"{c}:2: warning: Overrides=40-fleet-x71.conf: no layout file of that name is read, " \
        "so this declaration is stale; did you mean '40-fleet-x710.conf'?" in lines(r)
    assert r.returncode == 1
