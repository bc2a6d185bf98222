#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""apt's configured sources, read the way apt reads them (stdlib Python only).

The VM tests never name an archive host: build-image and setup-host take the
archive (URIs, suites, components and options such as Signed-By, Trusted,
Architectures) from the host's own apt configuration, or from the file named
by SRIOV_VM_APT_SOURCES when that is set.

Host configuration: Dir::Etc::sourcelist and every file in Dir::Etc::sourceparts
(both asked of `apt-config shell`) whose name apt accepts: only the characters
[A-Za-z0-9_:.-], not starting with ".", ending in ".list" (one-line format) or
".sources" (deb822). Files ending in anything else (".list.disabled-by-farm",
".save", ...) are not read, as apt does not read them.

SRIOV_VM_APT_SOURCES=<file>: a sources file, one-line or deb822 format (a name
ending in ".sources" is deb822, ".list" one-line, anything else is guessed from
the first line that is not a comment), used instead of the host's sources.

Used by tests/vm/build-image (imported) and tests/vm/setup-host
(`/usr/bin/python3 tests/vm/aptsources.py backports --write`). Tested without
a VM by tests/integration/test_aptsources.py.

Command line:
  aptsources.py list                  the entries in use, one line each
  aptsources.py guest [--release R]   what build-image passes to mmdebstrap
  aptsources.py backports [--release R] [--write] [--dir D]
      no output if the host's apt already has an R-backports entry; otherwise
      the file that adds one (derived from the R entry: same URIs and
      options), written to D (default: Dir::Etc::sourceparts) with --write,
      whose path is then printed.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, replace

ENV = "SRIOV_VM_APT_SOURCES"
RELEASE = "bookworm"
DEFAULT_SOURCELIST = "/etc/apt/sources.list"
DEFAULT_SOURCEPARTS = "/etc/apt/sources.list.d"

# deb822 field name -> one-line option name (apt's sourcelist.cc mapping).
# Fields that hold a list (whitespace separated in deb822, comma separated in
# the one-line format) are in LIST_FIELDS.
_OPTION_NAMES = [
    ("Architectures", "arch"), ("Architectures-Add", "arch+"),
    ("Architectures-Remove", "arch-"),
    ("Languages", "lang"), ("Languages-Add", "lang+"), ("Languages-Remove", "lang-"),
    ("Targets", "target"), ("Targets-Add", "target+"), ("Targets-Remove", "target-"),
    ("Trusted", "trusted"), ("Signed-By", "signed-by"),
    ("Check-Valid-Until", "check-valid-until"), ("Valid-Until-Min", "valid-until-min"),
    ("Valid-Until-Max", "valid-until-max"), ("Check-Date", "check-date"),
    ("Date-Max-Future", "date-max-future"), ("PDiffs", "pdiffs"), ("By-Hash", "by-hash"),
    ("Allow-Insecure", "allow-insecure"), ("Allow-Weak", "allow-weak"),
    ("Allow-Downgrade-To-Insecure", "allow-downgrade-to-insecure"),
    ("InRelease-Path", "inrelease-path"), ("Snapshot", "snapshot"),
]
TO_ONE_LINE = dict(_OPTION_NAMES)
FROM_ONE_LINE = {o: f for f, o in _OPTION_NAMES}
_CANONICAL = {f.lower(): f for f, _ in _OPTION_NAMES}
LIST_FIELDS = {f for f, _ in _OPTION_NAMES
               if f.split("-")[0] in ("Architectures", "Languages", "Targets")}
# deb822 fields that are not options.
STRUCTURE = {"types", "uris", "suites", "components", "enabled"}

_TRUE = {"yes", "true", "with", "on", "enable", "1"}
_FALSE = {"no", "false", "without", "off", "disable", "0"}


class SourcesError(Exception):
    """A sources file apt would reject, or no usable entry."""


@dataclass(frozen=True)
class Entry:
    """One (type, URI, suite) of a sources file, as apt expands it.

    options: ((deb822 field name, value), ...) in file order. List fields hold
    their values separated by one space; other values are kept as written
    (a multi-line value, e.g. an embedded Signed-By key, keeps its continuation
    lines verbatim after a newline).
    """
    type: str
    uri: str
    suite: str
    components: tuple
    options: tuple = ()
    origin: str = ""
    style: str = "one-line"      # the format of the file it came from

    def option(self, name):
        for n, v in self.options:
            if n.lower() == name.lower():
                return v
        return None

    def key(self):
        """What makes two entries the same source (not where they came from)."""
        return (self.type, self.uri, self.suite, self.components, self.options)


# --------------------------------------------------------------------------
# parsing

