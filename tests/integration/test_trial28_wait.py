# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 28: sriovctl wait of a PF whose record says applied while its layout was edited since
(the record's "layouts" signature against what the files want now). The daemon applies a change
of the layouts in either [Drift] Mode= (at its reload, which follows the edit, or at its start):
wait waits for it, named as a layout change, not as drift; only drift that Mode=report keeps is
done and not applied at once."""

import json

import pytest

from test_daemon import E810_A, NO_BUS, configured_host, drift

LAYOUT_EDITED = "its layout changed since its last apply, not applied yet; sriov-persistd applies it"


def edit_vlan(h, vlan):
    h.layout(f"50-{E810_A}.conf",
             f"[Match]\nPCIAddress={E810_A}\n[PhysicalFunction]\nVirtualFunctions=4\n"
             f"[VirtualFunction]\nMACAddress=stable\nVLANId={vlan}\n")


@pytest.mark.parametrize("mode", ["report", "repair"])
def test_wait_waits_for_a_pf_whose_layout_was_edited(make_host, mode):
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode=mode)
    assert h.run("apply", env=NO_BUS).returncode == 0
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 0 and "1 configured PF(s): 1 applied, 0 not" in r.stdout, r
    edit_vlan(h, 20)
    st = next(p for p in json.loads(h.run("status", "--json", E810_A, env=NO_BUS).stdout)["pfs"]
              if p["pci"] == E810_A)
    assert st["state"] == "drifted", st
    assert "the layout changed since its last apply" in st["reason"], st
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    opts = f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"
    # the daemon's reload applies it, whatever Mode= says: waited for, not done at once
    assert r.returncode == 1, r
    assert "Not applied:" not in r.stdout, r
    assert (f"Timed out after 0s; not applied yet: {E810_A} ({LAYOUT_EDITED} at its reload (or "
            f"its start); sriovctl{opts} apply {E810_A} applies it now)") in r.stdout, r
    assert "drifted" not in r.stdout, r
    # with drift on the host as well: the reload's apply repairs that too, in either mode
    drift(h, E810_A, vf=1, mac="02:11:22:33:44:55")
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1 and "Not applied:" not in r.stdout, r
    assert f"{E810_A} ({LAYOUT_EDITED} at its reload" in r.stdout, r
    # applied as edited: done
    assert h.run("apply", E810_A, env=NO_BUS).returncode == 0
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 0 and "1 configured PF(s): 1 applied, 0 not" in r.stdout, r


def test_wait_fails_at_once_on_drift_mode_report_keeps_with_the_layout_as_applied(make_host):
    """Edited and edited back: the layouts want what they did at the apply, so a VF changed on
    the host is drift, which Mode=report keeps: done and not applied at once."""
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    assert h.run("apply", env=NO_BUS).returncode == 0
    edit_vlan(h, 20)
    edit_vlan(h, 10)
    drift(h, E810_A, vf=1, vlan=99)
    r = h.run("wait", "--timeout", "0", env=NO_BUS)
    assert r.returncode == 1, r
    assert (f"Not applied: {E810_A} (ens1f0): drifted: not repaired ([Drift] Mode=report in "
            f"{h.main}:") in r.stdout, r
    assert "its layout changed" not in r.stdout, r
