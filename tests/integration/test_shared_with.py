# SPDX-License-Identifier: LGPL-2.1-or-later
"""SharedWith= (with ExternallyManaged=yes) leaves the VF count to another tool
(sriov-persist.layout(5), "Living with other tools"): its file is compared with the layout.
Fewer VFs than VirtualFunctions= (sriovctl wait would wait for the rest at every boot) and a
VF value both set differently (each would undo the other's) hold the PF, naming both places;
more VFs are a warning; a value only one of them sets is no conflict. sriov-network-operator's
file in another spelling than the operator's, or not YAML, is a warning."""

import subprocess

import pytest

E810_0, E810_1 = "0000:3b:00.0", "0000:3b:00.1"
NM_DIR = "etc/NetworkManager/system-connections"
LINK_DIR = "etc/systemd/network"
SNO = "etc/sriov-operator/sriov-interface-config.yaml"
KEYFILE = "[connection]\nid=sriov\ntype=ethernet\ninterface-name=ens1f0\n\n[sriov]\n"
LINK = "[Match]\nPermanentMACAddress=40:a6:b7:84:ef:ed\n\n[Link]\n"
HELD = "sriov-persist leaves the PF alone until"


def layout(pci, n, manager, extra=""):
    return (f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions={n}\n"
            f"SharedWith={manager}\nExternallyManaged=yes\n{extra}")


@pytest.fixture
def node(tmp_path):
    root = tmp_path / "node"
    (root / "etc" / "sriov-persist" / "conf.d").mkdir(parents=True)
    return root


def put_layout(node, name, text):
    path = node / "etc" / "sriov-persist" / "conf.d" / name
    path.write_text(text)
    return path


def put_keyfile(node, sriov):
    (node / NM_DIR).mkdir(parents=True, exist_ok=True)
    keyfile = node / NM_DIR / "sriov.nmconnection"
    keyfile.write_text(KEYFILE + sriov)
    keyfile.chmod(0o600)  # NetworkManager loads no keyfile others may read


def put(node, rel, text):
    path = node / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def run(h, node, *args):
    return subprocess.run([h.binary, "--no-color", "--root", str(node), "--host", str(h.path),
                           *map(str, args)], capture_output=True, text=True, timeout=60)


def test_networkmanager_making_fewer_vfs_holds_the_pf(make_host, node):
    h = make_host("e810.json")
    conf = put_layout(node, "50-port0.conf", layout(E810_0, 4, "NetworkManager", "MTUBytes=9000\n"))
    put_keyfile(node, "total-vfs=2\n")
    before = h.state()
    r = run(h, node, "check", "--strict")
    assert r.returncode == 1
    error = (f"{node}/{NM_DIR}/sriov.nmconnection:7: sriov.total-vfs=2: NetworkManager makes 2 VFs of "
             "ens1f0, which SharedWith=NetworkManager leaves to it, but VirtualFunctions=4 "
             f"({conf}:4) expects 4: VFs 2-3 would never appear and sriovctl wait would wait "
             f"for them at every boot; {HELD} the two counts agree")
    assert r.stderr == f"{error}\n"
    r = run(h, node, "apply")
    assert r.returncode == 1
    assert f"{E810_0} (ens1f0): held (nothing applied): {error}\n" in r.stdout, r.stdout
    assert h.state() == before


def test_networkmanager_profile_without_total_vfs_makes_none(make_host, node):
    h = make_host("e810.json")
    put_layout(node, "50-port0.conf", layout(E810_0, 4, "NetworkManager"))
    put_keyfile(node, "autoprobe-drivers=1\n")
    r = run(h, node, "check")
    assert r.returncode == 1
    assert (f"{node}/{NM_DIR}/sriov.nmconnection:6: [sriov] without total-vfs (NetworkManager keeps 0 "
            "VFs while the profile is active): NetworkManager makes 0 VFs of ens1f0") in r.stderr


