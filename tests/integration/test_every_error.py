# SPDX-License-Identifier: LGPL-2.1-or-later
"""No error hides another: what a VF section beyond VirtualFunctions= sets is checked all the
same (fixing the count must not bring up errors that were there all along), and the held
reason's "(and N more errors)" counts what check says. An empty value that changes nothing is
said."""

import subprocess

import pytest

E810 = "0000:3b:00.0"


def lines(r):
    return r.stderr.splitlines()


def check_alone(h, *args):
    """`sriovctl check` of the layout directory without a host."""
    cmd = [h.binary, "--no-color", "--config-dir", str(h.confdir), "--main-config", str(h.main),
           "check", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("with_host", [True, False])
def test_section_beyond_the_count_still_has_its_errors_checked(make_host, with_host):
    h = make_host("e810.json")
    p = h.layout("50-e810.conf",
                 f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=4\n"
                 "[VirtualFunction 5-7]\nQualityOfService=3\nDriver=vfio-pci\nMTUBytes=9000\n")
    want = [
        f"{p}:5: [VirtualFunction 5-7]: VFs 5-7 are beyond VirtualFunctions=4",
        f"{p}:6: VFs 5-7: QualityOfService=3 needs a VLANId= other than 0",
        f"{p}:8: MTUBytes=9000: a VF bound to vfio-pci has no network interface",
    ]
    r = h.run("check") if with_host else check_alone(h)
    assert lines(r) == want
    assert r.stdout.endswith(": 3 error(s)\n")
    assert r.returncode == 1
    if not with_host:
        return
    r = h.run("plan")
    assert r.stdout.splitlines()[0] == (
        f"{E810} (ens1f0): held: {want[0]} (and 2 more errors)")
    before = h.path.read_bytes()
    r = h.run("apply")
    assert r.returncode == 1
    assert h.path.read_bytes() == before


def test_section_beyond_the_count_is_checked_against_the_driver(make_host):
    h = make_host("x710.json")
    p = h.layout("50-x710.conf",
                 "[Match]\nPCIAddress=0000:18:00.0\n[PhysicalFunction]\nVirtualFunctions=4\n"
                 "[VirtualFunction 5-7]\nVLANProtocol=802.1ad\nDriver=mlx5_core\n")
    want = [
        f"{p}:5: [VirtualFunction 5-7]: VFs 5-7 are beyond VirtualFunctions=4",
        f"{p}:6: VLANProtocol=802.1ad: the i40e driver supports only 802.1Q",
        f"{p}:7: Driver=mlx5_core: does not drive the VFs of i40e (its VFs take iavf, or a "
        "generic driver such as vfio-pci)",
    ]
    r = h.run("check")
    assert lines(r) == want
    assert r.returncode == 1
    r = h.run("plan")
    assert r.stdout.splitlines()[0] == f"0000:18:00.0 (ens2f0): held: {want[0]} (and 2 more errors)"


def test_an_empty_value_that_changes_nothing_is_said(make_host):
    h = make_host("x710.json")
    before = h.path.read_bytes()
    a = h.layout("40-fleet.conf", "[Match]\nDriver=i40e\n[PhysicalFunction]\nVirtualFunctions=4\n"
                 "[VirtualFunction]\nTrust=yes\n[VirtualFunction 0]\nTrust=\n")
    b = h.layout("70-host.conf", "[Match]\nDriver=i40e\n[PhysicalFunction]\nVirtualFunctions=\n"
                 "MTUBytes=\n[VirtualFunction 0-1]\nMaxTxRateMbps=100\nMaxTxRateMbps=\n"
                 "VLANId=\nTrust=\n")
    why = "an empty value changes nothing here: it unsets only a value set above it in its own section"
    want = [
        f"{a}:8: warning: Trust=: {why}; Trust=yes at line 6 stays: to change it, write the value "
        "wanted",
        f"{b}:4: warning: VirtualFunctions=: {why}; VirtualFunctions=4 at {a}:4 stays (where that "
        "file selects the PF): to change it, write the value wanted",
        f"{b}:5: warning: MTUBytes=: {why}",
        f"{b}:9: warning: VLANId=: {why}",
        f"{b}:10: warning: Trust=: {why}; Trust=yes at {a}:6 stays (where that file selects the "
        "PF): to change it, write the value wanted",
    ]
    r = h.run("check", "--strict")
    assert lines(r) == want
    assert r.returncode == 1
    r = check_alone(h)
    assert lines(r) == want
    assert r.returncode == 0
    # what the warnings say: VF 0 stays trusted, 4 VFs; MaxTxRateMbps=100 unset in its section
    # is no warning
    r = h.run("apply")
    assert r.returncode == 0, r.stderr
    assert lines(r)[:len(want)] == want
    pf = h.pf("0000:18:00.0")
    assert len(pf["vfs"]) == 4
    assert all(vf["trust"] is True for vf in pf["vfs"])
    assert pf["vfs"][0]["max_tx_rate"] == 0
    assert h.path.read_bytes() != before
