# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fresh-eyes trial 20: a reboot that failed as the daemon started shows in the metrics as a
gauge while it stands (a counter born at 1 shows no increase()); sriovctl apply, which asks
for the reboot again, says when it failed again (exit 1), and status exits 1 while that
failure stands; with no reboot to be made ([Reboot] Policy=never, or coordinated without
Kubernetes) the daemon's status says so and what to do."""

import re
from pathlib import Path

from test_daemon_k8s import CX6_NODE, env, k8s_notify_bin  # noqa: F401
from test_trial19_reboot import (ADVICE, CX6_B, LAYOUT, REFUSED, assert_reboot_failed, ctl,
                                 status)

GAUGE = "sriov_persist_daemon_reboot_failed_timestamp_seconds"


def failed_reboot(env):  # noqa: F811
    c = env.c
    h = env.host("cx6dx.json", CX6_NODE, reboot="immediate", Enabled="no")
    h.layout("50-b.conf", LAYOUT)
    env.start(h)
    c.wait(lambda: "failed at reboot: " + REFUSED in env.log(), timeout=60,
           what="the refused reboot in the journal")
    return h, assert_reboot_failed(env, h, re.escape(REFUSED) + ".+")


def metrics(env, h):  # noqa: F811
    return h.run("metrics", env={"DBUS_SYSTEM_BUS_ADDRESS": env.bus.address})


def gauge(text):
    m = re.search(rf"^{GAUGE} (\S+)$", text, re.M)
    assert m, text
    return float(m.group(1))


def test_failed_reboot_is_a_gauge_while_it_stands(env):  # noqa: F811
    h, failed = failed_reboot(env)
    r = metrics(env, h)
    assert r.returncode == 0, r.stderr
    assert f"# TYPE {GAUGE} gauge" in r.stdout
    assert gauge(r.stdout) == failed["at_usec"] / 1e6
    assert 'sriov_persist_daemon_reboots_total{result="failed"} 1' in r.stdout
    # logind answers now: tried again, no failure stands
    env.logind.start(Path(f"{h.path}.lib") / "operation.json")
    env.c.call("Apply", "")
    env.c.wait(lambda: env.logind.calls(), timeout=60, what="Reboot() on logind")
    assert gauge(metrics(env, h).stdout) == 0


def test_apply_says_the_reboot_failed_again(env):  # noqa: F811
    h, failed = failed_reboot(env)
    r = ctl(env, h, "status")
    assert r.returncode == 1, r.stdout  # a failed reboot that stands: a problem
    line = next((x for x in r.stdout.splitlines() if x.startswith("  reboot failed at ")), "")
    assert line.endswith(ADVICE), r.stdout
    r = ctl(env, h, "apply")
    assert r.returncode == 1, (r.stdout, r.stderr)
    line = next((x for x in r.stdout.splitlines()
                 if x.startswith("sriov-persistd: reboot failed at ")), None)
    assert line and line.endswith(ADVICE) and REFUSED in line, r.stdout
    again = status(env, h)["daemon"]["reboot_failed"]
    assert again["at_usec"] > failed["at_usec"], again


def no_reboot(env, policy, k8s):  # noqa: F811
    h = env.host("cx6dx.json", CX6_NODE, reboot=policy, Enabled=k8s)
    h.layout("50-b.conf", LAYOUT)
    env.start(h)
    env.c.wait(lambda: status(env, h)["daemon"]["pending_reboot_reasons"], timeout=60,
               what="the pending reboot reasons")
    d = status(env, h)["daemon"]
    out = ctl(env, h, "status").stdout
    assert d["pending_reboot_reasons"][0].startswith(f"{CX6_B}: firmware VF limit "), d
    return d, out


def test_coordinated_without_kubernetes_says_no_reboot_is_made(env):  # noqa: F811
    d, out = no_reboot(env, "coordinated", "no")
    why = ("[Reboot] Policy=coordinated needs Kubernetes, which is not enabled: reboot by hand, "
           "or set Policy=immediate")
    assert d["no_reboot"] == why, d
    assert f"\n  no reboot is made: {why}\n" in out, out


def test_never_says_no_reboot_is_made(env):  # noqa: F811
    d, out = no_reboot(env, "never", "no")
    assert d["no_reboot"] == "[Reboot] Policy=never: reboot by hand", d
    assert "\n  no reboot is made: [Reboot] Policy=never: reboot by hand\n" in out, out


def test_immediate_makes_the_reboot(env):  # noqa: F811
    h, _ = failed_reboot(env)
    d = status(env, h)["daemon"]
    assert d["no_reboot"] is None, d
    assert "no reboot is made" not in ctl(env, h, "status").stdout
