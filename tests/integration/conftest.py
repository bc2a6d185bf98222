# SPDX-License-Identifier: LGPL-2.1-or-later
"""Integration tests: the built sriovctl against simulated hosts (fixture snapshots)."""

import ctypes
import fcntl
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# layouts and main configurations that group or others may write are refused (StrictModes):
# the files the tests write are safe whatever umask the tests were started with
os.umask(0o022)
FIXTURES = ROOT / "tests" / "fixtures" / "hosts"


def _binary(var, default):
    path = os.environ.get(var) or str(ROOT / default)
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"{path} is not built: run make check")
    return path


@pytest.fixture(scope="session")
def sriovctl_bin():
    return _binary("SRIOVCTL", "build/asan/sriovctl")


@pytest.fixture(scope="session")
def sriovctl_plain_bin():
    return _binary("SRIOVCTL_PLAIN", "build/plain/sriovctl")


class Host:
    """A copy of a fixture host, with its own layout directory and main config."""

    def __init__(self, tmp, fixture, binary):
        self.dir = tmp
        self.path = tmp / "host.json"
        shutil.copy(FIXTURES / fixture, self.path)
        self.confdir = tmp / "conf.d"
        self.confdir.mkdir()
        self.main = tmp / "sriov-persist.conf"
        self.main.write_text("[Apply]\nSysfsWriteTimeoutSec=1\n[Disruption]\nPolicy=immediate\n")
        self.binary = binary

    def state(self):
        return json.loads(self.path.read_text())

    def save(self, state):
        self.path.write_text(json.dumps(state, indent=2) + "\n")

    def pf(self, pci):
        return next(p for p in self.state()["pfs"] if p["pci"] == pci)

    def pfs_by_driver(self, driver):
        return [p for p in self.state()["pfs"] if p["driver"] == driver]

    def layout(self, name, text):
        path = self.confdir / name
        path.write_text(text)
        return path

    def run(self, *args, binary=None, timeout=60, env=None):
        cmd = [binary or self.binary, "--no-color", "--host", str(self.path),
               "--config-dir", str(self.confdir), "--main-config", str(self.main), *args]
        e = dict(os.environ)
        e.update(env or {})
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e)

    def add_fault(self, **fault):
        s = self.state()
        s.setdefault("faults", []).append(fault)
        self.save(s)

    def save_atomic(self, state):
        """Replaces the host file the way the simulated kernel does, for a daemon that watches it:
        FILE.tmp written and renamed over FILE while holding flock(LOCK_EX) on the old FILE."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(self.path, "rb") as old:
            fcntl.flock(old, fcntl.LOCK_EX)
            with open(tmp, "w") as f:
                f.write(json.dumps(state, indent=2) + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.rename(tmp, self.path)

    def edit(self, change):
        """change(state) edits the parsed host in place; the result is saved atomically."""
        s = self.state()
        change(s)
        self.save_atomic(s)
        return s

    @staticmethod
    def pf_of(state, pci):
        return next(p for p in state["pfs"] if p["pci"] == pci)


@pytest.fixture
def make_host(tmp_path, sriovctl_bin):
    count = [0]

    def make(fixture):
        count[0] += 1
        d = tmp_path / f"h{count[0]}"
        d.mkdir()
        return Host(d, fixture, sriovctl_bin)

    return make


# --- D-Bus: a private system bus (dbus/system.conf + the shipped policy) and sriov-persistd on it ---

BUS_NAME = "org.sriovpersist1"
MANAGER_PATH = "/org/sriovpersist1"
MANAGER_IFACE = "org.sriovpersist1.Manager"
PF_IFACE = "org.sriovpersist1.PhysicalFunction"
PROPS_IFACE = "org.freedesktop.DBus.Properties"
OBJMGR_IFACE = "org.freedesktop.DBus.ObjectManager"
BUS_CONF = ROOT / "tests" / "integration" / "dbus" / "system.conf"
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                   "SUMMARY: AddressSanitizer", "SUMMARY: UndefinedBehaviorSanitizer")


def _read_line(stream, timeout, what):
    r, _, _ = select.select([stream], [], [], timeout)
    if not r:
        raise TimeoutError(f"{what}: nothing within {timeout}s")
    return stream.readline()


class Bus:
    """dbus-daemon with a system-bus configuration on a socket in a directory that user nobody
    can reach (pytest's tmp_path is 0700). Runs as root, like the daemon under test."""

    def __init__(self, config=BUS_CONF):
        self.dir = Path(tempfile.mkdtemp(prefix="sriov-bus-"))
        os.chmod(self.dir, 0o755)
        self.socket = self.dir / "system_bus_socket"
        self.log = self.dir / "dbus-daemon.log"
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(
                ["dbus-daemon", f"--config-file={config}", f"--address=unix:path={self.socket}",
                 "--nofork", "--nopidfile", "--print-address"],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            line = _read_line(self.proc.stdout, 10, "dbus-daemon --print-address")
        except TimeoutError:
            self.stop()
            raise
        if not line.startswith("unix:path="):
            self.stop()
            raise RuntimeError(f"dbus-daemon did not start: {self.log.read_text()}")
        self.address = f"unix:path={self.socket}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _py(v):
    """dbus-python values as plain Python values (bool before int: dbus.Boolean is an int)."""
    import dbus
    if isinstance(v, dbus.Boolean):
        return bool(v)
    if isinstance(v, (dbus.Dictionary, dict)):
        return {_py(k): _py(x) for k, x in v.items()}
    if isinstance(v, (dbus.Array, dbus.Struct, list, tuple)):
        return [_py(x) for x in v]
    if isinstance(v, str):
        return str(v)
    if isinstance(v, int):
        return int(v)
    return v


class Signal:
    def __init__(self, member, path, interface, args):
        self.member, self.path, self.interface, self.args = member, path, interface, args
        self.time = time.monotonic()  # when it was dispatched here

    def __repr__(self):
        return f"{self.member}{tuple(self.args)} on {self.path}"


class Client:
    """A root connection to the bus that records sriov-persistd's signals (GLib main loop,
    pumped only while a test waits)."""

    def __init__(self, address):
        import dbus
        import dbus.bus
        from dbus.mainloop.glib import DBusGMainLoop
        from gi.repository import GLib

        self.dbus = dbus
        self.glib = GLib
        self.ctx = GLib.MainContext.default()
        self.conn = dbus.bus.BusConnection(address, mainloop=DBusGMainLoop())
        self.signals = []
        for iface in (MANAGER_IFACE, PROPS_IFACE):
            self.conn.add_signal_receiver(self._record, dbus_interface=iface, member_keyword="member",
                                          path_keyword="path", interface_keyword="interface")

    def _record(self, *args, member=None, path=None, interface=None):
        self.signals.append(Signal(str(member), str(path), str(interface), [_py(a) for a in args]))

    def close(self):
        self.conn.close()

    def call(self, member, *args, signature=None, path=MANAGER_PATH, iface=MANAGER_IFACE, raw=False,
             timeout=120):
        if signature is None:
            signature = "s" * len(args)
        r = self.conn.call_blocking(BUS_NAME, path, iface, member, signature, args, timeout=timeout)
        return r if raw else _py(r)

    def get(self, name, path=MANAGER_PATH, iface=MANAGER_IFACE, raw=False):
        return self.call("Get", iface, name, path=path, iface=PROPS_IFACE, raw=raw)

    def get_all(self, path=MANAGER_PATH, iface=MANAGER_IFACE, raw=False):
        return self.call("GetAll", iface, path=path, iface=PROPS_IFACE, raw=raw)

    def managed_objects(self, raw=False):
        return self.call("GetManagedObjects", path=MANAGER_PATH, iface=OBJMGR_IFACE, raw=raw)

    def pump(self):
        while self.ctx.pending():
            self.ctx.iteration(False)

    def mark(self):
        """The index of the next signal: wait_signal(since=mark) sees only later ones."""
        self.pump()
        return len(self.signals)

    def wait(self, predicate, timeout=20, what="a condition"):
        """Pumps the main loop until predicate() is true (returns its value); a 50 ms tick bounds
        each iteration so that predicates that read files are re-checked too."""
        deadline = time.monotonic() + timeout
        tick = self.glib.timeout_add(50, lambda: True)
        try:
            while True:
                self.pump()
                value = predicate()
                if value:
                    return value
                if time.monotonic() > deadline:
                    raise AssertionError(f"timed out after {timeout}s waiting for {what}; "
                                         f"signals so far: {self.signals}")
                self.ctx.iteration(True)
        finally:
            self.glib.source_remove(tick)

    def matching(self, member, since=0, pci=None, path=None):
        return [s for s in self.signals[since:]
                if s.member == member and (pci is None or s.args[0] == pci)
                and (path is None or s.path == path)]

    def wait_signal(self, member, since, pci=None, path=None, timeout=20):
        return self.wait(lambda: next(iter(self.matching(member, since, pci, path)), None), timeout,
                         f"signal {member}" + (f" for {pci}" if pci else ""))

    def wait_applied(self, pci, since, timeout=20):
        """The result of the first Applied(pci, result) after since."""
        return self.wait_signal("Applied", since, pci=pci, timeout=timeout).args[1]

    def wait_property(self, name, value, path=MANAGER_PATH, iface=MANAGER_IFACE, timeout=20):
        return self.wait(lambda: self.get(name, path, iface) == value or None, timeout,
                         f"{name} == {value!r} on {path}")


def place_card_vfs(state):
    """As the firmware does when a raised VF limit takes effect: each port's VFs start past the
    last one of the ports of its card before it, so that no two VFs share a PCI address (a
    snapshot where they would is refused)."""
    def rid(pci):
        _, bus, devfn = pci.split(":")
        dev, fn = devfn.split(".")
        return int(bus, 16) << 8 | int(dev, 16) << 3 | int(fn)

    nxt = {}
    for p in state["pfs"]:
        if not p.get("total_vfs") or not p.get("vf_offset"):
            continue
        card = p["pci"].rsplit(".", 1)[0]
        r = rid(p["pci"])
        if nxt.get(card, 0) > r + p["vf_offset"]:
            p["vf_offset"] = nxt[card] - r
        nxt[card] = max(nxt.get(card, 0),
                        r + p["vf_offset"] + (p["total_vfs"] - 1) * p["vf_stride"] + 1)
    return state


def pf_path(pci):
    """sd_bus_path_encode("/org/sriovpersist1/pf", pci), from libsystemd itself."""
    lib = ctypes.CDLL("libsystemd.so.0")
    lib.sd_bus_path_encode.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                       ctypes.POINTER(ctypes.c_void_p)]
    lib.sd_bus_path_encode.restype = ctypes.c_int
    libc = ctypes.CDLL(None)
    libc.free.argtypes = [ctypes.c_void_p]
    out = ctypes.c_void_p()
    r = lib.sd_bus_path_encode(b"/org/sriovpersist1/pf", pci.encode(), ctypes.byref(out))
    assert r >= 0
    path = ctypes.string_at(out.value).decode()
    libc.free(out)
    return path


class Daemon:
    """sriov-persistd on a Host copy: started with NOTIFY_SOCKET, ready at READY=1, stopped with
    SIGTERM (exit 0, no sanitizer report)."""

    count = 0

    def __init__(self, binary, host, bus, args=()):
        self.binary, self.host, self.bus, self.args = binary, host, bus, list(args)
        self.proc = None
        self.logs = []

    def start(self, timeout=60):
        Daemon.count += 1
        n = Daemon.count
        notify_path = self.bus.dir / f"notify-{n}"
        log = self.host.dir / f"sriov-persistd-{n}.log"
        self.logs.append(log)
        env = dict(os.environ)
        env.update(NOTIFY_SOCKET=str(notify_path), DBUS_SYSTEM_BUS_ADDRESS=self.bus.address)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        cmd = [self.binary, "--host", str(self.host.path), "--config-dir", str(self.host.confdir),
               "--main-config", str(self.host.main), *self.args]
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.bind(str(notify_path))
            with open(log, "w") as out:
                self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                             stderr=subprocess.STDOUT, env=env)
            self._wait_ready(sock, timeout)
        os.unlink(notify_path)

    def _wait_ready(self, sock, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r, _, _ = select.select([sock], [], [], 0.1)
            if r:
                msg = sock.recv(4096).decode(errors="replace")
                if "READY=1" in msg.split("\n"):
                    return
            elif self.proc.poll() is not None:
                raise AssertionError(f"sriov-persistd exited with {self.proc.returncode} before "
                                     f"READY=1:\n{self.log_text()}")
        self.proc.kill()
        self.proc.wait()
        raise AssertionError(f"sriov-persistd sent no READY=1 within {timeout}s:\n{self.log_text()}")

    def log_text(self):
        return "".join(p.read_text(errors="replace") for p in self.logs if p.exists())

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=30):
        """SIGTERM; asserts exit status 0 and a sanitizer-clean log."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"sriov-persistd ignored SIGTERM for {timeout}s:\n{self.log_text()}")
        text = self.log_text()
        assert rc == 0, f"sriov-persistd exited with {rc} after SIGTERM:\n{text}"
        bad = [m for m in SANITIZER_MARKS if m in text]
        assert not bad, f"sanitizer report from sriov-persistd:\n{text}"


def run_as_nobody(args, env=None, timeout=60, **kw):
    e = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"}
    e.update(env or {})
    return subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--",
                           *args], capture_output=True, text=True, timeout=timeout, env=e, **kw)


@pytest.fixture(scope="session")
def sriovpersistd_bin():
    return _binary("SRIOVPERSISTD", "build/asan/sriov-persistd")


@pytest.fixture
def system_bus():
    bus = Bus()
    yield bus
    bus.stop()


@pytest.fixture
def bus_client(system_bus):
    c = Client(system_bus.address)
    yield c
    c.close()


@pytest.fixture
def start_daemon(system_bus, sriovpersistd_bin):
    """start_daemon(host, *extra_args) -> a ready Daemon; every daemon still running at the end
    is stopped with SIGTERM and checked (exit 0, no sanitizer report)."""
    daemons = []

    def start(host, *args):
        d = Daemon(sriovpersistd_bin, host, system_bus, args)
        d.start()
        daemons.append(d)
        return d

    yield start
    errors = []
    for d in daemons:
        if d.running():
            try:
                d.stop()
            except AssertionError as e:
                errors.append(str(e))
    assert not errors, "\n".join(errors)
