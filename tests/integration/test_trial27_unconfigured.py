# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 27 (fresh eyes), a PF that no layout selects any more: the hint of a deferred reset whose
VFs were removed by hand since says that the reset runs now, as it does, not "once it is no longer
deferred" (3); LAST APPLY/RESET shows "-" exactly when --json has no last_apply, as the manual
says: an apply drops the record of a PF that no layout selects, with VFs left or not (8)."""

import json
import re

from test_daemon import E810_A, E810_B, NO_BUS, apply_all, configured_host, sync
from test_trial19_misc import man_text
from test_trial24_deferred_reset import ctl, deferred_reset_of_b, options, pf_of

NOW = "drops sriov-persist's record of them now: nothing disruptive is left for it to wait for"


def vfs_removed_by_hand(h, pci):
    def change(s):
        pf = h.pf_of(s, pci)
        pf["num_vfs"], pf["vfs"] = 0, []
    h.edit(change)


# --- 3 ----------------------------------------------------------------------------------------

def test_a_deferred_reset_with_nothing_disruptive_left_runs_now(make_host):
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)},
                        policy="never")
    assert h.run("apply", env=NO_BUS).returncode == 0
    deferred_reset_of_b(h, lambda *a: h.run(*a, env=NO_BUS))
    cmd = f"sriovctl{options(h)} reset {E810_B}"
    r = h.run("status", E810_B, env=NO_BUS)
    assert f'    no layout selects it; "{cmd}" removes them once it is no longer deferred\n' \
        in r.stdout, r.stdout
    vfs_removed_by_hand(h, E810_B)
    r = h.run("status", E810_B, env=NO_BUS)
    assert f'    no layout selects it; "{cmd}" {NOW}\n' in r.stdout, r.stdout
    assert "once it is no longer deferred" not in r.stdout, r.stdout
    b = pf_of(json.loads(h.run("status", "--json", env=NO_BUS).stdout), E810_B)
    assert b["state"] == "deferred" and b["reset_waits"] is None, b
    # what it says is what happens: the reset runs at once, and drops the record
    r = h.run("reset", E810_B, env=NO_BUS)
    assert r.returncode == 0 and r.stdout.startswith(f"{E810_B} (ens1f1): nothing reset: "), r
    b = pf_of(json.loads(h.run("status", "--json", env=NO_BUS).stdout), E810_B)
    assert b["last_apply"] is None and b["state"] == "unconfigured", b


def test_the_daemon_says_the_same(make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)},
                        policy="never")
    start_daemon(h)
    apply_all(c, [E810_A, E810_B])

    def settled():
        c.wait(lambda: pf_of(json.loads(c.call("GetStatus")), E810_B)["state"] ==
               "unconfigured", what="the reload of the removed layout")
        sync(c)

    deferred_reset_of_b(h, lambda *a: ctl(h, system_bus, *a), settled)
    vfs_removed_by_hand(h, E810_B)
    c.wait(lambda: pf_of(json.loads(c.call("GetStatus")), E810_B)["num_vfs"] == 0,
           what="the VFs removed by hand")
    sync(c)
    b = pf_of(json.loads(c.call("GetStatus")), E810_B)
    assert b["state"] == "deferred" and b["reset_waits"] is None, b
    r = ctl(h, system_bus, "status", E810_B)
    assert f'    no layout selects it; "sriovctl reset {E810_B}" {NOW}\n' in r.stdout, r.stdout
    r = ctl(h, system_bus, "reset", E810_B)
    assert r.returncode == 0 and f"{E810_B} (ens1f1): nothing reset: " in r.stdout, r


# --- 8 ----------------------------------------------------------------------------------------

def last_column(out, pci):
    row = next(line for line in out.splitlines() if line.startswith(pci + " "))
    return re.split(r"\s{2,}", row.strip())[-1]


def test_last_apply_column_and_json_agree_on_a_pf_left_with_vfs(make_host):
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10), E810_B: (2, 30)})
    assert h.run("apply", env=NO_BUS).returncode == 0
    (h.confdir / f"50-{E810_A}.conf").unlink()
    # before an apply: the record of its last apply, and its time
    a = pf_of(json.loads(h.run("status", "--json", env=NO_BUS).stdout), E810_A)
    assert a["last_apply"] and a["last_apply"]["by"] == "apply", a
    r = h.run("status", env=NO_BUS)
    assert last_column(r.stdout, E810_A) != "-", r.stdout
    # an apply of every PF drops it, VFs left or not: "-", as --json says
    assert h.run("apply", env=NO_BUS).returncode == 0
    a = pf_of(json.loads(h.run("status", "--json", env=NO_BUS).stdout), E810_A)
    assert a["last_apply"] is None and a["reason"] == "4 VFs left from a removed layout", a
    r = h.run("status", env=NO_BUS)
    assert last_column(r.stdout, E810_A) == "-", r.stdout
    assert "    4 VFs left from a removed layout\n" in r.stdout, r.stdout
    # and the manual says when "-" is shown, this case among them
    man = " ".join(man_text("sriovctl.8").split())
    assert ("- when the PF has none, and last_apply is then null: it was never applied; or a reset "
            "removed what sriov-persist created and dropped its record, see reset; or no layout "
            "selects it any more and an apply since, of every PF (sriov-persistd's on the reload "
            "that the removal causes), dropped the record of its last apply, also when VFs are "
            "left from the removed layout") in man
