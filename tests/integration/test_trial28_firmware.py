# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 28 (fresh eyes), firmware of a two-port ConnectX card (cx6dx.json, one NUM_OF_VFS): the
port whose apply waits for the card raise another port's apply made waits for the reboot in its
metrics too (sriov_persist_pf_reboot_pending 1, its reason the card-wait one), while status
--json credits the pending reboot to the raising port only; sriovctl wait says the same
card-wait reason as status (4)."""

import json

from test_daemon import NO_BUS

CX6_A, CX6_B = "0000:ca:00.0", "0000:ca:00.1"


def layout(h, pci, n, name):
    return h.layout(name, f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions={n}\n")


def pf_json(h, pci, env=NO_BUS):
    r = h.run("status", "--json", env=env)
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


# --- 4: the port waiting for the card raise waits for the reboot in its metrics ----------------

RAISED12 = "firmware VF limit raised to 12, waiting for a reboot"
WAITS12 = f"{RAISED12} (the card raise made by the apply of {CX6_A})"


def card_wait_12(h):
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    layout(h, CX6_A, 12, "50-p0.conf")
    layout(h, CX6_B, 10, "51-p1.conf")
    assert h.run("apply", env=NO_BUS).returncode == 0


def test_the_port_waiting_for_the_card_raise_is_reboot_pending_in_metrics(make_host):
    h = make_host("cx6dx.json")
    card_wait_12(h)
    a, b = pf_json(h, CX6_A), pf_json(h, CX6_B)
    assert b["state"] == "pending" and b["reason"] == WAITS12, b
    # one reboot, one reason: credited to the port whose apply raised it
    assert a["pending_reboot_reasons"] == [RAISED12], a
    assert b["pending_reboot_reasons"] == [], b
    m = h.run("metrics", env=NO_BUS).stdout
    assert f'sriov_persist_pf_reboot_pending{{pf="ens3f0np0",pf_pci="{CX6_A}"}} 1' in m, m
    assert f'sriov_persist_pf_reboot_pending{{pf="ens3f1np1",pf_pci="{CX6_B}"}} 1' in m, m
    assert (f'sriov_persist_pf_reboot_pending_info{{pf="ens3f1np1",pf_pci="{CX6_B}",'
            f'reason="{WAITS12}"}} 1') in m, m
    assert (f'sriov_persist_pf_reboot_pending_info{{pf="ens3f0np0",pf_pci="{CX6_A}",'
            f'reason="{RAISED12}"}} 1') in m, m


def test_wait_says_the_card_wait_reason_as_status(make_host):
    h = make_host("cx6dx.json")
    card_wait_12(h)
    r = h.run("wait", "--timeout", "5", env=NO_BUS)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"Pending a reboot: {CX6_B} (ens3f1np1): {WAITS12}\n" in r.stdout, r.stdout
    assert f"Pending a reboot: {CX6_A} (ens3f0np0): {RAISED12}\n" in r.stdout, r.stdout
