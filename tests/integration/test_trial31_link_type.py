# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 31: what plan, check and status say about a ConnectX port's link type. A VF made anew on
an InfiniBand port comes back at IPoIB's MTU, not Ethernet's; the IPoIB name the manual
recommends adding to Name= for a LinkType=infiniband change is no unmatched name; a stable VF MAC
on an InfiniBand port that LinkType=ethernet makes Ethernet waits for the reboot, as the GUIDs
do the other way."""

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPERATOR = ROOT / "tests" / "fixtures" / "operator"
IB = "0000:1a:00.0"    # cx7-ib.json: ibp26s0, InfiniBand, VFs at 4092
VPI = "0000:41:00.0"   # cx6-vpi.json: ens2f0np0, Ethernet, its link type can change


def actions(out):
    return [" ".join(line.split()) for line in out.splitlines()
            if line.split(None, 1)[0:1] in (["live"], ["disruptive"])]


def notes(out):
    return [line.split("note: ", 1)[1] for line in out.splitlines() if "note: " in line]


# 1. the MTU a recreated VF loses is judged against the MTU its netdev gets on the port's link type

def test_ib_recreation_keeps_ipoib_mtu(make_host, sriovctl_bin):
    """After import of cx7-ib.yaml, VirtualFunctions=8 makes the 2 VFs anew: they come back at
    4092 as they were, so nothing is said of their MTU; VF 0 still loses its GUIDs."""
    h = make_host("cx7-ib.json")
    r = subprocess.run([sriovctl_bin, "import", "--output-dir", str(h.confdir),
                        str(OPERATOR / "cx7-ib.yaml")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    want = ["VF 0: recreated (VirtualFunctions=8), without its node_guid 02:1a:00:00:00:00:00:10, "
            "port_guid 02:1a:00:00:00:00:00:11 (no layout sets them)"]
    p = h.run("plan")
    assert p.returncode == 10, p.stderr
    assert notes(p.stdout) == want
    a = h.run("apply")
    assert a.returncode == 0, a.stderr
    assert notes(a.stdout) == want
    vfs = h.pf(IB)["vfs"]
    assert [v["mtu"] for v in vfs] == [4092] * 8


def test_ib_recreation_says_hand_set_mtu(make_host):
    """A VF whose MTU was set by hand below IPoIB's loses that MTU, and the note says which."""
    h = make_host("cx7-ib.json")
    h.edit(lambda s: h.pf_of(s, IB)["vfs"][1].update(mtu=2044))
    h.layout("50-ib.conf", f"[Match]\nPCIAddress={IB}\n[PhysicalFunction]\nVirtualFunctions=4\n")
    p = h.run("plan")
    assert p.returncode == 10, p.stderr
    assert notes(p.stdout) == [
        "VF 0: recreated (VirtualFunctions=4), without its node_guid 02:1a:00:00:00:00:00:10, "
        "port_guid 02:1a:00:00:00:00:00:11 (no layout sets them)",
        "VF 1: recreated (VirtualFunctions=4), without its mtu 2044 (no layout sets it)"]
    assert h.run("apply").returncode == 0
    assert [v["mtu"] for v in h.pf(IB)["vfs"]] == [4092] * 4


# 2. the IPoIB name in Name= beside the Ethernet one, as layout(5) recommends

VPI_LAYOUT = "[Match]\nName={names}\n[PhysicalFunction]\nVirtualFunctions=4\n{link}"
CHECKED = "1 layout file(s) and the main configuration checked: 0 error(s)\n"


def test_name_with_ipoib_name_passes_strict(make_host):
    h = make_host("cx6-vpi.json")
    h.layout("50-vpi.conf", VPI_LAYOUT.format(names="ens2f0np0 ibp65s0f0",
                                              link="LinkType=infiniband\n"))
    c = h.run("check", "--strict")
    assert (c.returncode, c.stdout, c.stderr) == (0, CHECKED, "")
    p = h.run("plan")
    assert p.returncode == 10 and "held" not in p.stdout, p.stdout + p.stderr


def test_name_with_ipoib_name_of_link_type_in_another_file(make_host):
    """LinkType= from another file that selects the port, merged as the plan merges it."""
    h = make_host("cx6-vpi.json")
    h.layout("10-link.conf", f"[Match]\nPCIAddress={VPI}\n[PhysicalFunction]\nLinkType=infiniband\n")
    h.layout("50-vpi.conf", VPI_LAYOUT.format(names="ens2f0np0 ibp65s0f0", link=""))
    c = h.run("check", "--strict")
    assert (c.returncode, c.stderr) == (0, ""), c.stdout + c.stderr


