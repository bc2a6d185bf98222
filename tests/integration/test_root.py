# SPDX-License-Identifier: LGPL-2.1-or-later
"""sriovctl --root DIR: a node's files (layouts, main configuration and drop-ins, records) read
under DIR, as systemctl --root reads an image; paths given by other options taken as given;
links resolved inside DIR and a way out of it refused; apply, reset and wait only with --host."""

import json
import os
import subprocess

import pytest

E810_0, E810_1 = "0000:3b:00.0", "0000:3b:00.1"
LAYOUT = "[Match]\nPCIAddress={pci}\n[PhysicalFunction]\nVirtualFunctions={n}\n"


@pytest.fixture
def node(tmp_path):
    """A node's tree: a layout for the first E810 port in /etc, one for the second in /usr/lib,
    a main configuration in /etc with a drop-in."""
    root = tmp_path / "node"
    etc = root / "etc" / "sriov-persist"
    (etc / "conf.d").mkdir(parents=True)
    (etc / "conf.d" / "50-e810.conf").write_text(LAYOUT.format(pci=E810_0, n=2))
    usr = root / "usr" / "lib" / "sriov-persist" / "conf.d"
    usr.mkdir(parents=True)
    (usr / "60-port1.conf").write_text(LAYOUT.format(pci=E810_1, n=3))
    (etc / "sriov-persist.conf").write_text("[Disruption]\nPolicy=immediate\n")
    (etc / "sriov-persist.conf.d").mkdir()
    (etc / "sriov-persist.conf.d" / "10-apply.conf").write_text("[Apply]\nSysfsWriteTimeoutSec=1\n")
    return root


def run(binary, *args):
    return subprocess.run([binary, "--no-color", *map(str, args)], capture_output=True, text=True,
                          timeout=60)


def test_check_plan_and_cat_read_the_layouts_and_main_configuration_under_root(make_host, node):
    h = make_host("e810.json")
    r = run(h.binary, "--root", node, "--host", h.path, "check")
    assert r.returncode == 0, r.stderr
    # both directories of the node and its main configuration, none of this machine's /etc
    assert r.stdout == "2 layout file(s) and the main configuration checked: 0 error(s)\n"
    r = run(h.binary, "--root", node, "--host", h.path, "plan")
    assert r.returncode == 10, r.stderr
    assert f"{E810_0} (ens1f0): 2 action(s), all live\n  files: 50-e810.conf\n" in r.stdout
    assert "set 2 VFs" in r.stdout and "set 3 VFs" in r.stdout
    assert f"{E810_1} (ens1f1): 2 action(s), all live\n  files: 60-port1.conf\n" in r.stdout
    r = run(h.binary, "--root", node, "--host", h.path, "cat", E810_1)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(
        f"# PF {E810_1} (ens1f1), selected by {node}/usr/lib/sriov-persist/conf.d/60-port1.conf\n")


def test_the_main_configuration_and_its_drop_ins_are_those_under_root(make_host, node):
    h = make_host("e810.json")
    dropin = node / "etc" / "sriov-persist" / "sriov-persist.conf.d" / "10-apply.conf"
    dropin.write_text("[Apply]\nSysfsWriteTimoutSec=1\n")
    r = run(h.binary, "--root", node, "--host", h.path, "check")
    assert r.returncode == 1
    assert r.stderr.startswith(f"{dropin}:2: unknown key 'SysfsWriteTimoutSec' in [Apply]"), \
        r.stderr
    # plan holds every PF, as apply would on that node
    r = run(h.binary, "--root", node, "--host", h.path, "plan")
    assert "the main configuration has errors, nothing is applied" in r.stdout, r.stdout


def test_records_are_written_and_read_under_root_with_host(make_host, node):
    h = make_host("e810.json")
    r = run(h.binary, "--root", node, "--host", h.path, "apply", E810_0)
    assert r.returncode == 0, r.stdout + r.stderr
    record = node / "run" / "sriov-persist" / "pf" / f"{E810_0}.json"
    assert json.loads(record.read_text())["state"] == "applied"
    assert (node / "var" / "lib" / "sriov-persist" / "pf" / f"{E810_0}.json").is_file()
    assert not h.path.with_name("host.json.run").exists()
    r = run(h.binary, "--root", node, "--host", h.path, "status", "--json")
    assert r.returncode == 0, r.stderr
    pf = next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == E810_0)
    assert pf["state"] == "applied" and pf["last_apply"], pf
    # the same host without --root has none of the node's records (nor its layouts)
    r = run(h.binary, "--host", h.path, "--config-dir", h.confdir, "--main-config", h.main,
            "status", "--json")
    pf = next(p for p in json.loads(r.stdout)["pfs"] if p["pci"] == E810_0)
    assert pf["state"] == "unconfigured", pf


