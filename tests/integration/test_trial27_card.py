# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 27 (fresh eyes): two ports of one card (cx6dx.json, one NUM_OF_VFS). ca:00.0's apply
raises the card's firmware VF limit to 20; ca:00.1's apply, which needs 16 of it, waits for that
same raise. When the limit takes effect (the reboot, a firmware reset), what ca:00.1 lacks is the
rest of its apply, as it is ca:00.0's: applied by the daemon in either drift mode, with a journal
line that says so, no drift; pending, not drifted, in sriovctl status (1)."""

import json
import re

import pytest

from conftest import PF_IFACE, pf_path
from test_daemon import NO_BUS, apply_all
from test_metrics import value
from test_metrics_daemon import metrics

CX6_A, CX6_B = "0000:ca:00.0", "0000:ca:00.1"
RAISED = "firmware VF limit raised to 20, waiting for a reboot"


def main(h, mode):
    h.main.write_text(f"[Drift]\nMode={mode}\n[Disruption]\nPolicy=immediate\n"
                      "[Reboot]\nPolicy=never\n")


def layout(h, pci, n, name):
    h.layout(name, f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions={n}\n")


def took_effect(h):
    """The reboot brings the limit of 20 to both ports; ca:00.1's VFs move past ca:00.0's."""
    def change(s):
        for p in s["pfs"]:
            if p["pci"] in (CX6_A, CX6_B):
                p["total_vfs"] = 20
            if p["pci"] == CX6_B:
                p["vf_offset"] = 30
    h.edit(change)


@pytest.mark.parametrize("mode", ["report", "repair"])
def test_the_other_port_waiting_for_the_card_raise_is_applied_not_drifted(
        make_host, start_daemon, bus_client, system_bus, mode):
    c = bus_client
    h = make_host("cx6dx.json")
    main(h, mode)
    layout(h, CX6_A, 20, "50-p0.conf")
    d = start_daemon(h)
    apply_all(c, [CX6_A])
    c.wait_property("State", "pending", pf_path(CX6_A), PF_IFACE)
    m = c.mark()
    layout(h, CX6_B, 16, "51-p1.conf")
    c.call("Reload")
    assert c.wait_applied(CX6_B, m) == 0
    c.wait_property("State", "pending", pf_path(CX6_B), PF_IFACE)
    assert RAISED in c.get("LastError", pf_path(CX6_B), PF_IFACE)
    rec = json.loads((h.dir / "host.json.run" / "pf" / f"{CX6_B}.json").read_text())
    assert not rec.get("firmware"), rec  # not its own raise: ca:00.0's apply made it
    m = c.mark()
    took_effect(h)
    assert c.wait_applied(CX6_A, m) == 0
    assert c.wait_applied(CX6_B, m) == 0
    c.wait_property("State", "applied", pf_path(CX6_B), PF_IFACE)
    c.wait_property("State", "applied", pf_path(CX6_A), PF_IFACE)
    assert h.pf(CX6_A)["num_vfs"] == 20 and h.pf(CX6_B)["num_vfs"] == 16
    c.wait_property("PendingReboot", False)
    assert c.get("PendingRebootReasons") == []
    log = d.log_text()
    for pci, name in ((CX6_A, "ens3f0np0"), (CX6_B, "ens3f1np1")):
        assert (f"{pci} ({name}): the firmware VF limit 20 took effect; its apply goes on"
                in log), log
    assert "drifted from its layout" not in log, log
    assert not c.matching("DriftDetected", m)
    assert c.get("Drifted") is False
    series, _ = metrics(h, system_bus.address)
    assert value(series, "daemon_drift_events_total", pf_pci=CX6_B) == 0
    assert value(series, "daemon_repairs_total", pf_pci=CX6_B) == 0


def test_status_calls_the_other_ports_rest_pending_not_drifted(make_host):
    h = make_host("cx6dx.json")
    main(h, "report")
    layout(h, CX6_A, 20, "50-p0.conf")
    assert h.run("apply", CX6_A, env=NO_BUS).returncode == 0
    layout(h, CX6_B, 16, "51-p1.conf")
    r = h.run("apply", CX6_B, env=NO_BUS)
    assert r.returncode == 0 and RAISED in r.stdout, r
    took_effect(h)
    r = h.run("status", "--json", CX6_B, env=NO_BUS)
    pf = next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == CX6_B)
    opts = f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"
    assert pf["state"] == "pending", pf
    assert pf["reason"] == ("the firmware VF limit 20 took effect after its apply; the rest of "
                            f"that apply is not applied yet; sriovctl{opts} apply {CX6_B} "
                            "applies it"), pf
    assert h.run("apply", CX6_B, env=NO_BUS).returncode == 0
    assert h.pf(CX6_B)["num_vfs"] == 16
    r = h.run("status", "--json", CX6_B, env=NO_BUS)
    assert next(p for p in json.loads(r.stdout)["pfs"]
                if p["pci"] == CX6_B)["state"] == "applied"


# --- 2: wait checks the host against the plan of a PF its record says applied ------------------

@pytest.mark.parametrize("mode", ["report", "repair"])
def test_wait_does_not_count_a_pf_that_came_back_without_its_vfs(make_host, mode):
    """Applied in this boot, then gone from the host file and back with no VFs (its layout wants
    4): wait says it as status does, drifted, not applied, and fails."""
    from test_daemon import E810_A, configured_host
    from test_trial25_wording import unplug
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode=mode)
    assert h.run("apply", env=NO_BUS).returncode == 0
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 0 and f"1 configured PF(s): 1 applied, 0 not" in r.stdout, r
    pf = unplug(h, E810_A)
    h.edit(lambda s: s["pfs"].insert(0, pf))
    st = next(p for p in json.loads(h.run("status", "--json", E810_A, env=NO_BUS).stdout)["pfs"]
              if p["pci"] == E810_A)
    assert st["state"] == "drifted", st
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1, r
    assert st["reason"].startswith("differs: 4 VFs wanted, 0 present"), st
    if mode == "report":
        # nothing repairs it: not applied, at once
        assert "1 configured PF(s): 0 applied, 1 not (see sriovctl status)\n" in r.stdout, r
        assert f"Not applied: {E810_A} (ens1f0): drifted: {st['reason']}\n" in r.stdout, r
    else:
        # the daemon would repair it, but none runs (none on the bus, trial 28 (2)): not
        # applied, at once, with the command that repairs it
        opts = f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"
        assert "1 configured PF(s): 0 applied, 1 not (see sriovctl status)\n" in r.stdout, r
        assert (f"Not applied: {E810_A} (ens1f0): drifted: {st['reason']}; no sriov-persistd "
                f"runs to repair it; sriovctl{opts} apply {E810_A} repairs it\n") in r.stdout, r
    # applied again: wait counts it
    assert h.run("apply", E810_A, env=NO_BUS).returncode == 0
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 0 and "1 configured PF(s): 1 applied, 0 not" in r.stdout, r


def test_wait_says_the_rest_of_an_apply_a_firmware_limit_waited_for(make_host):
    """The card's other port, once the limit it waited for took effect: pending, as status
    says, not applied."""
    h = make_host("cx6dx.json")
    main(h, "report")
    layout(h, CX6_A, 20, "50-p0.conf")
    layout(h, CX6_B, 16, "51-p1.conf")
    assert h.run("apply", env=NO_BUS).returncode == 0
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 0 and "2 pending a reboot" in r.stdout, r
    took_effect(h)
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    opts = f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"
    assert r.returncode == 1, r
    # the daemon would apply the rest, but none runs (none on the bus, trial 28 (2)): not
    # applied, at once, with status's words and the command that applies it
    assert "Timed out" not in r.stdout and "2 configured PF(s): 0 applied" in r.stdout, r
    for pci in (CX6_A, CX6_B):
        assert re.search(rf"\nNot applied: {pci} \(\S+\): pending: the firmware VF limit 20 took "
                         rf"effect after its apply; the rest of that apply is not applied yet; "
                         rf"no sriov-persistd runs to apply it; sriovctl{re.escape(opts)} "
                         rf"apply {pci} applies it\n", r.stdout), r


def test_wait_does_not_count_a_pf_whose_vf_drifted(make_host):
    """Only a VF differs ([Drift] Mode=repair: status's reason is none): wait says so."""
    from test_daemon import E810_A, configured_host, drift
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)})
    assert h.run("apply", env=NO_BUS).returncode == 0
    drift(h, E810_A, vf=1, vlan=99)
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1, r
    # none runs to repair it (none on the bus, trial 28 (2)): not applied at once
    opts = f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"
    assert (f"Not applied: {E810_A} (ens1f0): drifted: no sriov-persistd runs to repair it; "
            f"sriovctl{opts} apply {E810_A} repairs it\n") in r.stdout, r
    # [Drift] Mode=report: nothing repairs it, not applied at once
    h.main.write_text("[Drift]\nMode=report\n")
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1, r
    assert (f"Not applied: {E810_A} (ens1f0): drifted: not repaired ([Drift] Mode=report in "
            f"{h.main}:") in r.stdout, r
