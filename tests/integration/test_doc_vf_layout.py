# SPDX-License-Identifier: LGPL-2.1-or-later
"""org.sriovpersist1(5) lists every text a VF's `layout` field can have: each literal the code
makes it from (lib/apply/report-vf.c, lib/apply/report.c) is in the page, up to its first
printf conversion."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "lib" / "apply" / "report-vf.c", ROOT / "lib" / "apply" / "report.c"]
STARTS = ("ok", "differs:", "after a reboot:", "to be ", "not created", "left as it is:")


def page_text():
    text = (ROOT / "man" / "org.sriovpersist1.5").read_text()
    text = re.sub(r"\\f[BIRP]", "", text).replace("\\-", "-")
    return " ".join(text.split())


def layout_literals():
    found = set()
    for src in SOURCES:
        code = re.sub(r"/\*.*?\*/", "", src.read_text(), flags=re.S)  # comments quote examples
        for lit in re.findall(r'"((?:[^"\\]|\\.)*)"', code):
            if lit.startswith(STARTS):
                found.add(lit.split("%")[0].strip())
    return found


def test_the_code_makes_the_texts_this_test_looks_for():
    found = layout_literals()
    for want in ("ok", "to be created", "to be created after a reboot", "not created",
                 "to be removed (VirtualFunctions=", "left as it is: beyond VirtualFunctions="):
        assert want in found


def test_every_vf_layout_text_is_in_the_manual():
    page = page_text()
    missing = sorted(lit for lit in layout_literals() if lit not in page)
    assert missing == []
