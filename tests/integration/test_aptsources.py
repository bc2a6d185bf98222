# SPDX-License-Identifier: LGPL-2.1-or-later
"""tests/vm/aptsources.py (the apt sources the VM tests use) without a VM.

Only made-up hosts (*.example.org) appear here: the repository names no archive.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VM = ROOT / "tests" / "vm"
sys.path.insert(0, str(VM))
import aptsources as A  # noqa: E402

KEY = "/usr/share/keyrings/example-archive-keyring.gpg"
M = "http://mirror.example.org/debian"
S = "http://mirror.example.org/debian-security"

ONE_LINE = f"""\
# the main archive
deb [ arch=amd64,i386 signed-by={KEY} ] {M} bookworm main contrib non-free-firmware
deb-src [signed-by={KEY}] {M} bookworm main
deb [signed-by={KEY}] {M} bookworm-updates main   # trailing comment
#deb {M} bookworm-proposed-updates main
deb [trusted=yes] {S} bookworm-security main
deb {M} bookworm-backports contrib
deb http://other.example.org/tools ./
"""

DEB822 = f"""\
# header comment
Types: deb deb-src
URIs: {M}
Suites: bookworm bookworm-updates
# a comment inside the stanza
Components: main non-free-firmware
Architectures: amd64
 arm64
Signed-By: {KEY}

Types: deb
URIs: {S}
Suites: bookworm-security
Components: main
Signed-By: {KEY}
X-Repolib-Name: Security updates

Enabled: no
Types: deb
URIs: http://disabled.example.org/debian
Suites: bookworm bookworm-backports
Components: main

Types: deb
URIs: http://a.example.org/debian http://b.example.org/debian
Suites: trixie
Components: main
Enabled: yes
"""

EMBEDDED = """\
Types: deb
URIs: http://mirror.example.org/debian
Suites: bookworm
Components: main
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mDMEZexampleexampleexample
 =abcd
 -----END PGP PUBLIC KEY BLOCK-----
