# SPDX-License-Identifier: LGPL-2.1-or-later
"""One ResourceName= given to VFs of different kinds: the device plugin configuration makes one
pool of every selector of a name, so a pod gets whichever VF is free. VFs with and without a
network interface: an error that holds the PF; VFs that differ only in RDMA=: a warning."""

import subprocess

E810 = "0000:3b:00.0"

MIXED = f"""[Match]
PCIAddress={E810}

[PhysicalFunction]
VirtualFunctions=16

[VirtualFunction 0-7]
Driver=vfio-pci
ResourceName=e810_pool

[VirtualFunction 8-15]
RDMA=yes
ResourceName=e810_pool
"""

RDMA_OR_NOT = f"""[Match]
PCIAddress={E810}

[PhysicalFunction]
VirtualFunctions=8

[VirtualFunction]
ResourceName=e810_net

[VirtualFunction 4-7]
RDMA=yes
"""


def check_without_host(h):
    return subprocess.run([h.binary, "--no-color", "--config-dir", str(h.confdir), "check"],
                          capture_output=True, text=True, timeout=60)


def test_vfio_and_netdev_vfs_in_one_resource_are_an_error(make_host):
    h = make_host("e810.json")
    path = h.layout("50-pool.conf", MIXED)
    msg = (f"{path}:13: ResourceName=e810_pool: VF 8 (%s, RDMA=yes at {path}:12) and VF 0 "
           f"(Driver=vfio-pci at {path}:8; its ResourceName= at {path}:9) would be one device "
           "plugin resource, and a pod that asks for it gets either a VF with a network "
           "interface or one without; give each kind its own ResourceName=")
    r = check_without_host(h)
    assert r.returncode == 1, r.stdout + r.stderr
    assert msg % "the kernel's VF driver" in r.stderr, r.stderr
    assert "1 error(s)" in r.stdout, r.stdout
    r = h.run("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert msg % "iavf" in r.stderr, r.stderr
    # the PF is held: nothing is planned, nothing changes
    r = h.run("plan", E810)
    assert f"{E810} (ens1f0): held: {msg % 'iavf'}" in r.stdout, r.stdout
    before = h.state()
    r = h.run("apply", E810)
    assert r.returncode != 0 and h.state() == before, r.stdout + r.stderr


def test_one_resource_per_kind_passes(make_host):
    h = make_host("e810.json")
    h.layout("50-pool.conf", MIXED.replace("ResourceName=e810_pool\n\n",
                                           "ResourceName=e810_vfio\n\n", 1))
    r = h.run("check")
    assert r.returncode == 0 and "ResourceName" not in r.stderr, r.stdout + r.stderr


def test_rdma_and_plain_netdev_vfs_in_one_resource_are_a_warning(make_host):
    h = make_host("e810.json")
    path = h.layout("50-net.conf", RDMA_OR_NOT)
    msg = (f"{path}:8: warning: ResourceName=e810_net: VF 4 (iavf, RDMA=yes at {path}:11) and "
           "VF 0 (iavf) are one device plugin resource, and a pod that asks for it may get a VF "
           "without an RDMA device; give each kind its own ResourceName=")
    r = h.run("check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert msg in r.stderr, r.stderr
    assert "0 error(s), 1 warning(s)" in r.stdout, r.stdout
    r = h.run("plan", E810)
    assert msg in r.stderr, r.stderr
    r = h.run("apply", E810)
    assert r.returncode == 0, r.stdout + r.stderr


ACROSS_A = """[Match]
Name=ens1f0

[PhysicalFunction]
VirtualFunctions=4

[VirtualFunction]
Driver=vfio-pci
ResourceName=pool
"""

ACROSS_B = """[Match]
Name=ens1f1

[PhysicalFunction]
VirtualFunctions=4

[VirtualFunction]
ResourceName=pool
"""


def test_vfio_and_netdev_vfs_of_two_pfs_in_one_resource_are_an_error_of_both(make_host):
    """The device plugin pools one name over the whole host: both PFs are held, each error
    at its own ResourceName= line naming the other PF's VF and lines."""
    h = make_host("e810.json")
    a = h.layout("50-a.conf", ACROSS_A)
    b = h.layout("50-b.conf", ACROSS_B)
    tail = ("would be one device plugin resource, and a pod that asks for it gets either a VF "
            "with a network interface or one without; give each kind its own ResourceName=")
    at_a = (f"{a}:9: ResourceName=pool: VF 0 of 0000:3b:00.0 (Driver=vfio-pci at {a}:8) and "
            f"VF 0 of 0000:3b:00.1 (iavf; its ResourceName= at {b}:8) {tail}")
    at_b = (f"{b}:8: ResourceName=pool: VF 0 of 0000:3b:00.1 (iavf) and VF 0 of 0000:3b:00.0 "
            f"(Driver=vfio-pci at {a}:8; its ResourceName= at {a}:9) {tail}")
    r = h.run("check", "--strict")
    assert r.returncode == 1, r.stdout + r.stderr
    assert at_a in r.stderr and at_b in r.stderr, r.stderr
    assert "2 error(s)" in r.stdout, r.stdout
    r = h.run("plan")
    assert f"0000:3b:00.0 (ens1f0): held: {at_a}" in r.stdout, r.stdout
    assert f"0000:3b:00.1 (ens1f1): held: {at_b}" in r.stdout, r.stdout
    before = h.state()
    r = h.run("apply")
    assert r.returncode != 0 and h.state() == before, r.stdout + r.stderr
    # one name per kind: no error
    h.layout("50-b.conf", ACROSS_B.replace("=pool", "=net"))
    r = h.run("check", "--strict")
    assert r.returncode == 0 and "ResourceName" not in r.stderr, r.stdout + r.stderr


def test_a_resource_name_with_its_prefix_says_where_the_prefix_goes(make_host):
    h = make_host("e810.json")
    path = h.layout("50-pool.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\n"
                    "VirtualFunctions=2\n[VirtualFunction]\nResourceName=intel.com/e810\n")
    r = check_without_host(h)
    assert r.returncode == 1, r.stdout + r.stderr
    assert (f"{path}:6: ResourceName=intel.com/e810: must be 1..63 letters, digits or '_': give "
            "the name without its 'prefix/'; the prefix is the host's [Kubernetes] "
            "ResourcePrefix= in sriov-persist.conf (intel.com by default)") in r.stderr, r.stderr


def test_rdma_and_plain_vfs_of_two_pfs_in_one_resource_are_a_warning_of_both(make_host):
    h = make_host("e810.json")
    a = h.layout("50-a.conf", ACROSS_A.replace("Driver=vfio-pci", "RDMA=yes"))
    b = h.layout("50-b.conf", ACROSS_B)
    r = h.run("check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (f"{b}:8: warning: ResourceName=pool: VF 0 of 0000:3b:00.1 (iavf) and VF 0 of "
            f"0000:3b:00.0 (iavf, RDMA=yes at {a}:8; its ResourceName= at {a}:9) are one device "
            "plugin resource, and a pod that asks for it may get a VF without an RDMA device; "
            "give each kind its own ResourceName=") in r.stderr, r.stderr
    assert f"{a}:9: warning: ResourceName=pool: VF 0 of 0000:3b:00.0" in r.stderr, r.stderr
    assert "0 error(s), 2 warning(s)" in r.stdout, r.stdout
