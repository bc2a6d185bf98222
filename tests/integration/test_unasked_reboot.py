# SPDX-License-Identifier: LGPL-2.1-or-later
"""No reboot for a reason no layout asks for, under [Reboot] Policy=immediate, on cx6dx.json (two
ConnectX-6 Dx ports, one firmware VF limit for the card, 12 in effect): of a port no layout
selects, the layout of the card's other port that needs a raise asks only for a raise an apply
made to at least what it needs, never for a link type set in firmware nor for a raise short of
it; and a limit an apply raised to 20, set by hand to 14 since, which the layout of its port
wants more than, waits for the reboot (PendingReboot) but is asked by no layout either."""

import json
import re
import time
from pathlib import Path

from test_daemon import NO_BUS
from test_daemon_k8s import CX6_NODE, env, k8s_notify_bin  # noqa: F401

CX6_A, CX6_B = "0000:ca:00.0", "0000:ca:00.1"
WHEN = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
# [Drift] Mode=report: the daemon applies nothing at start; ca:00.1's layout is not applied
MAIN = "[Drift]\nMode=report\n[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=immediate\n"


def host(env):  # noqa: F811
    """Both ports run with (and the firmware holds) a VF limit of 12; ca:00.0 is a VPI port
    (LINK_TYPE_P1 in firmware, ethernet)."""
    h = env.host("cx6dx.json", CX6_NODE, reboot="immediate", Enabled="no")
    h.main.write_text(MAIN)

    def change(s):
        for p in s["pfs"]:
            if p["pci"] in (CX6_A, CX6_B):
                p["total_vfs"] = p["firmware_total_vfs"] = 12
            if p["pci"] == CX6_A:
                p["firmware_link_type"] = "ethernet"
            if p["pci"] == CX6_B:
                p["vf_offset"] = 40
    h.edit(change)
    return h


def layout(h, pci, n, name, extra=""):
    return h.layout(name, f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\n"
                    f"VirtualFunctions={n}\n{extra}")


def start(env, h):  # noqa: F811
    env.logind.start(Path(f"{h.path}.lib") / "operation.json")
    return env.start(h)


def reasons_of(env, h, pci):  # noqa: F811
    """PendingRebootReasons of pci, and reboot.json's record of each: {reason: unasked}."""
    said = [x[len(pci) + 2:] for x in env.c.get("PendingRebootReasons")
            if x.startswith(f"{pci}: ")]
    rec = json.loads((Path(f"{h.path}.lib") / "reboot.json").read_text())["reasons"]
    return said, {x["reason"]: x.get("unasked", False) for x in rec if x["pci"] == pci}


def assert_no_reboot(env, d):  # noqa: F811
    env.settle()
    deadline = time.monotonic() + 2
    env.c.wait(lambda: time.monotonic() > deadline, timeout=10, what="2 s")
    assert env.logind.calls() == [], "rebooted for a reason no layout asks for"
    assert "Asking logind to reboot" not in d.log_text(), d.log_text()


def pf_json(h, pci):
    r = h.run("status", "--json", env=NO_BUS)
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


def test_a_link_type_of_a_port_no_layout_selects_is_asked_by_no_layout(env):  # noqa: F811
    """ca:00.0's apply set infiniband in firmware, its layout removed since; ca:00.1's layout
    wants 16, more than the 12 in effect: it needs a raise, not ca:00.0's link type."""
    h = host(env)
    a = layout(h, CX6_A, 4, "50-p0.conf", "LinkType=infiniband\n[VirtualFunction]\n"
               "IBNodeGUID=stable\nIBPortGUID=stable\nRDMA=yes\n")
    r = h.run("apply", CX6_A, env=NO_BUS)
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.pf(CX6_A)["firmware_link_type"] == "infiniband"
    a.unlink()
    layout(h, CX6_B, 16, "51-p1.conf")
    link = re.compile(r"link type infiniband is set in firmware, waiting for a reboot \(set by "
                      rf"the apply of {WHEN}; no layout asks for it now\)")
    pf = pf_json(h, CX6_A)
    assert [x for x in pf["pending_reboot_reasons"] if link.fullmatch(x)], pf
    d = start(env, h)
    env.c.wait(lambda: any(link.fullmatch(x) for x in reasons_of(env, h, CX6_A)[0]), timeout=60,
               what="the link type pending")
    said, rec = reasons_of(env, h, CX6_A)
    assert len(said) == 1 and link.fullmatch(said[0]), said
    assert rec == {said[0]: True}, rec
    assert_no_reboot(env, d)


def test_a_raise_short_of_the_other_ports_need_is_asked_by_no_layout(env):  # noqa: F811
    """ca:00.0's apply raised the limit to 16, its layout removed since; ca:00.1's layout wants
    20: the reboot for the 16 would not give it what it wants. One that wants 16 asks for it."""
    h = host(env)
    a = layout(h, CX6_A, 16, "50-p0.conf")
    r = h.run("apply", CX6_A, env=NO_BUS)
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.pf(CX6_A)["firmware_total_vfs"] == 16
    a.unlink()
    b = layout(h, CX6_B, 20, "51-p1.conf")
    raised = re.compile(r"firmware VF limit raised to 16, waiting for a reboot \(set by the apply "
                        rf"of {WHEN}; {CX6_B}'s layout needs 20, more than it; no layout asks "
                        r"for it now\)")
    d = start(env, h)
    env.c.wait(lambda: any(raised.fullmatch(x) for x in reasons_of(env, h, CX6_A)[0]),
               timeout=60, what="the raise to 16 pending")
    said, rec = reasons_of(env, h, CX6_A)
    assert rec == {said[0]: True}, rec
    assert_no_reboot(env, d)
    # a layout the raise to 16 gives what it wants asks for it: the reboot is made
    b.write_text(f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\nVirtualFunctions=16\n")
    env.c.call("Reload")
    env.c.wait(lambda: env.logind.calls(), timeout=60, what="Reboot() on logind")


def test_a_limit_set_by_hand_short_of_the_layout_makes_no_reboot(env):  # noqa: F811
    """ca:00.0's apply raised the limit to 20 for its layout, set by hand to 14 since (12 in
    effect): the 14 waits for the reboot, PendingReboot, but that reboot would not give the
    layout its 20, so none is made for it."""
    h = host(env)
    layout(h, CX6_A, 20, "50-p0.conf")
    r = h.run("apply", CX6_A, env=NO_BUS)
    assert r.returncode == 0, r.stdout + r.stderr
    h.edit(lambda s: [p.update(firmware_total_vfs=14) for p in s["pfs"]
                      if p["pci"] in (CX6_A, CX6_B)])  # mstconfig by hand
    said_re = re.compile(r"firmware VF limit 14 set in firmware, waiting for a reboot \(the apply "
                         rf"of {WHEN} raised it to 20; changed since; its layout needs 20\)")
    pf = pf_json(h, CX6_A)
    assert len(pf["pending_reboot_reasons"]) == 1, pf
    assert said_re.fullmatch(pf["pending_reboot_reasons"][0]), pf
    d = start(env, h)
    env.c.wait(lambda: reasons_of(env, h, CX6_A)[0], timeout=60, what="the limit 14 pending")
    said, rec = reasons_of(env, h, CX6_A)
    assert len(said) == 1 and said_re.fullmatch(said[0]), said
    assert rec == {said[0]: True}, rec
    assert env.c.get("PendingReboot") is True
    assert_no_reboot(env, d)