"""


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --------------------------------------------------------------------------
# parsing

def test_one_line_entries_options_and_comments():
    es = A.parse_one_line(ONE_LINE, "x.list")
    assert [(e.type, e.uri, e.suite) for e in es] == [
        ("deb", M, "bookworm"), ("deb-src", M, "bookworm"),
        ("deb", M, "bookworm-updates"), ("deb", S, "bookworm-security"),
        ("deb", M, "bookworm-backports"), ("deb", "http://other.example.org/tools", "./"),
    ]
    first = es[0]
    assert first.components == ("main", "contrib", "non-free-firmware")
    assert first.options == (("Architectures", "amd64 i386"), ("Signed-By", KEY))
    assert first.origin == "x.list:2" and first.style == "one-line"
    assert es[2].options == (("Signed-By", KEY),)     # the trailing comment is gone
    assert es[3].option("trusted") == "yes"
    assert es[5].components == ()                      # flat repository


def test_one_line_options_without_blanks_and_plus_minus():
    (e,) = A.parse_one_line(f"deb [arch+=arm64 lang-=de target=Packages] {M} bookworm main\n")
    assert e.options == (("Architectures-Add", "arm64"), ("Languages-Remove", "de"),
                         ("Targets", "Packages"))
    assert A.one_line(e) == f"deb [arch+=arm64 lang-=de target=Packages] {M} bookworm main"


@pytest.mark.parametrize("line", [
    "deb\n", f"deb {M}\n", f"deb {M} bookworm\n", f"rpm {M} bookworm main\n",
    f"deb [arch] {M} bookworm main\n", f"deb [arch=amd64 {M} bookworm main\n",
])
def test_one_line_malformed(line):
    with pytest.raises(A.SourcesError):
        A.parse_one_line(line)


def test_deb822_stanzas_comments_disabled_multi_value():
    es = A.parse_deb822(DEB822, "d.sources")
    got = [(e.type, e.uri, e.suite) for e in es]
    assert got == [
        ("deb", M, "bookworm"), ("deb", M, "bookworm-updates"),
        ("deb-src", M, "bookworm"), ("deb-src", M, "bookworm-updates"),
        ("deb", S, "bookworm-security"),
        ("deb", "http://a.example.org/debian", "trixie"),
        ("deb", "http://b.example.org/debian", "trixie"),
    ]
    assert not any("disabled" in e.uri for e in es)
    e = es[0]
    assert e.components == ("main", "non-free-firmware")
    # A multi-line list field is one list; X- fields are not options.
    assert e.options == (("Architectures", "amd64 arm64"), ("Signed-By", KEY))
    assert es[4].options == (("Signed-By", KEY),)
    assert e.style == "deb822" and e.origin == "d.sources:2"
    assert A.one_line(e) == f"deb [arch=amd64,arm64 signed-by={KEY}] {M} bookworm main non-free-firmware"


def test_deb822_field_names_are_case_insensitive():
    (e,) = A.parse_deb822(f"types: deb\nuris: {M}\nsuites: bookworm\ncomponents: main\n"
                          f"signed-by: {KEY}\nTRUSTED: yes\nenabled: true\n")
    assert e.options == (("Signed-By", KEY), ("Trusted", "yes"))


@pytest.mark.parametrize("text", [
    f"URIs: {M}\nSuites: bookworm\nComponents: main\n",              # no Types
    "Types: deb\nSuites: bookworm\nComponents: main\n",               # no URIs
    f"Types: deb\nURIs: {M}\nComponents: main\n",                     # no Suites
    f"Types: deb\nURIs: {M}\nSuites: bookworm\n",                     # no Components
    f"Types: rpm\nURIs: {M}\nSuites: bookworm\nComponents: main\n",
    " continuation\n",
])
def test_deb822_malformed(text):
    with pytest.raises(A.SourcesError):
        A.parse_deb822(text)


def test_embedded_key_is_kept_and_needs_deb822():
    (e,) = A.parse_deb822(EMBEDDED, "k.sources")
    key = e.option("Signed-By")
    assert key.startswith("\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n")
    assert A.one_line(e) is None
    text = A.deb822([e])
    assert text == EMBEDDED
    assert A.parse_deb822(text)[0].key() == e.key()


def test_guess_format():
    assert A.guess_format("# c\n\ndeb http://x.example.org/ a b\n") == "one-line"
    assert A.guess_format("# c\nTypes: deb\n") == "deb822"


# --------------------------------------------------------------------------
# which files

def test_host_files_like_apt(tmp_path):
    main = write(tmp_path / "sources.list", f"deb {M} bookworm main\n")
    parts = tmp_path / "sources.list.d"
    write(parts / "b.sources", DEB822)
    write(parts / "a.list", "")
    write(parts / "c.list.disabled-by-farm", "deb http://farm.example.org/x bookworm main\n")
    write(parts / "d.sources.disabled-by-farm", "Types: deb\n")
    write(parts / "e.list.save", "garbage\n")
    write(parts / ".hidden.list", "garbage\n")
    write(parts / "bad name.list", "garbage\n")
    write(parts / "noext", "garbage\n")
    (parts / "dir.list").mkdir()
    assert A.host_files(str(main), str(parts)) == [str(main), str(parts / "a.list"),
                                                   str(parts / "b.sources")]
    es = A.host_entries(str(main), str(parts))
    assert not any("farm" in e.uri for e in es)
    assert es[0].origin == f"{main}:1"
    # No main file: only the parts.
    assert A.host_files(str(tmp_path / "none"), str(parts))[0] == str(parts / "a.list")


def test_override_replaces_host(tmp_path):
    main = write(tmp_path / "sources.list", f"deb {M} bookworm main\n")
    parts = tmp_path / "parts"
    parts.mkdir()
    env = {}
    es, what = A.configured_entries(env, str(main), str(parts))
    assert [e.uri for e in es] == [M] and str(main) in what
    # An override without a telling extension: format guessed from the content.
    ov = write(tmp_path / "ci-sources", DEB822)
    es, what = A.configured_entries({A.ENV: str(ov)}, str(main), str(parts))
    assert what == f"{A.ENV}={ov}" and es[0].style == "deb822" and len(es) == 7
    ov = write(tmp_path / "ci.list", "deb http://ci.example.org/debian bookworm main\n")
    es, _ = A.configured_entries({A.ENV: str(ov)}, str(main), str(parts))
    assert [e.uri for e in es] == ["http://ci.example.org/debian"]
    with pytest.raises(A.SourcesError, match=A.ENV):
        A.configured_entries({A.ENV: str(tmp_path / "missing")}, str(main), str(parts))


@pytest.mark.skipif(shutil.which("apt-config") is None, reason="needs apt-config (Debian)")
def test_apt_dirs_follow_apt_config(tmp_path):
    conf = write(tmp_path / "apt.conf", f'Dir::Etc::sourcelist "{tmp_path}/my.list";\n'
                                        f'Dir::Etc::sourceparts "{tmp_path}/my.d";\n')
    old = os.environ.get("APT_CONFIG")
    os.environ["APT_CONFIG"] = str(conf)
    try:
        assert A.apt_dirs() == (f"{tmp_path}/my.list", f"{tmp_path}/my.d")
    finally:
        if old is None:
            del os.environ["APT_CONFIG"]
        else:
            os.environ["APT_CONFIG"] = old


# --------------------------------------------------------------------------
# the guest (build-image)

def test_mmdebstrap_arguments_from_one_line():
    fmt, args = A.mmdebstrap_sources(A.parse_one_line(ONE_LINE))
    assert fmt == "one-line"
    assert args == [
        f"deb [arch=amd64,i386 signed-by={KEY}] {M} bookworm main",
        f"deb [signed-by={KEY}] {M} bookworm-updates main",
        f"deb [trusted=yes] {S} bookworm-security main",
    ]


def test_mmdebstrap_arguments_from_deb822_in_suite_order():
    # Security listed first, a duplicate, a disabled stanza and another release.
    text = DEB822.split("\n\n")[1] + "\n\n" + DEB822 + "\n" + DEB822.split("\n\n")[0] + "\n"
    fmt, args = A.mmdebstrap_sources(A.parse_deb822(text))
    assert fmt == "one-line"
    assert args == [
        f"deb [arch=amd64,arm64 signed-by={KEY}] {M} bookworm main",
        f"deb [arch=amd64,arm64 signed-by={KEY}] {M} bookworm-updates main",
        f"deb [signed-by={KEY}] {S} bookworm-security main",
    ]


def test_mmdebstrap_needs_main_and_bookworm():
    es = A.parse_one_line(f"deb {M} bookworm contrib\ndeb {M} bookworm-updates main\n"
                          "deb cdrom:[Debian GNU/Linux 12]/ bookworm main\n"
                          f"deb-src {M} bookworm main\ndeb {M} trixie main\n")
    assert es[2].uri == "cdrom:[Debian GNU/Linux 12]/" and es[2].suite == "bookworm"
    with pytest.raises(A.SourcesError, match=A.ENV):
        A.mmdebstrap_sources(es)
    with pytest.raises(A.SourcesError, match=A.ENV):
        A.mmdebstrap_sources([])


def test_mmdebstrap_deb822_when_one_line_cannot_hold_it():
    es = A.parse_deb822(EMBEDDED) + A.parse_one_line(f"deb {S} bookworm-security main\n")
    fmt, text = A.mmdebstrap_sources(es)
    assert fmt == "deb822"
    back = A.parse_deb822(text)
    assert [(e.uri, e.suite, e.components) for e in back] == [
        (M, "bookworm", ("main",)), (S, "bookworm-security", ("main",))]
    assert back[0].option("Signed-By") == es[0].option("Signed-By")


def test_build_image_print_sources(tmp_path):
    ov = write(tmp_path / "ci.sources", DEB822)
    env = dict(os.environ, **{A.ENV: str(ov)})
    p = subprocess.run([sys.executable, str(VM / "build-image"), "--print-sources"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stdout.splitlines() if not ln.startswith("#")]
    assert lines == A.mmdebstrap_sources(A.parse_deb822(DEB822))[1]
    assert f"{A.ENV}={ov}" in p.stdout
    # No bookworm entry: a clear error naming the variable.
    ov = write(tmp_path / "none.list", f"deb {M} trixie main\n")
    p = subprocess.run([sys.executable, str(VM / "build-image"), "--print-sources"],
                       capture_output=True, text=True, env=dict(env, **{A.ENV: str(ov)}),
                       timeout=60)
    assert p.returncode == 1 and A.ENV in p.stderr and "bookworm" in p.stderr


def test_vm_scripts_name_no_archive():
    # The archive comes from apt's configuration: no URL in the scripts at all.
    for name in ("build-image", "setup-host", "aptsources.py"):
        assert "://" not in (VM / name).read_text(), name


# --------------------------------------------------------------------------
# bookworm-backports (setup-host)

def test_backports_derived_from_bookworm_one_line():
    es = [e for e in A.parse_one_line(ONE_LINE) if e.suite != "bookworm-backports"]
    assert not A.has_suite(es, "bookworm-backports")
    bp = A.backports_entries(es)
    assert [(e.uri, e.suite, e.components, e.options) for e in bp] == [
        (M, "bookworm-backports", ("main", "contrib", "non-free-firmware"),
         (("Architectures", "amd64 i386"), ("Signed-By", KEY)))]
    assert A.render_file(bp) == (
        "list", f"deb [arch=amd64,i386 signed-by={KEY}] {M} bookworm-backports "
                "main contrib non-free-firmware\n")


def test_backports_derived_from_bookworm_deb822():
    bp = A.backports_entries(A.parse_deb822(DEB822))
    ext, text = A.render_file(bp)
    assert ext == "sources"
    assert text == (f"Types: deb\nURIs: {M}\nSuites: bookworm-backports\n"
                    "Components: main non-free-firmware\nArchitectures: amd64 arm64\n"
                    f"Signed-By: {KEY}\n")
    # The disabled stanza's bookworm-backports does not count.
    assert not A.has_suite(A.parse_deb822(DEB822), "bookworm-backports")


def test_backports_own_entry_wins_and_errors():
    es = A.parse_one_line(ONE_LINE)
    assert A.has_suite(es, "bookworm-backports")
    assert [(e.uri, e.components) for e in A.backports_entries(es)] == [(M, ("contrib",))]
    with pytest.raises(A.SourcesError, match=A.ENV):
        A.backports_entries(A.parse_one_line(f"deb {M} trixie main\n"))


def test_backports_embedded_key_written_as_sources(tmp_path):
    bp = A.backports_entries(A.parse_deb822(EMBEDDED))
    path = A.write_backports(bp, str(tmp_path))
    assert path == str(tmp_path / "bookworm-backports.sources")
    back = A.parse_file(path)
    assert back[0].suite == "bookworm-backports"
    assert back[0].option("Signed-By") == A.parse_deb822(EMBEDDED)[0].option("Signed-By")
    assert os.listdir(tmp_path) == ["bookworm-backports.sources"]


@pytest.mark.skipif(shutil.which("apt-config") is None, reason="needs apt-config (Debian)")
def test_backports_command_idempotent(tmp_path):
    """`aptsources.py backports --write` as setup-host runs it, on a fake /etc/apt."""
    parts = tmp_path / "sources.list.d"
    write(parts / "debian.sources", DEB822)
    write(parts / "old.list.disabled-by-farm", f"deb {M} bookworm-backports main\n")
    conf = write(tmp_path / "apt.conf", f'Dir::Etc::sourcelist "{tmp_path}/sources.list";\n'
                                        f'Dir::Etc::sourceparts "{parts}";\n')
    env = dict(os.environ, APT_CONFIG=str(conf))
    env.pop(A.ENV, None)
    cmd = [sys.executable, str(VM / "aptsources.py"), "backports", "--write"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(parts / "bookworm-backports.sources")
    assert A.parse_file(p.stdout.strip())[0].key() == A.backports_entries(
        A.parse_deb822(DEB822))[0].key()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert (p.returncode, p.stdout) == (0, "")       # present now: nothing to do
    # With SRIOV_VM_APT_SOURCES the entry is derived from that file.
    (parts / "bookworm-backports.sources").unlink()
    ov = write(tmp_path / "ci.list", f"deb [signed-by={KEY}] http://ci.example.org/d bookworm main\n")
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(env, **{A.ENV: str(ov)}),
                       timeout=60)
    assert p.returncode == 0, p.stderr
    assert Path(p.stdout.strip()).read_text() == (
        f"deb [signed-by={KEY}] http://ci.example.org/d bookworm-backports main\n")
    # Nothing to derive from: an error naming the variable, no file.
    (parts / "bookworm-backports.list").unlink()
    ov.write_text(f"deb {M} trixie main\n")
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(env, **{A.ENV: str(ov)}),
                       timeout=60)
    assert p.returncode == 1 and A.ENV in p.stderr
    assert sorted(os.listdir(parts)) == ["debian.sources", "old.list.disabled-by-farm"]
