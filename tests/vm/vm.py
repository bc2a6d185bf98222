# SPDX-License-Identifier: LGPL-2.1-or-later
"""Boot and drive a QEMU guest with an emulated SR-IOV NIC (igb, 82576).

Standard library only. The image comes from tests/vm/build-image (see
load_image()). Typical use:

    from vm import VM, load_image
    with VM(workdir, load_image()) as vm:
        vm.boot()                            # start + wait_boot()
        rc, out = vm.run("cat /sys/class/net/*/device/sriov_totalvfs")
        vm.reboot()                          # same disk, new boot
        dev = vm.hotplug_igb("rp1")          # monitor: netdev_add + device_add
        vm.unplug(dev)                       # monitor: device_del, waits until gone

Two serial ports: ttyS0 is the kernel's console (everything the kernel,
the initramfs and systemd print there, at the kernel's default level, saved
to WORKDIR/console.log) and ttyS1 carries only the harness's root bash
(service sriov-vm-shell, saved to WORKDIR/shell.log), so a kernel message
can never land inside a command's output or its markers. Every run() sends
its command base64-encoded and reads the output between two markers that
the command text itself cannot contain. Every wait is bounded and watches
the console for a panic or an RCU stall meanwhile. QEMU's own output goes to
WORKDIR/qemu.log. A guest that does not boot raises VMBootError with the
tails of both logs.
"""

import base64
import ctypes
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

READY_RE = re.compile(rb"SRIOV_VM_SHELL_READY boot_id=([0-9a-f-]{36})")
PANIC_RE = re.compile(rb"Kernel panic - not syncing[^\n]*")
INITRD_FAIL_RE = re.compile(rb"SRIOV_VM_INITRAMFS_FAILED:[^\n]*")
# Seen about once in 30-40 boots under TCG with 2 vCPUs: a halted vCPU whose
# timer never wakes it again, and the boot never finishes.
# the kernel hands over to the initramfs: before this line only the kernel runs
INIT_RE = re.compile(rb"Run /init as init process")
# a kernel that prints nothing for this long before it starts init has stopped:
# a good boot gets there in about 3 s of guest time (tests/vm/README.md)
EARLY_HANG_SECONDS = float(os.environ.get("SRIOV_VM_EARLY_HANG_SECONDS", "90"))
# QEMU stopping on an assertion in its own sources, e.g. "qemu-system-x86_64:
# system/physmem.c:2678: iotlb_to_section: Assertion `section_index < ...' failed."
QEMU_ASSERT_RE = re.compile(r"qemu-system-\S+: \S+\.c:\d+: \S+: Assertion .* failed\.?")
STALL_RE = re.compile(rb"rcu: INFO: rcu_\w+ (?:self-)?detected stalls?[^\n]*")
ANSI_RE = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-Za-z]|[=>78DEHMc])")

SPARE_PORTS = ("rp1", "rp2", "rp3")
# "info registers -a": one block per vCPU; RFL bit 9 is IF.
REGS_CPU_RE = re.compile(r"^CPU#(\d+)$", re.M)
REGS_LINE_RE = re.compile(r"RIP=([0-9a-f]+) RFL=([0-9a-f]+) .*HLT=(\d)")
# "info lapic N": the in-service and requested vectors and the priority.
LAPIC_RE = re.compile(r"^(ISR|IRR)\s+(.*)$", re.M)
LAPIC_PPR_RE = re.compile(r"PPR (0x[0-9a-f]+)")


