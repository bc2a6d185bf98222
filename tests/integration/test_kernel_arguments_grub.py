# SPDX-License-Identifier: LGPL-2.1-or-later
"""KernelArguments=manage against what the boot loader's configuration already gives the next
boot, and on every platform: /etc/default/grub (either variable) with its drop-ins as Debian's
and Ubuntu's hosts have them (tests/fixtures/grub, NOTES.md there), /etc/kernel/cmdline, the
running kernel's /proc/cmdline; arm64, whose SMMU no argument turns on.

What sriov-persist reads from a GRUB configuration is checked against /bin/sh sourcing the same
files the way grub-mkconfig (grub-common 2.06) does; the product itself never runs a shell."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from test_kernel_arguments import VFIO, manage
from test_kernel_arguments_tools import INTEL, calls, helper, make_root, record, stand_in

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "grub"
# an Ampere Altra's /proc/cpuinfo as its arm64 kernel writes it (first CPU)
ARM64 = ("processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 "
         "crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs\n"
         "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n"
         "CPU revision\t: 1\n\n")
SMMU = ("the IOMMU of an arm64 host is its SMMU, which the kernel uses whenever the firmware "
        "describes it (no kernel argument turns it on): turn on the SMMU in the firmware setup "
        "and reboot")


def grub_fixture(tmp_path, name, cmdline="BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet"):
    """A root with a distribution's /etc/default, a stand-in update-grub and grub.cfg."""
    root = make_root(tmp_path, cmdline=cmdline)
    shutil.copytree(FIXTURES / name / "etc", root / "etc", dirs_exist_ok=True)
    stand_in(root, "/usr/sbin/update-grub")
    (root / "boot/grub").mkdir(parents=True)
    (root / "boot/grub/grub.cfg").write_text("# generated\n")
    return root


def set_var(root, rel, var, value):
    """value for var in root/rel, in the line that assigns it (as an admin edits it)."""
    p = root / rel
    lines = p.read_text().splitlines()
    lines = [f'{var}="{value}"' if line.startswith(var + "=") else line for line in lines]
    p.write_text("\n".join(lines) + "\n")


