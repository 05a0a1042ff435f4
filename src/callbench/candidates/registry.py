"""Built-in candidates by name. Only a privileged entry may read the scenario (the oracle, by design)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..spec import Scenario
from .base import Candidate
from .noop import NoopCandidate
from .oracle import OracleCandidate
from .shortcut import ShortcutCandidate


@dataclass(frozen=True)
class CandidateEntry:
    name: str
    description: str
    make: Callable[[Scenario], Candidate]
    privileged: bool = False


BASELINES: dict[str, CandidateEntry] = {
    "oracle": CandidateEntry("oracle", "plays the scenario's reference solution (reads the answer key)", OracleCandidate, privileged=True),
    "noop": CandidateEntry("noop", "polite, never calls a tool: the floor", lambda _scenario: NoopCandidate()),
    "shortcut": CandidateEntry("shortcut", "no model; copies identifiers from the conversation into every tool it can fill",
                               lambda _scenario: ShortcutCandidate()),
}


class UnknownCandidate(ValueError):
    pass


def candidate_entry(name: str) -> CandidateEntry:
    try:
        return BASELINES[name]
    except KeyError:
        raise UnknownCandidate(f"unknown candidate '{name}' (built-in: {', '.join(BASELINES)})") from None
