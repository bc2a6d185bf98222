# SPDX-License-Identifier: LGPL-2.1-or-later
"""[RDMA] NetnsMode= of the main configuration on the simulated host: set with the PFs whose
layouts have RDMA=yes, after their VFs; a kernel that refuses (other network namespaces exist)
fails the apply with its reason and leaves the VFs configured."""

import json

E810_RDMA = """[Match]
PCIAddress={pci}
[PhysicalFunction]
VirtualFunctions=2
[VirtualFunction 1]
RDMA=yes
"""


def netns_main(h, mode):
    h.main.write_text(h.main.read_text() + f"[RDMA]\nNetnsMode={mode}\n")


def test_exclusive_with_rdma_vfs(make_host):
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    h.layout("50-rdma.conf", E810_RDMA.format(pci=pci))
    netns_main(h, "exclusive")
    assert "rdma_netns_mode" not in h.state(), "no ib_core yet"

    plan = h.run("plan")
    assert plan.returncode == 10, plan.stdout + plan.stderr
    assert plan.stdout.splitlines()[1] == "  files: 50-rdma.conf", plan.stdout
    lines = [line.split(None, 1)[1] for line in plan.stdout.splitlines()[2:6]]
    assert lines == ["load module iavf", "load module irdma", "set 2 VFs",
                     "set RDMA netns mode exclusive"], plan.stdout
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.state()["rdma_netns_mode"] == "exclusive"
    r = h.run("plan")
    assert r.returncode == 0 and "nothing to do" in r.stdout, r.stdout

    # keep: a mode changed by hand stays; exclusive again repairs it
    s = h.state()
    s["rdma_netns_mode"] = "shared"
    h.save(s)
    h.main.write_text(h.main.read_text().replace("NetnsMode=exclusive", "NetnsMode=keep"))
    assert h.run("plan").returncode == 0
    h.main.write_text(h.main.read_text().replace("NetnsMode=keep", "NetnsMode=exclusive"))
    r = h.run("plan")
    assert r.returncode == 10 and "set RDMA netns mode exclusive" in r.stdout, r.stdout
    # status says what differs, though no VF row does
    st = json.loads(h.run("status", "--json").stdout)
    pf = next(p for p in st["pfs"] if p["pci"] == pci)
    assert pf["state"] == "drifted" and pf["reason"] == "differs: set RDMA netns mode exclusive", pf


def test_no_rdma_vfs_leave_the_mode(make_host):
    h = make_host("cx7-ib.json")
    pci = h.pfs_by_driver("mlx5_core")[0]["pci"]
    h.layout("50-ib.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    netns_main(h, "exclusive")
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.state()["rdma_netns_mode"] == "shared"


def test_kernel_refuses(make_host):
    h = make_host("cx7-ib.json")
    pci = h.pfs_by_driver("mlx5_core")[0]["pci"]
    h.layout("50-ib.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=4\n"
                           "[VirtualFunction]\nRDMA=yes\nIBNodeGUID=stable\n")
    netns_main(h, "exclusive")
    h.add_fault(op="set_rdma_netns_mode", errno="EBUSY")
    r = h.run("apply")
    assert r.returncode != 0, r.stdout
    assert "set RDMA netns mode exclusive" in r.stdout + r.stderr
    pf = h.pf(pci)
    assert pf["num_vfs"] == 4 and all(vf.get("ib_node_guid") for vf in pf["vfs"]), pf
    assert h.state()["rdma_netns_mode"] == "shared"
    st = h.run("status")
    assert "failed" in st.stdout and "RDMA netns mode" in st.stdout, st.stdout


def test_bad_value(make_host):
    h = make_host("e810.json")
    netns_main(h, "private")
    r = h.run("check")
    assert r.returncode == 1
    assert "NetnsMode=private: must be keep, shared or exclusive" in r.stdout + r.stderr
