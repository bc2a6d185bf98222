# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 22 (fresh eyes), miscellaneous: a local apply deferred for a drain of a simulated host
names the sriov-persistd that drains it, not systemctl (which starts the daemon of this machine,
its /etc layouts and its hardware)."""

import json

from test_check_credentials import k8s_notify_bin  # noqa: F401 (fixture)
from test_daemon import NO_BUS
from test_trial17_hints import WAIT, apply_on, deferred_for_a_drain, kubernetes_conf, layout

E810 = "0000:3b:00.0"


def options(h):
    return f" --host {h.path} --config-dir {h.confdir} --main-config {h.main}"


def daemon_hint(h, k8s_notify):
    """The reason of a PF deferred for a drain that no sriov-persistd runs for, of h."""
    cmd = f"sriov-persistd{options(h)} --k8s-notify {k8s_notify}"
    return (WAIT + "only sriov-persistd does, and none runs for this host: nothing drains until "
            f"one does (start one for it: {cmd}; see sriov-persistd(8)), or [Disruption] "
            "Policy=immediate applies without a drain")


def status_of(h, pci, *args):
    r = h.run("status", "--json", pci, *args, env=NO_BUS)
    assert r.returncode in (0, 1), r
    return next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == pci)


# --- 1. the daemon that drains a simulated host ------------------------------------------------

def test_a_deferred_apply_of_a_simulated_host_names_its_own_daemon(make_host,
                                                                   k8s_notify_bin):  # noqa: F811
    """--host: systemctl start sriov-persistd would start the daemon of this machine (its /etc
    layouts, its hardware), which never drains the snapshot. The reason names the command that
    does, with the options given; status keeps it."""
    h = deferred_for_a_drain(make_host)
    why = daemon_hint(h, k8s_notify_bin)
    r = apply_on(h, h.path, k8s_notify_bin, NO_BUS)
    assert r.returncode == 1 and r.stdout == f"{E810} (ens1f0): deferred: {why}\n", r
    assert "systemctl" not in r.stdout, r.stdout
    pf = status_of(h, E810)
    assert pf["state"] == "deferred" and pf["reason"] == why, pf


def test_a_deferred_reset_of_a_simulated_host_names_its_own_daemon(make_host,
                                                                   k8s_notify_bin):  # noqa: F811
    """The same for a reset that waits for a drain."""
    h = make_host("e810.json")
    f = h.layout("50-e810.conf", layout(E810, 4))
    assert h.run("apply", E810, env=NO_BUS).returncode == 0
    f.unlink()
    h.main = kubernetes_conf(h)
    r = h.run("--k8s-notify", k8s_notify_bin, "reset", E810, env=NO_BUS)
    why = daemon_hint(h, k8s_notify_bin)
    assert r.returncode == 1 and r.stdout == (
        f"{E810} (ens1f0): deferred: resetting what sriov-persist created waits: {why}\n"), r
    assert h.pf(E810)["num_vfs"] == 4
