# SPDX-License-Identifier: LGPL-2.1-or-later
"""What an operator is told: every message names the file, directory or object it is about and
says what to do. Files that others may write (sshd's StrictModes) are refused with such a
message, and the PFs are held as for any error of a layout or of the main configuration."""

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import FIXTURES, Daemon, pf_path, run_as_nobody, PF_IFACE
from test_daemon import E810_A, E810_B, NO_BUS, configured_host, host_matches, sync

LAYOUT = "[Match]\nDevice=0x159b\n[PhysicalFunction]\nVirtualFunctions=4\n"
NOBODY = 65534


def writable(path, mode):
    return f"{path}: writable by group or others (mode {mode:04o}); refusing it: chmod go-w"


def run(h, *args):
    return h.run(*args, env=NO_BUS)


def held_by(h, reason):
    """plan says that both E810 ports are held, for reason."""
    r = run(h, "plan")
    assert r.returncode != 0, r.stdout + r.stderr
    for pci in (E810_A, E810_B):
        assert re.search(rf"{pci} \S+: held: {re.escape(reason)}", r.stdout), r.stdout + r.stderr


def refused_and_held(h, message):
    """check, apply and plan all say message; nothing on the host changes."""
    before = h.path.read_bytes()
    r = run(h, "check")
    assert r.returncode == 1 and message in r.stderr.splitlines(), r.stdout + r.stderr
    r = run(h, "apply")
    assert r.returncode == 1 and message in r.stdout + r.stderr, r.stdout + r.stderr
    assert h.path.read_bytes() == before


