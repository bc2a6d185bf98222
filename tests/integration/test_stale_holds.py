# SPDX-License-Identifier: LGPL-2.1-or-later
"""What is true now, not what an earlier run recorded or a single bad file hides: a main
configuration with errors fails plan and apply also when no layout selects a PF; a PF held by an
apply whose reason is fixed since is not held any more (status, wait); a layout link that leads
out of --root is one refused file, and the others are still checked."""

import os
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
