# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fresh-eyes trial 18, the daemon: a firmware VF limit that an apply raised stays in the
daemon's PendingReboot/PendingRebootReasons (and the status header, the node annotation) when
its layout is removed, in the PF's status words, and [Reboot] Policy= makes no reboot for such
reasons alone, while a reboot made for another reason satisfies them too (1); the journal and
sriovctl apply say a PF whose apply left it waiting for a reboot is pending, not applied (7)."""

import json
import re
import time
from pathlib import Path

from conftest import PF_IFACE, pf_path
from test_daemon import NO_BUS
from test_daemon_k8s import BOOT_1, CX6_NODE, env, k8s_notify_bin, reboot_host  # noqa: F401
from test_reset_daemon import ctl

CX6_A = "0000:ca:00.0"  # cx6dx.json: sriov_totalvfs and NUM_OF_VFS 8, two ports of one card
CX6_B = "0000:ca:00.1"
RAISED = "firmware VF limit raised to 12, waiting for a reboot"
UNASKED = re.escape(RAISED) + r" \(set by the apply of \S+Z; no layout asks for it now\)"
MAIN = "[Disruption]\nPolicy=immediate\n"
LAYOUT = f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\nVirtualFunctions=12\n" \
         "ESwitchMode=switchdev\n"


def pf_doc(doc, pci=CX6_A):
    return next(p for p in doc["pfs"] if p["pci"] == pci)


def raised_by_the_daemon(make_host, start_daemon, c):
    h = make_host("cx6dx.json")
    h.main.write_text(MAIN)
    f = h.layout("50-a.conf", LAYOUT)
    d = start_daemon(h)
    c.wait_property("PendingReboot", True)
    assert c.get("PendingRebootReasons") == [f"{CX6_A}: {RAISED}"]
    c.wait_property("State", "pending", pf_path(CX6_A), PF_IFACE)
    return h, f, d


# --- 1: the raise stays pending in the daemon once its layout is removed -----------------------

def test_removed_layout_keeps_the_firmware_raise_pending(make_host, start_daemon, bus_client,
                                                         system_bus):
    c = bus_client
    h, f, d = raised_by_the_daemon(make_host, start_daemon, c)
    f.unlink()
    c.call("Reload")
    c.wait_property("State", "unconfigured", pf_path(CX6_A), PF_IFACE)
    assert c.get("PendingReboot") is True
    reasons = c.get("PendingRebootReasons")
    assert len(reasons) == 1 and re.fullmatch(f"{re.escape(CX6_A)}: {UNASKED}", reasons[0]), \
        reasons
    # the words of the PF's own status, through the daemon and here alike
    doc = json.loads(ctl(h, system_bus, "status", "--json").stdout)
    assert doc["daemon"]["pending_reboot_reasons"] == reasons, doc["daemon"]
    assert [f"{CX6_A}: {r}" for r in pf_doc(doc)["pending_reboot_reasons"]] == reasons, doc
    local = json.loads(h.run("status", "--json", env=NO_BUS).stdout)
    assert pf_doc(local)["pending_reboot_reasons"] == pf_doc(doc)["pending_reboot_reasons"]
    out = ctl(h, system_bus, "status").stdout
    assert f"\n  pending reboot: {reasons[0]}\n" in out, out
    # kept across a restart of the daemon, with no layout
    d.stop()
    d.start()
    assert c.get("PendingRebootReasons") == reasons
    record = json.loads((h.dir / "host.json.lib" / "reboot.json").read_text())
    assert [r.get("unasked") for r in record["reasons"]] == [True], record


def test_no_reboot_for_a_raise_no_layout_asks_for_until_one_does(env):  # noqa: F811
    """[Reboot] Policy=immediate: a pending raise whose layout is gone is reported, no reboot is
    made for it; a layout that asks for a reboot then (the other port of the card, whose VFs
    wait for the same limit) gets one, and that reboot satisfies both."""
    c = env.c
    h = env.host("cx6dx.json", CX6_NODE, reboot="immediate", Enabled="no")
    h.main.write_text(MAIN + "[Reboot]\nPolicy=immediate\n")
    h.edit(lambda s: s.update(boot_id=BOOT_1))
    f = h.layout("50-a.conf", LAYOUT)
    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 0, r
    f.unlink()
    op_file = Path(f"{h.path}.lib") / "operation.json"
    env.logind.start(op_file)
    d = env.start(h)
    c.wait_property("PendingReboot", True)
    assert re.fullmatch(f"{re.escape(CX6_A)}: {UNASKED}", c.get("PendingRebootReasons")[0])
    deadline = time.monotonic() + 3
    c.wait(lambda: time.monotonic() > deadline, timeout=10, what="3 s")
    assert env.logind.calls() == [], "rebooted for a raise that no layout asks for"
    assert c.get("State") != "rebooting" and not op_file.exists()

    h.layout("50-b.conf", f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\n"
             "VirtualFunctions=12\n")
    c.call("Reload")
    c.wait(lambda: env.logind.calls(), timeout=60, what="Reboot() on logind")
    # ca:00.1 waits for ca:00.0's raise, whose reason its layout now asks for (trial 27, 5)
    assert len(c.get("PendingRebootReasons")) == 1, c.get("PendingRebootReasons")
    assert f"{CX6_B}'s layout needs 12 of it" in c.get("PendingRebootReasons")[0]
    d.stop()
    reboot_host(h)
    d.start()
    c.wait(lambda: not op_file.exists(), timeout=60, what="operation.json removed after the boot")
    c.wait_property("PendingReboot", False)
    assert c.get("PendingRebootReasons") == []
    assert h.pf(CX6_B)["num_vfs"] == 12
    assert len(env.logind.calls()) == 1


def test_node_annotation_keeps_the_raise(env):  # noqa: F811
    c, srv = env.c, env.srv
    h = env.host("cx6dx.json", CX6_NODE)
    h.main.write_text(h.main.read_text().replace("Policy=drain", "Policy=immediate"))
    srv.add_node(CX6_NODE, allocatable={})
    f = h.layout("50-a.conf", LAYOUT)
    env.start(h)
    c.wait_property("PendingReboot", True)
    f.unlink()
    c.call("Reload")
    c.wait_property("State", "unconfigured", pf_path(CX6_A), PF_IFACE)

    def annotation():
        a = srv.get("node", None, CX6_NODE)["metadata"].get("annotations") or {}
        return a.get("sriov-persist.io/pending-reboot", "")
    c.wait(lambda: "no layout asks for it now" in annotation(), timeout=30,
           what="the pending-reboot annotation")
    assert re.fullmatch(f"{re.escape(CX6_A)}: {UNASKED}", annotation()), annotation()


# --- 7: an apply that leaves the PF waiting for a reboot is pending, not applied ---------------

def test_journal_and_apply_say_pending_a_reboot(make_host, start_daemon, bus_client):
    c = bus_client
    h, _, d = raised_by_the_daemon(make_host, start_daemon, c)
    log = d.log_text()
    line = re.search(rf"^.*{re.escape(CX6_A)} \(ens3f0np0\): (pending a reboot|applied) after "
                     r"\d+ action\(s\).*$", log, re.M)
    assert line and line.group(1) == "pending a reboot", log
    assert line.group(0).endswith(": firmware VF limit 8 -> 12 takes effect after a reboot"), \
        line.group(0)

    # sriovctl apply, here, of the same change
    h2 = make_host("cx6dx.json")
    h2.main.write_text(MAIN)
    h2.layout("50-a.conf", LAYOUT)
    r = h2.run("apply", env=NO_BUS)
    assert r.returncode == 0, r  # sriovctl(8): waiting only for a reboot counts as applied
    assert re.search(rf"^{re.escape(CX6_A)} \(ens3f0np0\): pending a reboot, \d+ action\(s\) in "
                     r".*, 0 VFs$", r.stdout, re.M), r.stdout
    assert "  reboot needed: firmware VF limit 8 -> 12 takes effect after a reboot\n" in r.stdout, \
        r.stdout
