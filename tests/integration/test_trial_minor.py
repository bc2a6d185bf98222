# SPDX-License-Identifier: LGPL-2.1-or-later
"""Issue 32, the fresh-eyes trial's minor items: every bad rate is said at once, a held PF wants
nothing anywhere in its status, and a QualityOfService= without a VLAN names its VFs."""

import json

ICE = "0000:3b:00.0"


def test_min_above_max_and_min_sum_said_at_once(make_host):
    """VF 1's MinTxRateMbps= above its MaxTxRateMbps=, and the four minimums together above the
    link speed: both at the MinTxRateMbps= line, both said by check --host, plan and status."""
    h = make_host("e810.json")
    p = h.layout("50-e810.conf", f"[Match]\nPCIAddress={ICE}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\n[VirtualFunction 0-3]\nMinTxRateMbps=10000\n"
                 "[VirtualFunction 1]\nMaxTxRateMbps=5000\n")
    both = [f"{p}:6: MinTxRateMbps=10000: must not exceed MaxTxRateMbps=5000 (line 8)",
            f"{p}:6: MinTxRateMbps=10000: the VFs' minimum rates would add up to 40000 Mb/s, "
            "above the PF's link speed, 25000 Mb/s, which the ice driver refuses"]
    r = h.run("check")
    assert r.stderr.splitlines() == both and r.returncode == 1, r.stderr
    assert "2 error(s)" in r.stdout, r.stdout
    for verb in ("plan", "status"):
        r = h.run(verb)
        assert r.stderr.splitlines() == both, r.stderr
        assert "(line 8) (and 1 more error)" in r.stdout, r.stdout
