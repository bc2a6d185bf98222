# SPDX-License-Identifier: LGPL-2.1-or-later
"""shell/bash-completion/sriovctl: _sriovctl called as bash would call it, on a fake sysfs
(SRIOVCTL_SYSFS) and a scratch directory of files, with the built sriovctl as "sriovctl" in PATH
(for the PFs of a --host FILE). Needs bash and bash-completion: without them these tests fail,
they are not skipped."""

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPLETION = ROOT / "shell" / "bash-completion" / "sriovctl"
BASH_COMPLETION = Path("/usr/share/bash-completion/bash_completion")
WORDBREAKS = ":="  # the characters of bash's COMP_WORDBREAKS that sriovctl's words contain

# The fake sysfs: two E810 PFs with netdevs, a VF of the first (a PCI function without
# sriov_totalvfs), a NIC without SR-IOV, and a ConnectX PF whose driver is not bound (no netdev).
DEVICES = {
    "0000:3b:00.0": ("128", ["ens1f0"]),
    "0000:3b:00.1": ("128", ["ens1f1"]),
    "0000:3b:01.0": (None, ["ens1f0v0"]),
    "0000:00:1f.6": (None, ["eno1"]),
    "0000:5e:00.0": ("8", []),
}
PFS = ["0000:3b:00.0", "ens1f0", "0000:3b:00.1", "ens1f1", "0000:5e:00.0"]
# worker-7.json, the simulated host of --host: x710.json, PFs that the fake sysfs does not have
HOST_PFS = ["0000:18:00.0", "ens2f0", "0000:18:00.1", "ens2f1"]
VERBS = ["status", "plan", "apply", "reset", "cat", "check", "snapshot", "metrics", "wait",
         "import", "compare"]
GLOBAL = ["--host", "--config-dir", "--main-config", "--runtime-dir", "--state-dir", "--root",
          "--no-color", "--no-pager"]


def comp_words(line):
    """COMP_WORDS and COMP_CWORD for the cursor at the end of line, split as bash splits it:
    blanks separate words, and each word-break character is a word of its own."""
    words, word = [], ""
    for ch in line:
        if ch in " \t":
            if word:
                words.append(word)
            word = ""
        elif ch in WORDBREAKS:
            if word:
                words.append(word)
            words.append(ch)
            word = ""
        else:
            word += ch
    words.append(word)  # the word being completed, "" after a blank
    return words, len(words) - 1


@pytest.fixture
def env(tmp_path, sriovctl_bin):
    assert Path("/bin/bash").exists() or Path("/usr/bin/bash").exists(), "bash is not installed"
    assert BASH_COMPLETION.is_file(), f"{BASH_COMPLETION} is missing: install bash-completion"
    assert COMPLETION.is_file(), f"{COMPLETION} is missing"
    sysfs = tmp_path / "sys"
    devices = sysfs / "bus" / "pci" / "devices"
    for pci, (total, nets) in DEVICES.items():
        d = devices / pci
        d.mkdir(parents=True)
        if total is not None:
            (d / "sriov_totalvfs").write_text(total + "\n")
        for n in nets:
            (d / "net" / n).mkdir(parents=True)
    work = tmp_path / "work"
    (work / "conf.d").mkdir(parents=True)
    (work / "run").mkdir()
    for f in ("main.conf", "50-e810.conf"):
        (work / f).write_text("")
    shutil.copy(ROOT / "tests" / "fixtures" / "hosts" / "x710.json", work / "worker-7.json")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "sriovctl").symlink_to(sriovctl_bin)
    return {"sysfs": sysfs, "cwd": work, "bin": bindir}


