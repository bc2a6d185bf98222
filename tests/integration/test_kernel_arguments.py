# SPDX-License-Identifier: LGPL-2.1-or-later
"""[Reboot] KernelArguments=manage on the simulated host: VFs that want vfio-pci on a host without
an IOMMU get the IOMMU arguments added through the boot loader's tool, and a pending reboot
instead of a degraded PF; a reset of the last PF whose layout wanted them takes them out again.
The real tools (update-grub, grubby, kernel-install) are driven by udev-helper kernel-arguments,
tested in test_kernel_arguments_tools.py and in the VM."""

import json

VFIO = "[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=2\n" \
       "[VirtualFunction 0]\nDriver=vfio-pci\n"


def manage(h, loader="grub"):
    h.main.write_text(h.main.read_text() + "[Reboot]\nKernelArguments=manage\nPolicy=never\n")
    s = h.state()
    if loader:
        s["boot_loader"] = loader
    h.save(s)


def test_manage_adds_the_arguments_and_a_reboot_is_pending(make_host):
    h = make_host("igb-82576.json")
    pcis = [p["pci"] for p in h.pfs_by_driver("igb")]
    h.layout("50.conf", VFIO.format(pci=pcis[0]))
    manage(h)
    plan = h.run("plan")
    assert plan.returncode == 10, plan.stdout + plan.stderr
    assert "add kernel arguments intel_iommu=on iommu=pt to the boot loader" in plan.stdout
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.state()["kernel_arguments_added"] == ["intel_iommu=on", "iommu=pt"]
    st = json.loads(h.run("status", "--json").stdout)
    pf = next(p for p in st["pfs"] if p["pci"] == pcis[0])
    # the VF is on vfio-pci only after the reboot: pending, not applied
    assert pf["state"] == "pending" and pf["reason"] == pf["pending_reboot_reasons"][0], pf
    assert pf["pending_reboot_reasons"] == [
        "kernel arguments intel_iommu=on iommu=pt were added to the boot loader: the IOMMU that "
        "VF 0 wants for vfio-pci is on after a reboot"], pf
    # the VF stays where it is until the reboot, and nothing is added twice
    assert h.pf(pcis[0])["vfs"][0]["driver"] == "igbvf"
    assert h.run("plan").returncode == 0
    # another PF that wants vfio-pci waits for the same reboot
    h.layout("51.conf", VFIO.format(pci=pcis[1]))
    r = h.run("apply", pcis[1])
    assert r.returncode == 0 and h.state()["kernel_arguments_added"] == \
        ["intel_iommu=on", "iommu=pt"], r.stdout


def test_after_the_reboot_the_vf_binds(make_host):
    h = make_host("igb-82576.json")
    pci = h.pfs_by_driver("igb")[0]["pci"]
    h.layout("50.conf", VFIO.format(pci=pci))
    manage(h)
    assert h.run("apply").returncode == 0
    s = h.state()
    s["kernel_cmdline"] += " intel_iommu=on iommu=pt"
    s["iommu"] = True
    h.save(s)
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.pf(pci)["vfs"][0]["driver"] == "vfio-pci"
    st = json.loads(h.run("status", "--json").stdout)
    assert next(p for p in st["pfs"] if p["pci"] == pci)["pending_reboot_reasons"] == []


def test_on_amd_the_amd_argument(make_host):
    h = make_host("igb-82576.json")
    pci = h.pfs_by_driver("igb")[0]["pci"]
    h.layout("50.conf", VFIO.format(pci=pci))
    manage(h, "kernel-install")
    s = h.state()
    s["cpu_vendor"] = "amd"
    s["kernel_cmdline"] += " iommu=pt"
    h.save(s)
    assert h.run("apply").returncode == 0
    assert h.state()["kernel_arguments_added"] == ["amd_iommu=on"]


