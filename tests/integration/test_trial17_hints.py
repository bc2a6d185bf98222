# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 17: hints that say what is true. A PF deferred for a drain by a local apply says whether
a sriov-persistd runs for the host (only it drains); the reset hint of VFs left from a removed
layout says when [Disruption] Policy= would defer that reset; a deferred reset keeps what is left
in the PF's status; what a removed layout left and a pending firmware raise are one hint."""

import json
import os
import subprocess

from test_check_credentials import k8s_notify_bin, kubeconfig_text  # noqa: F401 (fixture)
from test_daemon import NO_BUS

E810 = "0000:3b:00.0"
CX6 = "0000:ca:00.0"
WAIT = ("disruptive changes wait for a drain of this node through Kubernetes ([Disruption] "
        "Policy=drain), which ")
def not_running(h, k8s_notify):
    """The reason of a PF deferred for a drain that no sriov-persistd runs for, applied with
    apply_on(): the command that starts one for the snapshot (trial 22: not systemctl, which
    starts the daemon of this machine)."""
    return (WAIT + "only sriov-persistd does, and none runs for this host: nothing drains until "
            f"one does (start one for it: sriov-persistd --host {h.path} --config-dir "
            f"{h.confdir} --main-config {h.main} --k8s-notify {k8s_notify}; see "
            "sriov-persistd(8)), or [Disruption] Policy=immediate applies without a drain")
def never(h, line=2):
    """Why [Disruption] Policy=never, at line of h's main configuration, holds a change."""
    return (f"disruptive changes held by [Disruption] Policy=never in {h.main}:{line}; set "
            "Policy=drain or immediate there to let them run, or make the change by hand")


def layout(pci, vfs, extra=""):
    return f"[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions={vfs}\n{extra}"


def kubernetes_conf(h):
    """A main config with Kubernetes enabled by a valid kubeconfig, the default Policy=drain."""
    token = h.dir / "token"
    token.write_text("abc\n")
    token.chmod(0o600)
    kc = h.dir / "kubeconfig"
    kc.write_text(kubeconfig_text(f"tokenFile: {token}"))
    kc.chmod(0o600)
    conf = h.dir / "kk.conf"
    conf.write_text(f"[Kubernetes]\nKubeconfig={kc}\nNodeName=\n")
    return conf


def deferred_for_a_drain(make_host):
    """4 VFs applied under the test's Policy=immediate, the layout then edited to 2; the runs
    after it read the Kubernetes main config."""
    h = make_host("e810.json")
    f = h.layout("50-e810.conf", layout(E810, 4, "[VirtualFunction]\nVLANId=100\n"))
    r = h.run("apply", env=NO_BUS)
    assert r.returncode == 0, r
    f.write_text(layout(E810, 2, "[VirtualFunction]\nVLANId=100\n"))
    h.main = kubernetes_conf(h)
    return h


def apply_on(h, host, k8s_notify, env):
    """apply of h's layouts and main config to the snapshot host."""
    cmd = [h.binary, "--no-color", "--k8s-notify", k8s_notify, "--host", str(host),
           "--config-dir", str(h.confdir), "--main-config", str(h.main), "apply"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env})


def test_a_local_apply_says_that_no_daemon_drains(make_host, k8s_notify_bin):  # noqa: F811
    h = deferred_for_a_drain(make_host)
    why = not_running(h, k8s_notify_bin)
    r = apply_on(h, h.path, k8s_notify_bin, NO_BUS)
    assert r.returncode == 1 and r.stdout == f"{E810} (ens1f0): deferred: {why}\n", r
    r = h.run("status", env=NO_BUS)
    assert "  deferred        " in r.stdout and f"\n    {why}\n" in r.stdout, r.stdout
    st = next(p for p in json.loads(h.run("status", "--json", env=NO_BUS).stdout)["pfs"]
              if p["pci"] == E810)
    assert st["state"] == "deferred" and st["reason"] == why, st


def test_with_a_daemon_for_the_host_it_drains_and_for_another_not(make_host, k8s_notify_bin,  # noqa: F811
                                                                   start_daemon, system_bus):
    """A daemon that manages the snapshot (with its own, empty layout directory, so it leaves the
    PF alone) is the one that drains; one that manages another snapshot is not."""
    d = make_host("e810.json")
    d.layout("50-e810.conf", layout(E810, 4, "[VirtualFunction]\nVLANId=100\n"))
    assert d.run("apply", env=NO_BUS).returncode == 0
    (d.confdir / "50-e810.conf").unlink()
    start_daemon(d)
    h = deferred_for_a_drain(make_host)
    env = {"DBUS_SYSTEM_BUS_ADDRESS": system_bus.address}
    r = apply_on(h, h.path, k8s_notify_bin, env)
    assert r.returncode == 1, r
    assert r.stdout == f"{E810} (ens1f0): deferred: {not_running(h, k8s_notify_bin)}\n", r
    r = apply_on(h, d.path, k8s_notify_bin, env)
    assert r.returncode == 1, r
    assert r.stdout == f"{E810} (ens1f0): deferred: {WAIT}sriov-persistd does\n", r


