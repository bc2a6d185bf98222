# SPDX-License-Identifier: LGPL-2.1-or-later
"""check --host says what the host itself rules out, at the line of the key: vfio-pci while the
IOMMU is off, a Driver= that names no module, an MTU above IPoIB's, igb's MACs on a PF that is
down without LinkUp=yes. Each case is one apply would fail on, or end degraded."""


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
        f"{p}:6: warning: Driver=vfio-pci: the IOMMU is off on this host, so the VFs keep their "
        "driver and the PF ends degraded: add intel_iommu=on (or amd_iommu=on) iommu=pt to the "
        "kernel command line and reboot, or set [Reboot] KernelArguments=manage"]
    assert r.returncode == 0
    assert h.run("check", "--strict").returncode == 1
    # what plan says for it
    assert "cannot: VFs 0-1 want vfio-pci but the IOMMU is off" in h.run("plan").stdout


def test_vfio_pci_with_the_iommu_off_and_kernel_arguments_managed(make_host):
    h = make_host("e810.json")
    no_iommu(h)
    h.main.write_text(h.main.read_text() + "[Reboot]\nKernelArguments=manage\n")
    h.layout("50-e810.conf", VFIO)
    r = h.run("check", "--strict")
    assert r.stderr == ""
    assert r.returncode == 0


def test_vfio_pci_with_the_iommu_on(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", VFIO)
    r = h.run("check", "--strict")
    assert (r.stderr, r.returncode) == ("", 0)
