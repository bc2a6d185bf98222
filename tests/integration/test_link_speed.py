# SPDX-License-Identifier: LGPL-2.1-or-later
"""A VF rate above the PF's link speed: the drivers that refuse it (igb, i40e, ixgbe, bnxt_en;
ice the sum of the minimums) hold the PF at the layout line; an unknown speed (link down) says
nothing new. The speed is in the snapshot, in status and in status --json."""

import json

IGB = "0000:01:00.0"  # igb-82576.json: 1000 Mb/s
E810 = "0000:3b:00.0"  # e810.json: 25000 Mb/s


def igb_layout(rate_line):
    return f"[Match]\nPCIAddress={IGB}\n[PhysicalFunction]\nVirtualFunctions=2\n" \
           f"[VirtualFunction]\n{rate_line}\n"


def test_max_rate_above_link_speed_holds_the_pf(make_host):
    h = make_host("igb-82576.json")
    f = h.layout("50-igb.conf", igb_layout("MaxTxRateMbps=20000"))
    want = f"{f}:6: MaxTxRateMbps=20000: the igb driver refuses a VF rate above the link " \
           f"speed of {IGB} (enp1s0f0), 1000 Mb/s"
    before = h.path.read_text()

    r = h.run("check")
    assert r.returncode == 1 and want in r.stderr.splitlines(), r.stdout + r.stderr
    r = h.run("apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{IGB} (enp1s0f0): held (nothing applied): {want}" in r.stdout, r.stdout
    assert h.path.read_text() == before  # nothing written to the host
    doc = json.loads(h.run("status", "--json").stdout)
    pf = next(p for p in doc["pfs"] if p["pci"] == IGB)
    assert pf["state"] == "held" and pf["reason"] == want and pf["speed"] == 1000, pf

    h.layout("50-igb.conf", igb_layout("MaxTxRateMbps=1000"))
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [vf["max_tx_rate"] for vf in h.pf(IGB)["vfs"]] == [1000, 1000]
    out = h.run("status", IGB).stdout
    assert "\n    speed 1000 Mb/s, mtu 1500, link up yes" in out, out


def test_link_down_says_nothing_new(make_host):
    """Without a known speed (class/net/<pf>/speed reads -1 or fails while the link is down)
    nothing is compared: the snapshot has no "speed", as one from before it had none."""
    h = make_host("igb-82576.json")
    h.edit(lambda s: h.pf_of(s, IGB).pop("speed"))
    h.layout("50-igb.conf", igb_layout("MaxTxRateMbps=20000"))
    assert h.run("check").returncode == 0
    r = h.run("apply", IGB)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "speed" not in h.pf(IGB)
    assert [vf["max_tx_rate"] for vf in h.pf(IGB)["vfs"]] == [20000, 20000]
    pf = json.loads(h.run("status", "--json", IGB).stdout)["pfs"][0]
    assert pf["speed"] is None and pf["state"] == "applied", pf
    assert "speed" not in h.run("status", IGB).stdout


def test_ice_minimum_rates_together(make_host):
    h = make_host("e810.json")
    f = h.layout("50-e810.conf", f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\n"
                                 "VirtualFunctions=4\n[VirtualFunction 0-3]\nMaxTxRateMbps=40000\n"
                                 "[VirtualFunction 3]\nMinTxRateMbps=10000\n"
                                 "[VirtualFunction 0-2]\nMinTxRateMbps=6000\n")
    r = h.run("check")
    assert r.returncode == 1, r.stdout + r.stderr
    # in VF order, VF 3's rate takes the sum above the speed
    assert f"{f}:8: MinTxRateMbps=10000: the VFs' minimum rates would add up to 28000 Mb/s, " \
           "above the PF's link speed, 25000 Mb/s, which the ice driver refuses" \
           in r.stderr.splitlines(), r.stderr
    # ice compares no VF's maximum with the link speed: 40000 is fine once the sum fits
    h.layout("50-e810.conf", f.read_text().replace("MinTxRateMbps=6000", "MinTxRateMbps=5000"))
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    vfs = h.pf(E810)["vfs"]
    assert [(v["min_tx_rate"], v["max_tx_rate"]) for v in vfs] == \
        [(5000, 40000)] * 3 + [(10000, 40000)]