def removed_with_vfs_left(make_host):
    h = make_host("e810.json")
    f = h.layout("50-e810.conf", layout(E810, 2))
    assert h.run("apply", env=NO_BUS).returncode == 0
    f.unlink()
    immediate = h.main
    h.main = h.dir / "never.conf"
    h.main.write_text("[Disruption]\nPolicy=never\n")
    return h, immediate


def pf_lines(out, pci):
    lines = out.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith(pci))
    rest = []
    for line in lines[i + 1:]:
        if not line.startswith("    "):
            break
        rest.append(line)
    return lines[i], rest


def test_the_reset_hint_says_the_policy_defers_it(make_host):
    h, immediate = removed_with_vfs_left(make_host)
    cmd = f"sriovctl --host {h.path} --config-dir {h.confdir} --main-config {h.main} reset {E810}"
    r = h.run("status", env=NO_BUS)
    _, rest = pf_lines(r.stdout, E810)
    assert rest == ["    2 VFs left from a removed layout",
                    f"    no layout selects it; \"{cmd}\" removes the VFs left from its removed layout, but is deferred now: "
                    f"{never(h)}"], r.stdout
    st = json.loads(h.run("status", "--json", env=NO_BUS).stdout)
    assert st["pfs"][0]["reset_waits"] == never(h), st["pfs"][0]
    # what the hint says is what the reset does
    r = h.run("reset", E810, env=NO_BUS)
    assert r.returncode == 1 and r.stdout == (
        f"{E810} (ens1f0): deferred: resetting what sriov-persist created waits: {never(h)}\n"), r


def test_the_reset_hint_under_policy_immediate_has_no_deferral(make_host):
    h, immediate = removed_with_vfs_left(make_host)
    h.main = immediate
    r = h.run("status", env=NO_BUS)
    _, rest = pf_lines(r.stdout, E810)
    assert rest == ["    2 VFs left from a removed layout",
                    f"    no layout selects it; \"sriovctl --host {h.path} --config-dir "
                    f"{h.confdir} --main-config {h.main} reset {E810}\" removes the VFs left from its removed layout"], r.stdout
    assert json.loads(h.run("status", "--json", env=NO_BUS).stdout)["pfs"][0]["reset_waits"] is None


def test_a_deferred_reset_keeps_what_is_left_in_the_status(make_host):
    h, _ = removed_with_vfs_left(make_host)
    cmd = f"sriovctl --host {h.path} --config-dir {h.confdir} --main-config {h.main} reset {E810}"
    assert h.run("reset", E810, env=NO_BUS).returncode == 1
    r = h.run("status", env=NO_BUS)
    assert r.returncode == 1
    first, rest = pf_lines(r.stdout, E810)
    assert "  deferred  " in first, first
    why = f"2 VFs left from a removed layout; resetting what sriov-persist created waits: {never(h)}"
    assert rest == [f"    {why}",
                    f"    no layout selects it; \"{cmd}\" removes the VFs left from its removed layout when run again, "
                    "once [Disruption] Policy= lets it run"], r.stdout
    assert "no longer deferred" not in r.stdout, r.stdout
    st = json.loads(h.run("status", "--json", env=NO_BUS).stdout)
    assert st["pfs"][0]["state"] == "deferred" and st["pfs"][0]["reason"] == why, st["pfs"][0]


def test_vfs_left_and_a_firmware_raise_are_one_hint(make_host):
    h = make_host("cx6dx.json")
    f = h.layout("50-a.conf", layout(CX6, 16))
    assert h.run("apply", env=NO_BUS).returncode == 0
    f.write_text(layout(CX6, 4))
    assert h.run("apply", env=NO_BUS).returncode == 0
    f.unlink()
    r = h.run("status", env=NO_BUS)
    _, rest = pf_lines(r.stdout, CX6)
    hints = [line for line in rest if "no layout selects it" in line]
    assert hints == [
        f"    no layout selects it; \"sriovctl --host {h.path} --config-dir {h.confdir} "
        f"--main-config {h.main} reset {CX6}\" removes the VFs left from its removed layout; it changes no firmware: "
        f"\"mstconfig -d {CX6} set NUM_OF_VFS=8\" sets the limit back to the one it has now, "
        "for 0000:ca:00.1 too (one command for the card, not one per port)"
    ], r.stdout
