# SPDX-License-Identifier: LGPL-2.1-or-later
"""What status says of each VF while a layout is not applied yet: the rows come from the layouts
compared with the host, every VF the host has and every VF the layouts want."""

import json
import re
from pathlib import Path

E810 = "0000:3b:00.0"
ROOT = Path(__file__).resolve().parents[2]


def layout(count, extra=""):
    return f"[Match]\nPCIAddress={E810}\n\n[PhysicalFunction]\nVirtualFunctions={count}\n{extra}"


def rows(out):
    return {int(m.group(1)): m.group(0) for m in re.finditer(r"^    (\d+) .*$", out, re.M)}


def vfs_json(h):
    r = h.run("status", "--json", E810)
    return json.loads(r.stdout)["pfs"][0]["vfs"]


def applied(make_host, count):
    h = make_host("e810.json")
    h.layout("50.conf", layout(count))
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    return h


def test_fewer_vfs_say_which_go_and_what_differs(make_host):
    h = applied(make_host, 8)
    h.layout("50.conf", layout(4, "\n[VirtualFunction 0-3]\nTrust=yes\n"))
    out = h.run("status", E810).stdout
    row = rows(out)
    for i in range(4):
        assert row[i].endswith("  to be recreated (VirtualFunctions=4); differs: trust off (wanted on)"), out
    for i in range(4, 8):
        assert row[i].endswith("  to be removed (VirtualFunctions=4)"), out
    vfs = vfs_json(h)
    assert len(vfs) == 8 and vfs[7]["layout"] == "to be removed (VirtualFunctions=4)"


def test_more_vfs_show_those_to_be_created(make_host):
    h = applied(make_host, 4)
    s = h.state()
    for vf in h.pf_of(s, E810)["vfs"]:
        vf["trust"] = True  # ip link set ens1f0 vf N trust on, by hand
    h.save(s)
    h.layout("50.conf", layout(6, "\n[VirtualFunction 0-3]\nTrust=no\n"
                                  "\n[VirtualFunction 4-5]\nMaxTxRateMbps=100\n"))
    out = h.run("status", E810).stdout
    row = rows(out)
    # a new VF has trust off: the plan sets nothing, but the host's VFs differ until recreated
    assert row[0].endswith("  to be recreated (VirtualFunctions=6); differs: trust on (wanted off)"), out
    assert row[4] == "    4   to be created", out
    assert "    5   to be created\n        max_tx_rate 100\n" in out, out
    vfs = vfs_json(h)
    assert len(vfs) == 6
    assert vfs[5]["pci"] is None and vfs[5]["layout"] == "to be created"
    assert vfs[5]["settings"]["MaxTxRateMbps"]["now"] is None
    assert vfs[5]["settings"]["MaxTxRateMbps"]["wanted"] == "100"
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [v["layout"] for v in vfs_json(h)] == ["ok"] * 6


def test_a_key_the_plan_leaves_still_differs(make_host):
    """A key whose wanted value the kernel gives new VFs (trust off) differs on a VF that has it on,
    also when no action on that VF is planned."""
    h = applied(make_host, 2)
    h.layout("50.conf", layout(2, "\n[VirtualFunction 0-1]\nTrust=no\n"))
    s = h.state()
    h.pf_of(s, E810)["vfs"][1]["trust"] = True
    h.save(s)
    vfs = vfs_json(h)
    assert vfs[0]["layout"] == "ok"
    assert vfs[1]["layout"] == "differs: trust on (wanted off)", vfs[1]


def test_held_pf_lists_only_files_that_select_it_and_counts_every_error(make_host):
    h = make_host("e810.json")
    h.layout("40-broken.conf", "[Match]\nPCIAddress=zzz\n")
    h.layout("50-a.conf", layout(4, "MTUBytes=abc\n\n[VirtualFunction 0]\nTrust=maybe\n"))
    h.layout("55-c.conf", f"[Match]\nPCIAddress={E810}\n\n[PhysicalFunction]\nLinkUp=maybe\n")
    h.layout("60-b.conf", "[Match]\nPCIAddress=0000:3b:00.1\n\n[PhysicalFunction]\nVirtualFunctions=2\n")
    broken = f"{h.confdir}/40-broken.conf:2: PCIAddress=zzz: must be PCI address globs"
    every = " (a [Match] with an error holds every PF)"
    out = h.run("plan").stdout
    assert f"0000:3b:00.0 (ens1f0): held: {broken}" in out, out
    assert f"(and 3 more errors){every}\n  files: 50-a.conf 55-c.conf\n" in out, out
    assert f"0000:3b:00.1 (ens1f1): held: {broken}" in out, out
    assert f"-) {every[1:]}\n  files: 60-b.conf\n" in out, out
    st = {p["pci"]: p for p in json.loads(h.run("status", "--json").stdout)["pfs"]}
    assert st[E810]["config_files"] == [str(h.confdir / "50-a.conf"), str(h.confdir / "55-c.conf")]
    assert st[E810]["reason"].endswith(f"(and 3 more errors){every}")
    plan = {p["pci"]: p for p in json.loads(h.run("plan", "--json").stdout)["pfs"]}
    assert plan[E810]["held_reason"] == st[E810]["reason"]
    # without the broken file: the errors of both files that select it
    (h.confdir / "40-broken.conf").unlink()
    out = h.run("plan", E810).stdout
    assert out.startswith(f"0000:3b:00.0 (ens1f0): held: {h.confdir}/50-a.conf:6: MTUBytes=abc: "
                          "must be 68..65535 (and 2 more errors)\n"), out