def complete(env, line, sysfs=None):
    """The completions of _sriovctl for line, the cursor at its end."""
    words, cword = comp_words(line)
    script = "\n".join([
        "set -u +o posix",
        f"source {shlex.quote(str(BASH_COMPLETION))} || exit 90",
        f"source {shlex.quote(str(COMPLETION))} || exit 91",
        "[[ $(complete -p sriovctl) == 'complete -F _sriovctl sriovctl' ]] || exit 92",
        f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)})",
        f"COMP_CWORD={cword}",
        f"COMP_LINE={shlex.quote(line)}",
        f"COMP_POINT={len(line)}",
        "COMP_TYPE=9 COMP_KEY=9",
        "COMPREPLY=()",
        f"_sriovctl sriovctl {shlex.quote(words[cword])} "
        f"{shlex.quote(words[cword - 1] if cword > 0 else '')}",
        "(( ${#COMPREPLY[@]} )) && printf '%s\\n' \"${COMPREPLY[@]}\"",
        "exit 0",
    ])
    e = {"PATH": f"{env['bin']}:/usr/bin:/bin", "HOME": str(env["cwd"]), "LC_ALL": "C.UTF-8",
         "SRIOVCTL_SYSFS": str(sysfs or env["sysfs"])}
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], cwd=env["cwd"], env=e,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, f"{line!r}: bash exited {r.returncode}: {r.stderr}"
    assert r.stderr == "", f"{line!r}: {r.stderr}"
    return r.stdout.splitlines()


# (command line after "sriovctl ", the completions expected, in any order)
CASES = [
    ("", VERBS),
    ("st", ["status"]),
    ("s", ["status", "snapshot"]),
    ("-", GLOBAL + ["--json", "--timeout", "--k8s-notify", "--output", "--output-dir", "--node",
                    "--help", "--version"]),
    ("--no-", ["--no-color", "--no-pager"]),
    # --machine-id only with --host, and an option is not offered twice
    ("--host worker-7.json -",
     [o for o in GLOBAL if o != "--host"] + ["--machine-id", "--json", "--timeout",
                                              "--k8s-notify", "--output", "--output-dir",
                                              "--node", "--help", "--version"]),
    ("--host=worker-7.json --mach", ["--machine-id"]),
    ("--config-dir conf.d st", ["status"]),
    # per-verb options
    ("status -", GLOBAL + ["--json"]),
    ("import -", GLOBAL + ["--output-dir"]),
    ("i", ["import"]),
    ("compare -", GLOBAL + ["--node"]),
    ("compare --node ", []),
    ("compare 50", ["50-e810.conf"]),
    ("compare --node gpu-worker-03 m", ["main.conf"]),
    ("compare 50-e810.conf ", []),
    ("plan --j", ["--json"]),
    ("--json status -", GLOBAL),
    ("apply -", GLOBAL + ["--k8s-notify"]),
    ("check --k", ["--k8s-notify"]),
    ("wait ", GLOBAL + ["--timeout"]),
    ("wait --t", ["--timeout"]),
    ("snapshot ", GLOBAL),
    # values that are the user's own
    ("wait --timeout ", []),
    ("--host worker-7.json --machine-id ", []),
    # PFs: PCI address and netdevs, not VFs, not functions without SR-IOV
    ("status ", PFS),
    ("plan en", ["ens1f0", "ens1f1"]),
    ("apply 0000:5", ["5e:00.0"]),  # readline replaces only the text after the last ':'
    ("status 0000:3b:00.", ["00.0", "00.1"]),
    # with --host, that host's PFs (the value given as "--host FILE", "--host=FILE", ~/FILE)
    ("--host worker-7.json --config-dir conf.d apply ens", ["ens2f0", "ens2f1"]),
    ("--host worker-7.json status ", HOST_PFS),
    ("--host worker-7.json cat ", HOST_PFS),
    ("--host=worker-7.json plan 0000:18:00.", ["00.0", "00.1"]),
    ("--host ~/worker-7.json reset ens2f1 ", [p for p in HOST_PFS if p != "ens2f1"]),
    ("status --host=worker-7.json ", HOST_PFS),
    ("--host nothing.json status ", []),  # a host that cannot be read has no PFs
    ("status ens1f0 ", []),  # one PF at most
    ("cat ", PFS),
    ("cat ens1f0 ", []),
    ("m", ["metrics"]),
    ("metrics ", PFS),
    ("--host worker-7.json metrics ", HOST_PFS),
    ("metrics ens1f0 ", []),
    ("metrics -", GLOBAL + ["--output"]),
    ("metrics --output w", ["worker-7.json"]),
    ("c", ["cat", "check", "compare"]),
    ("reset ", PFS),
    ("reset ens1f0 ", [p for p in PFS if p != "ens1f0"]),
    ("reset 0000:3b:00.0 0000:3b:00.", ["00.1"]),
    ("snapshot x", []),
    # files and directories
    ("--host ", ["worker-7.json", "main.conf", "50-e810.conf", "conf.d", "run"]),
    ("--host w", ["worker-7.json"]),
    ("--host=w", ["worker-7.json"]),
    ("--main-config m", ["main.conf"]),
    ("--config-dir ", ["conf.d", "run"]),
    ("--runtime-dir r", ["run"]),
    ("--root ", ["conf.d", "run"]),
    ("--state-dir=c", ["conf.d"]),
    ("check ", ["worker-7.json", "main.conf", "50-e810.conf", "conf.d", "run"]),
    ("check 50", ["50-e810.conf"]),
    ("check 50-e810.conf m", ["main.conf"]),
    # after "--", operands only
    ("-- ", VERBS),
    ("-- -", []),
    ("status -- -", []),
]


