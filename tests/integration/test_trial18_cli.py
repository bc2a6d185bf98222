# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 18: "sriovctl status PCI" of a PF gone from the host shows it as the whole status does
(locally and through sriov-persistd), as SRIOVPhysicalFunctionGone tells the operator; wait's
"Not applied" lines have the command to copy with the options sriovctl was given, as status
has it; the manuals' example outputs say unconfigured; the alerts' descriptions are true of
what sriovctl metrics writes (a reboot pending for a firmware VF limit with no layout, a PF
whose driver is unbound)."""

import json
import re
from pathlib import Path

from test_daemon import NO_BUS
from test_reset_daemon import applied, ctl
from test_trial16_firmware import CX6_A, metric, raised_then_removed

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "packaging" / "prometheus" / "sriov-persist.rules.yml"
E810_A = "0000:3b:00.0"
E810_B = "0000:3b:00.1"
X710_A = "0000:18:00.0"
X710_B = "0000:18:00.1"


def run(h, *args):
    return h.run(*args, env=NO_BUS)


def options(h):
    return f"--host {h.path} --config-dir {h.confdir} --main-config {h.main}"


def unplug(pci):
    def change(s):
        s["pfs"] = [p for p in s["pfs"] if p["pci"] != pci]
    return change


def rows_of(out, pci):
    """The lines of pci's row in a status table, and those below it up to the next row."""
    lines, keep = [], False
    for line in out.splitlines():
        if not line.startswith(" "):
            keep = line.startswith(pci + " ")
        if keep:
            lines.append(line)
    return lines


def gone_host(make_host):
    """e810.json with ens1f1 applied, then removed from the host."""
    h = make_host("e810.json")
    h.layout("50.conf", f"[Match]\nPCIAddress={E810_B}\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n")
    assert run(h, "apply").returncode == 0
    h.edit(unplug(E810_B))
    return h


def test_status_of_a_gone_pf_named_by_its_pci_address(make_host):
    h = gone_host(make_host)
    full = run(h, "status")
    assert full.returncode == 1, full
    gone = rows_of(full.stdout, E810_B)
    assert re.match(rf"{re.escape(E810_B)} +ens1f1 +- +- +- +- +gone ", gone[0]), gone
    assert gone[2] == (f'    "sriovctl {options(h)} reset {E810_B}" drops its status record'), gone
    r = run(h, "status", E810_B)
    assert r.returncode == 1 and "No PF" not in r.stderr, r
    assert r.stdout.splitlines()[0].startswith("PF "), r.stdout
    assert r.stdout.splitlines()[1:] == gone, r.stdout
    # its JSON is the whole status's object of it
    whole = json.loads(run(h, "status", "--json").stdout)
    r = run(h, "status", "--json", E810_B)
    assert r.returncode == 1, r
    assert json.loads(r.stdout)["pfs"] == [p for p in whole["pfs"] if p["pci"] == E810_B], r
    # a gone PF has no name on the host, and an address of no PF is none
    for what in ("ens1f1", "0000:3b:00.7"):
        r = run(h, "status", what)
        assert r.returncode == 1 and r.stdout == "" and r.stderr == f"No PF '{what}' on this host\n", r
    # the PF on the host is shown alone, as before
    r = run(h, "status", E810_A)
    assert r.returncode == 0 and len(rows_of(r.stdout, E810_A)) == 1 and E810_B not in r.stdout, r


def test_status_of_a_gone_pf_through_the_daemon(make_host, start_daemon, bus_client, system_bus):
    h = applied(make_host, start_daemon, bus_client, "immediate")
    h.edit(unplug(E810_A))
    full = ctl(h, system_bus, "status")
    gone = rows_of(full.stdout, E810_A)
    assert full.returncode == 1 and " gone " in gone[0], full
    r = ctl(h, system_bus, "status", E810_A)
    assert r.returncode == 1 and r.stderr == "", r
    assert rows_of(r.stdout, E810_A) == gone, r.stdout
    assert r.stdout.startswith("sriov-persistd: "), r.stdout
    whole = json.loads(ctl(h, system_bus, "status", "--json").stdout)
    r = ctl(h, system_bus, "status", "--json", E810_A)
    assert r.returncode == 1, r
    doc = json.loads(r.stdout)
    assert doc["pfs"] == [p for p in whole["pfs"] if p["pci"] == E810_A], doc
    assert doc["pfs"][0]["state"] == "gone" and "daemon" in doc, doc
    # what the daemon does not know stays no PF
    r = ctl(h, system_bus, "status", "0000:3b:00.7")
    assert r.returncode == 1 and r.stderr == "No PF '0000:3b:00.7' on this host\n", r


