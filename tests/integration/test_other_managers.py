# SPDX-License-Identifier: LGPL-2.1-or-later
"""Other SR-IOV managers on a node (sriov-persist.layout(5), "Living with other tools"): a
NetworkManager keyfile with [sriov] and a systemd .link file with SR-IOVVirtualFunctions= that
select a PF a layout selects hold that PF, named with their file, line and setting, in check,
plan, apply and status; a file that only may select it is a warning; SharedWith= (with
ExternallyManaged=yes) acknowledges one tool and lets the PF pass."""

import json
import subprocess

import pytest

E810_0, E810_1 = "0000:3b:00.0", "0000:3b:00.1"
LAYOUT = "[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions={n}\n"
NM_DIR = "etc/NetworkManager/system-connections"
LINK_DIR = "etc/systemd/network"
KEYFILE = "[connection]\nid=sriov\ntype=ethernet\ninterface-name=ens1f0\n\n[sriov]\ntotal-vfs=4\n"
LINK = "[Match]\nPermanentMACAddress=40:a6:b7:84:ef:ed\n\n[Link]\nSR-IOVVirtualFunctions=8\n"
NM_ERROR = (f"/{NM_DIR}/sriov.nmconnection:7: NetworkManager also configures ens1f0 "
            "(connection.interface-name=ens1f0): sriov.total-vfs=4; sriov-persist leaves the PF "
            "alone until that setting is removed, or the layout says SharedWith=NetworkManager "
            "(with ExternallyManaged=yes)")
LINK_ERROR = (f"/{LINK_DIR}/10-sriov.link:5: systemd .link also configures ens1f1 ([Match] "
              "PermanentMACAddress=40:a6:b7:84:ef:ed): SR-IOVVirtualFunctions=8; sriov-persist "
              "leaves the PF alone until that setting is removed, or the layout says "
              "SharedWith=systemd-udevd (with ExternallyManaged=yes)")


@pytest.fixture
def node(tmp_path):
    """A node with a layout for each E810 port, a NetworkManager profile with total-vfs for
    ens1f0 and a .link file with SR-IOVVirtualFunctions= for ens1f1's permanent MAC."""
    root = tmp_path / "node"
    conf = root / "etc" / "sriov-persist" / "conf.d"
    conf.mkdir(parents=True)
    (conf / "50-port0.conf").write_text(LAYOUT.format(pci=E810_0, n=2))
    (conf / "60-port1.conf").write_text(LAYOUT.format(pci=E810_1, n=3))
    (root / NM_DIR).mkdir(parents=True)
    keyfile = root / NM_DIR / "sriov.nmconnection"
    keyfile.write_text(KEYFILE)
    keyfile.chmod(0o600)  # NetworkManager loads no keyfile others may read
    (root / LINK_DIR).mkdir(parents=True)
    (root / LINK_DIR / "10-sriov.link").write_text(LINK)
    return root


def run(h, node, *args):
    return subprocess.run([h.binary, "--no-color", "--root", str(node), "--host", str(h.path),
                           *map(str, args)], capture_output=True, text=True, timeout=60)


def test_check_names_both_files_and_apply_changes_nothing(make_host, node):
    h = make_host("e810.json")
    before = h.state()
    r = run(h, node, "check")
    assert r.returncode == 1
    assert r.stderr == f"{node}{NM_ERROR}\n{node}{LINK_ERROR}\n"
    assert r.stdout == "2 layout file(s) checked (no main configuration: defaults): 2 error(s)\n"
    r = run(h, node, "apply")
    assert r.returncode == 1
    assert f"{E810_0} (ens1f0): held (nothing applied): {node}{NM_ERROR}\n" in r.stdout, r.stdout
    assert f"{E810_1} (ens1f1): held (nothing applied): {node}{LINK_ERROR}\n" in r.stdout, r.stdout
    assert h.state() == before


def test_plan_and_status_show_the_pf_held_with_the_reason(make_host, node):
    h = make_host("e810.json")
    r = run(h, node, "plan")
    assert r.returncode == 1
    assert f"{E810_0} (ens1f0): held: {node}{NM_ERROR}\n  files: 50-port0.conf\n" in r.stdout, r.stdout
    assert f"{E810_1} (ens1f1): held: {node}{LINK_ERROR}\n  files: 60-port1.conf\n" in r.stdout
    r = run(h, node, "status", "--json")
    pfs = {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}
    assert pfs[E810_0]["state"] == "held", pfs[E810_0]
    assert f"{node}{NM_ERROR}" in json.dumps(pfs[E810_0]), pfs[E810_0]
    assert pfs[E810_1]["state"] == "held"


