# SPDX-License-Identifier: LGPL-2.1-or-later
"""check --host says what the host itself rules out, at the line of the key: vfio-pci while the
IOMMU is off, a Driver= that names no module, an MTU above IPoIB's, igb's MACs on a PF that is
down without LinkUp=yes. Each case is one apply would fail on, or end degraded."""

import json


def no_iommu(h):
    s = h.state()
    s["iommu"] = False
    s["kernel_cmdline"] = s["kernel_cmdline"].replace(" intel_iommu=on iommu=pt", "")
    h.save(s)


VFIO = "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=2\n[VirtualFunction]\nDriver=vfio-pci\n"


def test_vfio_pci_with_the_iommu_off(make_host):
    h = make_host("e810.json")
    no_iommu(h)
    p = h.layout("50-e810.conf", VFIO)
    r = h.run("check")
    assert r.stderr.splitlines() == [
        f"{p}:6: warning: Driver=vfio-pci: the IOMMU is off on this host, so no VF is bound to "
        "it: the VFs the PF has keep their driver, those the apply creates stay as the kernel "
        "makes them (on iavf, the kernel's VF driver, where VF autoprobe is on), and the "
        "PF ends degraded: the CPU's vendor is not known: add intel_iommu=on "
        "iommu=pt (Intel) or amd_iommu=on iommu=pt (AMD) to the kernel command line and reboot"]
    assert r.returncode == 0
    assert h.run("check", "--strict").returncode == 1
    # what plan says for it
    assert "cannot: VFs 0-1 want vfio-pci but the IOMMU is off" in h.run("plan").stdout


def test_vfio_pci_with_the_iommu_off_and_kernel_arguments_managed(make_host):
    h = make_host("e810.json")
    no_iommu(h)
    s = h.state()
    s["boot_loader"] = "grubby"
    s["cpu_vendor"] = "intel"
    h.save(s)
    h.main.write_text(h.main.read_text() + "[Reboot]\nKernelArguments=manage\n")
    h.layout("50-e810.conf", VFIO)
    r = h.run("check", "--strict")
    assert r.stderr == ""
    assert r.returncode == 0
    r = h.run("plan")
    assert "cannot:" not in r.stdout and "take effect after a reboot" in r.stdout, r.stdout


def test_named_files_follow_the_main_configuration_given(make_host):
    """check FILE reads --main-config too (and a named sriov-persist.conf over it): with
    KernelArguments=manage there, it does not advise setting it."""
    h = make_host("e810.json")
    no_iommu(h)
    s = h.state()
    s["boot_loader"] = "grubby"
    s["cpu_vendor"] = "intel"
    h.save(s)
    p = h.layout("50-e810.conf", VFIO)
    advice = ("add intel_iommu=on iommu=pt to the kernel command line and reboot, or set "
              "[Reboot] KernelArguments=manage")
    r = h.run("check", str(p))
    assert advice in r.stderr and r.stdout.startswith(
        "1 layout file(s) and the main configuration checked: 0 error(s), 1 warning(s)"), r
    h.main.write_text(h.main.read_text() + "[Reboot]\nKernelArguments=manage\n")
    r = h.run("check", "--strict", str(p))
    assert r.stderr == "" and r.returncode == 0, r.stderr
    assert r.stdout == "1 layout file(s) and the main configuration checked: 0 error(s)\n"
    # a named main configuration file is read over --main-config's
    named = h.confdir.parent / "named" / "sriov-persist.conf"
    named.parent.mkdir()
    named.write_text("[Reboot]\nKernelArguments=check\n")
    r = h.run("check", str(p), str(named))
    assert advice in r.stderr, r.stderr


def test_kernel_arguments_managed_without_a_boot_loader_tool(make_host):
    """KernelArguments=manage cannot add the arguments when the host has no boot loader tool:
    check warns as plan says "cannot:", where it said nothing and apply ended degraded."""
    h = make_host("igb-82576.json")
    assert "boot_loader" not in h.state()
    h.main.write_text(h.main.read_text() + "[Reboot]\nKernelArguments=manage\n")
    p = h.layout("50-igb.conf", "[Match]\nDriver=igb\n[PhysicalFunction]\nVirtualFunctions=2\n"
                               "[VirtualFunction]\nDriver=vfio-pci\n")
    why = ("KernelArguments=manage found no boot loader tool to add them with (grubby; "
           "kernel-install with /etc/kernel/cmdline; update-grub with /etc/default/grub and "
           "/boot/grub/grub.cfg)")
    r = h.run("check")
    assert r.stderr.splitlines() == [
        f"{p}:6: warning: Driver=vfio-pci: the IOMMU is off on this host, so no VF is bound to "
        "it: the VFs the PF has keep their driver, those the apply creates stay as the kernel "
        "makes them (on igbvf, the kernel's VF driver, where VF autoprobe is on), and the "
        "PF ends degraded: add intel_iommu=on iommu=pt to the kernel command line "
        f"and reboot; {why}"]
    assert r.returncode == 0 and "1 warning(s)" in r.stdout
    assert h.run("check", "--strict").returncode == 1
    assert why in h.run("plan").stdout


