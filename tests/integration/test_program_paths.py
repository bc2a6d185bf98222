# SPDX-License-Identifier: LGPL-2.1-or-later
"""Issue 32: an option that names a program to run (--k8s-notify) takes an absolute path only, in
every program that has it. sriovctl aborted on an assertion (exit 134) when check or a disruptive
apply ran a relative one; sriov-persistd ran it relative to its working directory."""

import os
import subprocess

import pytest

from conftest import _binary

E810 = "0000:3b:00.0"
LAYOUT = f"[Match]\nPCIAddress={E810}\n[PhysicalFunction]\nVirtualFunctions=2\n"
WHY = "--k8s-notify=../../bin/k8s-notify: must be an absolute path (the program to run)\n"


def kubernetes_on(h):
    h.main.write_text("[Disruption]\nPolicy=drain\n[Kubernetes]\nEnabled=yes\n")


def relative_k8s_notify(h):
    """A directory from which ../../bin/k8s-notify is a real k8s-notify, as in the trial."""
    (h.dir / "bin").mkdir()
    (h.dir / "bin" / "k8s-notify").symlink_to(_binary("K8S_NOTIFY", "build/asan/k8s-notify"))
    cwd = h.dir / "a" / "b"
    cwd.mkdir(parents=True)
    return cwd


def run_in(h, cwd, *args):
    cmd = [h.binary, "--no-color", "--host", str(h.path), "--config-dir", str(h.confdir),
           "--main-config", str(h.main), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=cwd)


@pytest.mark.parametrize("verb", [["check"], ["apply"], ["reset", E810], ["status"]])
def test_sriovctl_refuses_a_relative_k8s_notify(make_host, verb):
    h = make_host("e810.json")
    h.layout("50-e810.conf", LAYOUT)
    assert h.run("apply").returncode == 0
    h.layout("50-e810.conf", LAYOUT.replace("=2", "=4"))  # disruptive: apply asks k8s-notify
    kubernetes_on(h)
    before = h.path.read_bytes()
    r = run_in(h, relative_k8s_notify(h), "--k8s-notify", "../../bin/k8s-notify", *verb)
    assert r.returncode == 2 and r.stderr == WHY and r.stdout == "", r
    assert h.path.read_bytes() == before


def test_the_daemon_and_the_helper_refuse_it_too(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", LAYOUT)
    kubernetes_on(h)
    before = h.path.read_bytes()
    cwd = relative_k8s_notify(h)
    paths = ["--host", str(h.path), "--config-dir", str(h.confdir), "--main-config", str(h.main)]
    daemon = _binary("SRIOVPERSISTD", "build/asan/sriov-persistd")
    helper = _binary("SRIOV_UDEV_HELPER", "build/asan/udev-helper")
    for cmd in ([daemon, "--k8s-notify", "../../bin/k8s-notify", *paths],
                [helper, "--k8s-notify", "../../bin/k8s-notify", *paths, "apply", E810]):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=cwd,
                           env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS="unix:path=/nonexistent"))
        assert r.returncode == 2 and r.stderr.endswith(WHY), (cmd[0], r)
    assert h.path.read_bytes() == before


def test_an_absolute_one_that_is_missing_is_said_when_it_is_to_run(make_host):
    """Not a usage error: the daemon starts without it and says so when it needs it."""
    h = make_host("e810.json")
    h.layout("50-e810.conf", LAYOUT)
    kubernetes_on(h)
    missing = h.dir / "no-such" / "k8s-notify"
    r = h.run("--k8s-notify", str(missing), "check")
    assert r.returncode == 1 and f"Kubernetes is enabled but k8s-notify is not installed " \
        f"({missing}): install sriov-persist-k8s" in r.stderr, r
