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
