# SPDX-License-Identifier: LGPL-2.1-or-later
"""Integration tests: the built sriovctl against simulated hosts (fixture snapshots)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.fixture
def make_host(tmp_path, sriovctl_bin):
    count = [0]

    def make(fixture):
        count[0] += 1
        d = tmp_path / f"h{count[0]}"
        d.mkdir()
        return Host(d, fixture, sriovctl_bin)

    return make
