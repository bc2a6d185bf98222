# SPDX-License-Identifier: LGPL-2.1-or-later
"""A VF bound to a driver that gives it a network interface, whose interface this host's namespace
does not show (CNI moved it into a pod): unbinding it takes the interface from the pod, so the
unbind is disruptive and follows [Disruption] Policy=, with the reason on the plan's line."""

import json
import os
import subprocess

from conftest import PF_IFACE, pf_path

E810 = "0000:3b:00.0"
CX7 = "0000:1a:00.0"
WHY = "its network interface is not in this host's namespace: a pod may hold it"
UNBIND = f"disruptive VF 9: unbind ({WHY})"


def e810_layout(extra=""):
    return f"[Match]\nPCIAddress={E810}\n\n[PhysicalFunction]\nVirtualFunctions=10\n{extra}"


def pod_holds_vf9(make_host):
    """Ten iavf VFs applied; VF 9's netdev then moved into a pod (no name, no MTU here)."""
    h = make_host("e810.json")
    h.layout("50.conf", e810_layout())
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    s = h.state()
    vf = h.pf_of(s, E810)["vfs"][9]
    assert vf["driver"] == "iavf" and vf["name"], vf
    vf["name"], vf["mtu"] = None, 0
    h.save(s)
    h.layout("50.conf", e810_layout("\n[VirtualFunction 9]\nDriver=vfio-pci\n"))
    return h


def plan_pf(h, pci):
    doc = json.loads(h.run("plan", "--json", pci).stdout)
    return next(p for p in doc["pfs"] if p["pci"] == pci)


def test_plan_says_the_unbind_is_disruptive_and_why(make_host):
    h = pod_holds_vf9(make_host)
    s = h.state()
    h.pf_of(s, E810)["vfs"][9].update(name="ens1f0v9", mtu=1500)
    h.save(s)
    # an interface the host shows is in no pod: the rebind is live
    out = h.run("plan", E810).stdout
    assert "3 action(s), all live\n" in out and "  live       VF 9: unbind\n" in out, out
    s = h.state()
    h.pf_of(s, E810)["vfs"][9].update(name=None, mtu=0)
    h.save(s)
    out = h.run("plan", E810).stdout
    assert f"{E810} (ens1f0): 3 action(s), disruptive\n" in out, out
    assert f"  {UNBIND}\n" in out, out
    # binding the VF to its new driver takes nothing from anyone: live
    assert "  live       VF 9: bind vfio-pci\n" in out, out
    pf = plan_pf(h, E810)
    unbind = next(a for a in pf["actions"] if a["action"] == "unbind_vf")
    assert pf["disruptive"] and unbind["disruptive"], pf
    assert unbind["description"] == f"VF 9: unbind ({WHY})", unbind


