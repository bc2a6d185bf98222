# SPDX-License-Identifier: LGPL-2.1-or-later
"""A PF held by a broken main configuration has no plan, but what its firmware brings at the next
reboot is a fact of the host: status shows it as a pending reboot, as the settings line does."""

import json

CX6_A = "0000:ca:00.0"  # cx6dx.json: sriov_totalvfs and NUM_OF_VFS 8
REASON = "firmware VF limit raised to 16, waiting for a reboot"


def status_of(h, pci):
    r = h.run("status", "--json")
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


def test_a_held_pf_keeps_its_pending_reboot(make_host):
    h = make_host("cx6dx.json")
    h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\nVirtualFunctions=16\n")
    r = h.run("apply")
    assert r.returncode == 0 and "done raise firmware VF limit to 16" in r.stdout, r.stdout
    st = status_of(h, CX6_A)
    assert st["state"] == "pending" and st["pending_reboot_reasons"] == [REASON], st

    h.main.write_text(h.main.read_text() + "Bogus=1\n")  # in [Disruption]
    st = status_of(h, CX6_A)
    assert st["state"] == "held", st
    assert st["pending_reboot_reasons"] == [REASON], st
    out = h.run("status", CX6_A).stdout
    assert f"    pending reboot: {REASON}\n" in out, out
    assert "firmware VF limit 16 from the next reboot, 8 until then" in out, out

    # a PF without a layout says nothing of it: no plan, and not held
    assert status_of(h, "0000:ca:00.1")["pending_reboot_reasons"] == []


def test_wait_counts_a_pf_pending_a_reboot_as_status_says_it(make_host):
    h = make_host("cx6dx.json")
    h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\nVirtualFunctions=16\n")
    h.layout("51-b.conf", "[Match]\nPCIAddress=0000:ca:00.1\n[PhysicalFunction]\n"
             "VirtualFunctions=4\n")
    assert h.run("apply").returncode == 0
    assert status_of(h, CX6_A)["state"] == "pending"
    assert status_of(h, "0000:ca:00.1")["state"] == "applied"
    # the boot gate does not wait for the reboot, but says it is pending, not applied
    r = h.run("wait", "--timeout", "0")
    assert r.returncode == 0 and r.stdout == (
        "2 configured PF(s): 1 applied, 1 pending a reboot, 0 not (see sriovctl status)\n"
        f"Pending a reboot: {CX6_A} (ens3f0np0): {REASON}\n"), r
