"""Every error callbench raises on purpose, in one tree.

    CallbenchError
    ├── SuiteError              a suite cannot be loaded or is invalid; carries every Problem found
    ├── SuiteNotFound           a suite id or path names nothing
    ├── TraceError              a stored trace cannot be read
    └── EpisodeError            one call could not be completed
        ├── InfrastructureError a provider, an agent's server or the caller simulator's model
        │                       failed (excluded, counted against coverage)
        └── ModelError          the candidate misbehaved in a way that ends the call (scored)

Bad *input* (a suite file, a trace file, a CLI flag) is reported as one line per
problem naming the file and the field path; the CLI never shows a traceback for
it. Bad *code* still raises normally, so harness bugs are not disguised as
benchmark results: only the adapters around third-party code (Python and HTTP
agents, model SDKs) turn what that code raises into an `EpisodeError`, and the
CLI catches nothing but `CallbenchError`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a suite: where (file + field path) and what."""

    file: str
    path: str
    message: str
    line: int | None = None
    level: str = "error"
    """'error' makes a suite unusable; 'warning' limits how it can be run (e.g. not with the
    scripted caller)."""

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        text = f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"
        return text if self.level == "error" else f"{text} [{self.level}]"


class CallbenchError(Exception):
    """Base class of every deliberate callbench error."""


class SuiteError(CallbenchError):
    """A suite failed to load or validate. `problems` lists every issue found, not just the
    first."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        count = len(self.problems)
        head = str(self.problems[0]) if self.problems else "invalid suite"
        more = f" (and {count - 1} more)" if count > 1 else ""
        super().__init__(head + more)


class SuiteNotFound(CallbenchError):
    """No built-in suite has this id and no folder exists at this path."""


class TraceError(CallbenchError):
    """A trace file is missing, unreadable, or of an unknown schema version."""


class AudioError(CallbenchError):
    """The audio channel cannot run as configured: a synthesizer, recogniser or model that is not
    installed (the message carries the install hint), or a language no chosen recogniser hears."""


class EpisodeError(CallbenchError):
    """One call could not be completed. Subclasses say who is to blame."""

    failure_class: str = "error"


class InfrastructureError(EpisodeError):
    """A provider, an agent's server or the caller simulator's model failed: excluded from means,
    counted against coverage. Never raised for a bug in callbench itself."""

    failure_class = "infrastructure"


class ModelError(EpisodeError):
    """The candidate failed in a way that ends the call; it is scored, not excluded."""

    failure_class = "model"


__all__ = [
    "AudioError",
    "CallbenchError",
    "EpisodeError",
    "InfrastructureError",
    "ModelError",
    "Problem",
    "SuiteError",
    "SuiteNotFound",
    "TraceError",
]
