# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 19, firmware: a PF that is not applied yet is not "pending reboot" (status, its JSON,
the metrics), even when its apply would raise the firmware VF limit or set a link type that a
reboot brings: it says "not applied yet", reboot_pending is 0, so the alerts for PFs that wait
fire; the other port of the card says whether the raise is still to come or done; a port that no
layout selects says that its card's limit changes at the next reboot."""

import json
import re

CX6_A = "0000:ca:00.0"  # cx6dx.json: two ports of one card, sriov_totalvfs and NUM_OF_VFS 8
CX6_B = "0000:ca:00.1"
VPI_B = "0000:41:00.1"  # cx6-vpi.json: ethernet


def pfs(h):
    r = h.run("status", "--json")
    assert r.returncode == 0, r.stderr
    return {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}


def reboot_pending(h, pci):
    r = h.run("metrics")
    assert r.returncode == 0, r.stderr
    m = re.search(r'^sriov_persist_pf_reboot_pending\{[^}]*pci="%s"[^}]*\} (\d)$' % pci,
                  r.stdout, re.M)
    assert m, r.stdout
    return int(m.group(1))


def two_ports(h):
    h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\nVirtualFunctions=16\n")
    h.layout("50-b.conf", f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\nVirtualFunctions=4\n")


def test_a_raise_not_applied_yet_is_no_pending_reboot(make_host):
    h = make_host("cx6dx.json")
    two_ports(h)
    r = h.run("apply", "ens3f1np1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [p["firmware_total_vfs"] for p in h.state()["pfs"]] == [8, 8]
    st = pfs(h)
    a = st[CX6_A]
    assert a["state"] == "pending" and a["pending_reboot_reasons"] == [], a
    assert a["reason"] == "not applied yet; after its apply: firmware VF limit 8 -> 16 takes " \
        "effect after a reboot", a["reason"]
    assert st[CX6_B]["state"] == "applied" and st[CX6_B]["pending_reboot_reasons"] == []
    out = h.run("status").stdout
    assert "pending reboot:" not in out, out
    assert f"firmware VF limit 8 (to be raised by the apply of {CX6_A}, one setting of this " \
        "card)" in out, out
    assert "a reboot is pending through it" not in out, out
    assert reboot_pending(h, CX6_A) == 0 and reboot_pending(h, CX6_B) == 0

    # after its apply the raise is done and waits for the reboot, as before
    r = h.run("apply", CX6_A)
    assert r.returncode == 0, r.stdout + r.stderr
    st = pfs(h)
    assert st[CX6_A]["state"] == "pending", st[CX6_A]
    assert st[CX6_A]["pending_reboot_reasons"] == \
        ["firmware VF limit raised to 16, waiting for a reboot"]
    out = h.run("status").stdout
    assert "pending reboot: firmware VF limit raised to 16, waiting for a reboot" in out, out
    assert f"(raised by the apply of {CX6_A}, one setting of this card: a reboot is pending through it)" \
        in out, out
    assert reboot_pending(h, CX6_A) == 1 and reboot_pending(h, CX6_B) == 0


def test_a_link_type_not_applied_yet_is_no_pending_reboot(make_host):
    h = make_host("cx6-vpi.json")
    h.layout("50-ib.conf", f"[Match]\nPCIAddress={VPI_B}\n[PhysicalFunction]\nVirtualFunctions=2\n"
             "LinkType=infiniband\n")
    p = pfs(h)[VPI_B]
    assert p["state"] == "pending" and p["pending_reboot_reasons"] == [], p
    assert p["reason"] == "not applied yet; after its apply: link type ethernet -> infiniband " \
        "takes effect after a reboot", p["reason"]
    assert "pending reboot:" not in h.run("status").stdout
    assert reboot_pending(h, VPI_B) == 0
    r = h.run("apply", VPI_B)
    assert r.returncode == 0, r.stdout + r.stderr
    p = pfs(h)[VPI_B]
    assert p["pending_reboot_reasons"] == \
        ["link type infiniband is set in firmware, waiting for a reboot"], p
    assert reboot_pending(h, VPI_B) == 1


def test_wait_counts_no_reboot_for_a_pf_not_applied(make_host):
    """wait waits for the apply of a PF whose apply would raise the limit; once applied, it is
    the one PF pending a reboot."""
    h = make_host("cx6dx.json")
    two_ports(h)
    assert h.run("apply", CX6_B).returncode == 0
    r = h.run("wait", "--timeout", "1")
    assert r.returncode != 0 and f"Timed out after 1s; not applied yet:\nNot applied yet: {CX6_A}" in r.stdout, \
        r.stdout + r.stderr
    assert h.run("apply", CX6_A).returncode == 0
    r = h.run("wait", "--timeout", "1")
    assert "2 configured PF(s): 1 applied, 1 pending a reboot, 0 not" in r.stdout, \
        r.stdout + r.stderr


def test_the_other_port_without_layout_says_its_limit_changes(make_host):
    h = make_host("cx6dx.json")
    h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\nVirtualFunctions=16\n")
    assert h.run("apply").returncode == 0
    b = pfs(h)[CX6_B]
    assert b["state"] == "unconfigured" and b["pending_reboot_reasons"] == [], b
    note = f"firmware VF limit 16 from the next reboot, 8 until then (raised by the apply of {CX6_A}, one " \
        "setting of this card)"
    assert b["reason"] is None and b["firmware_note"] == note, b
    out = h.run("status").stdout
    block = out.split(CX6_B, 1)[1]
    assert f"    {note}\n" in block, out
    assert "reset" not in block, out
    assert reboot_pending(h, CX6_B) == 0