def _words(text):
    """Split like apt's ParseQuoteWord: whitespace separated; "..." groups (the
    quotes are dropped), [...] groups (kept, as in cdrom:[Label 1]/)."""
    out, cur, quoted, bracket, have = [], [], False, False, False
    for ch in text:
        if ch == '"' and not bracket:
            quoted = not quoted
            have = True
        elif ch.isspace() and not quoted and not bracket:
            if have:
                out.append("".join(cur))
            cur, have = [], False
        else:
            if ch == "[" and not quoted:
                bracket = True
            elif ch == "]" and not quoted:
                bracket = False
            cur.append(ch)
            have = True
    if quoted or bracket:
        raise SourcesError("unterminated quote or bracket")
    if have:
        out.append("".join(cur))
    return out


def _strip_comment(line):
    """Cut a '#' comment, except a '#' inside [options] (apt does the same)."""
    pos = 0
    while True:
        pos = line.find("#", pos)
        if pos < 0:
            return line
        if line.count("[", 0, pos) > line.count("]", 0, pos):
            pos += 1
            continue
        return line[:pos]


def parse_one_line(text, origin="<one-line>"):
    """Entries of a one-line format ("deb [opts] URI suite comps...") text."""
    entries = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw).strip(" \t\r")
        if not line:
            continue
        where = f"{origin}:{n}"
        parts = line.split(None, 1)
        if len(parts) < 2:
            raise SourcesError(f"{where}: malformed line (type)")
        typ, rest = parts
        if typ not in ("deb", "deb-src"):
            raise SourcesError(f"{where}: type '{typ}' is not known")
        options = []
        rest = rest.lstrip()
        if rest.startswith("["):
            end = rest.find("]")
            if end < 0:
                raise SourcesError(f"{where}: [options] not closed")
            for opt in _words(rest[1:end]):
                k, eq, v = opt.partition("=")
                if not eq or not k or not v:
                    raise SourcesError(f"{where}: bad option '{opt}'")
                name = FROM_ONE_LINE.get(k, k)
                if name in LIST_FIELDS:
                    v = " ".join(x for x in v.split(",") if x)
                options.append((name, v))
            rest = rest[end + 1:]
        words = _words(rest)
        if len(words) < 2:
            raise SourcesError(f"{where}: malformed line (URI, suite)")
        uri, suite, comps = words[0], words[1], tuple(words[2:])
        _check_components(where, suite, comps, "no component")
        entries.append(Entry(typ, uri, suite, comps, tuple(options), where, "one-line"))
    return entries


def _check_components(where, suite, comps, missing):
    """An absolute suite ("dir/") takes no components, any other at least one."""
    if suite.endswith("/"):
        if comps:
            raise SourcesError(f"{where}: absolute suite with components")
    elif not comps:
        raise SourcesError(f"{where}: {missing}")


def _stanzas(text, origin):
    """[(line number, {lowercase field: (Name, first line, [continuations])})]"""
    out, cur, start, last = [], {}, 0, None
    for n, raw in enumerate(text.splitlines() + [""], 1):
        line = raw.rstrip("\r")
        if line.startswith("#"):
            continue
        if not line.strip():
            if cur:
                out.append((start, cur))
            cur, last = {}, None
            continue
        if line[0] in " \t":
            if last is None:
                raise SourcesError(f"{origin}:{n}: continuation line without a field")
            cur[last][2].append(line.rstrip())
            continue
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            raise SourcesError(f"{origin}:{n}: not a 'Field: value' line")
        if not cur:
            start = n
        last = name.strip().lower()
        cur[last] = (name.strip(), value.strip(), [])
    return out


def _to_bool(value, default=None):
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    return default


def parse_deb822(text, origin="<deb822>"):
    """Entries of a deb822 format text (several stanzas, comments, Enabled: no)."""
    entries = []
    for start, fields in _stanzas(text, origin):
        where = f"{origin}:{start}"

        def multi(name):
            f = fields.get(name)
            return " ".join([f[1]] + f[2]).split() if f else []

        if "types" not in fields:
            raise SourcesError(f"{where}: stanza without Types")
        if "enabled" in fields and _to_bool(fields["enabled"][1], True) is False:
            continue
        types, uris, suites, comps = multi("types"), multi("uris"), multi("suites"), \
            tuple(multi("components"))
        for t in types:
            if t not in ("deb", "deb-src"):
                raise SourcesError(f"{where}: type '{t}' is not known")
        if not uris:
            raise SourcesError(f"{where}: stanza without URIs")
        if not suites:
            raise SourcesError(f"{where}: stanza without Suites")
        options = []
        for low, (name, first, cont) in fields.items():
            if low in STRUCTURE or low.startswith("x-"):
                continue
            name = _CANONICAL.get(low, name)
            if name in LIST_FIELDS:
                value = " ".join(multi(low))
            else:
                value = first + "".join("\n" + c for c in cont)
            options.append((name, value))
        for t in types:
            for uri in uris:
                for s in suites:
                    _check_components(where, s, comps, "stanza without Components")
                    entries.append(Entry(t, uri, s, comps, tuple(options), where, "deb822"))
    return entries