def test_wait_gives_the_command_to_copy_as_status_does(make_host):
    h = make_host("x710.json")
    h.main.write_text("[Disruption]\nPolicy=never\n")
    f = h.layout("50.conf", "[Match]\nDevice=0x1572\n[PhysicalFunction]\nVirtualFunctions=4\n"
                 "[VirtualFunction]\nVLANId=42\n")
    assert run(h, "apply").returncode == 0
    f.write_text(f.read_text().replace("VirtualFunctions=4", "VirtualFunctions=6"))
    assert run(h, "apply").returncode == 1
    h.main.write_text("[Disruption]\nPolicy=immediate\n")
    status = run(h, "status").stdout
    r = run(h, "wait", "--timeout", "0")
    assert r.returncode == 1, r
    for pci, name in ((X710_A, "ens2f0"), (X710_B, "ens2f1")):
        hint = f'    "sriovctl {options(h)} apply {pci}" applies it now'
        assert hint in rows_of(status, pci), status
        assert re.search(rf"^Not applied: {re.escape(pci)} \({name}\): pending: not applied "
                         rf".*\(sriovctl {re.escape(options(h))} apply {re.escape(pci)} "
                         rf"applies it\)\n"
                         rf"{re.escape(hint)}\n", r.stdout, re.M), r.stdout
    # the command runs it
    assert run(h, "apply", X710_A).returncode == 0


def test_the_manuals_examples_say_unconfigured():
    for page in sorted((ROOT / "man").iterdir()):
        text = page.read_text()
        for block in re.findall(r"^\.nf\n(.*?)^\.fi\n", text, re.M | re.S):
            assert "not\\-configured" not in block and "not-configured" not in block, \
                (page.name, block)
        # the word survives where the page says what earlier versions said
        for m in re.finditer(r"not\\-configured", text):
            assert "earlier versions said" in text[max(0, m.start() - 60):m.start()], \
                (page.name, text[max(0, m.start() - 200):m.end()])
    example = (ROOT / "man" / "org.sriovpersist1.5").read_text()
    assert "\n0000:3b:00.1 unconfigured\n.fi\n" in example


def alert(name):
    text = RULES.read_text()
    m = re.search(rf"- alert: {name}\n.*?description: \"([^\"]*)\"", text, re.S)
    assert m, name
    return m.group(1)


def test_the_reboot_alert_is_true_of_a_raise_no_layout_asks_for(make_host):
    h = raised_then_removed(make_host)
    # no layout selects the PF, and it waits for the reboot
    assert metric(h, "pf_reboot_pending") == [
        f'sriov_persist_pf_reboot_pending{{pf="ens3f0np0",pf_pci="{CX6_A}"}} 1']
    assert metric(h, "pf_state", CX6_A)
    out = run(h, "metrics").stdout
    help_line = next(line for line in out.splitlines()
                     if line.startswith("# HELP sriov_persist_pf_reboot_pending "))
    assert "layout waits" not in help_line and "firmware VF limit" in help_line, help_line
    d = alert("SRIOVRebootPendingForDays")
    assert not d.startswith("Its layout"), d
    assert "firmware VF limit" in d and "no layout asks for" in d, d
    assert "sriovctl status {{ $labels.pf_pci }}" in d, d


def test_the_gone_alert_does_not_name_an_unbound_driver(make_host):
    h = make_host("e810.json")
    h.layout("50.conf", f"[Match]\nPCIAddress={E810_B}\n[PhysicalFunction]\n"
             "VirtualFunctions=2\n")
    assert run(h, "apply").returncode == 0

    def unbind(s):
        pf = next(p for p in s["pfs"] if p["pci"] == E810_B)
        pf.update(driver=None, name=None, vfs=[], num_vfs=0)
    h.edit(unbind)
    # a PF whose driver is unbound is still on the host: not gone
    st = json.loads(run(h, "status", "--json", E810_B).stdout)["pfs"][0]
    assert st["state"] == "degraded", st
    d = alert("SRIOVPhysicalFunctionGone")
    assert "driver" not in d, d
    assert "sriovctl status {{ $labels.pf_pci }} says what was applied" in d, d
    man = (ROOT / "man" / "sriovctl.8").read_text()
    assert "unplugged, failed or lost its driver" not in man
    assert "shown only when no \\fIPF\\fR is named" not in man


def test_the_waiting_alert_names_what_a_lifted_deferral_waits_for(make_host):
    """A PF pending since the policy that deferred it lets it run waits for nothing of the
    drain, the policy, another tool or a repair: for an apply, which the alert says."""
    h = make_host("x710.json")
    h.main.write_text("[Disruption]\nPolicy=never\n")
    f = h.layout("50.conf", f"[Match]\nPCIAddress={X710_A}\n[PhysicalFunction]\n"
                 "VirtualFunctions=4\n")
    assert run(h, "apply").returncode == 0
    f.write_text(f.read_text().replace("=4", "=6"))
    assert run(h, "apply").returncode == 1
    h.main.write_text("[Disruption]\nPolicy=immediate\n")
    assert f'pf_pci="{X710_A}",state="pending"}} 1' in run(h, "metrics").stdout
    d = alert("SRIOVPhysicalFunctionWaiting")
    assert "an apply: what held or deferred it no longer does" in d, d
    assert "Mode=report" in d, d
