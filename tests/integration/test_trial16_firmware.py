# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 16: a firmware VF limit that an apply raised stays pending until the reboot (or a
firmware reset) whatever happens to the layouts: with the layout removed, status (table and
JSON), metrics and reset still say it, and the PF's record of that apply survives applies and
resets of the now unconfigured PF. A deferred reset's record is said to be a reset's, and a
pending PF's hint is the full command to run."""

import json
import re

from conftest import PF_IFACE, pf_path, place_card_vfs
from test_daemon import NO_BUS
from test_reset_daemon import ctl

CX6_A = "0000:ca:00.0"  # cx6dx.json: sriov_totalvfs and NUM_OF_VFS 8, two ports of one card
CX6_B = "0000:ca:00.1"
RAISED = "firmware VF limit raised to 16, waiting for a reboot"
STAYS = ("the firmware VF limit raised to 16 stays set for the next reboot: a reset changes no "
         f"firmware (\"mstconfig -d {CX6_A} set NUM_OF_VFS=8\" sets it back to the limit it has "
         "now)")
def never(h, line=2):
    """Why [Disruption] Policy=never, at line of h's main configuration, holds a change."""
    return (f"disruptive changes held by [Disruption] Policy=never in {h.main}:{line}; set "
            "Policy=drain or immediate there to let them run, or make the change by hand")


def run(h, *args):
    return h.run(*args, env=NO_BUS)


def status_of(h, pci=CX6_A):
    r = run(h, "status", "--json")
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


def metric(h, family, pci=CX6_A):
    out = run(h, "metrics").stdout
    return [line for line in out.splitlines()
            if line.startswith(f"sriov_persist_{family}{{") and f'pf_pci="{pci}"' in line]


def raised_then_removed(make_host):
    h = make_host("cx6dx.json")
    f = h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=16\n")
    r = run(h, "apply")
    assert r.returncode == 0 and "done raise firmware VF limit to 16" in r.stdout, r.stdout
    assert status_of(h)["pending_reboot_reasons"] == [RAISED]
    f.unlink()
    return h


def pending_reason(h):
    """The one pending reboot reason of CX6_A, checked against its apply's time."""
    st = status_of(h)
    assert st["state"] == "unconfigured", st
    reasons = st["pending_reboot_reasons"]
    assert len(reasons) == 1, st
    m = re.fullmatch(re.escape(RAISED) + r" \(set by the apply of (\S+Z); no layout asks for it "
                     r"now\)", reasons[0])
    assert m, reasons
    assert st["last_apply"]["state"] == "applied" and st["last_apply"]["by"] == "apply", st
    return reasons[0]


def test_status_and_metrics_keep_the_raise_after_the_layout_is_removed(make_host):
    h = raised_then_removed(make_host)
    why = pending_reason(h)
    out = run(h, "status").stdout
    assert f"    pending reboot: {why}\n" in out, out
    # nothing is left to reset (trial 20, 9): the firmware command alone
    assert (f"    no layout selects it; \"mstconfig -d {CX6_A} "
            f"set NUM_OF_VFS=8\" sets the limit back to the one it has now, for {CX6_B} too (one "
            "command for the card, not one per port)\n") in out, out
    assert metric(h, "pf_reboot_pending") == [
        f'sriov_persist_pf_reboot_pending{{pf="ens3f0np0",pf_pci="{CX6_A}"}} 1']
    info = metric(h, "pf_reboot_pending_info")
    assert len(info) == 1 and f'reason="{why}"' in info[0], info
    # the other port of the card was not raised by an apply of its own: nothing said there
    assert status_of(h, CX6_B)["pending_reboot_reasons"] == []
    assert metric(h, "pf_reboot_pending", CX6_B)[0].endswith(" 0")


def test_reset_says_the_firmware_stays_and_keeps_the_record(make_host):
    h = raised_then_removed(make_host)
    why = pending_reason(h)
    r = run(h, "reset", CX6_A)
    assert r.returncode == 0 and r.stdout == (
        f"{CX6_A} (ens3f0np0): nothing reset: it has no VFs, and nothing that sriov-persist "
        f"created is left on it; {STAYS}\n"), r
    assert pending_reason(h) == why
    r = run(h, "reset")
    assert r.returncode == 0 and r.stdout == (
        f"{CX6_A} (ens3f0np0): nothing reset: it has no VFs, and nothing that sriov-persist "
        f"created is left on it; {STAYS}\n"
        "Nothing to reset: no PF of this host has VFs or a switchdev mode that sriov-persist "
        "created\n"), r
    assert pending_reason(h) == why


def test_applies_of_the_unconfigured_pf_keep_the_record(make_host):
    h = raised_then_removed(make_host)
    why = pending_reason(h)
    assert run(h, "apply").returncode == 0
    assert run(h, "apply", CX6_A).returncode == 0
    assert pending_reason(h) == why
    assert (h.dir / "host.json.run" / "pf" / f"{CX6_A}.json").exists()