def test_more_vfs_than_the_layout_expects_are_left_to_the_tool(make_host, node):
    h = make_host("e810.json")
    conf = put_layout(node, "50-port0.conf", layout(E810_0, 4, "NetworkManager"))
    put_keyfile(node, "total-vfs=6\n")
    r = run(h, node, "check")
    assert r.returncode == 0, r.stderr
    assert r.stderr == (f"{node}/{NM_DIR}/sriov.nmconnection:7: warning: sriov.total-vfs=6: "
                        "NetworkManager makes 6 VFs of ens1f0, more than VirtualFunctions=4 "
                        f"({conf}:4): the layout configures the first 4 and leaves VFs 4-5 to "
                        "NetworkManager (ExternallyManaged=yes)\n")
    assert run(h, node, "check", "--strict").returncode == 1


def test_networkmanager_vf_values_that_differ_hold_the_pf(make_host, node):
    h = make_host("e810.json")
    conf = put_layout(node, "50-port0.conf", layout(
        E810_0, 4, "NetworkManager",
        "[VirtualFunction 0]\nVLANId=8\nTrust=no\n[VirtualFunction 1]\nMaxTxRateMbps=1000\n"))
    put_keyfile(node, "total-vfs=4\n"
                "vf.0=mac=02:00:00:00:00:01 vlans=7 trust=true spoof-check=false\n"
                "vf.1=max-tx-rate=1000 min-tx-rate=10\n")
    before = h.state()
    r = run(h, node, "check", "--strict")
    assert r.returncode == 1
    # VF 1: the same rate, and one the layout does not set: no conflict
    assert r.stderr == (f"{node}/{NM_DIR}/sriov.nmconnection:8: NetworkManager sets VF 0 of ens1f0 "
                        f"otherwise than the layout: vf.0 vlans=7 against VLANId=8 ({conf}:8); "
                        f"vf.0 trust=true against Trust=no ({conf}:9); each would undo the "
                        f"other's value: {HELD} they agree or one of them no longer sets it\n")
    assert run(h, node, "apply").returncode == 1
    assert h.state() == before


def test_networkmanager_vf_values_that_agree_pass(make_host, node):
    h = make_host("e810.json")
    put_layout(node, "50-port0.conf", layout(
        E810_0, 4, "NetworkManager",
        "[VirtualFunction 0]\nVLANId=7\nQualityOfService=3\nVLANProtocol=802.1ad\nTrust=yes\n"))
    put_keyfile(node, "total-vfs=4\nvf.0=vlans=7.3.ad trust=true spoof-check=false\n")
    r = run(h, node, "check", "--strict")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""


def test_link_file_count_and_sriov_sections_are_compared(make_host, node):
    h = make_host("e810.json")
    conf = put_layout(node, "60-port1.conf", layout(
        E810_1, 4, "systemd-udevd", "[VirtualFunction 0-3]\nTrust=no\nMACSpoofCheck=yes\n"))
    put(node, f"{LINK_DIR}/10-sriov.link", LINK + "SR-IOVVirtualFunctions=3\n\n[SR-IOV]\n"
        "VirtualFunction=2\nMACSpoofCheck=yes\nTrust=yes\n")
    r = run(h, node, "check", "--strict")
    assert r.returncode == 1
    assert r.stderr == (
        f"{node}/{LINK_DIR}/10-sriov.link:5: SR-IOVVirtualFunctions=3: systemd .link makes 3 VFs of "
        "ens1f1, which SharedWith=systemd-udevd leaves to it, but VirtualFunctions=4 "
        f"({conf}:4) expects 4: VF 3 would never appear and sriovctl wait would wait for them "
        f"at every boot; {HELD} the two counts agree\n"
        f"{node}/{LINK_DIR}/10-sriov.link:10: systemd .link sets VF 2 of ens1f1 otherwise than the "
        f"layout: Trust=yes against Trust=no ({conf}:8); each would undo the other's value: "
        f"{HELD} they agree or one of them no longer sets it\n")


