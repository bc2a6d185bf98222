# SPDX-License-Identifier: LGPL-2.1-or-later
"""What status and cat tell an operator: every key a layout sets next to what the host has, the
files that select a PF, pending firmware changes, one word for an unconfigured PF."""

import json
import os
import re

import pytest

E810 = "0000:3b:00.0"
E810_B = "0000:3b:00.1"

BASE = f"""[Match]
PCIAddress={E810}

[PhysicalFunction]
VirtualFunctions=4
MTUBytes=9000

[VirtualFunction 0-3]
VLANId=100
VLANProtocol=802.1Q
MaxTxRateMbps=2000

[VirtualFunction 3]
Driver=vfio-pci
"""

OTHER = """[Match]
Name=ens1f0

[VirtualFunction 1]
MaxTxRateMbps=3000
ResourceName=e810_a
"""


def applied(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", BASE)
    h.layout("60-other.conf", OTHER)
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    return h


def status_json(h, *args):
    r = h.run("status", "--json", *args)
    return r, {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}


def test_status_json_shows_every_key_wanted_and_now(make_host):
    h = applied(make_host)
    s = h.state()
    h.pf_of(s, E810)["vfs"][2]["max_tx_rate"] = 0  # ip link set ens1f0 vf 2 max_tx_rate 0
    h.save(s)
    r, st = status_json(h)
    pf = st[E810]
    assert pf["state"] == "drifted"
    assert pf["config_files"] == [str(h.confdir / "50-e810.conf"), str(h.confdir / "60-other.conf")]
    assert pf["settings"]["MTUBytes"] == {"now": "9000", "wanted": "9000",
                                          "source": f"{h.confdir}/50-e810.conf:6"}
    assert pf["settings"]["ESwitchMode"] == {"now": "legacy", "wanted": None, "source": None}
    assert set(pf["settings"]) == {"VirtualFunctions", "MTUBytes", "LinkUp", "ESwitchMode",
                                   "HardwareTCOffload", "LinkType", "FirmwareVirtualFunctions",
                                   "ExternallyManaged", "SharedWith"}
    vf1, vf2, vf3 = pf["vfs"][1], pf["vfs"][2], pf["vfs"][3]
    # one entry per key of the table, whatever the layout sets
    assert len(vf1["settings"]) == 17 and "QueryReceiveSideScaling" in vf1["settings"]
    assert vf1["settings"]["MaxTxRateMbps"] == {"now": "3000", "wanted": "3000",
                                                "source": f"{h.confdir}/60-other.conf:5"}
    # no host value: the VF is in the pool its layout names, no drift
    assert vf1["settings"]["ResourceName"]["now"] == "e810_a"
    assert vf1["settings"]["ResourceName"]["wanted"] == "e810_a"
    assert vf1["settings"]["VLANProtocol"]["wanted"] == "802.1Q"
    assert vf2["settings"]["MaxTxRateMbps"]["now"] == "0"
    assert vf2["settings"]["MaxTxRateMbps"]["wanted"] == "2000"
    # what the host has, then what is wanted
    assert vf2["layout"] == "differs: max_tx_rate 0 (wanted 2000)", vf2
    # a vfio-pci VF has no netdev: no MTU
    assert vf3["settings"]["MTUBytes"]["now"] is None and vf3["mtu"] is None
    assert vf3["settings"]["Driver"] == {"now": "vfio-pci", "wanted": "vfio-pci",
                                         "source": f"{h.confdir}/50-e810.conf:14"}


def test_status_table_shows_files_pf_keys_and_what_a_vf_has(make_host):
    h = applied(make_host)
    s = h.state()
    h.pf_of(s, E810)["vfs"][2]["max_tx_rate"] = 0
    h.save(s)
    out = h.run("status").stdout
    assert "    files: 50-e810.conf 60-other.conf\n" in out, out
    # the PF line says "(wanted X)" only where the host differs
    assert "    speed 25000 Mb/s, mtu 9000, link up yes, eswitch legacy, " \
           "hw-tc-offload no, link type ethernet\n" in out, out
    rows = {int(m.group(1)): m.group(0) for m in re.finditer(r"^    (\d) .*$", out, re.M)}
    assert rows[2].endswith("differs: max_tx_rate 0 (wanted 2000)"), out
    # the vfio-pci VF has no MTU
    assert re.search(r" vfio-pci .* auto +-  ok$", rows[3]), rows[3]
    # the keys without a column, under their VF
    assert "\n        proto 802.1Q, max_tx_rate 3000, resource_name e810_a\n" in out, out
    assert "\n        proto 802.1Q, max_tx_rate 0 (wanted 2000)\n" in out, out
    # unconfigured: the VF lines and PF keys are for configured PFs only
    line = next(ln for ln in out.splitlines() if ln.startswith(E810_B))
    assert re.search(r" 0 +- +128  unconfigured ", line), line


def test_plan_names_the_files_that_select_a_pf(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", BASE)
    h.layout("60-other.conf", OTHER)
    out = h.run("plan").stdout
    assert out.startswith(f"{E810} (ens1f0): ") and \
        out.splitlines()[1] == "  files: 50-e810.conf 60-other.conf", out
    # a held PF too: which files to look at
    h.layout("60-other.conf", OTHER + "Trust=maybe\n")
    out = h.run("plan").stdout
    assert out.splitlines()[1] == "  files: 50-e810.conf 60-other.conf", out
    assert f"{E810_B} (ens1f1): unconfigured (no layout selects it)\n" in out


def test_a_pf_held_by_an_empty_file_wants_nothing(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", BASE)
    h.layout("70-empty.conf", "")
    r, st = status_json(h)
    assert r.returncode == 1
    assert st[E810]["state"] == "held" and st[E810]["desired_num_vfs"] is None
    line = next(ln for ln in h.run("status").stdout.splitlines() if ln.startswith(E810))
    assert re.search(r" 0 +- +128  held ", line), line
    # the empty file holds every PF without selecting one: its error names it, the files do not
    out = h.run("status").stdout
    assert "70-empty.conf: no [Match] section" in st[E810]["reason"], st[E810]
    assert "    files: 50-e810.conf\n" in out, out


@pytest.mark.parametrize("text", ["[match]\nPCIAddress=0000:3b:00.0\n", ""])
def test_a_file_without_a_match_says_it_holds_every_pf(make_host, text):
    """A file whose only section is a mistyped [match] (or that is empty) holds the PF that
    its own layout selects, and the other port too: the reason says why, as for a [Match]
    with an error."""
    h = make_host("e810.json")
    h.layout("50-e810.conf", BASE)
    h.layout("50-lcmatch.conf", text)
    r, st = status_json(h)
    assert r.returncode == 1
    every = " (a file without a [Match] holds every PF)"
    for pf in (E810, E810_B):
        assert st[pf]["state"] == "held" and st[pf]["reason"].startswith(
            f"{h.confdir}/50-lcmatch.conf:"), st[pf]
        assert st[pf]["reason"].endswith(every), st[pf]
    out = h.run("plan").stdout
    assert out.count(every + "\n") == 2, out


def test_status_warns_of_a_file_that_selects_no_pf_only_for_the_whole_host(make_host):
    """As sriovctl(8) says: status, plan and apply without PF warn of a layout file that
    selects no PF of the host; with PF, they look at that PF alone."""
    h = make_host("e810.json")
    h.layout("50-e810.conf", BASE)
    h.layout("60-none.conf", "[Match]\nPCIAddress=0000:99:00.0\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n")
    warning = f"{h.confdir}/60-none.conf:2: warning: [Match] PCIAddress=0000:99:00.0 selects " \
        "no PF on this host\n"
    for verb in ("status", "plan"):
        assert warning in h.run(verb).stderr, verb
        assert warning not in h.run(verb, E810).stderr, verb


def test_cat_shows_the_merged_layout_with_file_and_line(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", BASE)
    h.layout("60-other.conf", OTHER)
    want = f"""# PF {E810} (ens1f0), selected by {h.confdir}/50-e810.conf, 60-other.conf
[PhysicalFunction]
VirtualFunctions=4  # 50-e810.conf:5
MTUBytes=9000  # 50-e810.conf:6

[VirtualFunction 0]
VLANId=100  # 50-e810.conf:9
VLANProtocol=802.1Q  # 50-e810.conf:10
MaxTxRateMbps=2000  # 50-e810.conf:11

[VirtualFunction 1]
VLANId=100  # 50-e810.conf:9
VLANProtocol=802.1Q  # 50-e810.conf:10
MaxTxRateMbps=3000  # 60-other.conf:5
ResourceName=e810_a  # 60-other.conf:6

[VirtualFunction 2]
VLANId=100  # 50-e810.conf:9
VLANProtocol=802.1Q  # 50-e810.conf:10
MaxTxRateMbps=2000  # 50-e810.conf:11

[VirtualFunction 3]
Driver=vfio-pci  # 50-e810.conf:14
VLANId=100  # 50-e810.conf:9
VLANProtocol=802.1Q  # 50-e810.conf:10
MaxTxRateMbps=2000  # 50-e810.conf:11
"""
    # by PCI address, interface name, alternative name; every PF with a layout
    for args in ([E810], ["ens1f0"], ["enp59s0f0"], []):
        r = h.run("cat", *args)
        assert r.returncode == 0 and r.stdout == want, (args, r.stdout, r.stderr)


def test_cat_groups_vfs_set_alike_and_keeps_stable(make_host):
    h = make_host("e810.json")
    h.layout("50.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=max\n"
                        "[VirtualFunction]\nMACAddress=stable\nTrust=yes\n")
    r = h.run("cat", "ens1f0")
    assert r.returncode == 0, r.stderr
    assert r.stdout.endswith("VirtualFunctions=max  # 50.conf:4\n\n[VirtualFunction 0-127]\n"
                             "MACAddress=stable  # 50.conf:6\nTrust=yes  # 50.conf:7\n"), r.stdout


def test_cat_shows_vfs_only_up_to_the_count(make_host):
    # 60-b.conf lowers the count: the VFs 50-a.conf names beyond it are said, not shown
    h = make_host("e810.json")
    h.layout("50-a.conf", "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=8\n\n"
                          "[VirtualFunction 0-7]\nMaxTxRateMbps=2000\n")
    h.layout("60-b.conf", "[Match]\nName=ens1f0\n\n[PhysicalFunction]\nVirtualFunctions=4\n")
    r = h.run("cat", "ens1f0")
    assert r.returncode == 0, r.stderr
    assert r.stdout.endswith(
        "[PhysicalFunction]\nVirtualFunctions=4  # 60-b.conf:5\n\n"
        "[VirtualFunction 0-3]\nMaxTxRateMbps=2000  # 50-a.conf:7\n\n"
        "# 50-a.conf:6: [VirtualFunction 0-7]: VFs 4-7 are beyond VirtualFunctions=4 "
        "(60-b.conf:5), an error that holds this PF\n"), r.stdout
    assert "# held, nothing is applied:" in r.stdout
    # where 50-a.conf's count stands, all its VFs are shown
    r = h.run("cat", "ens1f1")
    assert "[VirtualFunction 0-7]\nMaxTxRateMbps=2000" in r.stdout and "beyond" not in r.stdout


def test_cat_says_when_nothing_selects_the_pf(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", BASE)
    r = h.run("cat", "0000:99:00.0")
    assert r.returncode == 1 and r.stdout == "" and "No PF '0000:99:00.0' on this host" in r.stderr
    r = h.run("cat", "ens1f1")
    assert r.returncode == 1 and r.stdout == "" and "No layout selects ens1f1" in r.stderr
    assert h.run("cat", "a", "b").returncode == 2


@pytest.mark.parametrize("refuse", ["file 0666", "dir 0777", "file of another user"])
def test_cat_of_pfs_held_by_a_refused_layout_says_so(make_host, refuse):
    """A layout refused for who may write it holds every PF: cat shows each held PF with the
    reason (it used to crash), and names no file as selecting it."""
    h = make_host("e810.json")
    path = h.layout("50-a.conf", "[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=2\n")
    if refuse == "file 0666":
        os.chmod(path, 0o666)
        why = f"{path}: writable by group or others (mode 0666); refusing it"
    elif refuse == "dir 0777":
        os.chmod(h.confdir, 0o777)
        why = f"{h.confdir}: writable by group or others (mode 0777); refusing it"
    else:
        if os.geteuid() != 0:
            pytest.skip("chown needs root")
        os.chown(path, 65534, 65534)
        why = f"{path}: owned by uid 65534"
    r = h.run("cat", "ens1f0")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"# PF {E810} (ens1f0)", r.stdout
    assert lines[1].startswith(f"# held, nothing is applied: {why}"), r.stdout
    assert len(lines) == 2, r.stdout
    r = h.run("cat")
    assert r.returncode == 0 and r.stdout.count("# held, nothing is applied: ") == 2, r.stdout


def test_cat_of_a_pf_whose_values_were_all_rejected_has_no_empty_section(make_host):
    h = make_host("e810.json")
    h.layout("50-a.conf", "[Match]\nName=ens1f0\n[PhysicalFunction]\nMTUBytes=99999999\n")
    r = h.run("cat", "ens1f0")
    assert r.returncode == 0, r.stderr
    assert r.stdout == (f"# PF {E810} (ens1f0), selected by {h.confdir}/50-a.conf\n"
                        f"# held, nothing is applied: {h.confdir}/50-a.conf:4: MTUBytes=99999999: "
                        "must be 68..65535\n"), r.stdout


def test_firmware_vf_limit_raised_is_pending_until_the_reboot(make_host):
    """VirtualFunctions=16 on a ConnectX-6 Dx whose firmware allows 8: the apply raises the
    firmware limit, and until the reboot the PF has no VFs: pending, not applied."""
    h = make_host("cx6dx.json")
    pci = h.pfs_by_driver("mlx5_core")[0]["pci"]
    h.layout("50.conf", f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions=16\n")
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    r, st = status_json(h)
    pf = st[pci]
    assert r.returncode == 0
    assert pf["state"] == "pending", pf
    assert pf["reason"] == "firmware VF limit raised to 16, waiting for a reboot"
    assert pf["num_vfs"] == 0 and pf["desired_num_vfs"] == 16
    assert pf["settings"]["FirmwareVirtualFunctions"]["now"] == "16"
    out = h.run("status").stdout
    line = next(ln for ln in out.splitlines() if ln.startswith(pci))
    assert re.search(r" 0 +16 +8  pending ", line), out
    # the reason is said once, as the pending reboot
    assert out.count("firmware VF limit raised to 16") == 1, out
    assert "pending reboot: firmware VF limit raised to 16, waiting for a reboot" in out
    assert "firmware VF limit 16" in out


def test_keys_the_tool_never_acts_on_say_what_they_mean(make_host):
    """LinkUp=no never takes a link down, FirmwareVirtualFunctions=no never raises the limit,
    ExternallyManaged=yes leaves the count to another tool: no "(wanted ...)" for them, and the
    count wanted is the one the other tool is expected to make, in the table and the JSON."""
    h = make_host("e810.json")
    h.layout("50.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=2\n"
             "LinkUp=no\nFirmwareVirtualFunctions=no\nExternallyManaged=yes\n")
    out = h.run("status").stdout
    assert "(wanted" not in out, out
    assert "    speed 25000 Mb/s, mtu 1500, link up yes (LinkUp=no: left as it is), eswitch legacy, " \
           "hw-tc-offload no, link type ethernet, firmware VF limit none " \
           "(FirmwareVirtualFunctions=no: not raised), externally managed " \
           "(ExternallyManaged=yes: another tool makes the VFs)\n" in out, out
    line = next(ln for ln in out.splitlines() if ln.startswith(E810))
    assert re.search(r" 0 +2 +128  ", line), line
    _, st = status_json(h)
    assert st[E810]["desired_num_vfs"] == 2
    assert st[E810]["settings"]["VirtualFunctions"]["wanted"] == "2"
    assert st[E810]["settings"]["ExternallyManaged"]["now"] is None


def test_drift_says_what_the_host_has(make_host):
    """hw-tc-offload and a representor turned off behind its back: status says what the host has
    next to what is wanted, as for the MTU."""
    h = make_host("cx6dx.json")
    pf = h.pfs_by_driver("mlx5_core")[0]
    h.layout("50.conf", f"[Match]\nPCIAddress={pf['pci']}\n[PhysicalFunction]\nVirtualFunctions=2\n"
             "ESwitchMode=switchdev\nHardwareTCOffload=yes\n")
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    s = h.state()
    p = h.pf_of(s, pf["pci"])
    p["hw_tc_offload"] = False
    p["vfs"][1]["representor_up"] = False
    h.save(s)
    out = h.run("status").stdout
    assert "    differs: set hw-tc-offload on (now off)\n" in out, out
    rows = {int(m.group(1)): m.group(0) for m in re.finditer(r"^    (\d) .*$", out, re.M)}
    assert rows[0].endswith("  ok") and \
        rows[1].endswith("  differs: representor down (wanted up)"), out


def test_a_refused_layout_directory_is_no_file_of_the_pf(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", BASE)
    h.confdir.chmod(0o777)
    try:
        out = h.run("plan").stdout
        r, st = status_json(h)
    finally:
        h.confdir.chmod(0o755)
    assert f"{E810} (ens1f0): held: {h.confdir}: writable by group or others" in out, out
    assert "files:" not in out, out
    assert st[E810]["state"] == "held" and st[E810]["config_files"] == [], st[E810]


def test_one_word_for_an_unconfigured_pf(make_host):
    h = make_host("e810.json")
    r, st = status_json(h)
    assert r.returncode == 0
    assert {p["state"] for p in st.values()} == {"unconfigured"}
    assert all(p["reason"] is None for p in st.values())
    assert "unconfigured (no layout selects it)" in h.run("plan").stdout
    assert "not-configured" not in h.run("status").stdout


def test_drift_of_the_vf_count_says_what_differs(make_host):
    """VFs gone (as after a reboot) or fewer than the layout wants: a drifted PF's reason says
    the count wanted and the count present, not the plan's steps (autoprobe off and on again
    around the creation, the count 0 before another)."""
    h = make_host("e810.json")
    h.layout("50.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=4\n"
             "[VirtualFunction]\nDriver=vfio-pci\n")
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    plan = h.run("plan", E810).stdout
    assert "nothing to do" in plan, plan

    def drift(n):
        s = h.state()
        p = h.pf_of(s, E810)
        p["num_vfs"] = n
        p["vfs"] = p["vfs"][:n]
        h.save(s)
        plan = h.run("plan", E810).stdout
        assert "set VF driver autoprobe off" in plan, plan
        _, st = status_json(h)
        return st[E810]["state"], st[E810]["reason"]

    assert drift(2) == ("drifted", "differs: 4 VFs wanted, 2 present")
    assert drift(0) == ("drifted", "differs: 4 VFs wanted, 0 present")
    assert "    differs: 4 VFs wanted, 0 present\n" in h.run("status", E810).stdout


def test_status_pf_line_says_wanted_only_where_the_host_differs(make_host):
    """The PF line, like a VF's row, names what is wanted only for a value the host does not
    have: an applied PF says "mtu 9000", not "mtu 9000 (wanted 9000)"."""
    h = make_host("cx7-ib.json")
    h.layout("50-ib.conf", "[Match]\nPCIAddress=0000:1a:00.0\n\n[PhysicalFunction]\n"
             "LinkType=infiniband\nMTUBytes=2044\n")
    out = h.run("status").stdout
    line = next(x for x in out.splitlines() if "link type" in x)
    assert "link type infiniband" in line and "link type infiniband (wanted" not in line, out
    # the MTU differs: what the host has, then what is wanted
    assert "mtu 4092 (wanted 2044)" in line, out


def test_status_json_vf_without_netdev_here_has_no_mtu(make_host):
    """A VF whose network interface this host does not show (in a pod's namespace) has no MTU
    this host can read, whatever the snapshot left: the JSON says null, as the table says -."""
    h = applied(make_host)
    s = h.state()
    vf = h.pf_of(s, E810)["vfs"][1]
    assert vf["driver"] == "iavf" and vf["mtu"] == 1500, vf
    vf["name"] = None  # moved into another namespace; the snapshot keeps its mtu
    h.save(s)
    r, st = status_json(h)
    vf1 = st[E810]["vfs"][1]
    assert vf1["mtu"] is None and vf1["settings"]["MTUBytes"]["now"] is None, vf1
    row = next(x for x in h.run("status").stdout.splitlines() if re.match(r"^    1 ", x))
    assert re.search(r" iavf .* -  ", row), row