def test_paths_named_by_options_are_taken_as_given(make_host, node):
    h = make_host("e810.json")
    h.layout("70-other.conf", LAYOUT.format(pci=E810_1, n=5))
    r = run(h.binary, "--root", node, "--host", h.path, "--config-dir", h.confdir,
            "--main-config", h.main, "plan", E810_1)
    assert r.returncode == 10, r.stderr
    assert "files: 70-other.conf" in r.stdout and "set 5 VFs" in r.stdout, r.stdout


def test_without_main_configuration_under_root_the_defaults_are_used(make_host, tmp_path):
    h = make_host("e810.json")
    root = tmp_path / "empty"
    root.mkdir()
    r = run(h.binary, "--root", root, "--host", h.path, "check")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("0 layout file(s) checked (no main configuration: defaults): 0 error(s), "
                        "1 warning(s)\n")
    assert r.stderr.endswith("no layout files (*.conf) in /etc/sriov-persist/conf.d, "
                             "/run/sriov-persist/conf.d, /usr/lib/sriov-persist/conf.d "
                             f"under {root}\n")


@pytest.mark.parametrize("verb", ["apply", "reset", "wait"])
def test_verbs_that_drive_this_machine_take_root_only_with_host(sriovctl_bin, node, verb):
    r = run(sriovctl_bin, "--root", node, verb)
    assert r.returncode == 2
    assert r.stderr == (f"{verb}: --root only with --host: the files under {node} are not this "
                        "machine's, and the hardware there cannot be driven from here\n")


@pytest.mark.parametrize("make,problem", [
    (lambda d: d / "missing", "does not exist"),
    (lambda d: (d / "file").write_text("") or d / "file", "is not a directory"),
])
def test_root_must_be_a_directory(sriovctl_bin, tmp_path, make, problem):
    path = make(tmp_path)
    r = run(sriovctl_bin, "--root", path, "check")
    assert r.returncode == 2
    assert r.stderr == f"--root={path}: {problem}\n"