def _die_with_parent():
    """In the QEMU child: get SIGKILL when the test process dies, however it dies."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class VMError(Exception):
    """Something went wrong driving the guest."""


class VMBootError(VMError):
    """The guest did not come up (or came down unexpectedly)."""


class VMTimeout(VMError):
    """A bounded wait ran out."""


class VMEmulatorFault(VMError):
    """The emulator, not the guest's software, stopped the guest: a vCPU that
    halts and never gets its interrupts again (tests/vm/README.md, "Known
    emulator problem"). The VM tests run such a test once more (conftest.py)."""


class VMStallError(VMEmulatorFault, VMBootError):
    """The guest kernel reported an RCU stall and made no progress after it
    (an emulator problem: a vCPU whose timer stopped). boot() retries these."""


def strip_ansi(text):
    return ANSI_RE.sub("", text).replace("\r", "")


def cache_root():
    d = os.environ.get("SRIOV_VM_CACHE") or "build/vm/cache"
    return d if os.path.isabs(d) else os.path.join(REPO, d)


def load_image(path=None):
    """The image description written by build-image (image.json).

    Adds "dir" and "paths" (absolute kernel, initrd and root file names);
    "kernel" stays the guest kernel's description (kver, pkgver, abi).

    path: an image.json, an image directory, or None for the cache's current.json.
    """
    if path is None:
        path = os.path.join(cache_root(), "current.json")
    if os.path.isdir(path):
        path = os.path.join(path, "image.json")
    if not os.path.exists(path):
        raise VMError(f"no VM image description at {path}: run tests/vm/build-image")
    with open(path) as f:
        info = json.load(f)
    d = os.path.join(cache_root(), "images", info["key"])
    if not os.path.isdir(d):
        d = os.path.dirname(os.path.abspath(path))
    info["dir"] = d
    info["paths"] = {}
    for k, v in info["files"].items():
        info["paths"][k] = os.path.join(d, v)
        if not os.path.exists(info["paths"][k]):
            raise VMError(f"image file missing: {info['paths'][k]}: run tests/vm/build-image")
    return info


class _Port:
    """One serial port's socket, everything it printed, and its log file."""

    def __init__(self, name, sock_path, log_path):
        self.name = name
        self.sock_path = sock_path
        self.log_path = log_path
        self.sock = None
        self.buf = bytearray()
        self.eof = False
        self.log = None
        self.thread = None

    def tail(self, lines):
        text = strip_ansi(bytes(self.buf[-20000:]).decode(errors="replace"))
        return "\n".join(text.splitlines()[-lines:])

    def close(self):
        if self.sock:
            try:
                self.sock.close()
            except OSError:
                pass
        if self.thread:
            self.thread.join(5)
        if self.log:
            self.log.close()
            self.log = None


class VM:
    """One throw-away guest: a qcow2 overlay over the cached root image."""

    def __init__(self, workdir, image=None, share=None, memory=2048, smp=2,
                 accel=None, extra_qemu_args=(), extra_append="", name=None):
        self.image = image or load_image()
        self.workdir = os.path.abspath(workdir)
        os.makedirs(self.workdir, exist_ok=True)
        self.name = name or os.path.basename(self.workdir)
        self.share = os.path.abspath(share or os.path.join(self.workdir, "share"))
        os.makedirs(self.share, exist_ok=True)
        self.memory = memory
        self.smp = smp
        self.accel = accel or os.environ.get("SRIOV_VM_ACCEL", "tcg")
        self.qemu = os.environ.get("SRIOV_VM_QEMU", "qemu-system-x86_64")
        self.extra_qemu_args = list(extra_qemu_args)
        self.extra_append = extra_append
        self.overlay = os.path.join(self.workdir, "run.qcow2")
        self.console_log_path = os.path.join(self.workdir, "console.log")
        self.shell_log_path = os.path.join(self.workdir, "shell.log")
        self.qemu_log_path = os.path.join(self.workdir, "qemu.log")
        self.boots = 0
        self.timings = []
        self._cond = threading.Condition()
        self._seq = 0
        self.stall_retries_used = 0
        self.stall_grace = 60.0
        self.system_state = None
        self._reset_serial_state()

    def _reset_serial_state(self):
        self.proc = None
        self.boot_id = None
        self._hotplugged = {}
        # Where the current boot's output starts, in the shell's and the console's buffers.
        self._boot_pos = 0
        self._kboot_pos = 0
        # AF_UNIX paths are limited to 108 bytes: keep the sockets short.
        self.sockdir = tempfile.mkdtemp(prefix="svm-", dir="/tmp")
        self.monitor_sock = os.path.join(self.sockdir, "mon.sock")
        self.console = _Port("console", os.path.join(self.sockdir, "console.sock"),
                             self.console_log_path)
        self.shell = _Port("shell", os.path.join(self.sockdir, "shell.sock"),
                           self.shell_log_path)

    # ------------------------------------------------------------------ setup

    def qemu_cmdline(self):
        img = self.image["paths"]
        append = "console=ttyS0 root=/dev/vda rw intel_iommu=on panic=-1 " \
                 "systemd.show_status=error"
        if self.extra_append:
            append += " " + self.extra_append
        cmd = [
            self.qemu, "-nodefaults", "-no-user-config", "-name", self.name,
            "-M", "q35,kernel-irqchip=split", "-accel", self.accel, "-cpu", "max",
            "-smp", str(self.smp), "-m", str(self.memory),
            "-display", "none", "-vga", "none",
            "-device", "intel-iommu,intremap=on",
            "-kernel", img["kernel"], "-initrd", img["initrd"], "-append", append,
            "-drive", f"file={self.overlay},format=qcow2,if=virtio,cache=unsafe",
        ]
        # rp0 holds the igb PF; rp1..rp3 stay empty for hotplug.
        for i, rp in enumerate(("rp0",) + SPARE_PORTS):
            cmd += ["-device", f"pcie-root-port,id={rp},chassis={i + 1},slot={i + 1}"]
        cmd += [
            "-netdev", "user,id=n0,restrict=on",
            "-device", "igb,id=pf0,netdev=n0,bus=rp0,mac=52:54:00:5a:00:01",
            "-virtfs", f"local,path={self.share},mount_tag=results,security_model=none,"
                       "id=share0",
            # ttyS0: the kernel's console; ttyS1: the harness shell. QEMU waits
            # for a client on each before the guest starts.
            "-chardev", f"socket,id=con0,path={self.console.sock_path},server=on,wait=on",
            "-serial", "chardev:con0",
            "-chardev", f"socket,id=sh0,path={self.shell.sock_path},server=on,wait=on",
            "-serial", "chardev:sh0",
            "-monitor", f"unix:{self.monitor_sock},server=on,wait=off",
        ]
        return cmd + self.extra_qemu_args

    def start(self, timeout=30):
        """Create the overlay and start QEMU; the guest starts when we connect."""
        if self.proc:
            raise VMError("already started")
        t0 = time.monotonic()
        if os.path.exists(self.overlay):
            os.unlink(self.overlay)
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", self.image["paths"]["root"],
                        "-F", "raw", self.overlay], check=True, timeout=60)
        for port in (self.console, self.shell):
            port.log = open(port.log_path, "ab", buffering=0)
            port.log.write(f"\n===== {time.strftime('%H:%M:%S')} start {self.name}\n".encode())
        qlog = open(self.qemu_log_path, "ab")
        cmd = self.qemu_cmdline()
        qlog.write(("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n").encode())
        qlog.flush()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=qlog,
                                     stderr=subprocess.STDOUT, start_new_session=True,
                                     preexec_fn=_die_with_parent)
        qlog.close()
        deadline = time.monotonic() + timeout
        # In the order QEMU creates them: it waits on each in turn.
        for port in (self.console, self.shell):
            while True:
                if self.proc.poll() is not None:
                    raise VMBootError(f"QEMU exited with {self.proc.returncode} at start:\n"
                                      + self._file_tail(self.qemu_log_path))
                if os.path.exists(port.sock_path):
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    try:
                        s.connect(port.sock_path)
                        break
                    except OSError:
                        s.close()
                if time.monotonic() > deadline:
                    self._kill()
                    raise VMBootError(f"QEMU's {port.name} socket did not appear in {timeout} s:\n"
                                      + self._file_tail(self.qemu_log_path))
                time.sleep(0.05)
            port.sock = s
            port.thread = threading.Thread(target=self._reader, args=(port,), daemon=True,
                                           name=f"{port.name}-{self.name}")
            port.thread.start()
        self._boot_pos = 0
        self._kboot_pos = 0
        self._timing("qemu start", t0)

    def boot(self, timeout=180, stall_retries=None):
        """start() and wait_boot().

        A boot that hits the emulator's vCPU stall (VMStallError) or its lost
        interrupt (VMEmulatorFault) is started again from a fresh overlay, at
        most stall_retries times (default $SRIOV_VM_STALL_RETRIES or 1); every
        other failure raises at once.
        """
        if stall_retries is None:
            stall_retries = int(os.environ.get("SRIOV_VM_STALL_RETRIES", "1"))
        for attempt in range(stall_retries + 1):
            self.start()
            try:
                return self.wait_boot(timeout)
            except VMEmulatorFault as e:
                if attempt >= stall_retries:
                    raise
                self.stall_retries_used += 1
                msg = (f"[vm {self.name}] boot attempt {attempt + 1} stalled in the "
                       f"emulator, starting again: {str(e).splitlines()[0]}")
                print(msg, flush=True)
                self.shutdown()
                self._reset_serial_state()
                for path in (self.console_log_path, self.shell_log_path):
                    with open(path, "ab") as f:
                        f.write(f"\n===== {msg}\n".encode())

    # ----------------------------------------------------------------- serial

    def _reader(self, port):
        while True:
            try:
                data = port.sock.recv(65536)
            except OSError:
                data = b""
            if data and port.log:
                try:
                    port.log.write(data)
                except (OSError, ValueError):
                    pass
            with self._cond:
                if not data:
                    port.eof = True
                else:
                    port.buf += data
                self._cond.notify_all()
            if not data:
                return

    def _send(self, data):
        """Write to the harness shell (ttyS1)."""
        if isinstance(data, str):
            data = data.encode()
        if not self.shell.sock:
            raise VMError("VM not started")
        try:
            self.shell.sock.sendall(data)
        except OSError as e:
            raise VMError(f"serial write failed: {e}\n{self.serial_tail()}") from e

    def _positions(self):
        """Where new output will start, in the shell's and the console's buffers."""
        with self._cond:
            return len(self.shell.buf), len(self.console.buf)

    def _wait_for(self, regex, start, timeout, what, boot=False, accept=None,
                  stall_grace=None, kstart=None):
        """Wait until regex matches the shell's output at or after start.

        Meanwhile watches the console from kstart (default: its end now):
        raises VMBootError when QEMU dies, the kernel panics or the initramfs
        fails (and, with boot=True, VMBootError rather than VMTimeout on
        time-out). With stall_grace, an RCU stall report cuts the wait to
        stall_grace seconds from then, and running out raises VMStallError.
        """
        deadline = time.monotonic() + timeout
        stalled = None
        early_hang = None
        with self._cond:
            if kstart is None:
                kstart = len(self.console.buf)
            console_len, console_moved = len(self.console.buf), time.monotonic()
            while True:
                pos = start
                while True:
                    m = regex.search(self.shell.buf, pos)
                    if not m:
                        break
                    if accept is None or accept(m):
                        return m
                    pos = m.end()
                p = PANIC_RE.search(self.console.buf, kstart)
                if p:
                    raise VMBootError(f"guest kernel panic while waiting for {what}: "
                                      f"{p.group(0).decode(errors='replace')}\n"
                                      + self.serial_tail())
                f = INITRD_FAIL_RE.search(self.console.buf, kstart)
                if f:
                    raise VMBootError(f"initramfs failed while waiting for {what}: "
                                      f"{f.group(0).decode(errors='replace')}\n"
                                      + self.serial_tail())
                if self.shell.eof or self.console.eof or (self.proc and self.proc.poll() is not None):
                    rc = self.proc.poll() if self.proc else None
                    qemu_log = self._file_tail(self.qemu_log_path, 10)
                    crash = QEMU_ASSERT_RE.search(qemu_log)
                    if crash:
                        # QEMU's own assertion (TCG's IOTLB, seen under load): the emulator
                        raise VMEmulatorFault(f"QEMU aborted on its own assertion while "
                                              f"waiting for {what}: {crash.group(0)}\n"
                                              + self.serial_tail())
                    raise VMBootError(f"QEMU went away (rc {rc}) while waiting for {what}\n"
                                      + self.serial_tail() + "\n--- qemu.log:\n" + qemu_log)
                if stall_grace is not None and stalled is None:
                    st = STALL_RE.search(self.console.buf, kstart)
                    if st:
                        stalled = st.group(0).decode(errors="replace")
                        deadline = min(deadline, time.monotonic() + stall_grace)
                if boot and len(self.console.buf) != console_len:
                    console_len, console_moved = len(self.console.buf), time.monotonic()
                elif (boot and time.monotonic() - console_moved > EARLY_HANG_SECONDS
                      and not INIT_RE.search(self.console.buf, kstart)):
                    early_hang = (f"the guest kernel printed nothing for {EARLY_HANG_SECONDS:.0f} s "
                                  "before it started init (no program of ours runs yet): "
                                  "the emulator stopped it")
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    if stalled:
                        raise VMStallError(f"guest stalled ({stalled}) and did not reach "
                                           f"{what} within {stall_grace} s after it\n"
                                           + self.serial_tail())
                    break
                self._cond.wait(min(left, 0.5))
        # Timed out. Outside the lock, so that the readers go on meanwhile.
        waited = f"{EARLY_HANG_SECONDS:.0f} s of silence" if early_hang else f"{timeout:.0f} s"
        message = f"gave up after {waited} waiting for {what}\n" + self.serial_tail()
        if not boot:
            raise VMTimeout(message)  # run() looks at the vCPUs itself
        fault, states = self.emulator_fault()
        if early_hang:
            raise VMEmulatorFault(f"{early_hang}\n{message}\n--- vCPUs:\n{states}")
        if fault:
            raise VMStallError(f"{fault}\n{message}\n--- vCPUs:\n{states}")
        raise VMBootError(f"{message}\n--- vCPUs:\n{states}")

    def serial_tail(self, lines=60):
        """The last lines of the console and of the shell, cleaned up, for error messages."""
        with self._cond:
            console = self.console.tail(lines)
            shell = self.shell.tail(lines // 2)
        # The harness's markers, made readable: commands show as "[#n rc=N]".
        shell = re.sub(r"(?m)^__BEG_\d+\n", "", shell)
        shell = re.sub(r"__END_(\d+)_(\d+)", r"[#\1 rc=\2]", shell)
        return (f"--- last {lines} lines of {self.console_log_path} (kernel console):\n"
                f"{console}\n--- last {lines // 2} lines of {self.shell_log_path} "
                f"(harness shell):\n{shell}")

    @staticmethod
    def _file_tail(path, lines=30):
        try:
            with open(path, "rb") as f:
                text = f.read()[-8000:].decode(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def _timing(self, what, t0):
        dt = time.monotonic() - t0
        self.timings.append((what, dt))
        return dt

    # ------------------------------------------------------------------- boot

    def wait_boot(self, timeout=180, system_timeout=None):
        """Wait for the root shell, quiet the console, wait for systemd to settle.

        Raises VMBootError (with the serial log's tail) if the shell does not
        come up in time, the kernel panics or QEMU exits.
        """
        t0 = time.monotonic()
        old = self.boot_id
        m = self._wait_for(READY_RE, self._boot_pos, timeout, "the guest's root shell",
                           boot=True, accept=lambda m: m.group(1).decode() != old,
                           stall_grace=self.stall_grace, kstart=self._kboot_pos)
        self.boot_id = m.group(1).decode()
        self.boots += 1
        t_shell = self._timing("boot to shell", t0)
        left = max(10.0, timeout - t_shell)
        rc, out = self.run("true", timeout=min(30.0, left))
        if rc != 0:
            raise VMBootError(f"first command failed ({rc}): {out}\n" + self.serial_tail())
        t1 = time.monotonic()
        st = system_timeout if system_timeout is not None else max(10.0, timeout - t_shell)
        rc, out = self.run(f"timeout {int(st)} systemctl is-system-running --wait",
                           timeout=st + 15)
        self.system_state = out.strip().splitlines()[-1] if out.strip() else ""
        if self.system_state not in ("running", "degraded"):
            raise VMBootError(f"systemd did not finish booting: {self.system_state!r}\n"
                              + self.run("systemctl --failed --no-legend; "
                                         "systemctl list-jobs --no-legend", timeout=30)[1]
                              + "\n" + self.serial_tail())
        self._timing("systemd settled", t1)
        # Coldplug may still be probing drivers (igb, ...) after systemd is up.
        t1 = time.monotonic()
        self.run("udevadm settle -t 60", timeout=90)
        self._timing("udev settled", t1)
        rc, out = self.run("mountpoint -q /mnt/share", timeout=20)
        if rc != 0:
            raise VMBootError("the 9p share is not mounted at /mnt/share:\n"
                              + self.run("systemctl status mnt-share.mount", timeout=20)[1])
        dt = self._timing("boot total", t0)
        return dt

    def reboot(self, timeout=180):
        """systemctl reboot, then wait for the new boot's shell. The disk is kept."""
        t0 = time.monotonic()
        self._boot_pos, self._kboot_pos = self._positions()
        self._send("systemctl reboot\n")
        self.wait_boot(timeout)
        return self._timing("reboot total", t0)

    # -------------------------------------------------------------- commands

    def run(self, cmd, timeout=60, check=False):
        """Run cmd (any shell text, multi-line allowed) in the guest as root.

        Returns (rc, output) with stdout and stderr merged, ANSI codes and CRs
        stripped. stdin is /dev/null. Each command runs in its own bash; the
        working directory is /root. Raises VMTimeout after timeout seconds (the
        command is interrupted with ^C), VMError if check and rc != 0.
        """
        self._seq += 1
        n = self._seq
        enc = base64.b64encode(cmd.encode()).decode()
        f = "/run/sriov-vm-cmd"
        lines = [f"rm -f {f}.b64"]
        for i in range(0, len(enc), 512):
            lines.append(f"echo {enc[i:i + 512]} >>{f}.b64")
        # The markers printed (__BEG_n, __END_n_rc) never occur in this text.
        lines.append(f"base64 -d {f}.b64 >{f}; printf '%s_%s\\n' __BEG {n}; "
                     f"bash {f} </dev/null 2>&1; printf '%s_%s_%s\\n' __END {n} \"$?\"")
        beg_re = re.compile(rb"__BEG_%d\r?\n" % n)
        # up to the newline: the digits may arrive in two reads ("1", then "0")
        end_re = re.compile(rb"__END_%d_(\d+)\r?\n" % n)
        start, kstart = self._positions()
        self._send("\n".join(lines) + "\n")
        t0 = time.monotonic()
        try:
            mb = self._wait_for(beg_re, start, timeout, f"command #{n} to start", kstart=kstart)
            left = max(0.1, timeout - (time.monotonic() - t0))
            me = self._wait_for(end_re, mb.end(), left, f"command #{n} to end: {cmd[:200]!r}",
                                kstart=kstart)
        except VMTimeout as e:
            with self._cond:
                partial = strip_ansi(bytes(self.shell.buf[start:]).decode(errors="replace"))
            err = self._timeout_error(f"command timed out after {timeout} s: {cmd[:500]!r}\n"
                                      f"--- output so far:\n{partial[-3000:]}", kstart)
            self._send(b"\x03")
            try:
                self._sync(15)
            except VMError:
                pass
            raise err from e
        with self._cond:
            raw = bytes(self.shell.buf[mb.end():me.start()])
        out = strip_ansi(raw.decode(errors="replace"))
        rc = int(me.group(1))
        if check and rc != 0:
            raise VMError(f"command failed with {rc}: {cmd[:500]!r}\n--- output:\n{out[-3000:]}")
        return rc, out

    def _sync(self, timeout):
        """Get the shell back in step after an interrupted command."""
        self._seq += 1
        n = self._seq
        start, _ = self._positions()
        self._send(f"\nprintf '%s_%s\\n' __SYNC {n}\n")
        self._wait_for(re.compile(rb"__SYNC_%d\r?\n" % n), start, timeout, "shell sync")

    def check(self, cmd, timeout=60):
        """run(cmd, check=True) and return its output."""
        return self.run(cmd, timeout=timeout, check=True)[1]

    def wait_until(self, condition, timeout=30, interval=0.1):
        """Poll a shell condition inside the guest until it succeeds (bounded).

        Returns the seconds it took; raises VMTimeout if it never held.
        """
        script = (f"end=$(( $(date +%s%N) + {int(timeout * 1e9)} ))\n"
                  f"while ! ( {condition} ) >/dev/null 2>&1; do\n"
                  f"  [ $(date +%s%N) -gt $end ] && exit 124\n  sleep {interval}\ndone\n")
        t0 = time.monotonic()
        _, kstart = self._positions()
        rc, out = self.run(script, timeout=timeout + 30)
        if rc != 0:
            raise self._timeout_error(f"guest condition not met within {timeout} s: "
                                      f"{condition}\n{out}{self._guest_state()}", kstart)
        return time.monotonic() - t0

    def _guest_state(self):
        """What the guest says about itself when a condition did not hold: failed
        units and the journal's last lines, so a CI failure names its cause."""
        try:
            _, state = self.run("systemctl --failed --no-legend --plain; "
                                "journalctl -b -o short-monotonic --no-pager "
                                "| grep -Ei 'sriov|fail' | tail -n 60", timeout=30)
        except VMError as e:
            return f"\n--- guest state unavailable: {e}"
        return f"\n--- guest: failed units, then the journal's last lines:\n{state[-6000:]}"

    # --------------------------------------------------------------- files

    def copy_in(self, src, name=None):
        """Copy a host file or directory into the share; return its guest path."""
        name = name or os.path.basename(os.path.normpath(src))
        dst = os.path.join(self.share, name)
        if os.path.isdir(src):
            if os.path.exists(dst):
                shutil.rmtree(dst)
            shutil.copytree(src, dst, symlinks=True)
        else:
            shutil.copy2(src, dst)
        return f"/mnt/share/{name}"

    def copy_out(self, guest_path, host_path=None):
        """Copy a guest file out through the share; return the host path."""
        name = os.path.basename(guest_path.rstrip("/")) or "out"
        self.check(f"cp -a {shlex.quote(guest_path)} /mnt/share/{shlex.quote(name)}")
        src = os.path.join(self.share, name)
        if host_path and os.path.abspath(host_path) != os.path.abspath(src):
            shutil.move(src, host_path)
            return host_path
        return src

    # ------------------------------------------------------------- monitor

    def monitor(self, cmd, timeout=15):
        """Run one human-monitor (HMP) command; return its output."""
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        deadline = time.monotonic() + timeout
        try:
            s.connect(self.monitor_sock)
            data = b""

            def read_prompt(data):
                while b"(qemu) " not in data:
                    if time.monotonic() > deadline:
                        raise VMTimeout(f"monitor: no prompt for {cmd!r}: {data[-500:]!r}")
                    chunk = s.recv(65536)
                    if not chunk:
                        raise VMError(f"monitor closed during {cmd!r}: {data[-500:]!r}")
                    data += chunk
                return data

            data = read_prompt(data)
            s.sendall(cmd.encode() + b"\n")
            data = read_prompt(b"")
        except socket.timeout as e:
            raise VMTimeout(f"monitor command {cmd!r} timed out") from e
        finally:
            s.close()
        text = strip_ansi(data.decode(errors="replace"))
        text = text.rsplit("(qemu) ", 1)[0]
        lines = text.split("\n")
        # Drop the monitor's echo of the command itself.
        if lines and cmd.strip() and cmd.strip() in lines[0]:
            lines.pop(0)
        return "\n".join(lines).strip()

    def peripherals(self):
        """ids of the user-created devices QEMU has now."""
        out = self.monitor("qom-list /machine/peripheral")
        return {ln.split()[0] for ln in out.splitlines() if "(child<" in ln}

    def vcpu_states(self):
        """What each vCPU is doing, read through the monitor.

        A list of dicts: cpu, rip, halted, irq_enabled, isr and irr (vector
        lists of its local APIC) and ppr.
        """
        regs = self.monitor("info registers -a")
        parts = REGS_CPU_RE.split(regs)
        cpus = []
        for i in range(1, len(parts) - 1, 2):
            m = REGS_LINE_RE.search(parts[i + 1])
            if not m:
                continue
            cpu = int(parts[i])
            st = {"cpu": cpu, "rip": m.group(1), "irq_enabled": bool(int(m.group(2), 16) & 0x200),
                  "halted": m.group(3) == "1", "isr": [], "irr": [], "ppr": None}
            lapic = self.monitor(f"info lapic {cpu}")
            for name, vecs in LAPIC_RE.findall(lapic):
                st[name.lower()] = [int(v) for v in vecs.split() if v.isdigit()]
            p = LAPIC_PPR_RE.search(lapic)
            st["ppr"] = p.group(1) if p else None
            cpus.append(st)
        return cpus

    def emulator_fault(self, interval=1.0):
        """Look for the emulator's lost-interrupt fault; return its description or None.

        The fault: a vCPU sits in HLT with interrupts enabled while its local
        APIC keeps a vector in service (ISR), so the end-of-interrupt the guest
        wrote never took effect and every interrupt of that priority or lower
        (its timer, the serial port, the NIC) stays pending for ever. Linux
        never halts with an interrupt in service, so this is not the guest's
        doing. Both samples, interval seconds apart, must show it. Also
        returns the states it read, for the error message.
        """
        try:
            first = self.vcpu_states()
            time.sleep(interval)
            second = self.vcpu_states()
        except VMError as e:
            return None, f"(vCPU state unreadable: {e})"
        text = "\n".join(f"vCPU {c['cpu']}: rip {c['rip']} halted={int(c['halted'])} "
                         f"IF={int(c['irq_enabled'])} ISR={c['isr']} IRR={c['irr']} "
                         f"PPR={c['ppr']}" for c in second)
        before = {c["cpu"]: c for c in first}
        for c in second:
            b = before.get(c["cpu"])
            if (b and c["halted"] and c["irq_enabled"] and c["isr"] and b["halted"]
                    and b["isr"] == c["isr"] and b["rip"] == c["rip"]):
                return (f"vCPU {c['cpu']} halted with interrupts enabled while vector(s) "
                        f"{c['isr']} stay in service and {c['irr']} wait: the emulator "
                        "lost an end-of-interrupt"), text
        return None, text

    def _timeout_error(self, message, kstart):
        """The exception for a guest that did not answer in time: VMStallError
        when the console reported an RCU stall since kstart, VMEmulatorFault
        when the emulator's lost-interrupt fault shows, else VMTimeout; all
        carry the vCPU states and the tails of the logs."""
        fault, states = self.emulator_fault()
        message += "\n" + self.serial_tail(40)
        with self._cond:
            st = STALL_RE.search(self.console.buf, kstart)
        if st:
            stalled = st.group(0).decode(errors="replace")
            print(f"[vm {self.name}] RCU stall: {stalled}", flush=True)
            return VMStallError(f"guest stalled ({stalled})\n{message}\n--- vCPUs:\n{states}")
        if fault:
            print(f"[vm {self.name}] emulator fault: {fault}", flush=True)
            return VMEmulatorFault(f"{fault}\n{message}\n--- vCPUs:\n{states}")
        return VMTimeout(f"{message}\n--- vCPUs:\n{states}")

    def hotplug_igb(self, port="rp1", dev_id=None, mac=None):
        """Add a second igb (own user,restrict=on netdev) on a spare root port."""
        if port not in SPARE_PORTS:
            raise VMError(f"{port} is no spare root port ({', '.join(SPARE_PORTS)})")
        dev_id = dev_id or f"hp{port[2:]}"
        idx = len(self._hotplugged) + 2
        mac = mac or f"52:54:00:5a:{idx:02x}:01"
        net = f"net-{dev_id}"
        if net not in self._hotplugged.values():
            out = self.monitor(f"netdev_add user,id={net},restrict=on")
            if out:
                raise VMError(f"netdev_add: {out}")
        out = self.monitor(f"device_add igb,id={dev_id},bus={port},netdev={net},mac={mac}")
        if out:
            raise VMError(f"device_add: {out}")
        self._hotplugged[dev_id] = net
        return dev_id

    def unplug(self, dev_id, timeout=30):
        """device_del and wait until QEMU has really removed the device.

        The guest must cooperate (PCIe/ACPI hotplug), so this takes seconds.
        """
        t0 = time.monotonic()
        out = self.monitor(f"device_del {dev_id}")
        if out:
            raise VMError(f"device_del: {out}")
        while dev_id in self.peripherals():
            if time.monotonic() - t0 > timeout:
                raise VMTimeout(f"{dev_id} still present {timeout} s after device_del")
            time.sleep(0.2)
        net = self._hotplugged.pop(dev_id, None)
        if net:
            self.monitor(f"netdev_del {net}")
        return time.monotonic() - t0

    # ------------------------------------------------------------- the end

    def shutdown(self, graceful=False, timeout=60):
        """Stop the guest: systemctl poweroff if graceful, else QEMU quits at once.

        Always bounded; the overlay is deleted, the logs stay in workdir.
        """
        if self.proc and self.proc.poll() is None:
            if graceful and self.shell.sock and not self.shell.eof:
                try:
                    self._send("systemctl poweroff\n")
                    self.proc.wait(timeout)
                except (VMError, subprocess.TimeoutExpired):
                    pass
            if self.proc.poll() is None:
                try:
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    s.settimeout(5)
                    s.connect(self.monitor_sock)
                    s.sendall(b"quit\n")
                    self.proc.wait(10)
                    s.close()
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._kill()
        self.console.close()
        self.shell.close()
        if os.path.exists(self.overlay):
            os.unlink(self.overlay)
        shutil.rmtree(self.sockdir, ignore_errors=True)

    def _kill(self):
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                self.proc.kill()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()
        return False
