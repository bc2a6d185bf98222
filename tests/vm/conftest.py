# SPDX-License-Identifier: LGPL-2.1-or-later
"""pytest fixtures of the VM tests: one image per session, a fresh VM per test.

Run with: /usr/bin/python3 -m pytest -q tests/vm   (as root, after setup-host)
`make check-vm` adds --reruns 1 --only-rerun 'VMEmulatorFault|VMStallError'
(python3-pytest-rerunfailures): a test the emulator stopped (vm.VMEmulatorFault)
runs once more in a fresh VM, the first run's logs kept in <test>-first-run.

Environment:
  SRIOV_VM_APT_SOURCES   a sources file (one-line or deb822 format) build-image and
                         setup-host use instead of the host's apt sources (README.md)
  SRIOV_VM_CACHE         image cache (default build/vm/cache)
  SRIOV_VM_NO_BUILD=1    do not run build-image, use the cache's current image
  SRIOV_VM_RUNS          per-test work dirs with serial/QEMU logs (default build/vm/runs)
  SRIOV_VM_BOOT_TIMEOUT  seconds for a boot to the shell with systemd settled (default 240)
  SRIOV_VM_ACCEL         QEMU accelerator (default tcg)

A VM that cannot be built or booted makes the test fail (an error), never skip.
"""

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import vm as vmlib  # noqa: E402

BOOT_TIMEOUT = float(os.environ.get("SRIOV_VM_BOOT_TIMEOUT", "240"))
_TIMINGS = []   # (test, step, seconds), printed at the end of the session
_NOTES = []     # things worth a line at the end (boots retried after an emulator stall)
_BUILD = {}


def _runs_root():
    d = os.environ.get("SRIOV_VM_RUNS") or "build/vm/runs"
    return d if os.path.isabs(d) else os.path.join(REPO, d)


class Steps:
    """Records and prints the wall time of each step of a test."""

    def __init__(self, test):
        self.test = test

    def add(self, name, seconds):
        _TIMINGS.append((self.test, name, seconds))
        print(f"[time] {self.test}: {name}: {seconds:.2f} s", flush=True)

    @contextlib.contextmanager
    def __call__(self, name):
        t0 = time.monotonic()
        yield
        self.add(name, time.monotonic() - t0)


@pytest.fixture(scope="session")
def vm_image():
    """Build the image (cached: about a second when nothing changed) and load it."""
    if not os.environ.get("SRIOV_VM_NO_BUILD"):
        t0 = time.monotonic()
        try:
            p = subprocess.run([sys.executable, os.path.join(HERE, "build-image")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=1800)
        except subprocess.TimeoutExpired as e:
            pytest.fail(f"tests/vm/build-image did not finish in 30 min:\n{e.output}",
                        pytrace=False)
        _BUILD["seconds"] = time.monotonic() - t0
        _BUILD["output"] = p.stdout
        if p.returncode != 0:
            pytest.fail(f"tests/vm/build-image failed (rc {p.returncode}):\n{p.stdout[-6000:]}",
                        pytrace=False)
    try:
        img = vmlib.load_image()
    except vmlib.VMError as e:
        pytest.fail(str(e), pytrace=False)
    _BUILD["info"] = img
    return img


@pytest.fixture
def steps(request):
    return Steps(request.node.name)


@pytest.fixture
def vm(request, vm_image, steps):
    """A freshly booted guest on a throw-away overlay; logs in build/vm/runs/<test>."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)[:80]
    workdir = os.path.join(_runs_root(), name)
    shutil.rmtree(workdir + "-first-run", ignore_errors=True)
    if getattr(request.node, "execution_count", 1) > 1 and os.path.isdir(workdir):
        # Run again after an emulator fault: keep the first run's logs.
        os.rename(workdir, workdir + "-first-run")
    shutil.rmtree(workdir, ignore_errors=True)
    append = request.node.get_closest_marker("kernel_append")
    machine = vmlib.VM(workdir, vm_image, name=name,
                       extra_append=append.args[0] if append else "")
    request.node._sriov_vm = machine
    try:
        machine.boot(timeout=BOOT_TIMEOUT)
    except BaseException:
        machine.shutdown()
        raise
    for what, dt in machine.timings:
        steps.add(what, dt)
    if machine.stall_retries_used:
        _NOTES.append(f"{request.node.name}: boot retried {machine.stall_retries_used}x "
                      "after an emulator (TCG) vCPU stall; see " + machine.console_log_path)
    n = len(machine.timings)
    try:
        yield machine
    finally:
        for what, dt in machine.timings[n:]:
            if what in ("boot to shell", "systemd settled", "udev settled", "boot total",
                        "reboot total"):
                steps.add(what, dt)
        machine.shutdown()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    machine = getattr(item, "_sriov_vm", None)
    if rep.failed and machine is not None and rep.when in ("setup", "call"):
        journal = os.path.join(machine.share, "journal.txt")
        try:
            # the guest's own account of the failure, while it still runs
            machine.run("journalctl -b --no-pager -o short-monotonic >/mnt/share/journal.txt",
                        timeout=60)
        except Exception as e:  # noqa: BLE001 (a dead guest has no journal to give)
            journal = f"none ({e.__class__.__name__})"
        rep.sections.append(("VM serial logs", machine.serial_tail(80) + "\n(full logs: "
                             + machine.console_log_path + ", " + machine.shell_log_path
                             + ", QEMU: " + machine.qemu_log_path + ", the guest's journal: "
                             + journal + ")"))
        if call.excinfo is not None and call.excinfo.errisinstance(vmlib.VMEmulatorFault):
            first = str(call.excinfo.value).splitlines()[0]
            run = getattr(item, "execution_count", 1)
            reruns = item.config.getoption("reruns", None) or 0
            logs = machine.workdir + ("-first-run" if run <= reruns else "")
            _NOTES.append(f"{item.name}: emulator fault in run {run} ({first}); logs: {logs}")


def pytest_terminal_summary(terminalreporter):
    if not _TIMINGS and not _BUILD and not _NOTES:
        return
    tr = terminalreporter
    tr.section("VM step timings (wall clock)")
    if _BUILD:
        info = _BUILD.get("info") or {}
        k = info.get("kernel") or {}
        tr.write_line(f"build-image: {_BUILD.get('seconds', 0):.1f} s; guest kernel "
                      f"{k.get('kver', '?')} ({k.get('pkgver', '?')}); image {info.get('key', '?')}")
    for test, step, dt in _TIMINGS:
        tr.write_line(f"{test:40s} {step:45s} {dt:7.2f} s")
    for note in _NOTES:
        tr.write_line("note: " + note)


def pytest_configure(config):
    config.addinivalue_line("markers", "kernel_append(args): more kernel command line for the "
                            "test's VM (the last of a parameter given twice wins)")
