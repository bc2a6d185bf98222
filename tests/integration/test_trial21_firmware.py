# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 21, firmware, two ports of one card (one NUM_OF_VFS): the command that sets a raised
limit back gives the limit the layouts of the card's other ports still need, or none when they
need all of it (status, reset); the raise is made by, shown under and credited to the first port
of the card whose layout needs it, raised as far as all the card's ports need (plan, apply, the
status records)."""

import json

CX6_A = "0000:ca:00.0"  # cx6dx.json: two ports of one card, sriov_totalvfs and NUM_OF_VFS 8
CX6_B = "0000:ca:00.1"


def layouts(h, a, b):
    h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
             f"VirtualFunctions={a}\n")
    return h.layout("50-b.conf", f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\n"
                    f"VirtualFunctions={b}\n")


def pfs(h):
    r = h.run("status", "--json")
    assert r.returncode == 0, r.stderr
    return {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}


def block(out, pci):
    """The lines of pci's PF in sriovctl plan's or status's output."""
    lines, on = [], False
    for line in out.splitlines():
        if not line.startswith(" "):
            on = line.startswith(pci)
        if on:
            lines.append(line)
    return "\n".join(lines)


def test_the_set_back_command_keeps_what_the_other_port_needs(make_host):
    h = make_host("cx6dx.json")
    b = layouts(h, 12, 16)
    # the apply of 0000:ca:00.1 alone raises the card as far as both need, and is credited
    r = h.run("apply", CX6_B)
    assert r.returncode == 0 and "done raise firmware VF limit to 16" in r.stdout, r.stdout
    assert h.run("apply", CX6_A).returncode == 0
    b.unlink()
    st = pfs(h)[CX6_B]
    assert st["pending_reboot_reasons"][0].startswith(
        "firmware VF limit raised to 16, waiting for a reboot (set by the apply of "), st
    out = h.run("status").stdout
    assert f"no layout selects it; \"mstconfig -d {CX6_B} set NUM_OF_VFS=12\" sets it to the " \
        f"limit the card's other ports need ({CX6_A}'s layout needs 12)\n" in out, out
    assert "NUM_OF_VFS=8" not in out, out
    r = h.run("reset", CX6_B)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"(\"mstconfig -d {CX6_B} set NUM_OF_VFS=12\" sets it to the limit the card's " \
        f"other ports need ({CX6_A}'s layout needs 12))" \
        in r.stdout, r.stdout
    assert "NUM_OF_VFS=8" not in r.stdout, r.stdout


def test_no_set_back_command_when_the_other_port_needs_all_of_it(make_host):
    h = make_host("cx6dx.json")
    b = layouts(h, 16, 16)
    assert h.run("apply", CX6_B).returncode == 0
    assert h.run("apply", CX6_A).returncode == 0
    b.unlink()
    out = h.run("status").stdout
    assert f"no layout selects it; no mstconfig command sets it back: {CX6_A}'s layout needs " \
        "16 of it (the card's other port)\n" in out, out
    assert "mstconfig -d" not in out, out
    r = h.run("reset", CX6_B)
    assert r.returncode == 0 and "mstconfig -d" not in r.stdout, r.stdout
    assert f"no mstconfig command sets it back: {CX6_A}'s layout needs 16" in r.stdout, r.stdout


