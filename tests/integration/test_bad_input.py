# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every bad input: a file:line error, a non-zero exit, and a held PF left byte-identical."""

import re

import pytest

# (body after [Match], line of the error in the whole file, text the message must contain)
HEADER = "[Match]\nPCIAddress={pci}\n"
BAD = [
    ("[PhysicalFunction]\nVirtualFunctions=lots\n", 4, "VirtualFunctions=lots"),
    ("[PhysicalFunction]\nVirtualFunctions=100000\n", 4, "VirtualFunctions=100000"),
    ("[PhysicalFunction]\nMTUBytes=9000 # jumbo\n", 4, "MTUBytes=9000 # jumbo"),
    ("[PhysicalFunction]\nMTUBytes=12\n", 4, "MTUBytes=12"),
    ("[PhysicalFunction]\nLinkUp=maybe\n", 4, "LinkUp=maybe"),
    ("[PhysicalFunction]\nESwitchMode=bridge\n", 4, "ESwitchMode=bridge"),
    ("[PhysicalFunction]\nLinkType=token-ring\n", 4, "LinkType=token-ring"),
    ("[PhysicalFunction]\nFirmwareVirtualFunctions=yes\n", 4, "FirmwareVirtualFunctions=yes"),
    ("[PhysicalFunction]\nExternallyManaged=2\n", 4, "ExternallyManaged=2"),
    ("[VirtualFunction]\nVLANId=5000\n", 4, "VLANId=5000"),
    ("[VirtualFunction]\nQualityOfService=8\n", 4, "QualityOfService=8"),
    ("[VirtualFunction]\nVLANProtocol=802.1x\n", 4, "VLANProtocol=802.1x"),
    ("[VirtualFunction]\nTrust=perhaps\n", 4, "Trust=perhaps"),
    ("[VirtualFunction]\nMACSpoofCheck=\x01\n", 4, "MACSpoofCheck="),
    ("[VirtualFunction]\nLinkState=up\n", 4, "LinkState=up"),
    ("[VirtualFunction]\nMinTxRateMbps=-1\n", 4, "MinTxRateMbps=-1"),
    ("[VirtualFunction]\nMinTxRateMbps=500\nMaxTxRateMbps=100\n", 4, "MinTxRateMbps=500"),
    ("[VirtualFunction]\nDriver=../../bin/sh\n", 4, "Driver=../../bin/sh"),
    ("[VirtualFunction]\nMACAddress=02:00:00:00:00:01\n", 4, "MACAddress=02:00:00:00:00:01"),
    ("[VirtualFunction 1]\nMACAddress=01:00:5e:00:00:01\n", 4, "MACAddress=01:00:5e:00:00:01"),
    ("[VirtualFunction 1]\nMACAddress=banana\n", 4, "MACAddress=banana"),
    ("[VirtualFunction]\nResourceName=intel.com/x\n", 4, "ResourceName=intel.com/x"),
    ("[VirtualFunction 7-3]\nTrust=yes\n", 3, "VirtualFunction 7-3"),
    ("[VirtualFunction x]\nTrust=yes\n", 3, "VirtualFunction x"),
    ("[PhysicalFunction]\nVirtualFunctions: 4\n", 4, ""),
]
# hardware-impossible requests (against the E810 port of e810.json, 8 VFs asked)
IMPOSSIBLE = [
    ("[PhysicalFunction]\nVirtualFunctions=1000\n", 4, "VirtualFunctions=1000"),
    ("[PhysicalFunction]\nVirtualFunctions=2\n[VirtualFunction 0-5]\nTrust=yes\n", 5, "beyond"),
    ("[PhysicalFunction]\nVirtualFunctions=2\n[VirtualFunction 0]\nMACAddress=02:00:00:00:00:01\n"
     "[VirtualFunction 1]\nMACAddress=02:00:00:00:00:01\n", 8, "02:00:00:00:00:01"),
    ("[PhysicalFunction]\nVirtualFunctions=2\nMTUBytes=16000\n", 5, "MTUBytes=16000"),
    ("[PhysicalFunction]\nVirtualFunctions=2\n[VirtualFunction]\nDriver=vfio-pci\nRDMA=yes\n", 7,
     "RDMA"),
    ("[PhysicalFunction]\nLinkType=infiniband\n", 4, "LinkType=infiniband"),
]


