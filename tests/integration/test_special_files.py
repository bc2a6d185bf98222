# SPDX-License-Identifier: LGPL-2.1-or-later
"""A FIFO, a socket or a device where a record or a configuration file belongs is refused at once,
never read: a FIFO at a PF's record once blocked `sriovctl status`, `apply`, `wait` (past its own
--timeout) and the daemon's event loop (every bus call unanswered) for ever. Temporary files that
killed writers left beside a record are removed by the next write of that record.

Every run has a timeout: a regression fails here instead of hanging."""

import json
import os
import socket
import stat
import subprocess
import time
from pathlib import Path

from conftest import ROOT
from test_daemon import E810_A, E810_B, apply_all, configured_host, drift, host_matches

HELPER = os.environ.get("SRIOV_UDEV_HELPER") or str(ROOT / "build/asan/udev-helper")

LAYOUT = "[Match]\nDevice=0x159b\n[PhysicalFunction]\nVirtualFunctions={n}\n"
QUICK = 20  # seconds: far more than any of these runs needs
GONE = "0000:99:00.0"  # a PF with a record that the host no longer has


def running(make_host, n=4):
    """An E810 host whose two ports run n VFs, with their records."""
    h = make_host("e810.json")
    h.layout("50-e810.conf", LAYOUT.format(n=n))
    r = h.run("apply")
    assert r.returncode == 0, r.stdout + r.stderr
    return h


def record(h, kind, pci):
    """The PF's record in the runtime ("run") or state ("lib") directory of a --host."""
    return Path(f"{h.path}.{kind}") / "pf" / f"{pci}.json"


def make_fifo(path):
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def dead_pid():
    """A pid above pid_max: no process has it, kill() says ESRCH."""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1


def test_a_fifo_at_a_record_blocks_no_verb(make_host):
    h = running(make_host)
    for kind in ("run", "lib"):
        make_fifo(record(h, kind, E810_A))
    before = h.state()

    # a record that cannot be read is no record, as one that does not parse
    r = h.run("status", "--json", timeout=QUICK)
    assert r.returncode == 0, r.stdout + r.stderr
    st = {p["pci"]: p for p in json.loads(r.stdout)["pfs"]}
    assert st[E810_A]["num_vfs"] == 4 and st[E810_B]["num_vfs"] == 4
    r = h.run("plan", timeout=QUICK)
    assert r.returncode == 0 and r.stdout.count("nothing to do") == 2, r.stdout + r.stderr

    # the gate waits for a record it can read, and no longer than it was told
    t0 = time.monotonic()
    r = h.run("wait", "--timeout", "2", timeout=QUICK)
    took = time.monotonic() - t0
    assert r.returncode == 1 and f"Not applied yet: {E810_A}" in r.stdout, r.stdout + r.stderr
    assert took < 10, f"wait --timeout 2 took {took:.1f} s"

    # apply writes the runtime record anew, over the FIFO; nothing is destroyed
    r = h.run("apply", timeout=QUICK)
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.state()["pfs"] == before["pfs"]
    rec = json.loads(record(h, "run", E810_A).read_text())
    assert rec["state"] == "applied" and rec["num_vfs"] == 4
    # a reset cannot know what the unreadable state record says: it removes nothing
    (h.confdir / "50-e810.conf").unlink()
    r = h.run("reset", E810_A, timeout=QUICK)
    assert r.returncode == 1 and h.pf(E810_A)["num_vfs"] == 4, r.stdout + r.stderr
    assert (f"reading what sriov-persist created from {h.path}.lib failed: not a regular file; "
            "nothing reset") in r.stdout + r.stderr


def test_configuration_that_is_not_a_regular_file(make_host, tmp_path):
    h = running(make_host)
    fifo = tmp_path / "sriov-persist.conf"
    os.mkfifo(fifo)
    r = h.run("--main-config", str(fifo), "plan", timeout=QUICK)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"--main-config={fifo}: is not a regular file" in r.stderr
    r = h.run("--main-config", "/dev/null", "apply", timeout=QUICK)
    assert r.returncode == 2 and "/dev/null: is not a regular file" in r.stderr
    # the apply unit's helper takes the path as it is: the main configuration has an error,
    # and an error in it holds the PF
    h.layout("50-e810.conf", LAYOUT.format(n=2))
    r = subprocess.run([HELPER, "--host", str(h.path), "--config-dir", str(h.confdir),
                        "--main-config", str(fifo), "apply", E810_A],
                       capture_output=True, text=True, timeout=QUICK)
    assert r.returncode == 1, r.stdout + r.stderr
    assert h.pf(E810_A)["num_vfs"] == 4
    rec = json.loads(record(h, "run", E810_A).read_text())
    assert rec["state"] == "held" and "the main configuration has errors" in rec["error"], rec

    # named to `check`: the same reader as every layout and the main configuration
    layout = tmp_path / "60-fifo.conf"
    os.mkfifo(layout)
    r = h.run("check", str(layout), str(fifo), timeout=QUICK)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{layout}: cannot read: not a regular file" in r.stderr
    assert f"{fifo}: cannot read: not a regular file" in r.stderr

    # the simulated host itself, a FIFO or a socket
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(tmp_path / "host.sock"))
    for path in (fifo, tmp_path / "host.sock"):
        cmd = [h.binary, "--no-color", "--host", str(path), "--config-dir", str(h.confdir),
               "--main-config", str(h.main), "status"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=QUICK)
        assert r.returncode == 1, r.stdout + r.stderr
        assert f"{path}: cannot open the simulated host: not a regular file" in r.stderr
    sock.close()