def guess_format(text):
    """'deb822' or 'one-line' from the first line that is not a comment."""
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if re.match(r"deb(-src)?\s", s):
            return "one-line"
        if re.match(r"[^#:\s]+:", s):
            return "deb822"
        break
    return "one-line"


def parse_file(path, fmt=None):
    """Entries of one file; fmt from the name (.sources: deb822) unless given."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    if fmt is None:
        fmt = "deb822" if path.endswith(".sources") else "one-line"
    if fmt == "guess":
        fmt = "deb822" if path.endswith(".sources") else \
            "one-line" if path.endswith(".list") else guess_format(text)
    return (parse_deb822 if fmt == "deb822" else parse_one_line)(text, path)


# --------------------------------------------------------------------------
# where the sources are

def apt_dirs():
    """(Dir::Etc::sourcelist, Dir::Etc::sourceparts) as apt-config resolves them."""
    try:
        out = subprocess.run(
            ["apt-config", "shell", "LIST", "Dir::Etc::sourcelist/f",
             "PARTS", "Dir::Etc::sourceparts/d"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=False,
        ).stdout
    except OSError:
        out = ""
    vals = {}
    for line in out.splitlines():
        k, eq, v = line.partition("=")
        if eq:
            w = shlex.split(v)
            vals[k.strip()] = w[0] if w else ""
    return (vals.get("LIST") or DEFAULT_SOURCELIST,
            (vals.get("PARTS") or DEFAULT_SOURCEPARTS).rstrip("/") or "/")


_PART_NAME = re.compile(r"[A-Za-z0-9_:.-]+")


def part_files(parts):
    """The files apt reads in a sourceparts directory, in apt's (sorted) order."""
    try:
        names = sorted(os.listdir(parts))
    except OSError:
        return []
    out = []
    for n in names:
        p = os.path.join(parts, n)
        if n.startswith(".") or not _PART_NAME.fullmatch(n) or n.endswith("."):
            continue
        if n.rsplit(".", 1)[-1] not in ("list", "sources") or "." not in n:
            continue
        if os.path.isfile(p):
            out.append(p)
    return out


def host_files(sourcelist=None, parts=None):
    if sourcelist is None or parts is None:
        sl, sp = apt_dirs()
        sourcelist = sl if sourcelist is None else sourcelist
        parts = sp if parts is None else parts
    files = [sourcelist] if sourcelist and os.path.isfile(sourcelist) else []
    return files + part_files(parts)


def host_entries(sourcelist=None, parts=None):
    entries = []
    for path in host_files(sourcelist, parts):
        entries += parse_file(path)
    return entries


def configured_entries(environ=None, sourcelist=None, parts=None):
    """(entries, description): SRIOV_VM_APT_SOURCES's file if set, else the host's."""
    environ = os.environ if environ is None else environ
    path = environ.get(ENV)
    if path:
        if not os.path.isfile(path):
            raise SourcesError(f"{ENV}={path}: no such file")
        return parse_file(path, "guess"), f"{ENV}={path}"
    files = host_files(sourcelist, parts)
    entries = []
    for p in files:
        entries += parse_file(p)
    return entries, "the host's apt sources (" + (", ".join(files) or "none") + ")"


# --------------------------------------------------------------------------
# rendering

def _dedupe(entries):
    seen, out = set(), []
    for e in entries:
        if e.key() not in seen:
            seen.add(e.key())
            out.append(e)
    return out


def one_line(e):
    """The entry as a one-line "deb [opts] URI suite comps" string, or None when
    an option cannot be written in that format (a value with blanks or a
    multi-line value such as an embedded key)."""
    opts = []
    for name, value in e.options:
        key = TO_ONE_LINE.get(name, name.lower())
        v = ",".join(value.split()) if name in LIST_FIELDS else value
        if not v or re.search(r'[\s"\]\[#]', v):
            return None
        opts.append(f"{key}={v}")
    if re.search(r'[\s"]', e.uri + e.suite + "".join(e.components)):
        return None
    head = f"{e.type} [{' '.join(opts)}] " if opts else f"{e.type} "
    return head + " ".join((e.uri, e.suite) + e.components)


