# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fresh-eyes trial 19: a reboot for the pending reboot reasons that failed (logind refused it)
is not tried again on its own, and the daemon says so until one is tried again: State
"degraded", the daemon's status ("reboot_failed", sriovctl status's "reboot failed at" line
with what to do) and the node's annotation, with [Reboot] Policy=immediate and coordinated."""

import json
import os
import re
import subprocess
from pathlib import Path

from conftest import PF_IFACE, pf_path
from test_daemon import NO_BUS
from test_daemon_k8s import (CX6_NODE, cx6_node, env, k8s_notify_bin,  # noqa: F401
                             lease_holder, node_flags)

CX6_A, CX6_B = "0000:ca:00.0", "0000:ca:00.1"  # cx6dx.json: NUM_OF_VFS 8
LAYOUT = f"[Match]\nPCIAddress={CX6_B}\n[PhysicalFunction]\nVirtualFunctions=12\n"
# no stand-in logind owns org.freedesktop.login1 on the test bus: Reboot() fails
REFUSED = "logind refused to reboot: "
ADVICE = ("; not tried again on its own: reboot by hand (systemctl reboot, after draining the "
          "node where Kubernetes runs), or sriovctl apply tries it again")


def ctl(env, h, *args):
    e = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=env.bus.address)
    return subprocess.run([h.binary, "--no-color", *args], capture_output=True, text=True,
                          timeout=120, env=e)


def status(env, h):
    r = ctl(env, h, "status", "--json")
    return json.loads(r.stdout)


def assert_reboot_failed(env, h, error_re):
    """The failure, in State, GetStatus() and sriovctl status alike."""
    c = env.c
    c.wait_property("State", "degraded")
    daemon = status(env, h)["daemon"]
    assert daemon["state"] == "degraded", daemon
    failed = daemon["reboot_failed"]
    assert failed and re.fullmatch(error_re, failed["error"]), daemon
    assert failed["at_usec"] > 0, failed
    assert daemon["pending_reboot_reasons"][0].startswith(f"{CX6_B}: firmware VF limit "), daemon
    out = ctl(env, h, "status").stdout
    line = next((x for x in out.splitlines() if x.startswith("  reboot failed at ")), None)
    assert line and line.endswith(f": {failed['error']}{ADVICE}"), out
    assert out.startswith("sriov-persistd: degraded\n"), out
    return failed


def test_immediate_reboot_that_logind_refuses_degrades_the_daemon(env):  # noqa: F811
    c = env.c
    h = env.host("cx6dx.json", CX6_NODE, reboot="immediate", Enabled="no")
    h.layout("50-b.conf", LAYOUT)
    d = env.start(h)
    c.wait(lambda: "failed at reboot: " + REFUSED in env.log(), timeout=60,
           what="the refused reboot in the journal")
    failed = assert_reboot_failed(env, h, re.escape(REFUSED) + ".+")
    assert status(env, h)["daemon"]["operation"] is None
    assert c.get("PendingReboot") is True
    # still degraded after a reload: the reload tries no reboot
    c.call("Reload")
    assert_reboot_failed(env, h, re.escape(REFUSED) + ".+")

    # a restart (a package upgrade) does not try the reboot again: the failure stands as it was
    d.stop()
    seen = len(env.log())
    d.start()
    c.wait(lambda: "not tried again by the restart" in env.log()[seen:], timeout=60,
           what="the failure kept by the restart")
    again = assert_reboot_failed(env, h, re.escape(REFUSED) + ".+")
    assert again == failed, (again, failed)
    assert "failed at reboot" not in env.log()[seen:], env.log()

    # logind answers now; Apply() asks for the reboot again: no failure stands
    op_file = Path(f"{h.path}.lib") / "operation.json"
    env.logind.start(op_file)
    c.call("Apply", "")
    c.wait(lambda: env.logind.calls(), timeout=60, what="Reboot() on logind")
    c.wait_property("State", "rebooting")
    assert status(env, h)["daemon"]["reboot_failed"] is None
    assert "reboot failed" not in ctl(env, h, "status").stdout


def test_changed_reasons_clear_the_failure(env):  # noqa: F811
    """The layout is removed: the raise is one no layout asks for now (another reason, for
    which no reboot is made on its own), and the failure, for the reasons as they were, is
    no longer reported."""
    c = env.c
    h = env.host("cx6dx.json", CX6_NODE, reboot="immediate", Enabled="no")
    f = h.layout("50-b.conf", LAYOUT)
    env.start(h)
    c.wait(lambda: "failed at reboot: " + REFUSED in env.log(), timeout=60,
           what="the refused reboot in the journal")
    assert_reboot_failed(env, h, re.escape(REFUSED) + ".+")
    f.unlink()
    c.call("Reload")
    c.wait_property("State", "idle")
    daemon = status(env, h)["daemon"]
    assert daemon["reboot_failed"] is None, daemon
    assert "no layout asks for it now" in daemon["pending_reboot_reasons"][0], daemon
    assert "reboot failed" not in ctl(env, h, "status").stdout


def test_coordinated_reboot_that_logind_refuses(env):  # noqa: F811
    """Drained and ready, logind refuses: the cordon is lifted and the slot released as for
    any failed step, and the node's annotation says the reboot failed."""
    c, srv = env.c, env.srv
    h = env.host("cx6dx.json", CX6_NODE, reboot="coordinated", ResourcePrefix="nvidia.com")
    cx6_node(srv)
    h.layout("50-b.conf", LAYOUT)
    env.start(h)
    c.wait(lambda: "failed at reboot: " + REFUSED in env.log(), timeout=90,
           what="the refused reboot in the journal")
    c.wait(lambda: lease_holder(srv) is None and node_flags(srv, CX6_NODE) == (False, None),
           timeout=60, what="uncordon and release after the failed reboot")
    env.settle()
    assert_reboot_failed(env, h, re.escape(REFUSED) + ".+")

    def annotation():
        a = srv.get("node", None, CX6_NODE)["metadata"].get("annotations") or {}
        return a.get("sriov-persist.io/reboot-failed", ""), a.get("sriov-persist.io/state")
    c.wait(lambda: annotation()[0], timeout=30, what="the reboot-failed annotation")
    text, state = annotation()
    assert re.fullmatch(r"at \S+Z: " + re.escape(REFUSED) + ".+", text), text
    assert state == "degraded", state
    # the PF itself is as it was: its VFs wait for the reboot
    assert c.get("State", pf_path(CX6_B), PF_IFACE) == "pending"
    assert json.loads(h.run("status", "--json", env=NO_BUS).stdout).get("daemon") is None
