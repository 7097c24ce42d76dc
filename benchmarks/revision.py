"""A git revision's code beside the working tree's, for ``--against REV``: the revision checked out in
a temporary worktree of this checkout, and the ``PYTHONPATH`` that makes a process run it.

Each code folder is a src layout, so putting a revision's ``<folder>/src`` first on ``PYTHONPATH``
makes its packages shadow the working tree's editable installs (their entry points stay the same).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def add_worktree(revision: str, worktree: Path, sources: Sequence[str]) -> str:
    """Check `revision` out at `worktree`; the ``PYTHONPATH`` that puts its `sources` folders (paths
    from the checkout's root, such as ``kernel/src``) first, ahead of any inherited one."""
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(worktree), revision], check=True
    )
    inherited = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join([*(str(worktree / s) for s in sources), *([inherited] if inherited else [])])


def remove_worktree(worktree: Path) -> None:
    """Remove a worktree `add_worktree` made (nothing if it was not made)."""
    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)], check=False)
