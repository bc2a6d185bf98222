# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the benchmarks share: a program built as of an earlier revision, a summary of timings,
and a process's memory as /proc/PID/smaps_rollup gives it."""

import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_program(rev, d, program):
    """Builds `program` (sriovctl, sriov-persistd, ...) as of rev in a worktree under d; returns
    the binary's path."""
    src = d / "src"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(src), rev],
                   check=True)
    try:
        subprocess.run(["make", "-s", "-C", str(src), f"BUILDDIR={d}/build",
                        f"{d}/build/{program}"], check=True, stdout=subprocess.DEVNULL)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(src)],
                       check=True)
    return d / "build" / program


def summary(values, digits=3):
    """Median, range and count of timings, rounded to digits."""
    return {"median": round(statistics.median(values), digits),
            "min": round(min(values), digits), "max": round(max(values), digits),
            "n": len(values)}


def smaps_memory(text):
    """RSS, PSS and private memory (Private_Clean + Private_Dirty) in KiB, from the text of
    /proc/PID/smaps_rollup."""
    f = {}
    for line in text.splitlines()[1:]:
        k, _, v = line.partition(":")
        f[k] = int(v.split()[0])
    return {"rss": f["Rss"], "pss": f["Pss"], "private": f["Private_Clean"] + f["Private_Dirty"]}
