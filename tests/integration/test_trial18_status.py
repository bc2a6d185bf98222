# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 18, what status says: a VF without a network interface has no MTU (null in the JSON,
locally and through the daemon's GetStatus, "-" in the table), while what the PF's netlink says
of it stays; the last apply of a PF whose raise of the firmware VF limit waits for a reboot says
so (last_apply.pending_reboot) until the firmware runs with it; two VFs of one file with the
same literal address or GUID name both lines."""

import json
import re
import subprocess

from conftest import place_card_vfs
from test_daemon import NO_BUS, main_config

E810 = "0000:3b:00.0"  # e810.json
CX6_A = "0000:ca:00.0"  # cx6dx.json: sriov_totalvfs and NUM_OF_VFS 8

VFIO = f"""[Match]
PCIAddress={E810}

[PhysicalFunction]
VirtualFunctions=4
MTUBytes=9000

[VirtualFunction 0-3]
VLANId=100

[VirtualFunction 3]
Driver=vfio-pci
"""


def run(h, *args):
    return h.run(*args, env=NO_BUS)


def pf_of(doc, pci):
    return next(p for p in doc["pfs"] if p["pci"] == pci)


def check_vfio_vfs(pf):
    vfs = pf["vfs"]
    assert [v["driver"] for v in vfs] == ["iavf"] * 3 + ["vfio-pci"], vfs
    # no network interface: no MTU, as settings.MTUBytes.now says
    assert vfs[3]["name"] is None and vfs[3]["mtu"] is None, vfs[3]
    assert vfs[3]["settings"]["MTUBytes"]["now"] is None
    # what the PF's netlink says of the VF is there all the same
    assert (vfs[3]["vlan"], vfs[3]["link_state"], vfs[3]["spoofchk"]) == (100, "auto", True), \
        vfs[3]
    assert isinstance(vfs[3]["mac"], str)
    assert [v["mtu"] for v in vfs[:3]] == [1500] * 3, vfs


# --- 1: a VF without a network interface has no MTU --------------------------------------------

def test_vfio_vf_has_no_mtu_in_status_json(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", VFIO)
    assert run(h, "apply").returncode == 0
    r = run(h, "status", "--json")
    assert r.returncode == 0, r.stderr
    check_vfio_vfs(pf_of(json.loads(r.stdout), E810))
    out = run(h, "status", E810).stdout
    row = re.search(r"^    3 .*$", out, re.M)
    assert row and re.search(r" - +ok$", row.group(0)), out


def test_vfio_vf_has_no_mtu_in_get_status(make_host, start_daemon, bus_client):
    h = make_host("e810.json")
    main_config(h)
    h.layout("50-e810.conf", VFIO)
    start_daemon(h)
    c = bus_client
    m = c.mark()
    c.call("Apply", "")
    assert c.wait_applied(E810, m) == 0
    check_vfio_vfs(pf_of(json.loads(c.call("GetStatus")), E810))


# --- 2: a raise of the firmware VF limit waits: the last apply says so ------------------------

def test_firmware_raise_last_apply_says_pending_reboot(make_host):
    h = make_host("cx6dx.json")
    h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
             "VirtualFunctions=16\n")
    r = run(h, "apply")
    assert r.returncode == 0 and "done raise firmware VF limit to 16" in r.stdout, r.stdout
    st = pf_of(json.loads(run(h, "status", "--json").stdout), CX6_A)
    assert st["state"] == "pending", st
    last = st["last_apply"]
    assert (last["state"], last["pending_reboot"], last["by"]) == ("applied", True, "apply"), last
    # an apply that changes nothing more keeps saying it
    assert run(h, "apply").returncode == 0
    last = pf_of(json.loads(run(h, "status", "--json").stdout), CX6_A)["last_apply"]
    assert last["pending_reboot"] is True, last

    # a firmware reset: the firmware runs with the limit, nothing waits any more
    def reset(s):
        for p in s["pfs"]:
            p["total_vfs"] = p["firmware_total_vfs"]
        place_card_vfs(s)
    h.edit(reset)
    st = pf_of(json.loads(run(h, "status", "--json").stdout), CX6_A)
    assert st["pending_reboot_reasons"] == [] and st["last_apply"]["pending_reboot"] is False, st


def test_an_apply_without_a_reboot_is_not_pending(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", VFIO)
    assert run(h, "apply").returncode == 0
    last = pf_of(json.loads(run(h, "status", "--json").stdout), E810)["last_apply"]
    assert (last["state"], last["pending_reboot"]) == ("applied", False), last


# --- 3: the same literal on two VFs of one file names both lines ------------------------------

def check_files(h, *files):
    return subprocess.run([h.binary, "--no-color", "check", *map(str, files)],
                          capture_output=True, text=True, timeout=60, cwd=h.dir)


def test_same_mac_in_one_file_names_both_lines(make_host):
    h = make_host("e810.json")
    a = h.layout("50-e810.conf",
                 "[Match]\nDriver=ice\n"
                 "[VirtualFunction 0]\nMACAddress=02:11:22:33:44:55\n"
                 "[VirtualFunction 1]\nMACAddress=02:11:22:33:44:55\n")
    r = check_files(h, a)
    assert r.stderr.splitlines() == [
        f"{a}:6: MACAddress=02:11:22:33:44:55: VF 0 and VF 1 would have the same address "
        "(VF 0's at line 4)"], r.stderr
    assert r.returncode == 1
    # the host's check and status say the same
    r = run(h, "check")
    assert f"{a}:6: MACAddress=02:11:22:33:44:55: VF 0 and VF 1 would have the same address " \
        "(VF 0's at line 4)" in r.stderr, r.stderr


def test_same_guid_in_one_file_names_both_lines(make_host):
    h = make_host("e810.json")
    a = h.layout("50-mlx.conf",
                 "[Match]\nDriver=mlx5_core\n"
                 "[VirtualFunction 2]\nIBPortGUID=00:11:22:33:44:55:66:77\n"
                 "[VirtualFunction 5]\nIBPortGUID=00:11:22:33:44:55:66:77\n")
    r = check_files(h, a)
    assert r.stderr.splitlines() == [
        f"{a}:6: IBPortGUID=00:11:22:33:44:55:66:77: VF 2 and VF 5 would have the same GUID "
        "(VF 2's at line 4)"], r.stderr


def test_same_mac_in_two_files_still_names_the_other_file(make_host):
    h = make_host("e810.json")
    a = h.layout("50-e810.conf", "[Match]\nDriver=ice\n"
                 "[VirtualFunction 0]\nMACAddress=02:11:22:33:44:55\n")
    b = h.layout("60-e810.conf", "[Match]\nDriver=ice\n"
                 "[VirtualFunction 1]\nMACAddress=02:11:22:33:44:55\n")
    r = check_files(h, a, b)
    assert r.stderr.splitlines() == [
        f"{b}:4: MACAddress=02:11:22:33:44:55: VF 0 and VF 1 would have the same address "
        f"(VF 0's at {a}:4)"], r.stderr
