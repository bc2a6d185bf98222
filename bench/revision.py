# SPDX-License-Identifier: LGPL-2.1-or-later
"""One program of this repository as of an earlier revision, for benchmarks that compare."""

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
