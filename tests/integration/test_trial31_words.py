# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 31 (fresh eyes), words: the daemon's journal line of a link type reason gone says the
link type took effect when a reboot or a firmware reset brought it, and "set in firmware since"
only when it was set back by hand (1); sriovctl cat shows a literal IBNodeGUID= of a section of
more than one VF, which the held line quotes, as it shows the other rejected lines (3); check's
warning for vfio-pci without an IOMMU says that the VFs an apply creates get the kernel's VF
driver (igbvf), not that "the VFs keep their driver" (4)."""

import re

from test_trial22_firmware import IB, VPI_A, ib_layout, set_vpi


# --- 1: the journal line of a link type that took effect ----------------------------------------

def gone_lines(d):
    return [x for x in d.log_text().splitlines() if "no reboot needed any more" in x]


def infiniband_set(make_host, start_daemon, c):
    h = make_host("cx6-vpi.json")
    ib_layout(h)
    d = start_daemon(h)
    c.wait(lambda: c.get("PendingRebootReasons") == [f"{VPI_A}: {IB}"], what="infiniband set")
    assert not gone_lines(d)
    return h, d


def test_the_daemon_says_the_link_type_it_waited_for_took_effect(make_host, start_daemon,
                                                                  bus_client):
    c = bus_client
    h, d = infiniband_set(make_host, start_daemon, c)
    set_vpi(h, link_type="infiniband")  # the reboot (or mlxfwreset) brought it
    c.wait_property("PendingReboot", False)
    c.wait(lambda: gone_lines(d), what="the journal line")
    said = gone_lines(d)
    assert len(said) == 1, said
    assert re.search(rf"{VPI_A}: no reboot needed any more: link type infiniband took effect "
                     rf"\(it waited: {IB}\)", said[0]), said
    assert "set in firmware since" not in said[0], said


def test_the_daemon_says_a_link_type_set_back_by_hand(make_host, start_daemon, bus_client):
    c = bus_client
    h, d = infiniband_set(make_host, start_daemon, c)
    h.main.write_text(h.main.read_text() + "[Drift]\nMode=report\n")
    c.call("Reload")
    c.wait_property("State", "idle")
    set_vpi(h, firmware_link_type="ethernet")  # mstconfig -d 0000:41:00.0 set LINK_TYPE_P1=2
    c.wait_property("PendingReboot", False)
    c.wait(lambda: gone_lines(d), what="the journal line")
    said = gone_lines(d)
    assert len(said) == 1, said
    assert re.search(rf"{VPI_A}: no reboot needed any more: link type ethernet set in firmware "
                     rf"since \(it waited: {IB}\)", said[0]), said
    assert "took effect" not in said[0], said


# --- 3: cat shows the literal GUID of a section of more than one VF ----------------------------

CX7 = "0000:1a:00.0"


def test_cat_shows_a_literal_guid_refused_for_its_section(make_host):
    h = make_host("cx7-ib.json")
    p = h.layout("66-bad.conf", f"[Match]\nPCIAddress={CX7}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\nMTUBytes=9000\n[VirtualFunction 0-1]\n"
                 "IBNodeGUID=02:00:00:00:00:00:00:01\nVLANId=5\n[VirtualFunction 2]\n"
                 "Trust=yes\n")
    r = h.run("cat", CX7)
    assert r.returncode == 0, r
    out = r.stdout.splitlines()
    held = (f"# held, nothing is applied: {p}:7: IBNodeGUID=02:00:00:00:00:00:00:01: a literal "
            "value needs a single-VF section such as [VirtualFunction 0]; use stable here "
            "(and 3 more errors)")
    assert held in out, r.stdout
    # the held line's file:line is shown, beside the other rejected lines of the section
    vfs = out[out.index("[VirtualFunction 0-1]"):]
    assert "VLANId=5  # 66-bad.conf:8" in vfs, r.stdout
    assert "IBNodeGUID=02:00:00:00:00:00:00:01  # 66-bad.conf:7" in vfs, r.stdout
    assert vfs.index("[VirtualFunction 2]") > vfs.index(
        "IBNodeGUID=02:00:00:00:00:00:00:01  # 66-bad.conf:7"), r.stdout
    # nothing else changed: no other error about the GUID (VFs 0 and 1 alike)
    check = h.run("check")
    assert check.stderr.count("IBNodeGUID") == 1, check.stderr


def test_cat_drops_a_refused_guid_that_a_later_line_sets(make_host):
    h = make_host("cx7-ib.json")
    h.layout("66-bad.conf", f"[Match]\nPCIAddress={CX7}\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n[VirtualFunction 0-1]\nIBNodeGUID=02:00:00:00:00:00:00:01\n"
             "IBNodeGUID=stable\n")
    r = h.run("cat", CX7)
    assert r.returncode == 0, r
    assert "IBNodeGUID=stable  # 66-bad.conf:7" in r.stdout, r.stdout
    assert "02:00:00:00:00:00:00:01  #" not in r.stdout, r.stdout


# --- 4: igb, vfio-pci without an IOMMU: what becomes of the VFs ---------------------------------

def test_the_iommu_warning_says_new_vfs_get_the_kernels_vf_driver(make_host):
    h = make_host("igb-82576.json")
    assert h.state()["iommu"] is False
    p = h.layout("50-igb.conf", "[Match]\nDriver=igb\n[PhysicalFunction]\nVirtualFunctions=2\n"
                 "[VirtualFunction]\nDriver=vfio-pci\n")
    r = h.run("check")
    assert r.stderr.splitlines() == [
        f"{p}:6: warning: Driver=vfio-pci: the IOMMU is off on this host, so no VF is bound to "
        "it: the VFs the PF has keep their driver, those the apply creates stay as the kernel "
        "makes them (on igbvf, the kernel's VF driver, where VF autoprobe is on), and the "
        "PF ends degraded: add intel_iommu=on iommu=pt to the kernel command line and reboot"], r
    assert "keep their driver and" not in r.stderr
    # as warned: the apply creates the VFs on igbvf and ends degraded
    a = h.run("apply")
    assert "degraded after" in a.stdout, a
    for pf in ("0000:01:00.0", "0000:01:00.1"):
        assert [v["driver"] for v in h.pf(pf)["vfs"]] == ["igbvf", "igbvf"], h.pf(pf)