def test_the_firmware_reset_or_reboot_ends_it(make_host):
    """Once the firmware runs with the limit (a firmware reset, or the reboot with /run kept
    here), nothing is pending and the next apply drops the record as for any unconfigured PF."""
    h = raised_then_removed(make_host)
    pending_reason(h)

    def reset(s):
        for p in s["pfs"]:
            p["total_vfs"] = p["firmware_total_vfs"]
        place_card_vfs(s)
    h.edit(reset)
    st = status_of(h)
    assert st["state"] == "unconfigured" and st["pending_reboot_reasons"] == [], st
    assert "mstconfig" not in run(h, "status").stdout
    assert run(h, "apply").returncode == 0
    assert status_of(h)["last_apply"] is None
    assert not (h.dir / "host.json.run" / "pf" / f"{CX6_A}.json").exists()


def test_a_deferred_reset_is_said_as_a_reset_with_the_command_to_run(make_host):
    h = make_host("cx6dx.json")
    f = h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\n")
    assert run(h, "apply").returncode == 0
    f.unlink()
    h.main.write_text("[Disruption]\nPolicy=never\n")
    r = run(h, "reset", CX6_A)
    assert r.returncode == 1 and f"deferred: resetting what sriov-persist created waits: " \
        f"{never(h)}\n" in r.stdout, r
    assert status_of(h)["last_apply"]["by"] == "reset"
    h.main.write_text("[Disruption]\nPolicy=immediate\n")
    st = status_of(h)
    assert st["state"] == "pending" and st["reason"].endswith(
        f"(sriovctl --host {h.path} --config-dir {h.confdir} --main-config {h.main} reset "
        f"{CX6_A} runs it)"), st
    out = run(h, "status", CX6_A).stdout
    assert f"    last reset: deferred: resetting what sriov-persist created waits: {never(h)}\n" \
        in out, out
    assert "last apply:" not in out, out
    assert (f"    \"sriovctl --host {h.path} --config-dir {h.confdir} --main-config {h.main} "
            f"reset {CX6_A}\" runs it now\n") in out, out
    assert run(h, "reset", CX6_A).returncode == 0
    assert h.pf(CX6_A)["num_vfs"] == 0


def test_through_the_daemon_the_raise_stays_too(make_host, start_daemon, bus_client, system_bus):
    """The daemon's apply on the reload that the removal causes keeps the record too; its
    status document and its reset say the same."""
    h = make_host("cx6dx.json")
    h.main.write_text("[Disruption]\nPolicy=immediate\n[Reboot]\nPolicy=never\n")
    f = h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=16\n")
    start_daemon(h)
    m = bus_client.mark()
    bus_client.call("Apply", "")
    assert bus_client.wait_applied(CX6_A, m) == 0
    assert h.pf(CX6_A)["firmware_total_vfs"] == 16
    f.unlink()
    bus_client.wait_property("State", "unconfigured", pf_path(CX6_A), PF_IFACE)
    r = ctl(h, system_bus, "status", "--json")
    st = next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == CX6_A)
    assert len(st["pending_reboot_reasons"]) == 1, st
    assert st["pending_reboot_reasons"][0].startswith(f"{RAISED} (set by the apply of "), st
    r = ctl(h, system_bus, "reset", CX6_A)
    assert r.returncode == 0 and r.stdout == (
        f"{CX6_A} (ens3f0np0): nothing reset: it has no VFs, and nothing that sriov-persist "
        f"created is left on it; {STAYS}\n"), r
    r = ctl(h, system_bus, "reset")
    assert r.returncode == 0 and r.stdout.startswith(
        f"{CX6_A} (ens3f0np0): nothing reset: it has no VFs, and nothing that sriov-persist "
        f"created is left on it; {STAYS}\nNothing to reset: "), r


def test_a_hold_fixed_since_has_the_command_to_run(make_host):
    """The hold of the last apply is fixed: below "last apply: held: ..." the command that
    applies it, with the options sriovctl was given."""
    h = make_host("cx6dx.json")
    f = h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\nBogus=1\n")
    assert run(h, "apply").returncode == 1
    f.write_text(f.read_text().replace("Bogus=1\n", ""))
    st = status_of(h)
    assert st["state"] == "pending" and st["last_apply"]["state"] == "held", st
    assert st["last_apply"]["by"] == "apply", st
    out = run(h, "status", CX6_A).stdout
    assert (f"    last apply: held: {f}:5: unknown key 'Bogus' in [PhysicalFunction]" in out), out
    assert (f"    \"sriovctl --host {h.path} --config-dir {h.confdir} --main-config {h.main} "
            f"apply {CX6_A}\" applies it now\n") in out, out


def raised_with_vfs_left(make_host):
    """A layout that made 4 VFs, then raised the limit, then removed: the VFs stay until a
    reset."""
    h = make_host("cx6dx.json")
    f = h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\n")
    assert run(h, "apply").returncode == 0 and h.pf(CX6_A)["num_vfs"] == 4
    f.write_text(f.read_text().replace("=4", "=16"))
    r = run(h, "apply")
    assert r.returncode == 0 and "done raise firmware VF limit to 16" in r.stdout, r.stdout
    f.unlink()
    return h



