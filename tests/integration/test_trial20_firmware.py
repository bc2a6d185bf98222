# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 20, firmware: a link type that an apply set in firmware stays pending after its layout
is removed, as a raised VF limit does (status, JSON, metrics, reset, the daemon), with the
mstconfig command that sets it back (1); a reset of a PF whose status record carries a raise of
the firmware VF limit records itself (LAST APPLY/RESET, last_apply.by "reset") and carries the
raise over (8); once nothing is left to reset, the hint offers only the firmware command (9); the
daemon drops a raise once the firmware is set back, at its next look at the PF (10)."""

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
        "limit back to the one it has now, for 0000:ca:00.1 too (one command for the card, not " \
        "one per port)\n" in out, out
    assert "reset " + CX6_A not in out, out
    r = run(h, "reset", CX6_A)
    assert r.returncode == 0 and "nothing reset" in r.stdout, r.stdout


VPI_A = "0000:41:00.0"  # cx6-vpi.json: ethernet, LINK_TYPE_P1 in firmware
IB = "link type infiniband is set in firmware, waiting for a reboot"


def test_a_link_type_set_in_firmware_stays_pending_after_its_layout_is_removed(make_host):
    h = make_host("cx6-vpi.json")
    f = h.layout("50-ib.conf", f"[Match]\nPCIAddress={VPI_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\nLinkType=infiniband\n[VirtualFunction]\n"
                 "IBNodeGUID=stable\nIBPortGUID=stable\nRDMA=yes\n")
    r = run(h, "apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert status_of(h, VPI_A)["pending_reboot_reasons"] == [IB]
    f.unlink()
    st = status_of(h, VPI_A)
    assert st["state"] == "unconfigured" and st["link_type"] == "ethernet", st
    assert len(st["pending_reboot_reasons"]) == 1, st
    assert st["pending_reboot_reasons"][0].startswith(IB + " (set by the apply of "), st
    assert st["pending_reboot_reasons"][0].endswith("; no layout asks for it now)"), st
    out = run(h, "status").stdout
    cmd = f"\"mstconfig -d {VPI_A} set LINK_TYPE_P1=2\" sets the link type back to the one it " \
        "has now, ethernet"
    assert f"pending reboot: {IB} (set by the apply of " in out, out
    assert cmd in out, out
    m = run(h, "metrics").stdout
    assert f'sriov_persist_pf_reboot_pending{{pf="ib0",pf_pci="{VPI_A}"}} 1' in m or \
        any(line.startswith("sriov_persist_pf_reboot_pending{") and VPI_A in line and
            line.endswith(" 1") for line in m.splitlines()), m
    r = run(h, "reset", VPI_A)
    assert r.returncode == 0 and "the link type infiniband set in firmware stays set for the " \
        f"next reboot: a reset changes no firmware (\"mstconfig -d {VPI_A} set LINK_TYPE_P1=2\" " \
        "sets it back to the link type it has now, ethernet)" in r.stdout, r.stdout
    st = status_of(h, VPI_A)
    assert st["pending_reboot_reasons"][0].startswith(IB + " (set by the apply of "), st


def test_the_daemon_keeps_the_link_type_pending_after_its_layout_is_removed(
        make_host, start_daemon, bus_client):
    from conftest import PF_IFACE, pf_path
    c = bus_client
    h = make_host("cx6-vpi.json")
    h.main.write_text("[Disruption]\nPolicy=immediate\n")
    f = h.layout("50-ib.conf", f"[Match]\nPCIAddress={VPI_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\nLinkType=infiniband\n[VirtualFunction]\n"
                 "IBNodeGUID=stable\nIBPortGUID=stable\nRDMA=yes\n")
    start_daemon(h)
    c.wait_property("PendingReboot", True)
    assert c.get("PendingRebootReasons") == [f"{VPI_A}: {IB}"]
    f.unlink()
    c.call("Reload")
    c.wait_property("State", "unconfigured", pf_path(VPI_A), PF_IFACE)
    assert c.get("PendingReboot") is True
    reasons = c.get("PendingRebootReasons")
    assert len(reasons) == 1 and reasons[0].startswith(f"{VPI_A}: {IB} (set by the apply of "), \
        reasons


def test_the_daemon_drops_the_raise_once_the_firmware_is_set_back(make_host, start_daemon,
                                                                   bus_client):
    """10: after the mstconfig hint (the firmware's next-boot limit back to the current one),
    the daemon's next look at the PF drops the reason, without a Reload()."""
    from conftest import PF_IFACE, pf_path
    c = bus_client
    h = make_host("cx6dx.json")
    f = h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=12\n")
    start_daemon(h)
    c.wait_property("PendingReboot", True)
    f.unlink()
    c.call("Reload")
    c.wait_property("State", "unconfigured", pf_path(CX6_A), PF_IFACE)
    assert c.get("PendingReboot") is True
    s = h.state()
    for p in s["pfs"]:
        if p["pci"] in (CX6_A, "0000:ca:00.1"):
            p["firmware_total_vfs"] = p["total_vfs"]
    h.save(s)
    c.wait_property("PendingReboot", False)
    assert c.get("PendingRebootReasons") == []