def applies(h):
    r = run(h, "apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.pf(E810_A)["num_vfs"] == 4 and h.pf(E810_B)["num_vfs"] == 4


@pytest.mark.parametrize("mode", [0o666, 0o664, 0o646])
def test_a_layout_others_may_write_holds_every_pf(make_host, mode):
    h = make_host("e810.json")
    f = h.layout("50-e810.conf", LAYOUT)
    f.chmod(mode)
    refused_and_held(h, writable(f, mode))
    held_by(h, writable(f, mode))
    f.chmod(0o644)
    applies(h)


def test_a_layout_of_another_user(make_host):
    h = make_host("e810.json")
    f = h.layout("50-e810.conf", LAYOUT)
    os.chown(f, 4321, 4321)
    refused_and_held(h, f"{f}: owned by uid 4321, not by root; refusing it: chown root")
    os.chown(f, 0, 0)
    applies(h)


def test_what_a_link_points_to_is_judged(make_host):
    h = make_host("e810.json")
    target = h.dir / "elsewhere.conf"
    target.write_text(LAYOUT)
    link = h.confdir / "50-e810.conf"
    link.symlink_to(target)
    # the link itself is 0777, as every link: what is read is the target
    applies(h)
    target.chmod(0o666)
    refused_and_held(h, writable(link, 0o666))
    # a link to /dev/null (0666, a device) masks a name, and is no error
    link.unlink()
    link.symlink_to("/dev/null")
    r = run(h, "check")
    assert r.returncode == 0 and "0 error(s)" in r.stdout, r.stdout + r.stderr


def test_a_layout_directory_others_may_write_holds_every_pf(make_host):
    h = make_host("e810.json")
    h.layout("50-e810.conf", LAYOUT)
    h.confdir.chmod(0o777)
    refused_and_held(h, writable(h.confdir, 0o777))
    held_by(h, writable(h.confdir, 0o777))
    h.confdir.chmod(0o1777)  # sticky or not: others may add files
    refused_and_held(h, writable(h.confdir, 0o1777))
    h.confdir.chmod(0o755)
    applies(h)


@pytest.mark.parametrize("where", ["main", "dropin", "dropin-dir"])
def test_a_main_configuration_others_may_write_applies_nothing(make_host, where):
    h = make_host("e810.json")
    h.layout("50-e810.conf", LAYOUT)
    dropins = Path(f"{h.main}.d")
    dropins.mkdir()
    dropin = dropins / "10-x.conf"
    dropin.write_text("[Drift]\nMode=report\n")
    path, mode = {"main": (h.main, 0o666), "dropin": (dropin, 0o620),
                  "dropin-dir": (dropins, 0o777)}[where]
    path.chmod(mode)
    refused_and_held(h, writable(path, mode))
    r = run(h, "apply")
    assert "The main configuration has errors; fix them first" in r.stderr, r.stderr
    path.chmod(0o755 if path.is_dir() else 0o644)
    applies(h)


@pytest.fixture
def nobody_tree():
    """A --host tree that user nobody owns and may enter (pytest's tmp_path is root's, 0700)."""
    d = Path(tempfile.mkdtemp(prefix="sriov-persist-nobody-"))
    d.chmod(0o755)
    shutil.copy(FIXTURES / "e810.json", d / "host.json")
    (d / "conf.d").mkdir()
    (d / "conf.d" / "50-e810.conf").write_text(LAYOUT)
    (d / "main.conf").write_text("[Disruption]\nPolicy=immediate\n")
    for p in (d, *d.rglob("*")):
        os.chown(p, NOBODY, NOBODY)
    yield d
    shutil.rmtree(d)


def nobody_run(binary, d, *args):
    return run_as_nobody([binary, "--no-color", "--host", str(d / "host.json"), "--config-dir",
                          str(d / "conf.d"), "--main-config", str(d / "main.conf"), *args],
                         env=NO_BUS)


def test_an_unprivileged_run_uses_its_own_files(nobody_tree, sriovctl_bin):
    d = nobody_tree
    r = nobody_run(sriovctl_bin, d, "check")
    assert r.returncode == 0 and "0 error(s)" in r.stdout, r.stdout + r.stderr
    # root's files are trusted too; a third user's are not
    os.chown(d / "main.conf", 0, 0)
    os.chown(d / "conf.d" / "50-e810.conf", 4321, 4321)
    r = nobody_run(sriovctl_bin, d, "check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr.splitlines() == [
        f"{d}/conf.d/50-e810.conf: owned by uid 4321, neither root nor uid {NOBODY} running "
        "this; refusing it: chown root"], r.stderr


def test_an_unreadable_layout_directory_is_named(nobody_tree, sriovctl_bin):
    d = nobody_tree
    os.chown(d / "conf.d", 0, 0)
    (d / "conf.d").chmod(0o700)
    r = nobody_run(sriovctl_bin, d, "check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{d}/conf.d: cannot read: Permission denied" in r.stderr.splitlines(), r.stderr
    r = nobody_run(sriovctl_bin, d, "plan")
    assert r.returncode != 0, r.stdout + r.stderr
    assert f"{E810_A} (ens1f0): held: {d}/conf.d: cannot read: Permission denied" in r.stdout, \
        r.stdout + r.stderr


@pytest.mark.parametrize("text, why", [
    (None, "(document): not valid JSON at offset 0: unexpected character"),
    ('{"pfs": [', "(document): not valid JSON: unexpected end of input"),
    ("[]", "(document): not an object"),
])
def test_a_host_file_that_is_no_snapshot(sriovctl_bin, tmp_path, text, why):
    path = "/etc/passwd"
    if text is not None:
        path = tmp_path / "host.json"
        path.write_text(text)
    r = subprocess.run([sriovctl_bin, "--host", str(path), "status"], capture_output=True,
                       text=True, timeout=60, env=dict(os.environ, **NO_BUS))
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr == f"{path}: not a simulated host snapshot: {why}\n", r.stderr
    r = subprocess.run([sriovctl_bin, "--host", str(tmp_path / "none.json"), "status"],
                       capture_output=True, text=True, timeout=60, env=dict(os.environ, **NO_BUS))
    assert r.returncode == 1 and r.stderr == \
        f"{tmp_path}/none.json: cannot open the simulated host: No such file or directory\n", \
        r.stderr


# --- through the daemon -------------------------------------------------------------------------

def test_an_unprivileged_apply_is_told_it_needs_root(make_host, start_daemon, system_bus):
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    start_daemon(h)
    before = h.path.read_bytes()
    for verb in ("apply", "reset"):
        r = run_as_nobody([h.binary, "--no-color", verb, E810_A],
                          env={"DBUS_SYSTEM_BUS_ADDRESS": system_bus.address})
        assert r.returncode == 1, r.stdout + r.stderr
        assert r.stderr == f"{verb}: permission denied: changing the host needs root (run it " \
            "with sudo)\n", r.stderr
    assert h.path.read_bytes() == before


def test_a_second_daemon_says_another_owns_the_name(make_host, start_daemon, system_bus,
                                                     sriovpersistd_bin):
    h = configured_host(make_host, "e810.json", {}, mode="report")
    start_daemon(h)
    second = Daemon(sriovpersistd_bin, h, system_bus)
    with pytest.raises(AssertionError, match="exited with") as e:
        second.start(timeout=30)
    assert "Another sriov-persistd already owns org.sriovpersist1 on this bus; not starting" \
        in str(e.value), str(e.value)
    assert "File exists" not in str(e.value)


def test_the_daemon_holds_a_layout_made_writable(make_host, start_daemon, bus_client):
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="repair")
    start_daemon(h)
    pf = pf_path(E810_A)
    c.wait_property("State", "applied", pf, PF_IFACE)
    f = h.confdir / f"50-{E810_A}.conf"
    before = h.pf(E810_A)
    f.chmod(0o666)  # heard as IN_ATTRIB
    c.wait_property("State", "held", pf, PF_IFACE)
    assert writable(f, 0o666) in c.get("ConfigErrors"), c.get("ConfigErrors")
    assert c.get("LastError", pf, PF_IFACE) == writable(f, 0o666)
    sync(c)
    assert h.pf(E810_A) == before
    f.chmod(0o644)
    c.wait_property("State", "applied", pf, PF_IFACE)
    assert c.get("ConfigErrors") == []
    assert host_matches(h, E810_A, 4, 10)