def test_the_daemon_starts_with_fifos_at_its_records(make_host, start_daemon, bus_client):
    """reboot.json and given-up.json are read once at start: warned of, never waited on."""
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    state = Path(f"{h.path}.lib")
    state.mkdir()
    for name in ("reboot.json", "given-up.json"):
        os.mkfifo(state / name)
    d = start_daemon(h)
    apply_all(bus_client, [E810_A])
    log = d.log_text()
    assert f"{state}/reboot.json: not a regular file; starting without it" in log, log
    assert f"{state}/given-up.json: not a regular file" in log, log


def test_the_daemon_says_when_it_cannot_remove_given_up_json(make_host, start_daemon, bus_client):
    """Nothing failed, so at exit the daemon removes given-up.json; a directory there (unlink()
    fails with EISDIR) is said, with the path and why, not passed over."""
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    state = Path(f"{h.path}.lib")
    (state / "given-up.json").mkdir(parents=True)
    (state / "given-up.json" / "keep").write_text("")
    d = start_daemon(h)
    apply_all(bus_client, [E810_A])
    d.stop()
    log = d.log_text()
    assert (f"Removing {state}/given-up.json failed: Is a directory; nothing failed now, but a "
            "start in this boot would take what the file says failed for failed still, and not try "
            "it again: remove it by hand") in log, log


def test_the_daemon_answers_with_a_fifo_at_a_record(make_host, start_daemon, bus_client):
    """The daemon reads PFs' records when they change and for every GetStatus(); with a FIFO at
    one, its loop once stopped in open() and every call got NoReply until the watchdog. Here the
    FIFOs stay: at an unconfigured PF's records (which nothing writes) and at a gone PF's."""
    c = bus_client
    h = configured_host(make_host, "e810.json", {E810_A: (4, 10)}, mode="report")
    start_daemon(h)
    apply_all(c, [E810_A])
    fifos = [record(h, "run", E810_B), record(h, "lib", E810_B), record(h, "run", GONE)]
    for f in fifos:
        make_fifo(f)

    def change(s):
        h.pf_of(s, E810_B)["mtu"] = 9000
    h.edit(change)  # the PF is looked at again, its records with it
    for _ in range(5):
        status = json.loads(c.call("GetStatus", timeout=QUICK))
        assert {p["pci"]: p["state"] for p in status["pfs"]} == {
            E810_A: "applied", E810_B: "unconfigured"}, status
        time.sleep(0.1)
    # and the loop goes on: drift of the other PF is seen, and repaired when asked
    m = c.mark()
    drift(h, E810_A, vf=0, vlan=0)
    c.wait_signal("DriftDetected", m, pci=E810_A, timeout=QUICK)
    m = c.mark()
    c.call("Apply", E810_A, timeout=QUICK)
    assert c.wait_applied(E810_A, m, timeout=QUICK) == 0
    assert host_matches(h, E810_A, 4, 10)
    assert all(stat.S_ISFIFO(f.lstat().st_mode) for f in fifos)


def test_temporary_files_of_killed_writers_are_removed(make_host):
    """After 200 SIGKILLs of `sriovctl apply`, .#<pci>.json.<pid> files stayed in both record
    directories. The next write of the record removes those whose writer is gone, and keeps
    those of a writer that is alive (this test's process stands in for one)."""
    h = running(make_host)
    dead, alive = dead_pid(), os.getpid()
    left = []
    for kind in ("run", "lib"):
        d = record(h, kind, E810_A).parent
        for pid in (dead, alive):
            (d / f".#{E810_A}.json.{pid}").write_text("{\"pci\": \"half a rec")
        left.append(d)
    h.layout("50-e810.conf", LAYOUT.format(n=2))
    r = h.run("apply", timeout=QUICK)
    assert r.returncode == 0, r.stdout + r.stderr
    for d in left:
        assert not (d / f".#{E810_A}.json.{dead}").exists(), sorted(os.listdir(d))
        assert (d / f".#{E810_A}.json.{alive}").exists(), sorted(os.listdir(d))
    rec = json.loads(record(h, "run", E810_A).read_text())
    assert rec["state"] == "applied" and rec["num_vfs"] == 2
    assert json.loads(record(h, "lib", E810_A).read_text())["num_vfs"] == 2
    assert h.pf(E810_A)["num_vfs"] == 2
