# SPDX-License-Identifier: LGPL-2.1-or-later
"""Issue 32, the fresh-eyes trial's minor items: every bad rate is said at once (5), a held PF
wants nothing anywhere in its status (6), and a QualityOfService= without a VLAN names its VFs
(8)."""

import json
import subprocess

from conftest import PF_IFACE, pf_path

ICE = "0000:3b:00.0"


def test_min_above_max_and_min_sum_said_at_once(make_host):
    """VF 1's MinTxRateMbps= above its MaxTxRateMbps=, and the four minimums together above the
    link speed: both at the MinTxRateMbps= line, both said by check --host, plan and status."""
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", f"[Match]\nPCIAddress={ICE}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\n[VirtualFunction 0-3]\nMinTxRateMbps=10000\n"
                 "[VirtualFunction 1]\nMaxTxRateMbps=5000\n")
    both = [f"{p}:6: MinTxRateMbps=10000: must not exceed MaxTxRateMbps=5000 (line 8)",
            f"{p}:6: MinTxRateMbps=10000: the VFs' minimum rates would add up to 40000 Mb/s, "
            "above the PF's link speed, 25000 Mb/s, which the ice driver refuses"]
    r = h.run("check")
    assert r.stderr.splitlines() == both and r.returncode == 1, r.stderr
    assert "2 error(s)" in r.stdout, r.stdout
    for verb in ("plan", "status"):
        r = h.run(verb)
        assert r.stderr.splitlines() == both, r.stderr
        assert "(line 8) (and 1 more error)" in r.stdout, r.stdout


HELD = (f"[Match]\nPCIAddress={ICE}\n[PhysicalFunction]\nVirtualFunctions=4\n"
        "ExternallyManaged=yes\nBogus=1\n[VirtualFunction 0-3]\nTrust=yes\nVLANId=5\n")


def wanted_anywhere(pf):
    """The keys of a PF of the status document, and of its VFs, that have a wanted value or
    a source."""
    found = [k for k, s in pf["settings"].items() if s["wanted"] is not None or s["source"]]
    for vf in pf["vfs"]:
        found += [f"VF {vf['index']} {k}" for k, s in vf["settings"].items()
                  if s["wanted"] is not None or s["source"]]
    return found


def test_held_pf_wants_nothing_anywhere(make_host):
    """A PF held for an unknown key applies nothing: WANT, desired_num_vfs, the settings and the
    VF rows all say nothing is wanted, and its ExternallyManaged=yes does not describe it as
    externally managed; cat still shows what the files set."""
    h = make_host("mixed.json")
    p = h.layout("50-ice.conf", HELD)
    r = h.run("status", ICE)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines[1].split()[3:7] == ["2", "-", "128", "held"], r.stdout
    assert f"    {p}:6: unknown key 'Bogus' in [PhysicalFunction]" in lines, r.stdout
    assert "externally managed" not in r.stdout and "wanted" not in r.stdout, r.stdout
    pf = json.loads(h.run("status", "--json", ICE).stdout)["pfs"][0]
    assert pf["state"] == "held" and pf["desired_num_vfs"] is None
    assert [vf["layout"] for vf in pf["vfs"]] == [None, None]
    assert wanted_anywhere(pf) == []
    c = h.run("cat", ICE).stdout
    assert "ExternallyManaged=yes  # 50-ice.conf:5" in c and "VLANId=5  # 50-ice.conf:9" in c, c


def test_held_pf_wants_nothing_on_the_bus(make_host, start_daemon, bus_client):
    """The daemon's Settings and VirtualFunctionSettings of a held PF are empty, as GetStatus's
    settings have no wanted value."""
    h = make_host("mixed.json")
    h.layout("50-ice.conf", HELD)
    start_daemon(h)
    c = bus_client
    path = pf_path(ICE)
    c.wait_property("State", "held", path=path, iface=PF_IFACE)
    assert c.get("Settings", path, PF_IFACE) == []
    assert c.get("VirtualFunctionSettings", path, PF_IFACE) == []
    pf = next(p for p in json.loads(c.call("GetStatus"))["pfs"] if p["pci"] == ICE)
    assert pf["desired_num_vfs"] is None and wanted_anywhere(pf) == []


def test_qos_without_vlan_names_its_vfs(make_host):
    """[VirtualFunction 0-1] QualityOfService=2 where only VF 1 has a VLANId=: the error names VF
    0, with and without the host, and plan holds the PF for it."""
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", f"[Match]\nPCIAddress={ICE}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\n[VirtualFunction 0-1]\nQualityOfService=2\n"
                 "[VirtualFunction 1]\nVLANId=5\n")
    want = f"{p}:6: VF 0: QualityOfService=2 needs a VLANId= other than 0"
    alone = subprocess.run([h.binary, "--no-color", "--config-dir", str(h.confdir),
                            "--main-config", str(h.main), "check"],
                           capture_output=True, text=True, timeout=60)
    for r in (alone, h.run("check")):
        assert r.stderr.splitlines() == [want] and r.returncode == 1, r.stderr
    r = h.run("plan")
    assert f"0000:3b:00.0 (ens1f0): held: {want}" in r.stdout.splitlines(), r.stdout