def test_no_boot_loader_tool_is_degraded_and_says_so(make_host):
    h = make_host("igb-82576.json")
    pci = h.pfs_by_driver("igb")[0]["pci"]
    h.layout("50.conf", VFIO.format(pci=pci))
    manage(h, loader=None)
    r = h.run("apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "add intel_iommu=on iommu=pt to the kernel command line and reboot; " \
           "KernelArguments=manage found no boot loader tool to add them with" in r.stdout, r.stdout
    assert "kernel_arguments_added" not in h.state()


def test_the_tool_failing_fails_the_pf_and_adds_nothing(make_host):
    h = make_host("igb-82576.json")
    pci = h.pfs_by_driver("igb")[0]["pci"]
    h.layout("50.conf", VFIO.format(pci=pci))
    manage(h)
    h.add_fault(op="set_kernel_arguments", errno="EIO")
    r = h.run("apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "add kernel arguments intel_iommu=on iommu=pt to the boot loader" in r.stdout
    assert "kernel_arguments_added" not in h.state()
    # the VFs are configured all the same
    assert h.pf(pci)["num_vfs"] == 2


def test_reset_takes_them_out_with_the_last_pf(make_host):
    h = make_host("igb-82576.json")
    pcis = [p["pci"] for p in h.pfs_by_driver("igb")]
    h.layout("50.conf", VFIO.format(pci=pcis[0]))
    manage(h)
    assert h.run("apply").returncode == 0
    # the second PF's VFs want them too, and it applies after they were added: its
    # record claims them only when its own apply added them
    (h.confdir / "50.conf").unlink()
    st = json.loads(h.run("status", "--json").stdout)
    pf = next(p for p in st["pfs"] if p["pci"] == pcis[0])
    assert pf["state"] == "unconfigured" and "left from a removed layout" in pf["reason"], pf
    r = h.run("reset", pcis[0])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "kernel_arguments_added" not in h.state(), h.state()
    assert h.pf(pcis[0])["num_vfs"] == 0
    assert h.run("reset", pcis[0]).returncode == 0


def test_reset_keeps_them_while_another_layout_wants_vfio(make_host):
    """The PF whose apply added them is reset while another PF's layout still binds a VF to
    vfio-pci (its apply found them added, so its record does not claim them): they stay, and
    go with the reset of that PF."""
    h = make_host("igb-82576.json")
    pcis = [p["pci"] for p in h.pfs_by_driver("igb")]
    h.layout("50.conf", VFIO.format(pci=pcis[0]))
    manage(h)
    assert h.run("apply").returncode == 0
    h.layout("51.conf", VFIO.format(pci=pcis[1]))
    assert h.run("apply", pcis[1]).returncode == 0
    (h.confdir / "50.conf").unlink()
    r = h.run("reset", pcis[0])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "remove kernel arguments" not in r.stdout, r.stdout
    assert h.state()["kernel_arguments_added"] == ["intel_iommu=on", "iommu=pt"]
    assert h.pf(pcis[0])["num_vfs"] == 0
    # the other PF is as its layout wants it: nothing to add back
    assert h.run("plan", pcis[1]).returncode == 0
    (h.confdir / "51.conf").unlink()
    r = h.run("reset", pcis[1])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "kernel_arguments_added" not in h.state(), h.state()


def test_reset_keeps_them_while_another_layout_is_held(make_host):
    """Another PF's layout has an error: whether it wants vfio-pci cannot be told, so the
    arguments stay."""
    h = make_host("igb-82576.json")
    pcis = [p["pci"] for p in h.pfs_by_driver("igb")]
    h.layout("50.conf", VFIO.format(pci=pcis[0]))
    manage(h)
    assert h.run("apply").returncode == 0
    h.layout("51.conf", VFIO.format(pci=pcis[1]) + "VLANId=5000\n")
    (h.confdir / "50.conf").unlink()
    r = h.run("reset", pcis[0])
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.state()["kernel_arguments_added"] == ["intel_iommu=on", "iommu=pt"]


NO_LOADER = ("found no boot loader tool to add them with (grubby; kernel-install with "
             "/etc/kernel/cmdline; update-grub with /etc/default/grub and /boot/grub/grub.cfg)")
BY_HAND = ("the CPU's vendor is not known: add intel_iommu=on iommu=pt (Intel) or amd_iommu=on "
           "iommu=pt (AMD) to the kernel command line and reboot")


def every_command_says(h, pci, text):
    """check, plan, apply and status (table and JSON) each give text."""
    r = h.run("check")
    assert text in r.stderr, r.stderr
    assert text in h.run("plan").stdout
    r = h.run("apply")
    assert r.returncode == 1 and text in r.stdout, r.stdout + r.stderr
    assert text in h.run("status").stdout
    st = json.loads(h.run("status", "--json").stdout)
    assert text in next(p for p in st["pfs"] if p["pci"] == pci)["reason"]
    assert "kernel_arguments_added" not in h.state()


def test_manage_without_the_cpu_vendor_says_why_everywhere(make_host):
    """A snapshot with neither cpu_vendor nor boot_loader: manage cannot act, and every command
    says both reasons and what to add by hand, not only the remedy."""
    h = make_host("igb-82576.json")
    pci = h.pfs_by_driver("igb")[0]["pci"]
    h.layout("50.conf", VFIO.format(pci=pci))
    manage(h, loader=None)
    s = h.state()
    del s["cpu_vendor"]
    h.save(s)
    every_command_says(h, pci, f"{BY_HAND}; KernelArguments=manage cannot tell which of them "
                               f"this CPU takes, and {NO_LOADER}")


def test_manage_without_the_cpu_vendor_but_with_a_tool(make_host):
    h = make_host("igb-82576.json")
    pci = h.pfs_by_driver("igb")[0]["pci"]
    h.layout("50.conf", VFIO.format(pci=pci))
    manage(h, "grubby")
    s = h.state()
    del s["cpu_vendor"]
    h.save(s)
    text = f"{BY_HAND}; KernelArguments=manage cannot tell which of them this CPU takes"
    every_command_says(h, pci, text)
    assert "found no boot loader" not in h.run("plan").stdout


def test_manage_without_a_tool_says_why_everywhere(make_host):
    h = make_host("igb-82576.json")
    pci = h.pfs_by_driver("igb")[0]["pci"]
    h.layout("50.conf", VFIO.format(pci=pci))
    manage(h, loader=None)
    every_command_says(h, pci, "add intel_iommu=on iommu=pt to the kernel command line and "
                               f"reboot; KernelArguments=manage {NO_LOADER}")


def test_check_mode_names_manage_only_where_it_would_act(make_host):
    """Without KernelArguments=manage, check and plan give the same remedy, and suggest manage
    only where a boot loader tool is found and the CPU's vendor is known."""
    h = make_host("igb-82576.json")
    pci = h.pfs_by_driver("igb")[0]["pci"]
    h.layout("50.conf", VFIO.format(pci=pci))
    remedy = "add intel_iommu=on iommu=pt to the kernel command line and reboot"
    for loader, suffix in ((None, ""), ("grub", ", or set [Reboot] KernelArguments=manage")):
        s = h.state()
        s.pop("boot_loader", None)
        if loader:
            s["boot_loader"] = loader
        h.save(s)
        check = h.run("check").stderr
        assert check.rstrip("\n").endswith(f"the PF ends degraded: {remedy}{suffix}"), check
        plan = h.run("plan").stdout
        assert f"cannot: VF 0 wants vfio-pci but the IOMMU is off: {remedy}{suffix}\n" in plan, plan