def test_link_dropin_values_are_named_in_the_dropin(make_host, node):
    h = make_host("e810.json")
    conf = put_layout(node, "60-port1.conf", layout(
        E810_1, 4, "systemd-udevd", "[VirtualFunction 1]\nVLANId=5\n"))
    put(node, f"{LINK_DIR}/10-sriov.link", LINK + "SR-IOVVirtualFunctions=4\n")
    put(node, f"{LINK_DIR}/10-sriov.link.d/vlan.conf", "[SR-IOV]\nVirtualFunction=1\nVLANId=6\n")
    r = run(h, node, "check")
    assert r.returncode == 1
    assert r.stderr == (
        f"{node}/{LINK_DIR}/10-sriov.link.d/vlan.conf:3: systemd .link sets VF 1 of ens1f1 otherwise "
        f"than the layout: VLANId=6 against VLANId=5 ({conf}:8); each would undo the other's "
        f"value: {HELD} they agree or one of them no longer sets it\n")


def test_operator_making_fewer_vfs_holds_the_pf(make_host, node):
    h = make_host("e810.json")
    conf = put_layout(node, "50-port0.conf", layout(E810_0, 4, "sriov-network-operator"))
    put(node, SNO, f"spec:\n    interfaces:\n        - pciaddress: {E810_0}\n"
        "          numvfs: 2\n          externallymanaged: false\n")
    r = run(h, node, "check")
    assert r.returncode == 1
    assert r.stderr == (
        f"{node}/{SNO}:4: numvfs: 2: sriov-network-operator makes 2 VFs of ens1f0, which "
        "SharedWith=sriov-network-operator leaves to it, but VirtualFunctions=4 "
        f"({conf}:4) expects 4: VFs 2-3 would never appear and sriovctl wait would wait for "
        f"them at every boot; {HELD} the two counts agree\n")


def test_operator_file_in_another_spelling_is_a_warning(make_host, node):
    h = make_host("e810.json")
    put_layout(node, "50-port0.conf",
               f"[Match]\nPCIAddress={E810_0}\n[PhysicalFunction]\nVirtualFunctions=4\n")
    put(node, SNO, f"spec:\n  interfaces:\n    - pciAddress: {E810_0}\n      numVfs: 4\n")
    r = run(h, node, "check")
    assert r.returncode == 0, r.stderr
    assert r.stderr == (
        f"{node}/{SNO}:4: warning: sriov-network-operator may also configure ens1f0 (an interface "
        f"for {E810_0} with the key pciAddress, which the operator writes as pciaddress and "
        "reads only so: what it makes of the interface is unknown): numVfs: 4\n")


@pytest.mark.parametrize("text,line,why", [
    (f"spec:\n  interfaces:\n    - pciaddress: {E810_0}\n     numvfs: 2\n", 4,
     "did not find expected '-' indicator"),
    ("spec: [a, b\n", 2, "did not find expected ',' or ']'"),
    ("spec:\n  interfaces: 4\n", 2, "spec.interfaces is not a list"),
])
def test_operator_file_that_is_not_its_yaml_is_a_warning(make_host, node, text, line, why):
    h = make_host("e810.json")
    put_layout(node, "50-port0.conf", layout(E810_0, 4, "sriov-network-operator"))
    put(node, SNO, text)
    r = run(h, node, "check")
    assert r.returncode == 0, r.stderr
    assert r.stderr == (f"{node}/{SNO}:{line}: warning: sriov-network-operator: cannot read: {why}; "
                        "whether it also configures ens1f0 is unknown\n")


def test_operator_leaving_the_vfs_to_another_tool_makes_none(make_host, node):
    """Both sides ExternallyManaged: no tool would make the VFs."""
    h = make_host("e810.json")
    conf = put_layout(node, "50-port0.conf", layout(E810_0, 4, "sriov-network-operator"))
    put(node, SNO, f"spec:\n    interfaces:\n        - pciaddress: {E810_0}\n"
        "          numvfs: 4\n          externallymanaged: true\n")
    r = run(h, node, "check")
    assert r.returncode == 1
    assert r.stderr == (
        f"{node}/{SNO}:4: numvfs: 4 with externallymanaged: true (it configures the VFs another tool "
        "makes): sriov-network-operator makes 0 VFs of ens1f0, which "
        "SharedWith=sriov-network-operator leaves to it, but VirtualFunctions=4 "
        f"({conf}:4) expects 4: VFs 0-3 would never appear and sriovctl wait would wait for "
        f"them at every boot; {HELD} the two counts agree\n")