def test_policy_never_defers_and_leaves_the_vf_in_the_pod(make_host):
    h = pod_holds_vf9(make_host)
    h.main.write_text("[Disruption]\nPolicy=never\n")
    out = h.run("plan", E810).stdout
    assert "note: an apply defers all of it: disruptive changes held by [Disruption] " \
        "Policy=never in " in out, out
    before = h.path.read_bytes()
    r = h.run("apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{E810} (ens1f0): deferred: disruptive changes held by [Disruption] Policy=never " \
        f"in {h.main}:2" in r.stdout, r.stdout
    assert h.path.read_bytes() == before
    assert h.pf(E810)["vfs"][9]["driver"] == "iavf"
    status = h.run("status", E810).stdout
    assert "deferred" in status and "differs: driver iavf (wanted vfio-pci)" in status, status


def test_policy_immediate_rebinds(make_host):
    h = pod_holds_vf9(make_host)
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"  done VF 9: unbind ({WHY})\n" in r.stdout, r.stdout
    assert h.pf(E810)["vfs"][9]["driver"] == "vfio-pci"
    assert f"{E810} (ens1f0): nothing to do\n" in h.run("plan", E810).stdout


def test_an_infiniband_vf_has_a_netdev_only_through_ipoib(make_host):
    """A CX7 InfiniBand port's VF 0, on mlx5_core, with no netdev here; its node GUID changed
    (mlx5 takes a GUID with the VF unbound: unbind, set, bind). Without ib_ipoib it has no
    network interface anywhere: the rebind is live, also under Policy=never. With ib_ipoib
    loaded it has one, and none here is one a pod may hold: the rebind waits."""
    h = make_host("cx7-ib.json")
    s = h.state()
    s["modules"] = [m for m in s["modules"] if m != "ib_ipoib"]
    h.pf_of(s, CX7)["name"] = None
    vf = h.pf_of(s, CX7)["vfs"][0]
    vf["name"], vf["mtu"] = None, 0
    h.save(s)
    h.layout("50.conf", f"[Match]\nPCIAddress={CX7}\n\n[PhysicalFunction]\nVirtualFunctions=2\n"
                        "\n[VirtualFunction 0]\nIBNodeGUID=02:1a:00:00:00:00:01:10\n")
    h.main.write_text("[Disruption]\nPolicy=never\n")
    pf = plan_pf(h, CX7)
    assert [a["action"] for a in pf["actions"]] == ["unbind_vf", "set_vf", "bind_vf"], pf
    assert not pf["disruptive"], pf["actions"]

    s = h.state()
    s["modules"].append("ib_ipoib")
    h.save(s)
    out = h.run("plan", CX7).stdout
    assert f"  disruptive VF 0: unbind ({WHY})\n" in out, out
    before = h.path.read_bytes()
    r = h.run("apply")
    assert r.returncode == 1 and "deferred: disruptive changes held by" in r.stdout, r.stdout
    assert h.path.read_bytes() == before

    s = h.state()
    s["modules"].remove("ib_ipoib")
    h.save(s)
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.pf(CX7)["vfs"][0]["ib_node_guid"] == "02:1a:00:00:00:00:01:10"


def test_the_daemon_does_not_repair_a_pod_vf_under_policy_never(make_host, start_daemon,
                                                                 bus_client, system_bus):
    """Drift: VF 9, which its layout puts on vfio-pci, is on iavf and its interface in a pod. The
    repair would unbind it: disruptive, so Policy=never holds it, and the daemon says so."""
    c = bus_client
    h = make_host("e810.json")
    h.main.write_text("[Drift]\nMode=repair\n[Disruption]\nPolicy=never\n[Reboot]\nPolicy=never\n")
    h.layout("50.conf", e810_layout("\n[VirtualFunction 9]\nDriver=vfio-pci\n"))
    start_daemon(h)
    m = c.mark()
    c.call("Apply", "")
    assert c.wait_applied(E810, m) == 0
    assert h.pf(E810)["vfs"][9]["driver"] == "vfio-pci"
    m = c.mark()

    def into_pod(s):
        h.pf_of(s, E810)["vfs"][9].update(driver="iavf", name=None, mtu=0)
    h.edit(into_pod)
    c.wait_signal("DriftDetected", m, pci=E810)
    held = f"disruptive changes held by [Disruption] Policy=never in {h.main}:4; set " \
        "Policy=drain or immediate there to let them run, or make the change by hand"
    c.wait_property("State", "deferred", pf_path(E810), PF_IFACE)
    assert c.get("LastError", pf_path(E810), PF_IFACE) == held
    out = subprocess.run([h.binary, "--no-color", "status", E810], capture_output=True, text=True,
                         timeout=60, env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
                         ).stdout
    assert held in out and "differs: driver iavf (wanted vfio-pci)" in out, out
    # the repair deferred (EBUSY), the VF left where the pod has it
    assert all(sig.args[1] == -16 for sig in c.matching("Applied", m)), c.matching("Applied", m)
    assert h.pf(E810)["vfs"][9]["driver"] == "iavf"


def test_a_built_in_ipoib_is_no_module_but_gives_the_pf_its_interface(make_host):
    """IPoIB built into the kernel (CONFIG_INFINIBAND_IPOIB=y) is not in /proc/modules; the
    PF's own IPoIB interface shows it is there, so a VF without one here may be in a pod."""
    h = make_host("cx7-ib.json")
    s = h.state()
    s["modules"] = [m for m in s["modules"] if m != "ib_ipoib"]
    assert h.pf_of(s, CX7)["name"], h.pf_of(s, CX7)
    vf = h.pf_of(s, CX7)["vfs"][0]
    vf["name"], vf["mtu"] = None, 0
    h.save(s)
    h.layout("50.conf", f"[Match]\nPCIAddress={CX7}\n\n[PhysicalFunction]\nVirtualFunctions=2\n"
                        "\n[VirtualFunction 0]\nIBNodeGUID=02:1a:00:00:00:00:01:10\n")
    out = h.run("plan", CX7).stdout
    assert f"  disruptive VF 0: unbind ({WHY})\n" in out, out


def test_an_infiniband_vf_whose_rdma_device_a_pod_holds(make_host):
    """With the RDMA netns mode exclusive, rdma-cni moves a VF's RDMA device into the pod's
    namespace, where this host does not see it: an InfiniBand VF without IPoIB, on mlx5_core
    and with no RDMA device here, may be in a pod; its GUID change waits for the policy. One
    whose RDMA device this host shows is not in a pod: its rebind is live."""
    h = make_host("cx7-ib.json")
    s = h.state()
    s["modules"] = [m for m in s["modules"] if m != "ib_ipoib"]
    s["rdma_netns_mode"] = "exclusive"
    h.pf_of(s, CX7)["name"] = None
    vf = h.pf_of(s, CX7)["vfs"][0]
    vf["name"], vf["mtu"], vf["rdma"] = None, 0, False
    h.save(s)
    h.layout("50.conf", f"[Match]\nPCIAddress={CX7}\n\n[PhysicalFunction]\nVirtualFunctions=2\n"
                        "\n[VirtualFunction 0]\nIBNodeGUID=02:1a:00:00:00:00:01:10\n")
    h.main.write_text("[Disruption]\nPolicy=never\n")
    out = h.run("plan", CX7).stdout
    assert ("  disruptive VF 0: unbind (its RDMA device is not in this host's namespace "
            "(RDMA netns mode exclusive): a pod may hold it)\n") in out, out
    before = h.path.read_bytes()
    r = h.run("apply")
    assert r.returncode == 1 and "deferred: disruptive changes held by" in r.stdout, r.stdout
    assert h.path.read_bytes() == before

    s = h.state()
    h.pf_of(s, CX7)["vfs"][0]["rdma"] = True
    h.save(s)
    pf = plan_pf(h, CX7)
    assert [a["action"] for a in pf["actions"]] == ["unbind_vf", "set_vf", "bind_vf"], pf
    assert not pf["disruptive"], pf["actions"]


def test_an_mtu_for_a_vf_a_pod_may_hold_is_neither_compared_nor_set(make_host):
    """A VF's MTU is read and set through its network interface: one in a pod's namespace
    cannot be, from here. No mtu step for VF 9, no failure and nothing degraded (a VF in a pod is
    the normal case): the PF ends applied, VF 9 left as it is; the other VFs get their MTU."""
    h = pod_holds_vf9(make_host)
    h.layout("50.conf", e810_layout("\n[VirtualFunction 8-9]\nMTUBytes=1400\n"))
    p = h.run("plan", E810)
    assert "VF 9: mtu" not in p.stdout and "  live       VF 8: mtu 1400\n" in p.stdout, p.stdout
    assert "cannot:" not in p.stdout, p.stdout
    vf9 = json.dumps(h.pf(E810)["vfs"][9], sort_keys=True)
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "FAIL" not in r.stdout and "failed" not in r.stdout, r.stdout
    assert json.dumps(h.pf(E810)["vfs"][9], sort_keys=True) == vf9
    assert h.pf(E810)["vfs"][8]["mtu"] == 1400
    pf = next(p for p in json.loads(h.run("status", "--json").stdout)["pfs"] if p["pci"] == E810)
    assert pf["state"] == "applied", pf
    assert f"{E810} (ens1f0): nothing to do\n" in h.run("plan", E810).stdout
