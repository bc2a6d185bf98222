# SPDX-License-Identifier: LGPL-2.1-or-later
"""What status says of each VF while a layout is not applied yet: the rows come from the layouts
compared with the host, every VF the host has and every VF the layouts want."""

import json
import re

E810 = "0000:3b:00.0"


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