@pytest.mark.parametrize("line,expected", CASES, ids=[c[0] or "(empty)" for c in CASES])
def test_completion(env, line, expected):
    got = complete(env, "sriovctl " + line)
    assert sorted(got) == sorted(expected), f"sriovctl {line}<TAB>: {got}"


def test_pf_listing_for_the_completion(env, sriovctl_bin):
    """sriovctl __pfs, which the completion runs with --host: PCI address and name of each PF."""
    r = subprocess.run([sriovctl_bin, "--host", str(env["cwd"] / "worker-7.json"), "__pfs"],
                       capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout.splitlines(), r.stderr) == (0, HOST_PFS, "")


def test_no_pfs_without_sriov(env, tmp_path):
    empty = tmp_path / "empty-sys"
    (empty / "bus" / "pci" / "devices").mkdir(parents=True)
    assert complete(env, "sriovctl status ", sysfs=empty) == []
    assert complete(env, "sriovctl reset ", sysfs=empty) == []


def test_comp_words_split_as_bash_does():
    assert comp_words("sriovctl status 0000:3b:00.") == (
        ["sriovctl", "status", "0000", ":", "3b", ":", "00."], 6)
    assert comp_words("sriovctl --host=w") == (["sriovctl", "--host", "=", "w"], 3)
    assert comp_words("sriovctl ") == (["sriovctl", ""], 1)


# The completion against sriovctl's option table (lib/apply/cli-options.c's shared rows and
# sriovctl.c's own): --help prints the rows, so a row added, removed or given another argument
# without the completion following fails here.
HELP_ROW = re.compile(r"^  (?:-\w, )?--([a-z][a-z0-9-]*)(?: ([A-Z]+))?  ")
FILES = ["worker-7.json", "main.conf", "50-e810.conf", "conf.d", "run"]
DIRS = ["conf.d", "run"]


def option_table(sriovctl_bin):
    """{option: its argument as --help names it (FILE, DIR, ...), None when it takes none}."""
    r = subprocess.run([sriovctl_bin, "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rows = dict(m.groups() for m in map(HELP_ROW.match, r.stdout.splitlines()) if m)
    assert "host" in rows and "json" in rows, f"no option rows in --help:\n{r.stdout}"
    return {"--" + name: arg for name, arg in rows.items()}


def test_completion_offers_every_option_of_the_table(env, sriovctl_bin):
    offered = set()
    for host in ("", "--host worker-7.json "):
        for verb in [""] + VERBS:
            offered |= set(complete(env, f"sriovctl {host}{verb + ' ' if verb else ''}-"))
    assert sorted(offered) == sorted(option_table(sriovctl_bin))


@pytest.mark.parametrize("kind", ["FILE", "DIR", "other", None])
def test_completion_knows_each_option_argument(env, sriovctl_bin, kind):
    """After an option of the table: files for a FILE, directories for a DIR, nothing for
    the user's own value (ID, SEC), and the commands after an option without argument; its
    value, when it takes one, is not taken for the command."""
    expected = {"FILE": FILES, "DIR": DIRS, "other": [], None: VERBS}[kind]
    options = [o for o, arg in option_table(sriovctl_bin).items()
               if (arg if arg in ("FILE", "DIR", None) else "other") == kind]
    assert options
    for o in options:
        got = complete(env, f"sriovctl {o} ")
        assert sorted(got) == sorted(expected), f"sriovctl {o} <TAB>: {got}"
        line = f"sriovctl {o} {'' if kind is None else 'value '}st"
        assert complete(env, line) == ["status"], f"{line}<TAB>"