def sh_cmdline(root):
    """The default entry's command line as grub-mkconfig and 10_linux make it, by /bin/sh."""
    script = ('. "$R/etc/default/grub"\n'
              'for x in "$R"/etc/default/grub.d/*.cfg; do if [ -e "$x" ]; then . "$x"; fi; done\n'
              'printf "%s" "${GRUB_CMDLINE_LINUX} ${GRUB_CMDLINE_LINUX_DEFAULT}"\n')
    r = subprocess.run(["/bin/sh", "-c", script], env={"R": str(root), "PATH": os.defpath},
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


@pytest.mark.parametrize("name,edit,present", [
    # Ubuntu keeps its defaults in GRUB_CMDLINE_LINUX_DEFAULT
    ("ubuntu-24.04", ("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT",
                      "quiet splash intel_iommu=on iommu=pt"), True),
    ("debian-12", ("etc/default/grub", "GRUB_CMDLINE_LINUX", "intel_iommu=on iommu=pt"), True),
    ("debian-12", ("etc/default/grub", "GRUB_CMDLINE_LINUX", "iommu=pt"), False),
    # the cloud image's drop-in is sourced last and replaces the main file's default
    ("ubuntu-24.04-cloud", ("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT",
                            "quiet splash intel_iommu=on iommu=pt"), False),
    ("ubuntu-24.04-cloud", ("etc/default/grub.d/50-cloudimg-settings.cfg",
                            "GRUB_CMDLINE_LINUX_DEFAULT",
                            "console=tty1 console=ttyS0 intel_iommu=on iommu=pt"), True),
])
def test_grub_files_as_the_shell_reads_them(tmp_path, name, edit, present):
    root = grub_fixture(tmp_path, name)
    set_var(root, *edit)
    words = sh_cmdline(root)
    assert present == ("intel_iommu=on" in words and "iommu=pt" in words), words
    r = helper(root, "add")
    assert r.returncode == 0, r.stderr
    if present:
        # nothing to do: no edit, no update-grub, nothing on record
        assert r.stderr == ("the boot loader's configuration has the kernel arguments "
                            "intel_iommu=on iommu=pt already; they take effect at the next boot\n")
        assert calls(root) == [] and record(root) is None
        assert not (root / "etc/default/grub.d/90-sriov-persist.cfg").exists()
    else:
        unset = [a for a in ("intel_iommu=on", "iommu=pt") if a not in words]
        assert record(root) == {"boot_loader": "grub", "added": unset}
        assert calls(root) == ["/usr/sbin/update-grub "]
        # what the shell makes of the files with our drop-in: all of them, each once
        after = sh_cmdline(root)
        assert after.count("intel_iommu=on") == 1 and after.count("iommu=pt") == 1, after
        # and a second run finds them there
        assert "already" in helper(root, "add").stderr and len(calls(root)) == 1


def test_a_drop_in_only_a_shell_could_read_is_left_alone(tmp_path):
    root = grub_fixture(tmp_path, "ubuntu-24.04")
    dropin = root / "etc/default/grub.d/60-site.cfg"
    dropin.parent.mkdir(exist_ok=True)
    dropin.write_text("# site settings\nif [ -e /etc/site-iommu ]; then\n"
                      '  GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX intel_iommu=on"\nfi\n')
    r = helper(root, "add")
    assert r.returncode == 1
    assert r.stderr == ("leaving the boot loader's configuration as it is: "
                        "/etc/default/grub.d/60-site.cfg:2: not a plain assignment: only a shell "
                        "can tell what it does (\"if [ -e /etc/site-iommu ]; then\")\n")
    assert calls(root) == [] and record(root) is None
    assert not (root / "etc/default/grub.d/90-sriov-persist.cfg").exists()


def test_arm64_adds_nothing(tmp_path):
    root = grub_fixture(tmp_path, "debian-12")
    (root / "proc/cpuinfo").write_text(ARM64 * 2)
    r = helper(root, "add")
    assert r.returncode == 0, r.stderr
    assert "no IOMMU argument to add" in r.stderr and "arm64" in r.stderr, r.stderr
    assert calls(root) == [] and record(root) is None


# ---- sriovctl --root DIR --host FILE: the node's boot loader files, the simulated host ----

def node(tmp_path, name, edit=None):
    root = tmp_path / "node"
    shutil.copytree(FIXTURES / name, root)
    if edit:
        set_var(root, *edit)
    return root


def vfio_host(make_host, loader="grub", vendor="intel"):
    h = make_host("igb-82576.json")
    pci = h.pfs_by_driver("igb")[0]["pci"]
    h.layout("50.conf", VFIO.format(pci=pci))
    manage(h, loader)
    s = h.state()
    s["cpu_vendor"] = vendor
    h.save(s)
    return h, pci


def pending(h, root, pci):
    st = json.loads(h.run("--root", str(root), "status", "--json").stdout)
    return next(p for p in st["pfs"] if p["pci"] == pci)


def test_ubuntu_default_with_the_arguments_is_a_reboot_not_an_edit(make_host, tmp_path):
    h, pci = vfio_host(make_host)
    root = node(tmp_path, "ubuntu-24.04", ("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT",
                                            "quiet splash intel_iommu=on iommu=pt"))
    plan = h.run("--root", str(root), "plan")
    assert plan.returncode == 10, plan.stdout + plan.stderr  # a reboot is needed
    assert "kernel arguments" not in plan.stdout.replace(
        "kernel arguments intel_iommu=on iommu=pt are in the boot loader's configuration", ""), \
        plan.stdout
    r = h.run("--root", str(root), "apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "kernel_arguments_added" not in h.state()
    pf = pending(h, root, pci)
    assert pf["state"] == "pending", pf
    assert pf["pending_reboot_reasons"] == [
        "kernel arguments intel_iommu=on iommu=pt are in the boot loader's configuration: the "
        "IOMMU that VF 0 wants for vfio-pci is on after a reboot"], pf
    # without the node's files the same host would add them
    assert "add kernel arguments intel_iommu=on iommu=pt to the boot loader" in \
        h.run("plan").stdout


def test_only_what_the_configuration_lacks_is_added(make_host, tmp_path):
    h, _ = vfio_host(make_host)
    root = node(tmp_path, "debian-12", ("etc/default/grub", "GRUB_CMDLINE_LINUX", "iommu=pt"))
    plan = h.run("--root", str(root), "plan")
    assert "add kernel arguments intel_iommu=on to the boot loader" in plan.stdout, plan.stdout
    assert h.run("--root", str(root), "apply").returncode == 0
    assert h.state()["kernel_arguments_added"] == ["intel_iommu=on"]


def test_kernel_install_cmdline_with_the_arguments(make_host, tmp_path):
    h, pci = vfio_host(make_host, loader="kernel-install", vendor="amd")
    root = tmp_path / "node"
    (root / "etc/kernel").mkdir(parents=True)
    (root / "etc/kernel/cmdline").write_text("root=UUID=1 rw amd_iommu=on iommu=pt\n")
    assert h.run("--root", str(root), "apply").returncode == 0
    assert "kernel_arguments_added" not in h.state()
    assert pending(h, root, pci)["pending_reboot_reasons"] == [
        "kernel arguments amd_iommu=on iommu=pt are in the boot loader's configuration: the "
        "IOMMU that VF 0 wants for vfio-pci is on after a reboot"]


def test_arguments_on_the_running_command_line_only_are_nothing_to_do(make_host, tmp_path):
    h, pci = vfio_host(make_host)
    root = node(tmp_path, "ubuntu-24.04")  # "quiet splash": the files lack them
    s = h.state()
    s["kernel_cmdline"] += " intel_iommu=on iommu=pt"
    s["iommu"] = True
    h.save(s)
    plan = h.run("--root", str(root), "plan")
    assert "kernel arguments" not in plan.stdout, plan.stdout
    r = h.run("--root", str(root), "apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "kernel_arguments_added" not in h.state()
    assert h.pf(pci)["vfs"][0]["driver"] == "vfio-pci"
    assert pending(h, root, pci)["pending_reboot_reasons"] == []
    # given, and the IOMMU still off: the firmware's, never a reboot or an edit
    s = h.state()
    s["iommu"] = False
    s["pfs"][0]["vfs"][0]["driver"] = "igbvf"
    h.save(s)
    r = h.run("--root", str(root), "apply")
    assert "the kernel command line has intel_iommu=on: turn on VT-d in the firmware setup " \
           "and reboot" in r.stdout, r.stdout
    assert "kernel_arguments_added" not in h.state()
    assert pending(h, root, pci)["pending_reboot_reasons"] == []


def test_arm64_gets_no_intel_or_amd_argument(make_host, tmp_path):
    h, pci = vfio_host(make_host, vendor="arm")
    root = node(tmp_path, "debian-12")
    plan = h.run("--root", str(root), "plan")
    assert "intel_iommu" not in plan.stdout and "amd_iommu" not in plan.stdout, plan.stdout
    assert SMMU in plan.stdout, plan.stdout
    r = h.run("--root", str(root), "apply")
    assert r.returncode == 1 and SMMU in r.stdout, r.stdout + r.stderr
    assert "kernel_arguments_added" not in h.state()
    pf = pending(h, root, pci)
    assert pf["state"] == "degraded" and pf["pending_reboot_reasons"] == [], pf
    check = h.run("--root", str(root), "check")
    assert SMMU in check.stdout + check.stderr and "intel_iommu" not in check.stdout


def test_an_ambiguous_grub_file_holds_manage_and_says_why(make_host, tmp_path):
    h, _ = vfio_host(make_host)
    root = node(tmp_path, "ubuntu-24.04")
    (root / "etc/default/grub").write_text(
        (root / "etc/default/grub").read_text() + 'GRUB_CMDLINE_LINUX="$(cat /etc/extra-args)"\n')
    r = h.run("--root", str(root), "apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert ("add intel_iommu=on iommu=pt to the kernel command line and reboot; "
            "KernelArguments=manage leaves the boot loader's configuration as it is: "
            "/etc/default/grub:21: GRUB_CMDLINE_LINUX=\"$(cat /etc/extra-args)\": only a shell "
            "can tell its value") in r.stdout, r.stdout
    assert "kernel_arguments_added" not in h.state()


def bls_entry(root, name, options):
    d = root / "boot/loader/entries"
    d.mkdir(parents=True, exist_ok=True)
    # the fields of a BLS entry as Fedora's kernel-install writes them
    (d / f"{name}.conf").write_text(
        f"title Fedora Linux ({name}) 40 (Server Edition)\nversion {name}\n"
        f"linux /vmlinuz-{name}\ninitrd /initramfs-{name}.img\noptions {options}\n"
        "grub_users $grub_users\ngrub_arg --unrestricted\ngrub_class fedora\n")


@pytest.mark.parametrize("second,added", [
    ("root=UUID=7d1c rw intel_iommu=on iommu=pt rhgb quiet", None),
    ("root=UUID=7d1c rw intel_iommu=on rhgb quiet", "iommu=pt"),
    # RHEL 8's entries take their options from grubenv: not known to have them
    ("$kernelopts", "intel_iommu=on iommu=pt"),
])
def test_grubby_every_bls_entry(tmp_path, second, added):
    root = make_root(tmp_path, cpuinfo=INTEL)
    stand_in(root, "/usr/sbin/grubby")
    bls_entry(root, "6.8.5-301.fc40.x86_64", "root=UUID=7d1c rw intel_iommu=on iommu=pt rhgb quiet")
    bls_entry(root, "6.9.7-200.fc40.x86_64", second)
    r = helper(root, "add")
    assert r.returncode == 0, r.stderr
    if added is None:
        assert "has the kernel arguments intel_iommu=on iommu=pt already" in r.stderr
        assert calls(root) == [] and record(root) is None
    else:
        assert calls(root) == [f"/usr/sbin/grubby --update-kernel=ALL --args={added}"]
        assert record(root)["added"] == added.split()


def test_no_etc_default_grub_under_root_is_an_empty_one(make_host, tmp_path):
    """grub-mkconfig sources /etc/default/grub only "if test -f": a root without it (a node
    whose /etc is elsewhere) has an empty configuration, not an unreadable one."""
    h, _ = vfio_host(make_host)
    root = tmp_path / "node"
    root.mkdir()
    plan = h.run("--root", str(root), "plan")
    assert "add kernel arguments intel_iommu=on iommu=pt to the boot loader" in plan.stdout, \
        plan.stdout


# update-grub writes "${GRUB_CMDLINE_LINUX} ${GRUB_CMDLINE_LINUX_DEFAULT}" and the kernel takes the
# last of a parameter given twice: an "off" in the default would still win after a reboot
OFF_IN_DEFAULT = [
    ("", "quiet intel_iommu=off"),
    ("intel_iommu=on iommu=pt", "quiet intel_iommu=off"),
]


@pytest.mark.parametrize("linux,default", OFF_IN_DEFAULT)
def test_an_iommu_off_read_after_ours_holds_manage(make_host, tmp_path, linux, default):
    h, pci = vfio_host(make_host)
    root = node(tmp_path, "debian-12", ("etc/default/grub", "GRUB_CMDLINE_LINUX", linux))
    set_var(root, "etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT", default)
    assert "intel_iommu=off" in sh_cmdline(root)
    line = next(i for i, text in enumerate((root / "etc/default/grub").read_text().splitlines(), 1)
                if text.startswith("GRUB_CMDLINE_LINUX_DEFAULT="))
    why = ("add intel_iommu=on iommu=pt to the kernel command line and reboot; "
           "KernelArguments=manage "
           "leaves the boot loader's configuration as it is: "
           f"/etc/default/grub:{line} holds intel_iommu=off, which turns off what "
           "intel_iommu=on turns on; remove it, and the IOMMU is on after the next apply and "
           "a reboot")
    plan = h.run("--root", str(root), "plan")
    assert "kernel arguments" not in plan.stdout.replace(why, ""), plan.stdout
    assert why in plan.stdout, plan.stdout
    r = h.run("--root", str(root), "apply")
    assert r.returncode == 1 and why in r.stdout, r.stdout + r.stderr
    assert "kernel_arguments_added" not in h.state()
    pf = pending(h, root, pci)
    assert pf["pending_reboot_reasons"] == [], pf
    check = h.run("--root", str(root), "check", "--strict")
    assert check.returncode != 0 and why in check.stdout + check.stderr, \
        check.stdout + check.stderr
    # the executor, run as the unit runs it, touches nothing either
    (root / "proc").mkdir(exist_ok=True)
    (root / "proc/cpuinfo").write_text(INTEL)
    (root / "proc/cmdline").write_text("BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet\n")
    stand_in(root, "/usr/sbin/update-grub")
    (root / "boot/grub").mkdir(parents=True, exist_ok=True)
    (root / "boot/grub/grub.cfg").write_text("# generated\n")
    r = helper(root, "add")
    assert r.returncode == 1, r.stderr
    assert r.stderr == ("leaving the boot loader's configuration as it is: "
                        f"/etc/default/grub:{line} holds intel_iommu=off, which turns off what "
                        "intel_iommu=on turns on; remove it\n"), r.stderr
    assert calls(root) == [] and record(root) is None


def test_an_iommu_off_before_the_arguments_is_overruled(make_host, tmp_path):
    """"intel_iommu=off intel_iommu=on": the kernel reads the last, the IOMMU is on."""
    h, pci = vfio_host(make_host)
    root = node(tmp_path, "debian-12", ("etc/default/grub", "GRUB_CMDLINE_LINUX",
                                        "intel_iommu=off"))
    set_var(root, "etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT", "intel_iommu=on iommu=pt")
    assert h.run("--root", str(root), "apply").returncode == 0
    assert "kernel_arguments_added" not in h.state()
    assert pending(h, root, pci)["pending_reboot_reasons"] == [
        "kernel arguments intel_iommu=on iommu=pt are in the boot loader's configuration: the "
        "IOMMU that VF 0 wants for vfio-pci is on after a reboot"]


def test_an_iommu_off_in_kernel_cmdline_holds_manage(make_host, tmp_path):
    h, _ = vfio_host(make_host, loader="kernel-install", vendor="amd")
    root = tmp_path / "node"
    (root / "etc/kernel").mkdir(parents=True)
    (root / "etc/kernel/cmdline").write_text("root=UUID=1 rw\namd_iommu=on amd_iommu=off\n")
    r = h.run("--root", str(root), "apply")
    assert r.returncode == 1, r.stdout + r.stderr
    assert ("/etc/kernel/cmdline:2 holds amd_iommu=off, which turns off what amd_iommu=on "
            "turns on; remove it") in r.stdout, r.stdout
    assert "kernel_arguments_added" not in h.state()


def test_root_with_a_snapshot_that_names_no_boot_loader_says_so(make_host, tmp_path):
    """The node's grub files are there, but a simulated host's tool is its snapshot's
    boot_loader, never looked for: the message names that, not missing files."""
    h, _ = vfio_host(make_host, loader=None)
    root = grub_fixture(tmp_path, "debian-12")
    plan = h.run("--root", str(root), "plan")
    assert ("add intel_iommu=on iommu=pt to the kernel command line and reboot; "
            "KernelArguments=manage has no boot loader tool to add them with: the snapshot "
            "names none (\"boot_loader\": grubby, kernel-install or grub; --root reads the files "
            "of the tool it names)") in plan.stdout, plan.stdout
    assert "/etc/default/grub" not in plan.stdout, plan.stdout


# ---- an "off" put into the configuration after sriovctl added the arguments ----

def added_then(h, root, pci):
    """apply adds the arguments (recorded in the snapshot); the reboot is pending."""
    r = h.run("--root", str(root), "apply")
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.state()["kernel_arguments_added"] == ["intel_iommu=on", "iommu=pt"]
    assert pending(h, root, pci)["pending_reboot_reasons"] == [
        "kernel arguments intel_iommu=on iommu=pt were added to the boot loader: the IOMMU "
        "that VF 0 wants for vfio-pci is on after a reboot"]


def held_by_off(h, root, pci, where):
    """No reboot promised: degraded, an error of check --strict, where the "off" is."""
    why = ("add intel_iommu=on iommu=pt to the kernel command line and reboot; "
           "KernelArguments=manage leaves the boot loader's configuration as it is: "
           f"{where} holds intel_iommu=off, which turns off what intel_iommu=on turns on; "
           "remove it, and the IOMMU is on after the next apply and a reboot")
    plan = h.run("--root", str(root), "plan")
    assert why in plan.stdout and "on after a reboot" not in plan.stdout, plan.stdout
    assert "add kernel arguments" not in plan.stdout, plan.stdout
    pf = pending(h, root, pci)
    assert pf["state"] == "degraded" and pf["pending_reboot_reasons"] == [], pf
    check = h.run("--root", str(root), "check", "--strict")
    assert check.returncode != 0 and why in check.stdout + check.stderr, \
        check.stdout + check.stderr
    r = h.run("--root", str(root), "apply")
    assert r.returncode == 1 and why in r.stdout, r.stdout + r.stderr
    # the record stays: a reset still takes out what sriovctl added
    assert h.state()["kernel_arguments_added"] == ["intel_iommu=on", "iommu=pt"]


def test_an_off_in_kernel_cmdline_after_the_arguments_were_added(make_host, tmp_path):
    h, pci = vfio_host(make_host, loader="kernel-install")
    root = tmp_path / "node"
    (root / "etc/kernel").mkdir(parents=True)
    (root / "etc/kernel/cmdline").write_text("root=UUID=1 rw\n")
    added_then(h, root, pci)
    (root / "etc/kernel/cmdline").write_text("root=UUID=1 rw intel_iommu=off\n")
    held_by_off(h, root, pci, "/etc/kernel/cmdline:1")
    # taken out again: the reboot is pending as before
    (root / "etc/kernel/cmdline").write_text("root=UUID=1 rw\n")
    assert h.run("--root", str(root), "apply").returncode == 0
    assert pending(h, root, pci)["state"] == "pending"


def test_an_off_in_a_grub_drop_in_after_the_arguments_were_added(make_host, tmp_path):
    h, pci = vfio_host(make_host)
    root = node(tmp_path, "ubuntu-24.04-cloud")
    added_then(h, root, pci)
    rel = "etc/default/grub.d/50-cloudimg-settings.cfg"
    set_var(root, rel, "GRUB_CMDLINE_LINUX_DEFAULT",
            "$GRUB_CMDLINE_LINUX_DEFAULT console=ttyS0 intel_iommu=off")
    assert "intel_iommu=off" in sh_cmdline(root)
    line = next(i for i, text in enumerate((root / rel).read_text().splitlines(), 1)
                if text.startswith("GRUB_CMDLINE_LINUX_DEFAULT="))
    held_by_off(h, root, pci, f"/{rel}:{line}")
