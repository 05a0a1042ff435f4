"""The suite folder as a boundary: which files a suite may read, and which files its hash covers.

A suite is data someone else wrote. The text of its files reaches a candidate
endpoint (instructions become the system prompt, scenarios become the caller),
so a path or a symlink that leaves the folder would send any local file to a
third party. Reading a FIFO or a device would block or never end, and a symlink
that loops back to a folder above it would make the walk for the hash endless.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import Problem

SEAL_SALTS = ".seal-salts.json"
"""`callbench seal`'s default private salts file in the suite folder: never part of the suite (its
hash, its public copy), or the salts would travel with what they hide."""
IGNORED = {"__pycache__", ".DS_Store", SEAL_SALTS}
MAX_ENTRIES = 10_000
"""Files and folders a suite may hold; a real one holds dozens. Bounds a walk through symlinked
folders."""
NOT_REGULAR = "is not a regular file: a FIFO, socket or device cannot be part of a suite"


def escape(root_real: Path, path: Path) -> str | None:
    """Why `path` may not be read as part of the suite whose real root is `root_real`, or None.

    The real path is checked, so a symlink counts as the file it points to. A
    missing file is not refused here: the reader reports it as not found.
    """
    try:
        real = path.resolve()
    except (OSError, ValueError, RuntimeError):  # a NUL byte in the name, or a symlink loop
        return "is not a usable path"
    outside = _outside(root_real, real)
    if outside:
        return outside
    try:
        mode = real.stat().st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else NOT_REGULAR


def _outside(root_real: Path, real: Path) -> str | None:
    if real.is_relative_to(root_real):
        return None
    return f"resolves to '{real}', outside the suite folder: a suite may only use its own files"


def bundle_files(root: Path, confined: bool = True) -> tuple[list[Path], list[Problem]]:
    """Every file the suite hash covers, plus a problem for each entry that cannot be part of the
    suite.

    Symlinked folders are followed; when `confined`, only as far as they stay
    inside the suite folder. A link back to a folder already on the way down is
    refused instead of walked forever, and so is anything that is not a
    readable regular file (a broken link, a FIFO, a device).
    """
    root_real = root.resolve()
    files: list[Path] = []
    problems: list[Problem] = []
    chains = {
        str(root): {str(root_real)}
    }  # the real paths of the folders walked through to reach each folder
    entries = 0
    for folder, dirs, names in os.walk(root, followlinks=True):
        chain = chains.pop(folder)
        kept = []
        for d in dirs:
            if d in IGNORED:
                continue
            real = os.path.realpath(os.path.join(folder, d))
            reason = _outside(root_real, Path(real)) if confined else None
            if reason or real in chain:
                problems.append(
                    Problem(
                        _rel(root, Path(folder, d)),
                        "",
                        "this folder "
                        f"{reason or 'is a symlink that loops back to a folder containing it'}",
                    )
                )
                continue
            chains[os.path.join(folder, d)] = chain | {real}
            kept.append(d)
        dirs[:] = kept
        for name in names:
            if name in IGNORED:
                continue
            path = Path(folder, name)
            reason = (escape(root_real, path) if confined else None) or _unreadable(path)
            if reason:
                problems.append(Problem(_rel(root, path), "", f"this file {reason}"))
            else:
                files.append(path)
        entries += len(kept) + len(names)
        if entries > MAX_ENTRIES:
            problems.append(
                Problem(
                    str(root),
                    "",
                    f"the suite folder holds more than {MAX_ENTRIES} files and folders",
                )
            )
            break
    return files, problems


def _unreadable(path: Path) -> str | None:
    try:
        mode = path.stat().st_mode
    except OSError:
        return "is a broken symlink or cannot be read"
    if not stat.S_ISREG(mode):
        return NOT_REGULAR
    return None if os.access(path, os.R_OK) else "cannot be read"


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()