def test_applied_without_a_record_of_this_boot_says_why_wait_waits(make_host):
    h = applied(make_host, 2)
    assert h.run("status", E810).stdout.splitlines()[2] == "    files: 50.conf"
    r = h.run("wait", "--timeout", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    # the record is from an earlier boot (finished in 1970): the host is as wanted, wait does not count it
    rec = h.dir / "host.json.run" / "pf" / f"{E810}.json"
    d = json.loads(rec.read_text())
    d["finished_usec"] = 5
    rec.write_text(json.dumps(d))
    why = "in place, but not applied in this boot yet (sriovctl wait waits for it)"
    out = h.run("status", E810).stdout
    assert " applied " in out.splitlines()[1] and out.splitlines()[2] == f"    {why}", out
    assert json.loads(h.run("status", "--json", E810).stdout)["pfs"][0]["reason"] == why
    r = h.run("wait", "--timeout", "0")
    assert r.returncode == 1 and r.stdout == ("Timed out after 0s; not applied yet:\n"
                                              f"Not applied yet: {E810} (not applied in this "
                                              "boot yet)\n"), r.stdout
    rec.unlink()
    assert h.run("status", E810).stdout.splitlines()[2] == f"    {why}"


CX6_A, CX6_B = "0000:ca:00.0", "0000:ca:00.1"


def cx6_layouts(h, want_b):
    h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\nVirtualFunctions=16\n")
    h.layout("60-b.conf", f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\nVirtualFunctions={want_b}\n")


def test_a_port_that_needs_no_higher_firmware_limit_is_not_pending(make_host):
    """NUM_OF_VFS is one setting of a ConnectX card: port A's raise gives port B the new limit
    too, and B, whose layout asks for no more than it has, waits for no reboot."""
    h = make_host("cx6dx.json")
    cx6_layouts(h, 4)
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [p["firmware_total_vfs"] for p in h.state()["pfs"]] == [16, 16]
    st = {p["pci"]: p for p in json.loads(h.run("status", "--json").stdout)["pfs"]}
    assert st[CX6_A]["state"] == "pending"
    assert st[CX6_B]["state"] == "applied" and st[CX6_B]["pending_reboot_reasons"] == []
    assert "takes effect after a reboot" not in h.run("status", CX6_B).stdout


def test_a_port_that_needs_the_raise_of_the_other_says_whose(make_host):
    h = make_host("cx6dx.json")
    cx6_layouts(h, 12)
    shared = f"firmware VF limit 8 -> 16 (raised by the apply of {CX6_A}, one setting of this card) " \
             "takes effect after a reboot"
    out = h.run("plan").stdout
    assert f"{CX6_B} (ens3f1np1): nothing to do\n  files: 60-b.conf\n  reboot needed after its apply: {shared}\n" in out, out
    assert "raise firmware VF limit to 12" not in out, out
    # B alone raises it as far as the whole card's layouts need, as the whole host does
    assert "raise firmware VF limit to 16" in h.run("plan", CX6_B).stdout
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [p["firmware_total_vfs"] for p in h.state()["pfs"]] == [16, 16]
    out = h.run("status", CX6_B).stdout
    # the raise is A's pending reboot; B waits for it (trial 27, 5)
    assert ("    firmware VF limit raised to 16, waiting for a reboot (the card raise made by the "
            f"apply of {CX6_A})\n") in out, out
    assert "pending reboot:" not in out, out


def test_guids_that_wait_for_the_link_type_reboot_say_so(make_host):
    """A ConnectX VPI port becoming InfiniBand: the GUIDs are set only after the reboot the link
    type needs, so once applied the VF rows say what comes after the reboot, not that they
    differ, and plan has nothing to do."""
    vpi = "0000:41:00.0"  # cx6-vpi.json: mlx5_core, ethernet now
    h = make_host("cx6-vpi.json")
    h.layout("50.conf", f"[Match]\nPCIAddress={vpi}\n[PhysicalFunction]\nVirtualFunctions=2\n"
             "LinkType=infiniband\n[VirtualFunction]\nIBNodeGUID=stable\n")
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "nothing to do" in h.run("plan", vpi).stdout

    pf = json.loads(h.run("status", "--json", vpi).stdout)["pfs"][0]
    assert pf["state"] == "pending", pf
    for vf in pf["vfs"]:
        guid = vf["settings"]["IBNodeGUID"]["wanted"]
        assert guid and vf["layout"] == (f"after a reboot: node_guid {guid} (LinkType=infiniband "
                                         "takes effect after a reboot)"), vf
    out = h.run("status", vpi).stdout
    assert "differs" not in out and "after a reboot: node_guid" in out, out


def test_a_vf_to_be_created_lists_every_key_its_layouts_set(make_host):
    """A VF the host does not have yet has no columns: the line under its row lists every key
    its layouts set, the VLAN and trust too, as --json has them."""
    h = applied(make_host, 2)
    h.layout("50.conf", layout(4, "\n[VirtualFunction]\nVLANId=42\nTrust=yes\nMaxTxRateMbps=2000\n"
                                  "ResourceName=foo\n"))
    out = h.run("status", E810).stdout
    assert "    3   to be created\n        vlan 42, trust yes, max_tx_rate 2000, resource_name foo\n" \
        in out, out
    wanted = vfs_json(h)[3]["settings"]
    assert wanted["VLANId"]["wanted"] == "42" and wanted["Trust"]["wanted"] == "yes", wanted


def rdma_applied(make_host):
    h = make_host("e810.json")
    h.layout("50-e810-rdma.conf", (ROOT / "conf.d" / "50-e810-rdma.conf").read_text())
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    return h


def test_an_unbound_vf_has_no_mtu_to_compare(make_host):
    """A VF without a netdev (unbound) has no MTU: its row shows "-" and the MTU is no
    difference, only the driver is."""
    h = rdma_applied(make_host)
    s = h.state()
    h.pf_of(s, E810)["vfs"][9]["driver"] = None
    h.save(s)
    out = h.run("status", E810).stdout
    assert rows(out)[9].endswith("  differs: no driver bound (wanted iavf)"), out
    assert " 9000  differs" not in rows(out)[9], out
    s = h.state()
    h.pf_of(s, E810)["vfs"][9]["name"] = None
    h.save(s)
    row = rows(h.run("status", E810).stdout)[9]
    assert re.search(r" +-  differs: no driver bound \(wanted iavf\)$", row), row
    assert vfs_json(h)[9]["layout"] == "differs: no driver bound (wanted iavf)"


def test_representors_of_a_legacy_pf_are_not_judged(make_host):
    """A snapshot of a PF in legacy mode that lists representors (up): the eswitch mode is what
    differs; a representor that is up is never 'representor up (wanted up)'."""
    h = make_host("e810.json")
    h.layout("50.conf", layout(2, "MTUBytes=9000\n\n[VirtualFunction]\nMTUBytes=9000\n"))
    assert h.run("apply").returncode == 0
    s = h.state()
    for i, vf in enumerate(h.pf_of(s, E810)["vfs"]):
        vf["representor"], vf["representor_up"] = f"eth{i}", True
    h.save(s)
    h.layout("50.conf", layout(2, "MTUBytes=9000\nESwitchMode=switchdev\n\n"
                                  "[VirtualFunction]\nMTUBytes=9000\n"))
    out = h.run("status", E810).stdout
    assert "eswitch legacy (wanted switchdev)" in out, out
    assert "representor" not in out.split("LAYOUT", 1)[1], out
    row = rows(out)
    # ice makes the VFs anew for the mode, not for a count (VirtualFunctions=2 is the PF's)
    assert row[0].endswith("  to be recreated by the eswitch change to switchdev"), out


def test_link_state_in_the_words_of_the_layout(make_host):
    """The LINK column and the VF's difference say the link state as LinkState= takes it (auto,
    yes, no), not ip-link's enable/disable; the JSON document's host value stays the snapshot's,
    its settings are the layout's."""
    h = applied(make_host, 2)
    s = h.state()
    h.pf_of(s, E810)["vfs"][0]["link_state"] = "disable"  # ip link set ens1f0 vf 0 state disable
    h.pf_of(s, E810)["vfs"][1]["link_state"] = "enable"
    h.save(s)
    h.layout("50.conf", layout(2, "\n[VirtualFunction 0]\nLinkState=auto\n"))
    out = h.run("status", E810).stdout
    row = rows(out)
    assert re.search(r" on +no +1500  differs: state no \(wanted auto\)$", row[0]), out
    assert re.search(r" on +yes +1500  ok$", row[1]), out
    assert "disable" not in out and "enable" not in out, out
    vfs = vfs_json(h)
    assert vfs[0]["link_state"] == "disable", vfs[0]
    assert vfs[0]["settings"]["LinkState"]["now"] == "no", vfs[0]
