# SPDX-License-Identifier: LGPL-2.1-or-later
"""udev-helper kernel-arguments add|remove, the work of sriov-persist-kernel-arguments@.service,
under a root of its own (--root) with stand-ins for the boot loader tools that record how they
were run. The real update-grub runs in the VM (tests/vm)."""

import json
import os
import subprocess

import pytest

HELPER = os.environ.get("SRIOV_UDEV_HELPER", "build/udev-helper")
INTEL = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
AMD = "processor\t: 0\nvendor_id\t: AuthenticAMD\n"


def stand_in(root, path, exit_code=0):
    p = root / path.lstrip("/")
    p.parent.mkdir(parents=True, exist_ok=True)
    log = root / "calls"
    p.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$0 $*\" >> {log}\n"
                 f"[ {exit_code} = 0 ] || echo 'error: disk full' >&2\nexit {exit_code}\n")
    p.chmod(0o755)


def make_root(tmp_path, cpuinfo=INTEL, cmdline="root=/dev/sda1 ro quiet"):
    root = tmp_path / "root"
    (root / "proc/sys/kernel").mkdir(parents=True)
    (root / "proc/cpuinfo").write_text(cpuinfo)
    (root / "proc/cmdline").write_text(cmdline + "\n")
    (root / "proc/sys/kernel/osrelease").write_text("6.1.0-28-amd64\n")
    return root


def helper(root, op):
    return subprocess.run([HELPER, "--root", str(root), "kernel-arguments", op],
                          capture_output=True, text=True, timeout=60)


def calls(root):
    p = root / "calls"
    return [line.replace(str(root), "") for line in p.read_text().splitlines()] \
        if p.exists() else []


def record(root):
    p = root / "var/lib/sriov-persist/kernel-arguments.json"
    return json.loads(p.read_text()) if p.exists() else None


def grub_root(tmp_path, **kw):
    root = make_root(tmp_path, **kw)
    stand_in(root, "/usr/sbin/update-grub")
    (root / "etc/default").mkdir(parents=True)
    (root / "etc/default/grub").write_text('GRUB_CMDLINE_LINUX=""\n')
    (root / "boot/grub").mkdir(parents=True)
    (root / "boot/grub/grub.cfg").write_text("# generated\n")
    return root


def test_grub_drop_in_and_update_grub(tmp_path):
    root = grub_root(tmp_path)
    r = helper(root, "add")
    assert r.returncode == 0, r.stderr
    dropin = root / "etc/default/grub.d/90-sriov-persist.cfg"
    assert dropin.read_text().splitlines()[-1] == \
        'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX intel_iommu=on iommu=pt"'
    assert calls(root) == ["/usr/sbin/update-grub "]
    assert record(root) == {"boot_loader": "grub", "added": ["intel_iommu=on", "iommu=pt"]}
    assert "added the kernel arguments intel_iommu=on iommu=pt through grub" in r.stderr
    r = helper(root, "remove")
    assert r.returncode == 0, r.stderr
    assert not dropin.exists() and record(root) is None
    assert calls(root) == ["/usr/sbin/update-grub ", "/usr/sbin/update-grub "]
    # nothing on record: nothing to take out, no tool run
    assert helper(root, "remove").returncode == 0 and len(calls(root)) == 2


def test_update_grub_failing_leaves_nothing(tmp_path):
    root = grub_root(tmp_path)
    stand_in(root, "/usr/sbin/update-grub", exit_code=1)
    r = helper(root, "add")
    assert r.returncode == 1
    assert "/usr/sbin/update-grub failed (exit code 1): error: disk full" in r.stderr, r.stderr
    assert not (root / "etc/default/grub.d/90-sriov-persist.cfg").exists()
    assert record(root) is None


def test_grubby_on_every_kernel(tmp_path):
    root = make_root(tmp_path, cpuinfo=AMD)
    stand_in(root, "/usr/sbin/grubby")
    r = helper(root, "add")
    assert r.returncode == 0, r.stderr
    assert calls(root) == ["/usr/sbin/grubby --update-kernel=ALL --args=amd_iommu=on iommu=pt"]
    assert record(root) == {"boot_loader": "grubby", "added": ["amd_iommu=on", "iommu=pt"]}
    assert helper(root, "remove").returncode == 0
    assert calls(root)[1] == \
        "/usr/sbin/grubby --update-kernel=ALL --remove-args=amd_iommu=on iommu=pt"


def test_kernel_install_edits_etc_kernel_cmdline(tmp_path):
    # iommu=pt is there already: only what is missing is added, and only that comes out
    root = make_root(tmp_path, cmdline="root=UUID=1 rw iommu=pt")
    stand_in(root, "/usr/bin/kernel-install")
    (root / "etc/kernel").mkdir(parents=True)
    (root / "etc/kernel/cmdline").write_text("root=UUID=1 rw iommu=pt\n")
    (root / "boot").mkdir()
    (root / "boot/vmlinuz-6.1.0-28-amd64").write_text("")
    r = helper(root, "add")
    assert r.returncode == 0, r.stderr
    assert (root / "etc/kernel/cmdline").read_text() == "root=UUID=1 rw iommu=pt intel_iommu=on\n"
    assert calls(root) == ["/usr/bin/kernel-install add 6.1.0-28-amd64 /boot/vmlinuz-6.1.0-28-amd64"]
    assert helper(root, "remove").returncode == 0
    assert (root / "etc/kernel/cmdline").read_text() == "root=UUID=1 rw iommu=pt\n"


def test_nothing_to_add_when_the_command_line_has_it(tmp_path):
    root = grub_root(tmp_path, cmdline="ro intel_iommu=on")
    r = helper(root, "add")
    assert r.returncode == 0 and "no IOMMU argument to add" in r.stderr
    assert calls(root) == [] and record(root) is None


def test_no_tool_fails(tmp_path):
    root = make_root(tmp_path)
    r = helper(root, "add")
    assert r.returncode == 1 and "no boot loader tool found" in r.stderr, r.stderr
    assert record(root) is None


@pytest.mark.parametrize("text", [
    '{"boot_loader": "grub", "added": ["quiet"]}',
    '{"boot_loader": "lilo", "added": []}',
    '{"boot_loader": "grub", "added": ["iommu=pt"], "more": 1}',
    'not json'])
def test_a_record_that_is_not_ours_stops_it(tmp_path, text):
    root = grub_root(tmp_path)
    (root / "var/lib/sriov-persist").mkdir(parents=True)
    (root / "var/lib/sriov-persist/kernel-arguments.json").write_text(text)
    assert helper(root, "add").returncode == 1
    assert helper(root, "remove").returncode == 1
    assert calls(root) == []
