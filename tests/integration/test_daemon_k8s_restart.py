# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriov-persistd restarted with another setup: what a PF and the node are told is what is true
now, not what the daemon before found. The first daemon runs with a k8s-notify that is not there
(the drain of a deferred PF fails at its lease step); the second with the real one and the
kubeconfig gone. k8s-notify's final refusal ("retryable":false) of the uncordon at start, which
only looks for a cordon of ours no record tells of, is tried again only after RetryMaxDelaySec=
and reports no cordon as left: the journal says why and when it looks again, and putting the kubeconfig back (a
reload) looks again and lets the drain go through."""

import json
import os
import re
import subprocess
import time
from pathlib import Path

from conftest import PF_IFACE, Daemon, pf_path
from test_daemon_k8s import (E810_A, E810_LAYOUT, E810_NODE, E810_RES,  # noqa: F401
                             e810_node, env, k8s_notify_bin, lease_holder, node_flags,
                             replace_layout, set_plugin_allocatable)


def waiting(c):
    api = json.loads(c.call("GetStatus"))["daemon"]["kubernetes_api"]
    return api["waiting"] if api else []


def status_text(env):
    """sriovctl status PF through the daemon (no --host: the daemon's)."""
    r = subprocess.run([env.sriovctl_bin, "--no-color", "status", E810_A], capture_output=True,
                       text=True, timeout=60,
                       env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=env.bus.address))
    return r.stdout + r.stderr


def test_restart_with_another_setup_says_what_is_true_now(env):  # noqa: F811
    srv, c = env.srv, env.c
    h, _ = e810_node(env)
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 8})
    missing = h.dir / "no-such" / "k8s-notify"
    first = Daemon(env.daemon_bin, h, env.bus, ["--k8s-notify", str(missing)])
    env.daemons.append(first)
    first.start()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: "cannot run k8s-notify" in c.get("LastError", pf_path(E810_A), PF_IFACE),
           timeout=30, what="the drain failed at its lease step")
    first.stop()

    # the kubeconfig is gone; the daemon now has the real k8s-notify
    kube = Path(env.kubeconfig)
    kubeconfig = kube.read_text()
    kube.unlink()
    second = env.start(h)
    c.wait(lambda: "looking for a cordon of ours that a crash may have left failed" in
           second.log_text(), timeout=30, what="the uncordon's final failure in the journal")
    time.sleep(3)  # no retry comes
    log = second.log_text()
    out = status_text(env)
    print(f"\n--- sriovctl status after the restart:\n{out}\n--- journal:\n{log}")
    # (a) the PF's reason is this daemon's, not the first one's
    last_error = c.get("LastError", pf_path(E810_A), PF_IFACE)
    assert "cannot run k8s-notify" not in last_error, last_error
    assert "cannot run k8s-notify" not in out, out
    assert "Kubernetes credentials" in last_error or "kubeconfig" in last_error, last_error
    # (c) a final refusal is not retried: it says so, and what to do
    assert "uncordon will be tried again" not in log, log
    assert "uncordon failed for now" not in out, out
    # no record says a cordon of ours was made: none is reported as left (status, node), the
    # journal says why it could not look and when it looks again
    assert not any("uncordon" in x or "cordon" in x for x in waiting(c)), waiting(c)
    assert "cordon" not in out, out
    assert log.count("looking for a cordon of ours that a crash may have left failed") == 1, log
    assert "no record says one was made, so none is reported" in log, log
    assert "looked for again in 5min, or when the daemon reloads or Apply() is called" in log, log
    # (b) no "(4 of until done)"
    assert not re.search(r"\(\d+ of until done\)", out), out
    assert h.pf(E810_A)["num_vfs"] == 4

    # the operator puts the kubeconfig back: the reload lifts what was left and drains
    m = c.mark()
    tmp = kube.with_name(".kubeconfig.new")
    tmp.write_text(kubeconfig)
    tmp.chmod(0o600)
    tmp.rename(kube)
    assert c.wait_applied(E810_A, m, timeout=90) == 0, second.log_text()
    env.settle()
    assert h.pf(E810_A)["num_vfs"] == 8
    assert waiting(c) == []
    assert c.get("LastError", pf_path(E810_A), PF_IFACE) == ""
    assert lease_holder(srv) is None and node_flags(srv, E810_NODE) == (False, None)


def test_restart_after_k8s_notify_was_installed_tries_the_drain_again(env):  # noqa: F811
    """The same options and configuration, but the k8s-notify the first daemon could not run is
    there now: the failure was the missing program's, and the restart tries the drain again (an
    upgrade, which changes no option, does not)."""
    srv, c = env.srv, env.c
    h, _ = e810_node(env)
    set_plugin_allocatable(srv, {f"intel.com/{E810_RES}": 8})
    notify = h.dir / "bin" / "k8s-notify"
    d = Daemon(env.daemon_bin, h, env.bus, ["--k8s-notify", str(notify)])
    env.daemons.append(d)
    d.start()
    replace_layout(h, "50-e810.conf", E810_LAYOUT.format(pci=E810_A, n=8, vlan=10))
    c.wait(lambda: "cannot run k8s-notify" in c.get("LastError", pf_path(E810_A), PF_IFACE),
           timeout=30, what="the drain failed at its lease step")
    d.stop()
    notify.parent.mkdir()
    notify.symlink_to(env.notify_bin)
    m = c.mark()
    d.start()
    assert c.wait_applied(E810_A, m, timeout=90) == 0, d.log_text()
    env.settle()
    assert "what failed then is tried again" in d.log_text()
    assert h.pf(E810_A)["num_vfs"] == 8
    assert c.get("LastError", pf_path(E810_A), PF_IFACE) == ""
    assert lease_holder(srv) is None and node_flags(srv, E810_NODE) == (False, None)
