# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trial 32 (fresh eyes), words: plan notes that an apply defers a disruptive plan whose drain
cannot run, in apply's words (1); the status hint of a reset that Policy=never holds says what
lifts it (test_trial17_hints) (2); LinkType=ethernet with a Name= of an InfiniBand port says the
Ethernet name cannot be known yet (3); the import's comment agrees with its warning
(test_import) (4); a literal MAC in a section of several VFs names a VF the PF has (5);
sriov-persistd(8) says which verbs read a simulated host themselves (6)."""

import os
import subprocess

from test_check_credentials import LAYOUT, WAIT, k8s_notify_bin, with_kubeconfig  # noqa: F401
from test_trial19_misc import man_text

E810 = "0000:3b:00.0"
CX7 = "0000:1a:00.0"


def test_plan_notes_that_an_apply_defers_when_k8s_notify_is_not_installed(make_host):
    h = make_host("e810.json")
    with_kubeconfig(h, 0o600, enabled="yes")
    missing = str(h.dir / "no-k8s-notify")
    assert h.run("--k8s-notify", missing, "apply").returncode == 0  # VFs made: no drain
    h.layout("50-e810.conf", LAYOUT.replace("=2", "=4"))  # a new count destroys the VFs
    why = (f"{WAIT}cannot run: Kubernetes is enabled but k8s-notify is not installed "
           f"({missing}): install sriov-persist-k8s")
    r = h.run("--k8s-notify", missing, "plan")
    assert r.returncode == 10, r
    assert f"  note: an apply defers all of it: {why}\n" in r.stdout, r.stdout
    before = h.path.read_bytes()
    r = h.run("--k8s-notify", missing, "apply")
    assert r.returncode == 1 and r.stdout == f"{E810} (ens1f0): deferred: {why}\n", r
    assert h.path.read_bytes() == before


def test_plan_notes_nothing_of_a_drain_that_can_run(make_host, k8s_notify_bin):
    h = make_host("e810.json")
    with_kubeconfig(h, 0o600, enabled="yes")
    assert h.run("--k8s-notify", k8s_notify_bin, "apply").returncode == 0
    h.layout("50-e810.conf", LAYOUT.replace("=2", "=4"))
    r = h.run("--k8s-notify", k8s_notify_bin, "plan")
    assert r.returncode == 10 and "disruptive" in r.stdout, r
    assert "defers all of it" not in r.stdout and "cannot run" not in r.stdout, r.stdout


def test_a_kubeconfig_others_may_write_is_noted_by_plan(make_host, k8s_notify_bin):
    h = make_host("e810.json")
    kc = with_kubeconfig(h, 0o600, enabled="yes")
    assert h.run("--k8s-notify", k8s_notify_bin, "apply").returncode == 0
    kc.chmod(0o666)
    h.layout("50-e810.conf", LAYOUT.replace("=2", "=4"))
    r = h.run("--k8s-notify", k8s_notify_bin, "plan")
    assert r.returncode == 10, r
    notes = [x for x in r.stdout.splitlines() if "note: an apply defers all of it: " in x]
    assert len(notes) == 1 and f"{WAIT}cannot run: " in notes[0] and str(kc) in notes[0], r.stdout
    r = h.run("--k8s-notify", k8s_notify_bin, "apply")
    assert r.returncode == 1 and f"deferred: {WAIT}cannot run: " in r.stdout, r


def test_an_ethernet_name_for_an_infiniband_port_is_said_unknowable(make_host):
    h = make_host("cx7-ib.json")
    p = h.layout("60-ib.conf", "[Match]\nName=ibp26s0 enp26s0np0\n[PhysicalFunction]\n"
                               "LinkType=ethernet\n")
    r = h.run("check")
    assert r.returncode == 1 and (
        f"{p}:2: Name=ibp26s0 enp26s0np0: LinkType=ethernet renames the interface ibp26s0 of "
        f"{CX7} at the reboot it needs, to a name this host cannot know yet (udev names an "
        "Ethernet port by its slot, onboard index or PCI path, as it finds them then), so this "
        f"file would select no PF after it; match by PCIAddress={CX7} instead"
    ) in r.stderr.splitlines(), r
    assert "the kernel names an Ethernet port anew" not in r.stderr
    text = man_text("sriov-persist.layout.5")
    assert "LinkType=ethernet renames the interface ibp26s0 of" in text
    assert "the IPoIB name\nfollows from the PCI address alone" in text


def test_a_literal_mac_for_several_vfs_names_a_vf_the_pf_has(make_host):
    h = make_host("igb-82576.json")
    p = h.layout("50-igb.conf", "[Match]\nPCIAddress=0000:01:00.0\n[PhysicalFunction]\n"
                                "VirtualFunctions=2\n[VirtualFunction]\n"
                                "MACAddress=02:00:00:00:00:0a\n")
    r = h.run("check")
    assert r.returncode == 1, r
    assert (f"{p}:6: MACAddress=02:00:00:00:00:0a: a literal value needs a single-VF section "
            "such as [VirtualFunction 0]; use stable here") in r.stderr.splitlines(), r.stderr
    assert "[VirtualFunction 3]" not in r.stderr
    assert "single-VF section such as [VirtualFunction 0]" in man_text("sriov-persist.layout.5")


def test_the_private_bus_example_says_which_verbs_read_the_host_themselves():
    text = " ".join(man_text("sriov-persistd.8").split())
    assert ("for status, plan, apply and reset only: cat, check, snapshot, metrics and wait read "
            "the host themselves (see sriovctl(8)), the machine's own unless given the daemon's "
            "options (sriovctl --host host.json --config-dir conf.d --main-config "
            "sriov-persist.conf wait)") in text, text


def test_plan_through_the_daemon_notes_it_too(make_host, start_daemon, bus_client, system_bus):
    """The daemon's Plan() looks as sriovctl plan does, at each call: a k8s-notify that is not
    installed gets the same note, and once it is installed the note is gone."""
    h = make_host("e810.json")
    with_kubeconfig(h, 0o600, enabled="yes")
    k8s = h.dir / "k8s-notify"
    assert h.run("--k8s-notify", str(k8s), "apply").returncode == 0  # VFs made: no drain
    h.layout("50-e810.conf", LAYOUT.replace("=2", "=4"))  # a new count destroys the VFs
    start_daemon(h, "--k8s-notify", str(k8s))
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_bus.address)
    why = (f"{WAIT}cannot run: Kubernetes is enabled but k8s-notify is not installed "
           f"({k8s}): install sriov-persist-k8s")

    def plan():
        r = subprocess.run([h.binary, "--no-color", "plan", E810], capture_output=True,
                           text=True, timeout=120, env=env)
        assert r.returncode == 10, r
        return r.stdout
    out = plan()
    assert f"  note: an apply defers all of it: {why}\n" in out, out
    k8s.write_text("#!/bin/sh\nexit 1\n")
    k8s.chmod(0o755)
    out = plan()
    assert "note: an apply defers all of it" not in out, out