def test_root_is_canonical(make_host, node, tmp_path):
    """A relative DIR, or one through a link, names the same files."""
    h = make_host("e810.json")
    (tmp_path / "link").symlink_to(node)
    r = subprocess.run([h.binary, "--no-color", "--root", "link", "--host", str(h.path), "cat",
                        E810_0], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert f"selected by {node}/etc/sriov-persist/conf.d/50-e810.conf\n" in r.stdout, r.stdout


def test_absolute_links_are_the_roots_own(make_host, node):
    """/etc/.../55-link.conf -> /usr/lib/... is the node's /usr/lib, not this machine's."""
    h = make_host("e810.json")
    usr = node / "usr" / "lib" / "sriov-persist" / "conf.d"
    (usr / "60-port1.conf").rename(usr / "port1.layout")
    (node / "etc" / "sriov-persist" / "conf.d" / "55-link.conf").symlink_to(
        "/usr/lib/sriov-persist/conf.d/port1.layout")
    r = run(h.binary, "--root", node, "--host", h.path, "plan", E810_1)
    assert r.returncode == 10, r.stderr
    assert "set 3 VFs" in r.stdout, r.stdout


def test_a_layout_link_is_named_by_its_own_name(make_host, node):
    """/etc/.../60-port1.conf -> /usr/lib/.../port1.layout: the layout is 60-port1.conf, as
    systemd names a unit by its link, so Overrides= of that name is not stale, and status and
    plan name the link, not the file it leads to."""
    h = make_host("e810.json")
    usr = node / "usr" / "lib" / "sriov-persist" / "conf.d"
    (usr / "60-port1.conf").rename(usr / "port1.layout")
    etc = node / "etc" / "sriov-persist" / "conf.d"
    link = etc / "60-port1.conf"
    link.symlink_to("/usr/lib/sriov-persist/conf.d/port1.layout")
    (etc / "70-more.conf").write_text(LAYOUT.format(pci=E810_1, n=4)
                                      + "[Layout]\nOverrides=60-port1.conf\n")
    r = run(h.binary, "--root", node, "--host", h.path, "check", "--strict")
    assert (r.stderr, r.returncode) == ("", 0)
    r = run(h.binary, "--root", node, "--host", h.path, "plan", E810_1)
    assert "  files: 60-port1.conf 70-more.conf\n" in r.stdout, r.stdout
    r = run(h.binary, "--root", node, "--host", h.path, "apply", E810_1)
    assert r.returncode == 0, r.stdout + r.stderr
    r = run(h.binary, "--root", node, "--host", h.path, "status", "--json", E810_1)
    pf = json.loads(r.stdout)["pfs"][0]
    assert any(f.endswith("/etc/sriov-persist/conf.d/60-port1.conf") for f in pf["config_files"]), pf
    assert not any("port1.layout" in f for f in pf["config_files"]), pf
    # an error in it is reported at the link's name
    (usr / "port1.layout").write_text(LAYOUT.format(pci=E810_1, n=3) + "Bogus=1\n")
    r = run(h.binary, "--root", node, "--host", h.path, "check")
    assert r.stderr.startswith(f"{link}:5: unknown key 'Bogus'"), r.stderr


def test_a_layout_link_masking_a_file_of_its_name_is_named_as_the_link(make_host, node):
    """/etc/.../60-port1.conf -> /usr/lib/.../60-port1.conf: status names the /etc file that
    masks, not the masked /usr/lib one."""
    h = make_host("e810.json")
    etc = node / "etc" / "sriov-persist" / "conf.d" / "60-port1.conf"
    etc.symlink_to("/usr/lib/sriov-persist/conf.d/60-port1.conf")
    r = run(h.binary, "--root", node, "--host", h.path, "status", "--json", E810_1)
    assert json.loads(r.stdout)["pfs"][0]["config_files"] == [str(etc)], r.stdout


def test_a_layout_link_out_of_root_is_refused_and_holds_every_pf(make_host, node, tmp_path):
    h = make_host("e810.json")
    outside = tmp_path / "outside.conf"
    outside.write_text(LAYOUT.format(pci=E810_1, n=7))
    link = node / "etc" / "sriov-persist" / "conf.d" / "60-out.conf"
    link.symlink_to(os.path.relpath(outside, link.parent))
    r = run(h.binary, "--root", node, "--host", h.path, "check")
    assert r.returncode == 1
    assert f"{link}: leads out of the root directory; refusing it" in r.stderr, r.stderr
    r = run(h.binary, "--root", node, "--host", h.path, "plan")
    assert "set 7 VFs" not in r.stdout and "set 2 VFs" not in r.stdout, r.stdout
    assert r.stdout.count("held") == 2, r.stdout


def test_a_directory_link_out_of_root_is_refused(make_host, node, tmp_path):
    h = make_host("e810.json")
    (tmp_path / "elsewhere").mkdir()
    (node / "run").symlink_to("../elsewhere")
    r = run(h.binary, "--root", node, "--host", h.path, "status")
    assert r.returncode == 2
    assert r.stderr == (f"--root={node}: /run/sriov-persist leads out of the root directory; "
                        "refusing it\n")
    assert not any((tmp_path / "elsewhere").iterdir())


def test_the_machine_id_is_read_under_root(sriovctl_bin, node, tmp_path):
    """Without --host, the hardware is this machine's but the files are the node's: its
    /etc/machine-id, which may not lead out of it."""
    (tmp_path / "id").write_text("0123456789abcdef0123456789abcdef\n")
    (node / "etc" / "machine-id").symlink_to("../../id")
    r = run(sriovctl_bin, "--root", node, "plan")
    assert r.returncode == 1
    assert r.stderr == (f"--root={node}: /etc/machine-id leads out of the root directory; "
                        "refusing it\n")
    # the node's own file is the one read (this machine's sysfs, the node's /etc)
    (node / "etc" / "machine-id").unlink()
    (node / "etc" / "machine-id").write_text("not an ID\n")
    r = run(sriovctl_bin, "--root", node, "plan")
    assert r.returncode == 1
    assert f"{node}/etc/machine-id: not a machine ID" in r.stderr, r.stderr


def test_the_daemon_does_not_take_root(tmp_path, sriovpersistd_bin):
    """It works on the host it runs on: the shared row is not its."""
    binary = sriovpersistd_bin
    r = subprocess.run([binary, "--root", str(tmp_path), "--help"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode != 0 and "unrecognized option '--root'" in r.stderr, r.stderr
    r = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "--runtime-dir" in r.stdout and "--root" not in r.stdout


def test_help_says_root_reads(sriovctl_bin):
    """As sriovctl(8) says: --root reads; only apply and reset with --host write records."""
    r = subprocess.run([sriovctl_bin, "--help"], capture_output=True, text=True, timeout=60)
    row = r.stdout[r.stdout.index("  --root DIR"):r.stdout.index("  --machine-id")]
    assert " ".join(row.split()) == (
        "--root DIR read the host's files under DIR: layouts, main configuration, records, "
        "boot loader configuration, machine ID; only apply and reset, with --host, write "
        "there (their records)"), row
    assert "read and write" not in r.stdout


def test_without_host_the_files_are_the_roots_and_the_hardware_this_machines(sriovctl_bin, node):
    """check, plan and status read this machine's sysfs and the node's layouts: a layout of the
    node that selects no PF here says so at its own path (no machine has PCI domain ffff)."""
    layout = node / "etc" / "sriov-persist" / "conf.d" / "50-e810.conf"
    layout.write_text(LAYOUT.format(pci="ffff:ff:1f.7", n=2))
    (node / "usr" / "lib" / "sriov-persist" / "conf.d" / "60-port1.conf").unlink()
    for verb in ("plan", "status"):
        r = run(sriovctl_bin, "--root", node, verb)
        assert r.returncode == 0, r.stderr
        assert f"{layout}:2: warning: [Match] PCIAddress=ffff:ff:1f.7 selects no PF on this " \
               "host" in r.stderr, r.stderr


def test_a_layout_directory_link_out_of_root_is_refused(make_host, node, tmp_path):
    h = make_host("e810.json")
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "50-e810.conf").write_text(LAYOUT.format(pci=E810_0, n=6))
    run_conf = node / "run" / "sriov-persist" / "conf.d"
    run_conf.parent.mkdir(parents=True)
    run_conf.symlink_to("../../../conf.d")
    r = run(h.binary, "--root", node, "--host", h.path, "check")
    assert r.returncode == 1
    assert f"{run_conf}: leads out of the root directory; refusing it" in r.stderr, r.stderr
    r = run(h.binary, "--root", node, "--host", h.path, "plan")
    assert "set 6 VFs" not in r.stdout and r.stdout.count("held") == 2, r.stdout


def test_root_slash_is_this_machine(sriovctl_bin, tmp_path):
    """--root=/ is as if no --root were given: wait without --host is no usage error then
    (with --config-dir naming an empty directory, nothing is configured to wait for)."""
    r = run(sriovctl_bin, "--root", "/", "--config-dir", tmp_path, "wait", "--timeout", "0")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "0 configured PF(s): 0 applied, 0 not (see sriovctl status)\n"


def test_a_main_configuration_link_out_of_root_is_refused(make_host, node, tmp_path):
    h = make_host("e810.json")
    (tmp_path / "main.conf").write_text("[Disruption]\nPolicy=immediate\n")
    main = node / "etc" / "sriov-persist" / "sriov-persist.conf"
    main.unlink()
    main.symlink_to("../../../main.conf")
    r = run(h.binary, "--root", node, "--host", h.path, "check")
    assert r.returncode == 1
    assert r.stderr == f"{main}: leads out of the root directory; refusing it\n", r.stderr
    r = run(h.binary, "--root", node, "--host", h.path, "plan")
    assert r.stdout.count("the main configuration has errors, nothing is applied") == 2, r.stdout


def test_check_of_a_masked_file_says_which_file_masks_it(make_host, tmp_path):
    """check FILE of /usr/lib/... whose name a file in /etc/... (read first) has: a warning that
    names the file read in its place; the file that masks is checked without one."""
    h = make_host("e810.json")
    root = tmp_path / "node"
    lib = root / "usr/lib/sriov-persist/conf.d"
    etc = root / "etc/sriov-persist/conf.d"
    lib.mkdir(parents=True)
    etc.mkdir(parents=True)
    for d in (lib, etc):
        (d / "40-x.conf").write_text(LAYOUT.format(pci=E810_1, n=2))
    r = run(h.binary, "--root", root, "check", lib / "40-x.conf")
    assert r.stderr.splitlines() == [
        f"{lib}/40-x.conf: warning: masked by {etc}/40-x.conf (a file of the same name in a "
        "directory read first): that file is read, not this one, which is checked here in its "
        "place"]
    assert r.stdout == "1 layout file(s) checked: 0 error(s), 1 warning(s)\n"
    assert r.returncode == 0
    r = run(h.binary, "--root", root, "check", etc / "40-x.conf")
    assert (r.stderr, r.returncode) == ("", 0)
