# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 30 (fresh eyes): what the status document says of a card's firmware VF limit."""

import json

from test_daemon import NO_BUS


def test_no_firmware_card_need_on_a_card_without_a_firmware_vf_limit(make_host):
    """Trial 30 (4): an X710's ports share a card but no firmware VF limit (only mlx5 has
    NUM_OF_VFS): status --json says no need of one; a ConnectX-6 Dx's other port does."""
    h = make_host("x710.json")
    pfs = [p["pci"] for p in json.loads(h.run("status", "--json", env=NO_BUS).stdout)["pfs"]]
    h.layout("50-x710.conf",
             f"[Match]\nPCIAddress={pfs[0]}\n[PhysicalFunction]\nVirtualFunctions=8\n")
    doc = json.loads(h.run("status", "--json", env=NO_BUS).stdout)
    other = next(p for p in doc["pfs"] if p["pci"] == pfs[1])
    assert other["firmware_card_need"] is None, other
    c = make_host("cx6dx.json")
    c.layout("50-p0.conf",
             "[Match]\nPCIAddress=0000:ca:00.0\n[PhysicalFunction]\nVirtualFunctions=8\n")
    doc = json.loads(c.run("status", "--json", env=NO_BUS).stdout)
    other = next(p for p in doc["pfs"] if p["pci"] == "0000:ca:00.1")
    assert other["firmware_card_need"] == {"num_vfs": 8, "by": "0000:ca:00.0"}, other