def test_apply_leaves_the_held_pf_and_applies_the_other(make_host, node):
    h = make_host("e810.json")
    (node / LINK_DIR / "10-sriov.link").unlink()
    r = run(h, node, "apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{E810_0} (ens1f0): held (nothing applied): {node}{NM_ERROR}\n" in r.stdout, r.stdout
    assert h.pf(E810_0)["num_vfs"] == 0
    assert h.pf(E810_1)["num_vfs"] == 3


def test_a_file_that_may_select_the_pf_is_a_warning(make_host, node):
    h = make_host("e810.json")
    (node / NM_DIR / "sriov.nmconnection").unlink()
    (node / LINK_DIR / "10-sriov.link").unlink()
    # Host= is a condition on the running host: not evaluated offline
    (node / LINK_DIR / "10-ice.link").write_text(
        "[Match]\nDriver=ice\nHost=node1\n\n[Link]\nSR-IOVVirtualFunctions=8\n")
    r = run(h, node, "check")
    assert r.returncode == 0, r.stderr
    assert (f"{node}/{LINK_DIR}/10-ice.link:6: warning: systemd .link may also configure ens1f0 "
            "([Match] Driver=ice Host=node1; may match: Host=node1: it is not evaluated offline): "
            "SR-IOVVirtualFunctions=8\n") in r.stderr, r.stderr
    assert "2 layout file(s) checked (no main configuration: defaults): 0 error(s), 2 warning(s)\n" \
        == r.stdout
    r = run(h, node, "apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.pf(E810_0)["num_vfs"] == 2 and h.pf(E810_1)["num_vfs"] == 3


def test_a_keyfile_that_leads_out_of_the_root_is_named(make_host, node, tmp_path):
    h = make_host("e810.json")
    (node / NM_DIR / "sriov.nmconnection").unlink()
    (node / LINK_DIR / "10-sriov.link").unlink()
    (node / NM_DIR / "out.nmconnection").symlink_to("../../../../outside")
    r = run(h, node, "check")
    assert r.returncode == 0, r.stderr
    assert (f"{node}/{NM_DIR}/out.nmconnection: warning: NetworkManager: cannot read: leads out of the root "
            "directory; whether it also configures ens1f0 is unknown") in r.stderr, r.stderr


def test_shared_with_acknowledges_the_named_tool_only(make_host, node):
    h = make_host("e810.json")
    layout = node / "etc" / "sriov-persist" / "conf.d" / "50-port0.conf"
    layout.write_text(LAYOUT.format(pci=E810_0, n=4) + "SharedWith=NetworkManager\n"
                      "ExternallyManaged=yes\nMTUBytes=9000\n")
    r = run(h, node, "check")
    assert r.returncode == 1
    assert r.stderr == f"{node}{LINK_ERROR}\n"  # the .link file of the other port still holds it
    r = run(h, node, "apply")
    assert r.returncode == 1, r.stdout + r.stderr
    # NetworkManager makes the VFs; sriov-persist sets what is its part
    assert (f"{E810_0} (ens1f0): pending after 1 action(s): waiting for another tool to create "
            "VFs: 0 of 4 exist "
            "(ExternallyManaged=yes)") in r.stdout, r.stdout
    assert h.pf(E810_0)["num_vfs"] == 0 and h.pf(E810_0)["mtu"] == 9000
    assert h.pf(E810_1)["num_vfs"] == 0
    r = run(h, node, "status", E810_0)
    assert ("shared with NetworkManager (SharedWith=: its own SR-IOV settings are left to it)"
            in r.stdout), r.stdout


def test_shared_with_needs_externally_managed(make_host, node):
    h = make_host("e810.json")
    layout = node / "etc" / "sriov-persist" / "conf.d" / "50-port0.conf"
    layout.write_text(LAYOUT.format(pci=E810_0, n=4) + "SharedWith=NetworkManager\n")
    error = (f"{layout}:5: SharedWith=NetworkManager: needs ExternallyManaged=yes, so that "
             "sriov-persist leaves the VF count to NetworkManager and configures only the VFs it "
             "makes")
    r = run(h, node, "check")
    assert r.returncode == 1
    assert r.stderr == f"{error}\n{node}{LINK_ERROR}\n"
    r = run(h, node, "plan", E810_0)
    assert f"{E810_0} (ens1f0): held: {error}\n" in r.stdout, r.stdout


def test_shared_with_a_tool_without_a_file_for_the_pf_is_a_warning(make_host, node):
    h = make_host("e810.json")
    (node / LINK_DIR / "10-sriov.link").unlink()
    layout = node / "etc" / "sriov-persist" / "conf.d" / "60-port1.conf"
    layout.write_text(LAYOUT.format(pci=E810_1, n=3) + "SharedWith=sriov-network-operator\n"
                      "ExternallyManaged=yes\n")
    r = run(h, node, "check")
    assert r.returncode == 1  # ens1f0's keyfile
    assert (f"{layout}:5: warning: SharedWith=sriov-network-operator: no file of "
            "sriov-network-operator configures ens1f1\n") in r.stderr, r.stderr


def test_check_of_named_files_looks_too(make_host, node):
    h = make_host("e810.json")
    layout = node / "etc" / "sriov-persist" / "conf.d" / "50-port0.conf"
    r = run(h, node, "check", layout)
    assert r.returncode == 1
    assert r.stderr == f"{node}{NM_ERROR}\n"


def test_without_host_shared_with_needs_externally_managed_too(sriovctl_bin, node):
    layout = node / "etc" / "sriov-persist" / "conf.d" / "50-port0.conf"
    layout.write_text(LAYOUT.format(pci=E810_0, n=4) + "SharedWith=NetworkManager\n")
    r = subprocess.run([sriovctl_bin, "--no-color", "--root", str(node), "check"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert r.stderr == (f"{layout}:5: SharedWith=NetworkManager: needs ExternallyManaged=yes, so "
                        "that sriov-persist leaves the VF count to NetworkManager and configures "
                        "only the VFs it makes (on every PF where no other file sets "
                        "ExternallyManaged=)\n")