def deb822(entries):
    """deb822 text of entries; those differing only in suite share a stanza."""
    groups = []
    for e in _dedupe(entries):
        k = (e.type, e.uri, e.components, e.options)
        for g in groups:
            if g[0] == k:
                g[1].append(e.suite)
                break
        else:
            groups.append((k, [e.suite]))
    stanzas = []
    for (typ, uri, comps, options), suites in groups:
        lines = [f"Types: {typ}", f"URIs: {uri}", "Suites: " + " ".join(suites)]
        if comps:
            lines.append("Components: " + " ".join(comps))
        for name, value in options:
            lines.append(f"{name}: {value}" if not value.startswith("\n")
                         else f"{name}:{value}")
        stanzas.append("\n".join(lines) + "\n")
    return "\n".join(stanzas)


# --------------------------------------------------------------------------
# what the VM tests use

def _usable(e):
    # cdrom: entries name a disc, not an archive mmdebstrap or apt-get update can use.
    return e.type == "deb" and not e.uri.startswith("cdrom:")


def guest_entries(entries, release=RELEASE):
    """The entries for a `release` guest: suites release, -updates and -security
    (type deb, with component main; only main is kept), in that suite order."""
    order = [release, f"{release}-updates", f"{release}-security"]
    picked = [replace(e, components=("main",)) for e in entries
              if _usable(e) and e.suite in order and "main" in e.components]
    picked.sort(key=lambda e: order.index(e.suite))   # stable: file order kept
    return _dedupe(picked)


def mmdebstrap_sources(entries, release=RELEASE):
    """("one-line", [strings]) to pass as mmdebstrap's MIRROR arguments, or
    ("deb822", text) to write to a file ending in .sources when an option
    cannot be written in the one-line format. Raises SourcesError without an
    entry for `release` itself."""
    picked = guest_entries(entries, release)
    if not any(e.suite == release for e in picked):
        raise SourcesError(
            f"no apt source for suite '{release}' (type deb, component main): add one to "
            f"the host's apt sources or point {ENV} at a sources file that has one")
    lines = [one_line(e) for e in picked]
    if all(lines):
        return "one-line", lines
    return "deb822", deb822(picked)


def has_suite(entries, suite):
    return any(_usable(e) and e.suite == suite for e in entries)


def backports_entries(entries, release=RELEASE):
    """The release-backports entries of entries, or ones derived from the
    release entries (same URI, options and components, suite release-backports)."""
    bp = f"{release}-backports"
    own = [e for e in entries if _usable(e) and e.suite == bp]
    if own:
        return _dedupe(own)
    base = [e for e in entries if _usable(e) and e.suite == release]
    if not base:
        raise SourcesError(
            f"no apt source for suite '{release}' to derive {bp} from: add one to the "
            f"host's apt sources or point {ENV} at a sources file that has one")
    return _dedupe([replace(e, suite=bp, origin=f"derived from {e.origin}") for e in base])


def render_file(entries):
    """(extension, text) of a sources file holding entries, in the style of the
    file the first one came from (deb822 also when one-line cannot hold them)."""
    lines = [one_line(e) for e in entries]
    if entries[0].style == "deb822" or not all(lines):
        return "sources", deb822(entries)
    return "list", "\n".join(lines) + "\n"


def write_backports(entries, directory, release=RELEASE):
    """Write directory/<release>-backports.{list,sources}; return its path."""
    ext, text = render_file(entries)
    path = os.path.join(directory, f"{release}-backports.{ext}")
    tmp = path + ".tmp"     # apt does not read *.tmp
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.rename(tmp, path)
    return path


# --------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the entries in use")
    g = sub.add_parser("guest", help="what build-image passes to mmdebstrap")
    g.add_argument("--release", default=RELEASE)
    b = sub.add_parser("backports", help="add a <release>-backports entry if missing")
    b.add_argument("--release", default=RELEASE)
    b.add_argument("--write", action="store_true", help="write the file (else print it)")
    b.add_argument("--dir", help="where to write it (default: Dir::Etc::sourceparts)")
    args = ap.parse_args(argv)
    prog = "aptsources"
    try:
        if args.cmd == "list":
            entries, what = configured_entries()
            print(f"# {what}")
            for e in entries:
                print(one_line(e) or deb822([e]).replace("\n", " | "), f"  # {e.origin}")
        elif args.cmd == "guest":
            entries, what = configured_entries()
            fmt, val = mmdebstrap_sources(entries, args.release)
            print(f"# from {what}")
            print("\n".join(val) if fmt == "one-line" else val.rstrip("\n"))
        else:
            bp = f"{args.release}-backports"
            if has_suite(host_entries(), bp):
                return 0        # the host's apt has it: nothing to do
            entries, what = configured_entries()
            derived = backports_entries(entries, args.release)
            if not args.write:
                print(render_file(derived)[1], end="")
                return 0
            d = args.dir or apt_dirs()[1]
            print(write_backports(derived, d, args.release))
    except (SourcesError, OSError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