def test_vfio_pci_with_the_iommu_on(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", VFIO)
    r = h.run("check", "--strict")
    assert (r.stderr, r.returncode) == ("", 0)


def driver_layout(h, driver):
    return h.layout("50-e810.conf", "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=2\n"
                                    f"[VirtualFunction]\nDriver={driver}\n")


def test_a_driver_that_is_no_module(make_host):
    h = make_host("e810.json")
    for driver, hint in (("vfio", ""), ("IAVF", "; did you mean 'iavf'?")):
        p = driver_layout(h, driver)
        why = f"{p}:6: Driver={driver}: no module of that name on this host{hint}"
        r = h.run("check")
        assert r.stderr.splitlines() == [why]
        assert r.returncode == 1 and "1 error(s)" in r.stdout
        r = h.run("plan")
        assert r.returncode == 1 and "load module" not in r.stdout, r.stdout
        assert r.stdout.count(f"held: {why}") == 2, r.stdout
        before = h.path.read_bytes()
        r = h.run("apply")
        assert r.returncode == 1 and h.path.read_bytes() == before, r.stdout


def test_drivers_that_exist_pass(make_host):
    h = make_host("e810.json")
    for driver in ("iavf", "vfio-pci", "vfio_pci", "pci-stub", "uio_pci_generic"):
        driver_layout(h, driver)
        r = h.run("check", "--strict")
        assert (r.stderr, r.returncode) == ("", 0), driver


def test_ipoib_mtu(make_host):
    """The IPoIB netdev of an InfiniBand port (datagram mode) takes at most the 4096-byte IB MTU
    less its 4-byte header; 9000 was passed and applied as ok before."""
    h = make_host("cx7-ib.json")
    p = h.layout("50-ib.conf", "[Match]\nDriver=mlx5_core\n[PhysicalFunction]\nMTUBytes=9000\n"
                               "[VirtualFunction]\nMTUBytes=9000\n")
    why = ("MTUBytes=9000: IPoIB on an InfiniBand port allows 68..4092 (datagram mode: the "
           "4096-byte IB MTU less the 4-byte IPoIB header)")
    r = h.run("check")
    assert r.stderr.splitlines() == [f"{p}:4: {why}", f"{p}:6: {why}"]
    assert r.returncode == 1
    before = h.path.read_bytes()
    r = h.run("apply")
    assert r.returncode == 1 and why in r.stdout and h.path.read_bytes() == before, r.stdout
    h.layout("50-ib.conf", "[Match]\nDriver=mlx5_core\n[PhysicalFunction]\nMTUBytes=4092\n"
                           "[VirtualFunction]\nMTUBytes=2044\n")
    r = h.run("check", "--strict")
    assert (r.stderr, r.returncode) == ("", 0)
    assert h.run("apply").returncode == 0
    assert [v["mtu"] for v in h.pf("0000:1a:00.0")["vfs"]] == [2044, 2044]


IGB = ("[Match]\nPCIAddress=0000:01:00.0\n[PhysicalFunction]\nVirtualFunctions=2\n{linkup}"
       "[VirtualFunction 0]\nMACAddress=02:00:00:00:00:01\n")


def igb_down(h):
    s = h.state()
    for p in s["pfs"]:
        p["up"] = False
    h.save(s)


def test_igb_macs_on_a_pf_that_is_down(make_host):
    h = make_host("igb-82576.json")
    igb_down(h)
    p = h.layout("50-igb.conf", IGB.format(linkup=""))
    why = (f"{p}:6: warning: MACAddress=02:00:00:00:00:01: PF 0000:01:00.0 (enp1s0f0) is down and "
           "no file sets LinkUp=yes: igbvf asks the PF for its MAC as it probes, and makes one up "
           "while the PF is down; set LinkUp=yes in [PhysicalFunction]")
    r = h.run("check")
    assert r.stderr.splitlines() == [why]
    assert r.returncode == 0 and "1 warning(s)" in r.stdout
    assert h.run("check", "--strict").returncode == 1
    assert h.run("plan").stderr.splitlines() == [why]


def test_igb_macs_with_link_up_or_a_pf_that_is_up(make_host):
    h = make_host("igb-82576.json")
    h.layout("50-igb.conf", IGB.format(linkup=""))
    r = h.run("check", "--strict")
    assert (r.stderr, r.returncode) == ("", 0)
    igb_down(h)
    h.layout("50-igb.conf", IGB.format(linkup="LinkUp=yes\n"))
    r = h.run("check", "--strict")
    assert (r.stderr, r.returncode) == ("", 0)


def test_a_loaded_out_of_tree_driver_passes(make_host):
    """igb_uio is DPDK's, built out of tree: the simulated host finds it only when the snapshot
    has it loaded, and then apply binds it."""
    h = make_host("e810.json")
    s = h.state()
    s["modules"].append("igb_uio")
    h.save(s)
    driver_layout(h, "igb_uio")
    r = h.run("check", "--strict")
    assert (r.stderr, r.returncode) == ("", 0)
    assert h.run("apply").returncode == 0
    assert {v["driver"] for p in h.pfs_by_driver("ice") for v in p["vfs"]} == {"igb_uio"}


def test_mtu_range_starts_at_the_layout_minimum(make_host):
    """bnxt_en's min_mtu is 60, but a layout takes 68 and up: the range shown is one a layout
    can use."""
    h = make_host("bnxt.json")
    p = h.layout("50-bnxt.conf", "[Match]\nDriver=bnxt_en\n[PhysicalFunction]\nMTUBytes=9600\n")
    r = h.run("check")
    assert r.stderr.splitlines() == [f"{p}:4: MTUBytes=9600: the bnxt_en driver allows 68..9500"]
    assert r.returncode == 1


VPI_BY_NAME = ("[Match]\nName=ens2f0np0\n[PhysicalFunction]\nLinkType={link}\nVirtualFunctions=4\n"
               "[VirtualFunction]\nIBNodeGUID=stable\nIBPortGUID=stable\n")


def test_link_type_change_renames_what_name_matches(make_host):
    """LinkType= renames the port's interface at the reboot it needs (ens2f0np0 becomes an IPoIB
    name): a file matched by Name= would select nothing after it, and the layout would silently
    stop applying. Each file's Name= line is an error that holds the PF: check, plan and apply
    fail, nothing is changed, and status says held and why."""
    h = make_host("cx6-vpi.json")
    p = h.layout("50-vpi.conf", VPI_BY_NAME.format(link="infiniband"))
    why = (f"Name=ens2f0np0: LinkType=infiniband renames the interface of 0000:41:00.0 at the "
           "reboot it needs (the kernel names an InfiniBand port anew), so this file would select "
           "no PF after it; match by PCIAddress=0000:41:00.0 instead")
    r = h.run("check")
    assert r.stderr.splitlines() == [f"{p}:2: {why}"]
    assert r.returncode == 1 and "1 error(s)" in r.stdout
    r = h.run("plan")
    assert r.returncode == 1 and f"held: {p}:2: {why}" in r.stdout, r.stdout
    before = h.state()
    r = h.run("apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert h.state() == before
    r = h.run("status", "--json")
    pf = next(x for x in json.loads(r.stdout)["pfs"] if x["pci"] == "0000:41:00.0")
    assert pf["state"] == "held" and why in pf["reason"], pf
    assert r.returncode == 1


def test_link_type_by_pci_address_or_unchanged_passes(make_host):
    h = make_host("cx6-vpi.json")
    h.layout("50-vpi.conf", VPI_BY_NAME.format(link="infiniband").replace(
        "Name=ens2f0np0", "PCIAddress=0000:41:00.0"))
    r = h.run("check", "--strict")
    assert (r.stderr, r.returncode) == ("", 0)
    h.layout("50-vpi.conf", "[Match]\nName=ens2f0np0\n[PhysicalFunction]\nLinkType=ethernet\n"
                            "VirtualFunctions=4\n")
    r = h.run("check", "--strict")
    assert (r.stderr, r.returncode) == ("", 0)


def test_link_type_change_with_the_ipoib_name_listed_passes(make_host):
    """Name= that lists the IPoIB name the port gets at the reboot (ibp65s0f0 for 0000:41:00.0)
    selects it after the reboot as before: no error, nor the warning of a glob that selects no
    PF (layout(5) recommends the name; trial 31), so --strict passes; a wrong IPoIB name is
    still an error, and its glob warned of."""
    h = make_host("cx6-vpi.json")
    p = h.layout("50-vpi.conf", VPI_BY_NAME.format(link="infiniband").replace(
        "Name=ens2f0np0", "Name=ens2f0np0 ibp65s0f0"))
    r = h.run("check", "--strict")
    assert r.stderr == ""
    assert r.returncode == 0 and "0 error(s)" in r.stdout, r.stdout
    p = h.layout("50-vpi.conf", VPI_BY_NAME.format(link="infiniband").replace(
        "Name=ens2f0np0", "Name=ens2f0np0 ibp65s0f1"))
    r = h.run("check")
    assert f"{p}:2: warning: [Match] Name=ibp65s0f1 selects no PF on this host (the file's " \
        "other Name= globs do)" in r.stderr.splitlines()
    assert r.stderr.splitlines()[0:1] == [
        f"{p}:2: Name=ens2f0np0 ibp65s0f1: LinkType=infiniband renames the interface of "
        "0000:41:00.0 at the reboot it needs (the kernel names an InfiniBand port anew), so this "
        "file would select no PF after it; match by PCIAddress=0000:41:00.0 instead"]
    assert r.returncode == 1
