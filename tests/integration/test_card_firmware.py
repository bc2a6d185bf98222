# SPDX-License-Identifier: LGPL-2.1-or-later
"""NUM_OF_VFS is one setting of a ConnectX card: FirmwareVirtualFunctions=no on one port forbids
raising it for the other (the raise would change the first port's limit against its layout), and
status says on every port what the card's limit becomes and through which port."""

import json

CX6_A = "0000:ca:00.0"  # cx6dx.json: two ports of one card, sriov_totalvfs and NUM_OF_VFS 8
CX6_B = "0000:ca:00.1"


def layouts(h, no=True):
    a = h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\nVirtualFunctions=4\n"
                 + ("FirmwareVirtualFunctions=no\n" if no else ""))
    b = h.layout("60-b.conf", f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\nVirtualFunctions=20\n")
    return a, b


def test_no_on_one_port_holds_the_raise_of_the_other(make_host):
    h = make_host("cx6dx.json")
    a, b = layouts(h)
    want = f"{b}:4: VirtualFunctions=20: the PF supports at most 8 VFs (sriov_totalvfs), and the " \
           "firmware limit, one setting of this card, may not be raised: " \
           f"FirmwareVirtualFunctions=no ({a}:5) for its port {CX6_A}"
    r = h.run("check")
    assert r.returncode == 1 and r.stderr.splitlines() == [want], r.stdout + r.stderr
    # the apply of that port alone (as its apply unit runs) sees the other port too
    r = h.run("apply", CX6_B)
    assert r.returncode == 1 and f"{CX6_B} (ens3f1np1): held (nothing applied): {want}" \
        in r.stdout, r.stdout
    r = h.run("apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert [p["firmware_total_vfs"] for p in h.state()["pfs"]] == [8, 8]
    assert h.pf(CX6_A)["num_vfs"] == 4  # the port that says no is applied
    st = {p["pci"]: p for p in json.loads(h.run("status", "--json").stdout)["pfs"]}
    assert st[CX6_A]["state"] == "applied" and st[CX6_B]["state"] == "held", st
    out = h.run("status", CX6_A).stdout
    assert "firmware VF limit 8 (FirmwareVirtualFunctions=no: not raised)\n" in out, out


def test_status_shows_the_cards_raise_on_every_port(make_host):
    h = make_host("cx6dx.json")
    layouts(h, no=False)
    through = f"raised by the apply of {CX6_B}, one setting of this card: a reboot is pending through it"
    out = h.run("status").stdout
    # before B's apply the raise is only planned: no reboot is pending through it
    assert f"firmware VF limit 8 (to be raised by the apply of {CX6_B}, one setting of this " \
        "card)\n" in out, out
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [p["firmware_total_vfs"] for p in h.state()["pfs"]] == [20, 20]
    out = h.run("status").stdout
    assert f"firmware VF limit 20 from the next reboot, 8 until then ({through})\n" in out, out
    # port A's own layout needs no reboot: it is applied, as FIRMWARE in the manual says
    st = {p["pci"]: p for p in json.loads(h.run("status", "--json").stdout)["pfs"]}
    assert st[CX6_A]["state"] == "applied" and st[CX6_A]["pending_reboot_reasons"] == []
    assert st[CX6_B]["pending_reboot_reasons"] == ["firmware VF limit raised to 20, waiting for a reboot"]

    # a "no" written after the raise: nothing more is written, and status says what is true
    layouts(h, no=True)
    assert h.run("check").returncode == 0
    out = h.run("status").stdout
    assert "firmware VF limit 20 from the next reboot, 8 until then (FirmwareVirtualFunctions=no: " \
           f"not raised further; {through})\n" in out, out


def test_the_simulated_card_has_one_limit(make_host):
    """The simulated host writes a raise through one port into every port of the card, also when
    the apply of the whole host wrote the other port before (its text is not kept)."""
    h = make_host("cx6dx.json")
    layouts(h, no=False)
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [p["firmware_total_vfs"] for p in h.state()["pfs"]] == [20, 20]
    assert h.pf(CX6_A)["num_vfs"] == 4


def test_status_names_the_port_the_limit_is_raised_for(make_host):
    """Both ports want more than the firmware's 8: the plan raises the card's limit once, for the
    port that wants the most; status names that port on the other one, and on the port itself
    speaks of no other port, before and after the apply."""
    h = make_host("cx6dx.json")
    h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\nVirtualFunctions=16\n")
    h.layout("60-b.conf", f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\nVirtualFunctions=12\n")
    through = f"raised by the apply of {CX6_A}, one setting of this card: a reboot is pending through it"

    def firmware_line(pci):
        """What the status of the whole host says of pci's firmware VF limit."""
        out = h.run("status").stdout
        block = out.split(pci, 1)[1]
        return next(line for line in block.splitlines()
                    if line.startswith("    speed")).split(", firmware ")[1]

    assert firmware_line(CX6_A) == "VF limit 8", h.run("status").stdout
    assert firmware_line(CX6_B) == \
        f"VF limit 8 (to be raised by the apply of {CX6_A}, one setting of this card)"
    r = h.run("apply")
    assert r.returncode == 0 and "done raise firmware VF limit to 16" in r.stdout, r.stdout
    assert firmware_line(CX6_A) == "VF limit 16 from the next reboot, 8 until then"
    assert firmware_line(CX6_B) == f"VF limit 16 from the next reboot, 8 until then ({through})"
