# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fresh-eyes trial 17, the daemon: a PF deferred for a drain says so in the waiting lines while
the API server does not answer (6); the daemon's State is draining while the recovery of an
interrupted operation runs, and degraded while a PF is gone (7); sriovctl apply through the
daemon with a broken main configuration says what the local run says (8)."""

import json
import os
import re
import subprocess

from conftest import PF_IFACE, pf_path
from test_daemon_k8s import (E810_A, E810_LAYOUT, e810_node, env, k8s_notify_bin,  # noqa: F401
                             operation, replace_layout)

NO_BUS = {"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/sriov-persist-test-bus"}
MAIN = "[Drift]\nMode=repair\n[Disruption]\nPolicy={policy}\n[Reboot]\nPolicy=never\n"
LAYOUT = "[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=4\n" \
         "[VirtualFunction]\nVLANId=100\n"


def ctl(binary, bus, *args):
    return subprocess.run([binary, "--no-color", *args], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address))


def api_down_drain_deferred(env):  # noqa: F811
    """The e810 node, the daemon started while the API server refuses connections, then a
    disruptive change of its layout (4 -> 8 VFs) that waits for a drain."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env)
    srv.set_down(True)
    env.start(h)
    c.wait(lambda: (json.loads(c.call("GetStatus"))["daemon"]["kubernetes_api"] or {})
           .get("state") == "unreachable", timeout=60, what="the API server unreachable")
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait_property("State", "deferred", pf_path(E810_A), PF_IFACE, timeout=60)
    return h


# --- 6: the drain a deferred PF waits for is a waiting line ------------------------------------

def test_drain_waiting_behind_recovery_is_listed(env):  # noqa: F811
    c = env.c
    h = api_down_drain_deferred(env)
    st = json.loads(c.call("GetStatus"))
    waiting = st["daemon"]["kubernetes_api"]["waiting"]
    drain = [w for w in waiting if w.startswith(f"drain of {E810_A} ")]
    assert len(drain) == 1, waiting
    assert "recover (step uncordon) must finish first" in drain[0], drain
    assert "the Kubernetes API server does not answer (next try at " in drain[0], drain
    pf = next(p for p in st["pfs"] if p["pci"] == E810_A)
    assert pf["state"] == "deferred" and drain[0] in pf["waiting"], pf
    out = ctl(env.sriovctl_bin, env.bus, "status").stdout
    assert f"waiting: drain of {E810_A} (ens1f0) waits" in out, out
    assert h.pf(E810_A)["num_vfs"] == 4


# --- 7: State says what is under way and what is wrong -----------------------------------------

def test_recovery_at_start_is_draining(env):  # noqa: F811
    c = env.c
    api_down_drain_deferred(env)
    op = operation(c)
    assert op and op["kind"] == "recover" and op["step"] == "uncordon", op
    assert c.get("State") == "draining"
    assert json.loads(c.call("GetStatus"))["daemon"]["state"] == "draining"


def test_a_gone_pf_makes_the_daemon_degraded(make_host, start_daemon, bus_client, system_bus):
    c = bus_client
    h = make_host("e810.json")
    h.main.write_text(MAIN.format(policy="immediate"))
    h.layout("50-e810.conf", LAYOUT)
    start_daemon(h)
    m = c.mark()
    c.call("Apply", "")
    assert c.wait_applied(E810_A, m) == 0
    c.wait_property("State", "idle")

    def unplug(s):
        s["pfs"] = [p for p in s["pfs"] if p["pci"] != E810_A]
    h.edit(unplug)
    r = ctl(h.binary, system_bus, "status")
    assert r.returncode == 1 and "no longer on the host" in r.stdout, r
    c.wait_property("State", "degraded")
    assert "sriov-persistd: degraded" in ctl(h.binary, system_bus, "status").stdout
    # its record dropped, nothing is wrong any more
    assert ctl(h.binary, system_bus, "reset", E810_A).returncode == 0
    c.wait_property("State", "idle")


# --- 8: a broken main configuration, through the daemon ----------------------------------------

def test_apply_with_a_broken_main_config_says_what_the_local_run_says(make_host, start_daemon,
                                                                      bus_client, system_bus):
    h = make_host("e810.json")
    h.main.write_text(MAIN.format(policy="immediate # x"))
    h.layout("50-e810.conf", LAYOUT)
    local = h.run("apply", env=NO_BUS)
    start_daemon(h)
    line = f"{h.main}:4"
    assert local.returncode == 1 and line in local.stderr, local
    held = re.search(rf"^{re.escape(E810_A)} \(ens1f0\): held \(nothing applied\): .*$",
                     local.stdout, re.M)
    assert held, local
    for verb in (["apply"], ["apply", "ens1f0"], ["reset"], ["reset", "ens1f0"]):
        r = ctl(h.binary, system_bus, *verb)
        assert r.returncode == 1, r
        assert "ConfigErrors" not in r.stdout + r.stderr, r
        errors = [e for e in r.stderr.splitlines() if e.startswith(line)]
        assert errors and all(e in local.stderr for e in errors), (r, local)
        assert r.stderr.endswith("The main configuration has errors; fix them first\n"), r
    r = ctl(h.binary, system_bus, "apply")
    assert f"{E810_A} (ens1f0): held (nothing applied): " in r.stdout, r
    assert h.pf(E810_A)["num_vfs"] == 0
