"""The layout of a run folder, named once: every command that writes or reads a run asks here.

    run.json                                   the run's manifest (runs/manifest.py)
    run.sqlite                                 the store: what the run has done (runs/store.py)
    run.lock                                   held by the one process sweeping the folder
    traces/<candidate>/<scenario>/r<k>.json    one trace per attempt, written whole (temp file +
                                               rename)
    scorecards/<candidate>/<scenario>/r<k>.json
    scorecards-<tag>/...                       a re-score's scorecards, same layout
    report.json                                summary + sha256 manifest of every file above
    report-<tag>.json                          a re-score's report

<candidate> is `candidate_folder(name)`: the name itself when it is a plain file name, else a slug
and a hash.

It imports nothing of callbench, so the layers that read run folders (reports) and the one that
writes them (runs) share it without importing each other.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

MANIFEST = "run.json"
STORE = "run.sqlite"
LOCK = "run.lock"
REPORT = "report.json"
TRACES = "traces"
SCORECARDS = "scorecards"
TEMPORARY_SUFFIX = ".tmp"
"""what `write_json_atomic` writes before the rename; left over only by a write a kill cut short"""

PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:+@=-]{0,119}")
"""A candidate name that is already a safe, portable-enough folder name (oracle,
openai:gpt-4.1-mini): kept as is."""


def candidate_folder(name: str) -> str:
    """The folder of a candidate's files. Names are not paths: `http://host/../../x` must not
    write outside the run, and `http://host/a/./b` and `http://host/a/b` are two candidates, so
    two folders. A plain name is its own folder (runs made before read back unchanged); any other
    becomes a readable slug plus a hash of the exact name.
    Plain names never contain "~" and every slug does, so no candidate can land in another's
    folder."""
    if PLAIN_NAME.fullmatch(name):
        return name
    readable = re.sub(r"[^A-Za-z0-9_.+@=-]+", "-", name).strip("-.")[:60].strip("-.") or "candidate"
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{readable}~{digest}"


class AttemptKey(Protocol):
    """What names one attempt's files (runs' `Attempt` is one)."""

    @property
    def candidate(self) -> str: ...

    @property
    def scenario_id(self) -> str: ...

    @property
    def repeat(self) -> int: ...


@dataclass(frozen=True)
class RunLayout:
    """The paths of one run folder."""

    root: Path

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST

    @property
    def store(self) -> Path:
        return self.root / STORE

    @property
    def lock(self) -> Path:
        return self.root / LOCK

    @property
    def traces(self) -> Path:
        return self.root / TRACES

    def report(self, tag: str | None = None) -> Path:
        """report.json, or a re-score's report-<tag>.json"""
        return self.root / (f"report-{tag}.json" if tag else REPORT)

    def trace(self, attempt: AttemptKey) -> Path:
        return self._file(TRACES, attempt)

    def scorecard(self, attempt: AttemptKey, folder: str = SCORECARDS) -> Path:
        """`folder`: another set of the run's scorecards with the same layout (a re-score's
        scorecards-<tag>, see `scorecards_folder`)."""
        return self._file(folder, attempt)

    def _file(self, folder: str, attempt: AttemptKey) -> Path:
        return (
            self.root
            / folder
            / candidate_folder(attempt.candidate)
            / attempt.scenario_id
            / f"r{attempt.repeat}.json"
        )


def scorecards_folder(tag: str | None = None) -> str:
    """scorecards, or a re-score's scorecards-<tag>"""
    return f"{SCORECARDS}-{tag}" if tag else SCORECARDS
