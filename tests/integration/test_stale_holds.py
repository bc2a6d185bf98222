# SPDX-License-Identifier: LGPL-2.1-or-later
"""What is true now, not what an earlier run recorded or a single bad file hides: a main
configuration with errors fails plan and apply also when no layout selects a PF; a PF held by an
apply whose reason is fixed since is not held any more (status, wait); a layout link that leads
out of --root is one refused file, and the others are still checked."""

import json
import os
import re
import subprocess
from pathlib import Path

from test_daemon import E810_A, NO_BUS

ROOT = Path(__file__).resolve().parents[2]
HELPER = os.environ.get("SRIOV_UDEV_HELPER") or str(ROOT / "build/asan/udev-helper")
BAD_MAIN = "[Disruption]\nPolicy=sometimes\n"
LAYOUT = "[Match]\nDevice=0x159b\n[PhysicalFunction]\nVirtualFunctions=4\n"


def run(h, *args):
    return h.run(*args, env=NO_BUS)


def test_a_broken_main_configuration_fails_when_no_layout_selects_a_pf(make_host):
    h = make_host("e810.json")
    h.layout("50-none.conf", "[Match]\nPCIAddress=0000:99:00.0\n[PhysicalFunction]\n"
             "VirtualFunctions=4\n")
    h.main.write_text(BAD_MAIN)
    before = h.path.read_bytes()
    for verb in ("plan", "apply"):
        r = run(h, verb)
        assert r.returncode == 1, (verb, r)
        assert f"{h.main}:2:" in r.stderr, (verb, r)
    assert "The main configuration has errors; fix them first\n" in r.stderr, r
    assert "No layout selects a PF on this host; nothing applied\n" in r.stdout, r
    assert h.path.read_bytes() == before


def test_a_layout_link_out_of_root_hides_no_other_error(make_host, tmp_path):
    """As a file others may write: the refused file is one error, every other file is read and
    checked, and check counts them all."""
    h = make_host("e810.json")
    conf = tmp_path / "node" / "etc" / "sriov-persist" / "conf.d"
    conf.mkdir(parents=True)
    (conf / "50-e810.conf").write_text("[Match]\nPCIAddress=0000:3b:00.0\n[PhysicalFunction]\n"
                                       "VirtualFunctions=160\n")
    (conf / "55-port1.conf").write_text("[Match]\nPCIAddress=0000:3b:00.1\n[PhysicalFunction]\n"
                                        "VirtualFunctions=2\n")
    link = conf / "60-x.conf"
    link.symlink_to("../../../../..")
    cmd = [h.binary, "--no-color", "--root", str(tmp_path / "node"), "--host", str(h.path)]
    r = subprocess.run([*cmd, "check"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r
    assert r.stderr.splitlines() == [
        f"{link}: leads out of the root directory; refusing it",
        f"{conf}/50-e810.conf:4: VirtualFunctions=160: the PF supports at most 128 VFs "
        "(sriov_totalvfs)"], r.stderr
    assert r.stdout == ("3 layout file(s) checked (no main configuration: defaults): "
                        "2 error(s)\n"), r.stdout
    before = h.path.read_bytes()
    r = subprocess.run([*cmd, "apply"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and r.stdout.count("held (nothing applied)") == 2, r
    assert h.path.read_bytes() == before


def lifted(h):
    """The reason, with the command to copy as sriovctl was given its options (h.run's)."""
    return ("not applied since its last apply held it, and what held it is fixed now (sriovctl "
            f"--host {h.path} --config-dir {h.confdir} --main-config {h.main} apply {E810_A} "
            "applies it)")
MAIN_HELD = "the main configuration has errors; nothing is applied until they are fixed"


def helper_apply(h, main):
    env = {k: v for k, v in os.environ.items() if k != "JOURNAL_STREAM"}
    return subprocess.run([HELPER, "--host", str(h.path), "--config-dir", str(h.confdir),
                           "--main-config", str(main), "apply", E810_A],
                          capture_output=True, text=True, timeout=60, env=env)


def status_of(h, *args):
    r = run(h, *args, "status", "--json", E810_A)
    return r.returncode, json.loads(r.stdout)["pfs"][0]


def test_a_hold_whose_reason_is_fixed_is_no_hold(make_host, tmp_path):
    h = make_host("e810.json")
    h.layout("50-e810.conf", "[Match]\nPCIAddress=0000:3b:00.0\n[PhysicalFunction]\n"
             "VirtualFunctions=4\n")
    bad = tmp_path / "bad.conf"
    bad.write_text(BAD_MAIN)
    # run by hand (standard error is no journal): the exit status comes with why
    r = helper_apply(h, bad)
    assert r.returncode == 1, r
    assert r.stderr == (f"{bad}:2: Policy=sometimes: must be immediate, drain or never\n"
                        f"0000:3b:00.0 (ens1f0): held: {MAIN_HELD}\n"), r.stderr
    # still broken: held, and WANT is "-" as for every held PF
    rc, pf = status_of(h, "--main-config", str(bad))
    assert rc == 1 and pf["state"] == "held" and pf["desired_num_vfs"] is None, pf
    r = run(h, "--main-config", str(bad), "status", E810_A)
    assert re.search(r"ens1f0 +ice +0 +- +128 +held ", r.stdout), r.stdout
    # fixed: not held any more, but not applied either; the record is said as the last apply's
    rc, pf = status_of(h)
    assert rc == 0 and pf["state"] == "pending" and pf["reason"] == lifted(h), pf
    assert pf["desired_num_vfs"] == 4 and pf["last_apply"]["state"] == "held", pf
    r = run(h, "status", E810_A)
    assert re.search(r"ens1f0 +ice +0 +4 +128 +pending ", r.stdout), r.stdout
    assert f"    {lifted(h)}\n    last apply: held: {MAIN_HELD}\n" in r.stdout, r.stdout
    r = run(h, "wait", "--timeout", "1")
    assert r.returncode == 1, r
    assert r.stdout == ("1 configured PF(s): 0 applied, 1 not (see sriovctl status)\n"
                        f"Not applied: 0000:3b:00.0 (ens1f0): pending: {lifted(h)}\n"
                        f"    \"sriovctl --host {h.path} --config-dir {h.confdir} --main-config "
                        f"{h.main} apply 0000:3b:00.0\" applies it now\n"), r.stdout
    # the apply the reason asks for
    r = helper_apply(h, h.main)
    assert r.returncode == 0 and r.stderr == "", r
    rc, pf = status_of(h)
    assert rc == 0 and pf["state"] == "applied" and pf["reason"] is None, pf
    r = run(h, "wait", "--timeout", "5")
    assert r.returncode == 0, r


def test_a_layout_fixed_after_its_hold(make_host):
    h = make_host("e810.json")
    f = h.layout("50-e810.conf", "[Match]\nPCIAddress=0000:3b:00.0\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\n[VirtualFunction 0]\nVLANId=1000O\n")
    r = run(h, "apply", E810_A)
    assert r.returncode == 1 and "held (nothing applied)" in r.stdout, r
    rc, pf = status_of(h)
    assert rc == 1 and pf["state"] == "held" and pf["desired_num_vfs"] is None, pf
    f.write_text("[Match]\nPCIAddress=0000:3b:00.0\n[PhysicalFunction]\nVirtualFunctions=4\n")
    rc, pf = status_of(h)
    assert rc == 0 and pf["state"] == "pending" and pf["reason"] == lifted(h), pf
    r = run(h, "wait", "--timeout", "1")
    assert r.returncode == 1 and f"(ens1f0): pending: {lifted(h)}\n" in r.stdout, r
