# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 20, firmware: a reset of a PF whose status record carries a raise of the firmware VF
limit records itself (LAST APPLY/RESET, last_apply.by "reset") and carries the raise over; once
nothing is left to reset, the hint offers only the firmware command."""

import json

from test_daemon import NO_BUS

CX6_A = "0000:ca:00.0"  # cx6dx.json: sriov_totalvfs and NUM_OF_VFS 8
RAISED = "firmware VF limit raised to 16, waiting for a reboot"


def run(h, *args):
    return h.run(*args, env=NO_BUS)


def status_of(h, pci=CX6_A):
    r = run(h, "status", "--json")
    assert r.returncode == 0, r.stderr
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


def test_a_reset_that_went_through_is_recorded_and_carries_the_raise(make_host):
    h = make_host("cx6dx.json")
    f = h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\n")
    assert run(h, "apply").returncode == 0
    # the PF keeps the 4 VFs it has while the raise waits for the reboot
    h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=16\n")
    r = run(h, "apply")
    assert r.returncode == 0 and "done raise firmware VF limit to 16" in r.stdout, r.stdout
    applied = status_of(h)["last_apply"]
    assert applied["by"] == "apply", applied
    f.unlink()
    r = run(h, "reset", CX6_A)
    assert r.returncode == 0 and "reset, 1 action(s)" in r.stdout, r.stdout + r.stderr
    st = status_of(h)
    last = st["last_apply"]
    assert last["by"] == "reset" and last["finished_usec"] > applied["finished_usec"], st
    assert len(st["pending_reboot_reasons"]) == 1, st
    assert st["pending_reboot_reasons"][0].startswith(RAISED + " (set by the apply of "), st
    out = run(h, "status").stdout
    # nothing is left to reset: the hint is the firmware command alone
    assert f"    no layout selects it; \"mstconfig -d {CX6_A} set NUM_OF_VFS=8\" sets the " \
        "limit back to the one it has now\n" in out, out
    assert "reset " + CX6_A not in out, out
    r = run(h, "reset", CX6_A)
    assert r.returncode == 0 and "nothing reset" in r.stdout, r.stdout
