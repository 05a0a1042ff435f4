"""The per-call JSON files beside the store.

The store's commit is what makes a call count; the trace and scorecard files are
copies for people and tools, written just before it, so a call whose files could
not be written (a full disk) is never counted done, and rewritten from the store on
resume if they went missing. They are written on the event loop: a background
writer thread was tried: it gained 1-2% efficiency at a hundred calls in flight,
but by contending for the interpreter lock it made a CPU-bound sweep of the
baselines 30-50% slower.
"""

from __future__ import annotations

import os
from pathlib import Path

from .layout import TEMPORARY_SUFFIX


def write_json_atomic(path: Path, text: str, made: set[Path] | None = None) -> None:
    """Write whole or not at all: a reader never sees half a file, and a write the disk refuses
    (full,
    read-only) leaves no temporary file behind, only the OSError. `made` remembers the directories
    already created, saving a system call per file over a sweep."""
    if made is None or path.parent not in made:
        path.parent.mkdir(parents=True, exist_ok=True)
        if made is not None:
            made.add(path.parent)
    tmp = path.with_name(path.name + TEMPORARY_SUFFIX)
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass  # a read-only folder: the temporary file was never made
        raise