def firmware_said(h, why, state):
    """The raise still said of CX6_A, whatever its record is now: status (JSON and table),
    metrics."""
    st = status_of(h)
    assert st["state"] == state and st["pending_reboot_reasons"] == [why], st
    out = run(h, "status", CX6_A).stdout
    assert f"    pending reboot: {why}\n" in out, out
    assert f"\"mstconfig -d {CX6_A} set NUM_OF_VFS=8\" sets the limit back" in out, out
    assert metric(h, "pf_reboot_pending") == [
        f'sriov_persist_pf_reboot_pending{{pf="ens3f0np0",pf_pci="{CX6_A}"}} 1']
    return st


def test_later_records_carry_the_raise(make_host):
    """A reset deferred by Policy=never writes its own record: the raise goes with it, and with
    the record of the reset that runs then, and of an apply of the layout back."""
    h = raised_with_vfs_left(make_host)
    why = pending_reason(h)
    h.main.write_text("[Disruption]\nPolicy=never\n")
    r = run(h, "reset", CX6_A)
    assert r.returncode == 1 and r.stdout == (
        f"{CX6_A} (ens3f0np0): deferred: resetting what sriov-persist created waits: {never(h)}\n"
        f"{CX6_A} (ens3f0np0): {STAYS}\n"), r
    st = firmware_said(h, why, "deferred")
    assert st["last_apply"]["by"] == "reset" and st["last_apply"]["state"] == "deferred", st
    record = h.dir / "host.json.run" / "pf" / f"{CX6_A}.json"
    fw = json.loads(record.read_text())["firmware"]
    assert fw["total_vfs"] == 16 and fw["by"] == "apply", fw
    h.main.write_text("[Disruption]\nPolicy=immediate\n")
    r = run(h, "reset", CX6_A)
    assert r.returncode == 0 and r.stdout.endswith(f"; 0 VFs\n{CX6_A} (ens3f0np0): {STAYS}\n"), r
    assert h.pf(CX6_A)["num_vfs"] == 0
    st = firmware_said(h, why, "unconfigured")
    assert st["last_apply"]["by"] == "reset" and st["last_apply"]["state"] == "applied", st
    assert json.loads(record.read_text())["firmware"] == fw
    f = h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=16\n")
    assert run(h, "apply").returncode == 0
    assert json.loads(record.read_text())["firmware"] == fw
    f.unlink()
    assert pending_reason(h) == why


def test_a_record_of_an_earlier_version_is_read(make_host):
    """A record written before "by" and "firmware": an apply's whose reboot reasons name the
    firmware VF limit is that of the raise."""
    h = raised_then_removed(make_host)
    why = pending_reason(h)
    record = h.dir / "host.json.run" / "pf" / f"{CX6_A}.json"
    old = json.loads(record.read_text())
    del old["by"], old["firmware"]
    record.write_text(json.dumps(old))
    assert pending_reason(h) == why
    h.main.write_text("[Disruption]\nPolicy=never\n")
    assert run(h, "reset", CX6_A).returncode == 0
    assert pending_reason(h) == why


def test_a_reset_of_every_pf_says_the_raise_also_when_another_pf_was_reset(make_host):
    h = raised_then_removed(make_host)
    why = pending_reason(h)
    f = h.layout("60-b.conf", f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\n"
                 "VirtualFunctions=2\n")
    assert run(h, "apply").returncode == 0 and h.pf(CX6_B)["num_vfs"] == 2
    f.unlink()
    r = run(h, "reset")
    assert r.returncode == 0, r
    lines = r.stdout.splitlines()
    assert lines[0] == (f"{CX6_A} (ens3f0np0): nothing reset: it has no VFs, and nothing that "
                        f"sriov-persist created is left on it; {STAYS}"), lines
    assert lines[1:] == [f"{CX6_B} (ens3f1np1): resetting", "  done remove all VFs",
                         f"{CX6_B} (ens3f1np1): reset, 1 action(s); 0 VFs"], lines
    assert pending_reason(h) == why


def test_a_lifted_hold_names_the_pf_in_wait_and_json(make_host):
    h = make_host("cx6dx.json")
    f = h.layout("50-a.conf", f"[Match]\nPCIAddress={CX6_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\nBogus=1\n")
    assert run(h, "apply").returncode == 1
    f.write_text(f.read_text().replace("Bogus=1\n", ""))
    lifted = ("not applied since its last apply held it, and what held it is fixed now (sriovctl "
              f"--host {h.path} --config-dir {h.confdir} --main-config {h.main} apply {CX6_A} "
              "applies it)")
    assert status_of(h)["reason"] == lifted
    r = run(h, "wait", "--timeout", "0")
    assert f"Not applied: {CX6_A} (ens3f0np0): pending: {lifted}\n" in r.stdout, r


def test_the_table_heads_its_time_column_for_applies_and_resets(make_host):
    h = make_host("cx6dx.json")
    head = run(h, "status").stdout.splitlines()[0]
    assert head.split()[-1] == "APPLY/RESET" and "LAST APPLY/RESET" in head, head
