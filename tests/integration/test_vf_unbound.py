# SPDX-License-Identifier: LGPL-2.1-or-later
"""A VF that someone took off its driver, where the layout leaves Driver= unset but needs a
network interface (RDMA=yes, MTUBytes=): drift that plan and apply repair by binding the kernel's
VF driver, never an RDMA device the firmware turned off."""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
E810 = "0000:3b:00.0"
DEVLINK_TEXT = "RDMA may be turned off"


def shipped_rdma_layout_without_driver():
    """conf.d/50-e810-rdma.conf with its Driver=default lines left out: VFs 8-15 keep the driver
    they have, and want RDMA and MTU 9000."""
    text = (ROOT / "conf.d" / "50-e810-rdma.conf").read_text()
    assert "Driver=default\n" in text
    return text.replace("Driver=default\n", "")


def applied(make_host):
    h = make_host("e810.json")
    h.layout("50-e810-rdma.conf", shipped_rdma_layout_without_driver())
    r = h.run("apply", E810)
    assert r.returncode == 0, r.stdout + r.stderr
    return h


def unbind(h, *vfs):
    """What an unbind leaves in sysfs: no driver, no netdev, no RDMA device."""
    s = h.state()
    for i in vfs:
        h.pf_of(s, E810)["vfs"][i].update(driver=None, name=None, mtu=0, rdma=False)
    h.save(s)


def vf_row(out, i):
    return next(line for line in out.splitlines() if re.match(rf"    {i} +0000:", line))


def test_an_unbound_vf_that_wants_rdma_is_drift_and_is_bound_again(make_host):
    h = applied(make_host)
    unbind(h, 10)
    r = h.run("status", E810)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(rf"^{E810} .* drifted ", r.stdout, re.M), r.stdout
    assert vf_row(r.stdout, 10).endswith("  differs: no driver bound (wanted iavf)"), r.stdout
    assert DEVLINK_TEXT not in r.stdout, r.stdout
    doc = json.loads(h.run("status", "--json", E810).stdout)["pfs"][0]
    assert doc["state"] == "drifted", doc["state"]
    assert doc["vfs"][10]["layout"] == "differs: no driver bound (wanted iavf)"

    r = h.run("plan", E810)
    assert r.returncode == 10, r.stdout + r.stderr
    assert "nothing it can do now" not in r.stdout and DEVLINK_TEXT not in r.stdout, r.stdout
    assert "live       VF 10: bind iavf" in r.stdout, r.stdout

    r = h.run("apply", E810)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "done VF 10: bind iavf" in r.stdout, r.stdout
    vf = h.pf(E810)["vfs"][10]
    assert (vf["driver"], vf["rdma"], vf["mtu"]) == ("iavf", True, 9000), vf
    assert vf_row(h.run("status", E810).stdout, 10).endswith("  ok")


def test_a_vf_that_wants_nothing_of_a_netdev_stays_unbound(make_host):
    """Driver= unset keeps a VF as it is where its layout needs no network interface."""
    h = make_host("e810.json")
    h.layout("50-e810.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\n"
             "VirtualFunctions=4\n[VirtualFunction]\nVLANId=10\n")
    assert h.run("apply", E810).returncode == 0
    unbind(h, 1)
    r = h.run("plan", E810)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "nothing to do" in r.stdout and "bind" not in r.stdout, r.stdout


def test_no_rdma_device_on_a_vf_on_its_netdev_driver_still_blames_the_device(make_host):
    h = applied(make_host)
    s = h.state()
    h.pf_of(s, E810)["vfs"][10]["rdma"] = False
    h.save(s)
    r = h.run("plan", E810)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "cannot: VF 10 has no RDMA device (RDMA=yes) with irdma loaded: " + DEVLINK_TEXT \
        in r.stdout, r.stdout


def test_a_vf_on_a_driver_without_a_netdev_is_told_to_bind_it(make_host):
    """Driver= unset, and someone moved a VF that wants RDMA to vfio-pci: the VF is left there
    (it may be in use), and the reason names the driver, not the device's firmware."""
    h = applied(make_host)
    s = h.state()
    h.pf_of(s, E810)["vfs"][10].update(driver="vfio-pci", name=None, mtu=0, rdma=False)
    h.save(s)
    r = h.run("plan", E810)
    assert r.returncode == 1, r.stdout + r.stderr
    assert DEVLINK_TEXT not in r.stdout, r.stdout
    assert "cannot: VF 10 has no driver with a network interface (RDMA=yes needs one): bind it " \
        "to its netdev driver, or set Driver= for it" in r.stdout, r.stdout
