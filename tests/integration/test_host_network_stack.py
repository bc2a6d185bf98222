# SPDX-License-Identifier: LGPL-2.1-or-later
"""udev-helper vf: which VF netdevs the udev rule keeps from NetworkManager and systemd-networkd
(NM_UNMANAGED=1, ID_NET_MANAGED_BY=), as the layouts of their PF say, on the simulated host."""

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HELPER = os.environ.get("SRIOV_UDEV_HELPER") or str(ROOT / "build/asan/udev-helper")
UNMANAGED = "NM_UNMANAGED=1\nID_NET_MANAGED_BY=sriov-persist\n"

LAYOUT = """[Match]
PCIAddress={pci}

[PhysicalFunction]
VirtualFunctions=6

[VirtualFunction 0-1]
ResourceName=pods

[VirtualFunction 1]
HostNetworkStack=managed

[VirtualFunction 2]
Driver=vfio-pci

[VirtualFunction 3]
HostNetworkStack=unmanaged

[VirtualFunction 4]
VLANId=10
"""


def helper(h, pci):
    return subprocess.run([HELPER, "--host", str(h.path), "--config-dir", str(h.confdir),
                           "--main-config", str(h.main), "vf", pci],
                          capture_output=True, text=True, timeout=60)


def igb(make_host):
    h = make_host("igb-82576.json")
    s = h.state()
    s["iommu"] = True
    h.save(s)
    return h, h.pfs_by_driver("igb")[0]["pci"]


def vf_pcis(h, pci):
    return [v["pci"] for v in h.pf(pci)["vfs"]]


def test_vfs_for_pods_and_vms_are_kept_from_the_host_network_stack(make_host):
    h, pci = igb(make_host)
    h.layout("50-igb.conf", LAYOUT.format(pci=pci))
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    vfs = vf_pcis(h, pci)
    assert len(vfs) == 6
    out = [helper(h, v) for v in vfs]
    for r in out:
        assert r.returncode == 0 and r.stderr == "", r
    # a resource name: a pod's; HostNetworkStack=managed overrides that; vfio-pci: a VM's;
    # HostNetworkStack=unmanaged on its own; a VF with other keys only, and one no section names
    assert [r.stdout for r in out] == [UNMANAGED, "", UNMANAGED, UNMANAGED, "", ""]


def test_a_layout_with_an_error_still_keeps_pod_vfs(make_host):
    """The PF is held for the error; the lines that parsed still say which VFs are pods'."""
    h, pci = igb(make_host)
    h.layout("50-igb.conf", LAYOUT.format(pci=pci))
    assert h.run("apply").returncode == 0
    h.layout("50-igb.conf", LAYOUT.format(pci=pci) + "VLANId=5000\n")
    r = h.run("check")
    assert r.returncode == 1 and "VLANId=5000" in r.stdout + r.stderr, r
    vfs = vf_pcis(h, pci)
    assert helper(h, vfs[0]).stdout == UNMANAGED
    assert helper(h, vfs[1]).stdout == ""


def test_no_layout_no_vf_or_a_pf_prints_nothing(make_host):
    h, pci = igb(make_host)
    h.layout("50-igb.conf", LAYOUT.format(pci=pci))
    assert h.run("apply").returncode == 0
    vfs = vf_pcis(h, pci)
    assert helper(h, vfs[0]).stdout == UNMANAGED
    # the VFs stay, and no layout selects their PF any more
    (h.confdir / "50-igb.conf").unlink()
    for what in (vfs[0], pci, "0000:99:00.0"):
        r = helper(h, what)
        assert (r.returncode, r.stdout, r.stderr) == (0, "", ""), (what, r)


def test_a_bad_value_is_an_error_at_its_line(make_host):
    h, pci = igb(make_host)
    h.layout("50-igb.conf", f"[Match]\nPCIAddress={pci}\n[VirtualFunction 0]\n"
             "HostNetworkStack=no\n")
    r = h.run("check")
    assert r.returncode == 1, r
    assert "50-igb.conf:4: HostNetworkStack=no: must be managed or unmanaged" in r.stdout + r.stderr, r


def test_status_shows_the_setting(make_host):
    h, pci = igb(make_host)
    h.layout("50-igb.conf", LAYOUT.format(pci=pci))
    assert h.run("apply").returncode == 0
    st = json.loads(h.run("status", "--json").stdout)
    pf = next(p for p in st["pfs"] if p["pci"] == pci)
    setting = pf["vfs"][3]["settings"]["HostNetworkStack"]
    assert setting["now"] is None and setting["wanted"] == "unmanaged", setting
    assert setting["source"].endswith("50-igb.conf:17"), setting
    assert "HostNetworkStack" not in pf["vfs"][4]["settings"] or \
        pf["vfs"][4]["settings"]["HostNetworkStack"]["wanted"] is None