def test_plan_and_apply_raise_under_the_first_port_and_credit_it(make_host):
    h = make_host("cx6dx.json")
    b = layouts(h, 12, 16)
    out = h.run("plan").stdout
    a_plan, b_plan = block(out, CX6_A), block(out, CX6_B)
    assert "disruptive raise firmware VF limit to 16 (reboot)" in a_plan, out
    assert "raise firmware VF limit" not in b_plan, out
    assert f"(raised by the apply of {CX6_A}, one setting of this card)" in b_plan, out
    # only planned, not done: no "reboot needed:" as if the firmware held it already
    assert "  reboot needed:" not in out, out
    assert "  reboot needed after its apply: firmware VF limit 8 -> 16 (as far as the layouts of " \
        f"{CX6_B} need too, one setting of this card) takes effect after a reboot" in a_plan, out
    assert "  reboot needed after its apply: firmware VF limit 8 -> 16 (raised by the apply of " \
        f"{CX6_A}, one setting of this card) takes effect after a reboot" in b_plan, out
    doc = json.loads(h.run("plan", "--json").stdout)
    assert [p["reboot_planned"] for p in doc["pfs"]] == [p["reboot_reasons"] for p in doc["pfs"]]
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "done raise firmware VF limit to 16 (reboot)" in block(r.stdout, CX6_A), r.stdout
    assert "raise firmware VF limit" not in block(r.stdout, CX6_B), r.stdout
    out = h.run("plan").stdout
    assert "reboot needed after its apply" not in out, out
    assert block(out, CX6_B).endswith(
        "\n  reboot needed: firmware VF limit raised to 16, waiting for a reboot (the card raise "
        f"made by the apply of {CX6_A})"), out
    assert f"(raised by the apply of {CX6_A}, one setting of this card: a reboot is pending through it)" \
        in block(h.run("status").stdout, CX6_B)
    # 0000:ca:00.1's apply raised nothing: once no layout selects it, no raise is its own
    b.unlink()
    st = pfs(h)
    assert st[CX6_B]["pending_reboot_reasons"] == [], st[CX6_B]
    back = f"\"mstconfig -d {CX6_B} set NUM_OF_VFS=12\" sets it to the limit the card's other " \
        f"ports need ({CX6_A}'s layout needs 12)"
    assert st[CX6_B]["firmware_note"] == "firmware VF limit 16 from the next reboot, 8 until " \
        f"then (raised by the apply of {CX6_A}, one setting of this card); {back}", st[CX6_B]
    assert st[CX6_A]["pending_reboot_reasons"] == \
        ["firmware VF limit raised to 16, waiting for a reboot"], st[CX6_A]
    out = h.run("status").stdout
    assert "NUM_OF_VFS=8" not in out and back in block(out, CX6_B), out
    r = h.run("reset", CX6_B)
    assert r.returncode == 0 and f"({back})" in r.stdout and "NUM_OF_VFS=8" not in r.stdout, \
        r.stdout


def test_a_raise_set_back_by_hand_is_said_as_what_the_host_has(make_host):
    h = make_host("cx6dx.json")
    layouts(h, 12, 16)
    assert h.run("apply").returncode == 0
    s = h.state()
    for p in s["pfs"]:
        p["firmware_total_vfs"] = 8  # mstconfig set NUM_OF_VFS=8, by hand
    h.save(s)
    st = pfs(h)
    assert st[CX6_A]["state"] == "drifted", st[CX6_A]
    assert st[CX6_A]["reason"] == \
        "differs: firmware VF limit 8 (wanted 16; raising it needs a reboot)", st[CX6_A]
    assert st[CX6_B]["reason"] == "not applied yet; after its apply: firmware VF limit 8 -> 16 " \
        f"(raised by the apply of {CX6_A}, one setting of this card) takes effect after a reboot", st[CX6_B]
    assert st[CX6_B]["pending_reboot_reasons"] == [], st[CX6_B]
    out = h.run("status").stdout
    assert "differs: raise firmware VF limit" not in out, out


def test_a_reset_through_the_daemon_keeps_what_the_other_port_needs(
        make_host, start_daemon, bus_client, system_bus):
    import os
    import subprocess
    from conftest import PF_IFACE, pf_path
    from test_daemon import NO_BUS

    h = make_host("cx6dx.json")
    b = layouts(h, 12, 16)
    assert h.run("apply", CX6_B, env=NO_BUS).returncode == 0
    assert h.run("apply", CX6_A, env=NO_BUS).returncode == 0
    start_daemon(h)
    b.unlink()
    bus_client.call("Reload")
    bus_client.wait_property("State", "unconfigured", pf_path(CX6_B), PF_IFACE)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    back = f"\"mstconfig -d {CX6_B} set NUM_OF_VFS=12\" sets it to the limit the card's other " \
        f"ports need ({CX6_A}'s layout needs 12)"
    for args in (("reset", CX6_B), ("reset",)):
        r = subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                           timeout=120, env=env)
        assert r.returncode == 0 and back in r.stdout, r
        assert "NUM_OF_VFS=8" not in r.stdout, r
