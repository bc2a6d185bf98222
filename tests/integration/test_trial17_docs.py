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