def held_pf_untouched(h, pci, body, line, text):
    # the PF has VFs already running: they must stay exactly as they are
    h.layout("10-running.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    assert h.run("apply").returncode == 0
    (h.confdir / "10-running.conf").unlink()
    path = h.layout("50-bad.conf", HEADER.format(pci=pci) + body)
    before = h.path.read_bytes()

    r = h.run("apply")
    assert r.returncode == 1
    out = r.stdout + r.stderr
    assert re.search(rf"{re.escape(str(path))}:{line}: .*{re.escape(text)}", out), out
    assert "held" in r.stdout
    assert h.path.read_bytes() == before, "a held PF was changed"

    c = h.run("check")
    assert c.returncode == 1 and f"{path}:{line}:" in c.stdout + c.stderr
    p = h.run("plan")
    assert p.returncode == 1 and "held" in p.stdout


@pytest.mark.parametrize("body,line,text", BAD, ids=[b[2] or "colon" for b in BAD])
def test_bad_value_holds_the_pf(make_host, body, line, text):
    h = make_host("e810.json")
    held_pf_untouched(h, h.pfs_by_driver("ice")[0]["pci"], body, line, text)


@pytest.mark.parametrize("body,line,text", IMPOSSIBLE, ids=[b[2] for b in IMPOSSIBLE])
def test_impossible_request_holds_the_pf(make_host, body, line, text):
    h = make_host("e810.json")
    held_pf_untouched(h, h.pfs_by_driver("ice")[0]["pci"], body, line, text)


def test_other_pfs_are_applied_while_one_is_held(make_host):
    h = make_host("e810.json")
    a, b = [p["pci"] for p in h.pfs_by_driver("ice")[:2]]
    h.layout("50-a.conf", f"[Match]\nPCIAddress={a}\n[VirtualFunction]\nVLANId=5000\n")
    h.layout("50-b.conf", f"[Match]\nPCIAddress={b}\n[PhysicalFunction]\nVirtualFunctions=3\n")
    r = h.run("apply")
    assert r.returncode == 1
    assert h.pf(b)["num_vfs"] == 3
    assert h.pf(a)["num_vfs"] == 0


@pytest.mark.parametrize("body,text", [
    ("[PhysicalFunction]\nVirtualFunction=4\n",
     "unknown key 'VirtualFunction' in [PhysicalFunction]; did you mean 'VirtualFunctions'?"),
    # an abbreviation finds its key too
    ("[VirtualFunction 0-1]\nQueryRSS=yes\n",
     "unknown key 'QueryRSS' in [VirtualFunction 0-1]; did you mean 'QueryReceiveSideScaling'?"),
])
def test_unknown_key_is_an_error_with_the_name_meant(make_host, body, text):
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    held_pf_untouched(h, pci, body, 4, text)


def test_check_named_files_and_main_config(make_host, tmp_path):
    h = make_host("e810.json")
    good = tmp_path / "good.conf"
    good.write_text("[Match]\nDevice=0x159b\n[PhysicalFunction]\nVirtualFunctions=max\n")
    main = tmp_path / "sriov-persist.conf"
    main.write_text("[Apply]\nTimeoutSec=0\n")
    r = h.run("check", str(good))
    assert r.returncode == 0, r.stdout + r.stderr
    r = h.run("check", str(good), str(main))
    assert r.returncode == 1 and f"{main}:2:" in r.stdout + r.stderr


def test_masking_with_dev_null(make_host, tmp_path):
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    low = tmp_path / "usr-lib"
    low.mkdir()
    (low / "50.conf").write_text(f"[Match]\nPCIAddress={pci}\n[VirtualFunction]\nVLANId=5000\n")
    (h.confdir / "50.conf").symlink_to("/dev/null")
    # --config-dir reads one directory: masking across directories is a unit test;
    # here the masked name in the one directory is simply not a layout.
    r = h.run("check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 layout file(s)" in r.stdout


def test_no_command_says_so(make_host):
    """sriovctl alone: what is missing and where to look, exit 2 (usage), nothing on stdout."""
    import subprocess
    h = make_host("e810.json")
    r = subprocess.run([h.binary], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == "", r
    assert r.stderr == "sriovctl: no command given; see sriovctl --help\n", r.stderr


def test_machine_id_without_host_says_the_host_is_missing_first(make_host):
    import subprocess
    h = make_host("e810.json")
    r = subprocess.run([h.binary, "--machine-id", "0123", "status"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == "", r
    assert r.stderr == "--machine-id: only with --host; this machine's own is read\n", r.stderr
    r = h.run("--machine-id", "0123", "status")
    assert r.returncode == 2
    assert r.stderr == "--machine-id=0123: must be 32 hex digits, as in /etc/machine-id\n"


def test_apply_refuses_a_machine_id(make_host):
    """plan --machine-id shows what another host derives; apply writes what the snapshot's own
    machine_id gives, so an ID given to apply would be ignored: it is refused before anything."""
    h = make_host("cx7-ib.json")
    h.layout("50-ib.conf", "[Match]\nDriver=mlx5_core\n[PhysicalFunction]\nVirtualFunctions=2\n"
             "[VirtualFunction]\nIBNodeGUID=stable\nIBPortGUID=stable\n")
    before = h.path.read_text()
    r = h.run("--machine-id", "0123456789abcdef0123456789abcdef", "apply")
    assert r.returncode == 2 and r.stdout == "", r
    assert r.stderr == ("--machine-id: not taken by apply, which derives stable values from the "
                        "snapshot's own machine_id; plan without --machine-id shows what apply "
                        "writes\n"), r.stderr
    assert h.path.read_text() == before


def two_vfs_applied(make_host):
    """A host whose first E810 port has two VFs applied: the host, its state and the port's index."""
    h = make_host("e810.json")
    pci = h.pfs_by_driver("ice")[0]["pci"]
    h.layout("50-e810.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=2\n")
    assert h.run("apply").returncode == 0
    s = h.state()
    return h, s, next(k for k, p in enumerate(s["pfs"]) if p["pci"] == pci)


def test_a_snapshot_giving_two_vfs_one_pci_address_is_refused(make_host):
    h, s, i = two_vfs_applied(make_host)
    vfs = s["pfs"][i]["vfs"]
    vfs[1]["pci"] = vfs[0]["pci"]
    h.save(s)
    before = h.path.read_bytes()
    for verb in ("check", "status", "apply"):
        r = h.run(verb)
        assert r.returncode == 1, (verb, r.stdout, r.stderr)
        assert f"pfs[{i}].vfs[1].pci: {vfs[0]['pci']} is already pfs[{i}].vfs[0]" in r.stderr, r.stderr
    assert h.path.read_bytes() == before


def test_a_snapshot_key_that_may_be_left_out_may_be_null(make_host):
    h, s, i = two_vfs_applied(make_host)
    pf = s["pfs"][i]
    pf["vfs"][0]["representor"] = None
    pf["vfs"][0]["query_rss"] = None
    pf["altnames"] = None
    h.save(s)
    r = h.run("status")
    assert r.returncode == 0, r.stderr
    r = h.run("apply", pf["pci"])
    assert r.returncode == 0 and r.stdout.strip().endswith("already applied"), r.stdout