def test_name_still_warns_when_unmatched(make_host):
    """Another port's IPoIB name, or the IPoIB name without a link type change, selects nothing."""
    for names, link in (("ens2f0np0 ibp65s0f1", "LinkType=infiniband\n"),
                        ("ens2f0np0 ibp65s0f0", ""),
                        ("ens2f0np0 ibp65s0f0", "LinkType=ethernet\n")):
        h = make_host("cx6-vpi.json")
        h.layout("50-vpi.conf", VPI_LAYOUT.format(names=names, link=link))
        c = h.run("check", "--strict")
        glob = names.split()[1]
        assert c.returncode == 1, (names, link, c.stdout)
        assert (f"{h.confdir}/50-vpi.conf:2: warning: [Match] Name={glob} selects no PF on this "
                "host (the file's other Name= globs do)\n") in c.stderr, (names, link)


# 3. MACAddress=stable on an InfiniBand port that LinkType=ethernet makes Ethernet

ETH_LAYOUT = (f"[Match]\nPCIAddress={IB}\n[PhysicalFunction]\nVirtualFunctions=4\n"
              "LinkType=ethernet\n[VirtualFunction]\nMACAddress=stable\n")
MAC_NOTE = ("VFs 0-3: MACAddress= is set once the port is Ethernet, after the reboot its link type "
            "change needs (MACAddress=stable is made from the PF's permanent MAC address, which "
            "an InfiniBand port does not have)")


def reboot_into_ethernet(h):
    def change(s):
        s["boot_id"] = "2" * 32
        pf = h.pf_of(s, IB)
        pf.update(link_type=pf["firmware_link_type"], permanent_mac="b8:ce:f6:1d:52:40",
                  name="ens26f0np0", mtu=1500, num_vfs=0, vfs=[])
    h.edit(change)
    subprocess.run(["rm", "-rf", "--", f"{h.path}.run"], check=True)


def test_stable_mac_waits_for_ethernet(make_host):
    h = make_host("cx7-ib.json")
    h.layout("50-eth.conf", ETH_LAYOUT)
    c = h.run("check", "--strict")
    assert (c.returncode, c.stdout, c.stderr) == (0, CHECKED, "")
    p = h.run("plan")
    assert p.returncode == 10, p.stdout + p.stderr
    assert "held" not in p.stdout
    assert MAC_NOTE in notes(p.stdout)
    assert "set firmware link type ethernet (reboot)" in p.stdout
    a = h.run("apply")
    assert a.returncode == 0, a.stdout + a.stderr
    st = h.run("status")
    assert st.stdout.count("after a reboot: mac stable (LinkType=ethernet takes effect after a "
                           "reboot)") == 4, st.stdout
    reboot_into_ethernet(h)
    p = h.run("plan")
    assert "note:" not in p.stdout and "held" not in p.stdout, p.stdout
    assert h.run("apply").returncode == 0
    macs = [v["mac"] for v in h.pf(IB)["vfs"]]
    assert len(set(macs)) == 4 and "00:00:00:00:00:00" not in macs, macs
    st = h.run("status", "--json")
    assert st.returncode == 0, st.stderr
    assert json.loads(st.stdout)["pfs"][0]["state"] == "applied"


def test_literal_ethernet_keys_wait_too(make_host):
    """Not only the stable MAC: IPoIB sets none of the Ethernet keys, and plan says they wait."""
    h = make_host("cx7-ib.json")
    h.layout("50-eth.conf", f"[Match]\nPCIAddress={IB}\n[PhysicalFunction]\nVirtualFunctions=4\n"
             "LinkType=ethernet\n[VirtualFunction 0]\nMACAddress=02:00:00:00:10:01\nVLANId=5\n")
    p = h.run("plan")
    assert p.returncode == 10, p.stdout + p.stderr
    assert ("VF 0: MACAddress=, VLANId= are set once the port is Ethernet, after the reboot its "
            "link type change needs") in notes(p.stdout)


def test_stable_mac_on_ethernet_port_without_permanent_mac_still_held(make_host):
    """Where the port is Ethernet and its permanent MAC unknown, nothing waits: held as before."""
    h = make_host("cx6-vpi.json")
    h.edit(lambda s: h.pf_of(s, VPI).update(permanent_mac="00:00:00:00:00:00"))
    h.layout("50-eth.conf", f"[Match]\nPCIAddress={VPI}\n[PhysicalFunction]\nVirtualFunctions=4\n"
             "[VirtualFunction]\nMACAddress=stable\n")
    p = h.run("plan")
    assert p.returncode == 1
    assert "MACAddress=stable: the PF's permanent MAC address is unknown" in p.stdout + p.stderr


