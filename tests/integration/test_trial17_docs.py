# SPDX-License-Identifier: LGPL-2.1-or-later
"""The seventeenth fresh-eyes trial, of the documentation: sriovctl(8) names every option that
sriovctl --help lists, with the same argument, in its SYNOPSIS and its OPTIONS (11); check
without a host warns of one literal MAC address given in two files (13); the message of a
firmware query that lacks CAP_SYS_ADMIN gives the command that works (4, in
tests/unit/test-host-linux-sysfs.c)."""

import re
import subprocess

from conftest import ROOT

HELP_ROW = re.compile(r"^  (?:-\w, )?--([a-z][a-z0-9-]*)(?: ([A-Z]+))?  ")
MAN_OPTION = re.compile(r"--([a-z][a-z0-9-]*)(?:\s+([A-Z]+)\b)?")


def help_options(sriovctl_bin):
    r = subprocess.run([sriovctl_bin, "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rows = dict(m.groups() for m in map(HELP_ROW.match, r.stdout.splitlines()) if m)
    assert "host" in rows and "root" in rows, f"no option rows in --help:\n{r.stdout}"
    return rows


def man_section(name):
    """The text of one section of sriovctl(8), as plain as roff allows: no font escapes, no
    quotes, \\- as -."""
    text = (ROOT / "man" / "sriovctl.8").read_text()
    m = re.search(rf"^\.SH {name}\n(.*?)^\.SH ", text, re.S | re.M)
    assert m, f"no section {name}"
    return re.sub(r"\\f[BIRP]|\"", "", m.group(1)).replace("\\-", "-")


def man_options(section):
    """{option: its argument} of a section; in OPTIONS only the .TP tags count."""
    text = man_section(section)
    if section == "OPTIONS":
        text = "\n".join(re.findall(r"^\.TP\n(.*)$", text, re.M))
    return {name: arg for name, arg in MAN_OPTION.findall(text)}


def test_synopsis_and_options_name_every_option_of_help(sriovctl_bin):
    rows = help_options(sriovctl_bin)
    for section in ("SYNOPSIS", "OPTIONS"):
        man = man_options(section)
        missing = sorted(set(rows) - set(man))
        assert not missing, f"sriovctl(8) {section} lacks --{', --'.join(missing)}"
        unknown = sorted(set(man) - set(rows))
        assert not unknown, f"sriovctl(8) {section} names --{', --'.join(unknown)}, not in --help"
        for name, arg in rows.items():
            assert (man[name] or None) == arg, \
                f"sriovctl(8) {section}: --{name} {man[name]}, --help: --{name} {arg}"


# 13: one literal MAC in two files with different [Match]
MAC_A = ("[Match]\nPCIAddress=0000:18:00.0\n{host}\n[PhysicalFunction]\nVirtualFunctions=2\n\n"
         "[VirtualFunction 0]\nMACAddress=02:11:22:33:44:55\n")
MAC_B = ("[Match]\nPCIAddress=0000:18:00.1\n{host}\n[PhysicalFunction]\nVirtualFunctions=2\n\n"
         "[VirtualFunction 1]\nMACAddress=02:11:22:33:44:55\n")


def check(sriovctl_bin, tmp_path, hosts=("", ""), *extra):
    conf = tmp_path / "conf.d"
    conf.mkdir(exist_ok=True)
    (conf / "50-a.conf").write_text(MAC_A.format(host=hosts[0]))
    (conf / "60-b.conf").write_text(MAC_B.format(host=hosts[1]))
    main = tmp_path / "main.conf"
    main.write_text("")
    return subprocess.run([sriovctl_bin, "--no-color", "--config-dir", str(conf),
                           "--main-config", str(main), *extra, "check"],
                          capture_output=True, text=True, timeout=60), conf


def test_one_mac_in_two_files_is_a_warning_without_a_host(sriovctl_bin, tmp_path):
    r, conf = check(sriovctl_bin, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == (
        f"{conf}/60-b.conf:8: warning: MACAddress=02:11:22:33:44:55: VF 1 here and VF 0 at "
        f"{conf}/50-a.conf:8, a file with another [Match], would have the same address on a "
        "host where the two files select a PF each: an error there (sriovctl check --host "
        "says it)\n"), r.stderr
    assert "0 error(s), 1 warning(s)" in r.stdout
    # --strict: the warning fails the check
    r, _ = check(sriovctl_bin, tmp_path, ("", ""), "--strict")
    assert r.returncode == 1 and "warning: MACAddress=" in r.stderr, r.stderr
    # on a host where both select a PF: an error at each place
    r, _ = check(sriovctl_bin, tmp_path, ("", ""),
                 "--host", str(ROOT / "tests/fixtures/hosts/x710.json"))
    assert r.returncode == 1, r.stderr
    assert r.stderr.count("would have the same address") == 2, r.stderr
    assert "warning" not in r.stderr, r.stderr


def test_one_mac_for_two_hosts_is_nothing(sriovctl_bin, tmp_path):
    r, _ = check(sriovctl_bin, tmp_path, ("Host=worker-1", "Host=worker-2.dc1.example.net"),
                 "--strict")
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    # worker-1 and worker-1.dc1.example.net are one host (the short name): the warning
    r, _ = check(sriovctl_bin, tmp_path, ("Host=worker-1", "Host=worker-1.dc1.example.net"))
    assert "warning: MACAddress=" in r.stderr, r.stderr