def test_ib_new_vfs_at_ipoib_mtu_need_no_mtu_action(make_host):
    """MTUBytes=4092 on VFs made anew on an InfiniBand port: they come at 4092, nothing to set;
    another MTU is set on each."""
    h = make_host("cx7-ib.json")
    h.layout("50-ib.conf", f"[Match]\nPCIAddress={IB}\n[PhysicalFunction]\nVirtualFunctions=4\n"
             "[VirtualFunction]\nMTUBytes=4092\n")
    p = h.run("plan")
    assert p.returncode == 10, p.stdout + p.stderr
    assert actions(p.stdout) == ["disruptive remove all VFs", "disruptive set 4 VFs"], p.stdout
    assert h.run("apply").returncode == 0
    assert [v["mtu"] for v in h.pf(IB)["vfs"]] == [4092] * 4
    h.layout("50-ib.conf", f"[Match]\nPCIAddress={IB}\n[PhysicalFunction]\nVirtualFunctions=2\n"
             "[VirtualFunction]\nMTUBytes=2044\n")
    p = h.run("plan")
    assert actions(p.stdout) == ["disruptive remove all VFs", "disruptive set 2 VFs",
                                 "live VF 0: mtu 2044", "live VF 1: mtu 2044"], p.stdout
    assert h.run("apply").returncode == 0
    assert [v["mtu"] for v in h.pf(IB)["vfs"]] == [2044] * 2


# 4. MTUBytes= above IPoIB's 4092 on an InfiniBand port that LinkType=ethernet makes Ethernet

MTU_LAYOUT = (f"[Match]\nPCIAddress={IB}\n[PhysicalFunction]\nVirtualFunctions=2\n"
              "LinkType=ethernet\nMTUBytes=9000\n[VirtualFunction]\nMACAddress=stable\n"
              "MTUBytes=9000\n")
MTU_WHY = ("once the port is Ethernet, after the reboot its link type change needs (IPoIB on the "
           "InfiniBand port as it runs now takes 68..4092)")


def test_mtu_above_ipoib_waits_for_ethernet(make_host):
    """The PF's and the VFs' MTUs of 9000, right for the Ethernet port, wait for the reboot as the
    MAC does: apply writes the firmware link type and fails nothing; status says they wait; after
    the reboot apply sets them."""
    h = make_host("cx7-ib.json")
    h.layout("50-eth.conf", MTU_LAYOUT)
    c = h.run("check", "--strict")
    assert (c.returncode, c.stdout, c.stderr) == (0, CHECKED, "")
    p = h.run("plan")
    assert p.returncode == 10, p.stdout + p.stderr
    assert "mtu" not in " ".join(actions(p.stdout)), p.stdout
    assert "set firmware link type ethernet (reboot)" in p.stdout
    assert f"PF: MTUBytes=9000 is set {MTU_WHY}" in notes(p.stdout), p.stdout
    assert f"VFs 0-1: MTUBytes= is set {MTU_WHY}" in notes(p.stdout), p.stdout
    a = h.run("apply")
    assert a.returncode == 0, a.stdout + a.stderr
    assert "FAIL" not in a.stdout, a.stdout
    pf = h.pf(IB)
    assert pf["mtu"] == 4092 and [v["mtu"] for v in pf["vfs"]] == [4092] * 2, pf
    st = h.run("status")
    assert st.stdout.count("after a reboot: mac stable, mtu 9000 (LinkType=ethernet takes effect "
                           "after a reboot)") == 2, st.stdout
    assert "failed" not in st.stdout and "differs" not in st.stdout, st.stdout
    js = h.run("status", "--json")
    assert json.loads(js.stdout)["pfs"][0]["state"] not in ("failed", "drift"), js.stdout
    reboot_into_ethernet(h)
    p = h.run("plan")
    assert "note:" not in p.stdout and "held" not in p.stdout, p.stdout
    assert "live set PF mtu 9000" in actions(p.stdout), p.stdout
    a = h.run("apply")
    assert a.returncode == 0, a.stdout + a.stderr
    pf = h.pf(IB)
    assert pf["mtu"] == 9000 and [v["mtu"] for v in pf["vfs"]] == [9000] * 2, pf
    st = h.run("status", "--json")
    assert json.loads(st.stdout)["pfs"][0]["state"] == "applied", st.stdout


def test_mtu_ipoib_takes_is_set_at_once(make_host):
    """An MTU both link types take is set now, as before: no note."""
    h = make_host("cx7-ib.json")
    h.layout("50-eth.conf", MTU_LAYOUT.replace("MTUBytes=9000", "MTUBytes=2044"))
    p = h.run("plan")
    assert p.returncode == 10, p.stdout + p.stderr
    assert "live set PF mtu 2044" in actions(p.stdout), p.stdout
    assert not [n for n in notes(p.stdout) if "MTUBytes" in n], p.stdout


def test_mtu_above_ipoib_for_infiniband_is_still_an_error(make_host):
    """The reverse: an Ethernet port that LinkType=infiniband makes InfiniBand, MTUBytes=9000, is
    a check error, judged by the link type the layout sets."""
    h = make_host("cx6-vpi.json")
    h.layout("50-ib.conf", f"[Match]\nPCIAddress={VPI}\n[PhysicalFunction]\nVirtualFunctions=2\n"
             "LinkType=infiniband\nMTUBytes=9000\n")
    c = h.run("check")
    assert c.returncode == 1, c.stdout + c.stderr
    assert (f"{h.confdir}/50-ib.conf:6: MTUBytes=9000: IPoIB on an InfiniBand port allows "
            "68..4092") in c.stderr, c.stderr
