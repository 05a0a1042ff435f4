"""Recursive task construction: single requests, then calls grown one valid request at a time.

A single-request case is a request kind valid on a seeded account. A task is extended by appending
a request and computing, with the policy model, the account as the earlier requests left it; the
new task is admitted only when the request is valid there, adds a distinct requirement
(`may_follow`),
does not follow a transfer, and - for a refusal - was already valid on the seeded account, so no
earlier action manufactures its reason. Admitted tasks are extended again, up to four requests.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cache

from .catalog import KINDS, may_follow, recitable
from .facts import Facts, initial_facts
from .render import Task

MAX_REQUESTS = 4


@dataclass
class Construction:
    singles: list[Task]
    admitted: dict[int, list[Task]] = field(default_factory=dict)
    """admitted tasks by number of requests (2, 3, 4)"""
    rejected: Counter[str] = field(default_factory=Counter)
    """why appended requests were turned away"""

    @property
    def combinations(self) -> int:
        return sum(len(v) for v in self.admitted.values())

    def summary(self) -> dict[str, object]:
        return {
            "single_request_cases": len(self.singles),
            "admitted_combinations": self.combinations,
            "admitted_by_requests": {n: len(v) for n, v in sorted(self.admitted.items())},
            "rejected_appends": dict(sorted(self.rejected.items())),
            "starting_cases_used": len(
                {(t.account, t.kinds[0]) for v in self.admitted.values() for t in v}
            ),
        }


def _after(facts: Facts, kind: str, i: int) -> Facts | None:
    """The account after the request, or None when a check of the request is answered by the
    manual (a figure it prints), which no task may grade."""
    part, after = KINDS[kind].make(facts.copy(), f"r{i}")
    return None if recitable(part) else after


def single_cases() -> list[Task]:
    out = []
    for account, facts in sorted(initial_facts().items()):
        for kind in KINDS.values():
            if kind.valid(facts) and _after(facts, kind.id, 1) is not None:
                out.append(Task(account, (kind.id,)))
    return out


@cache
def construct(max_requests: int = MAX_REQUESTS) -> Construction:
    """The construction (cached: it is a pure function of the manifest and the policy model, and
    both the exam and its tests read it)."""
    initial = initial_facts()
    singles = single_cases()
    built = Construction(singles)
    frontier: list[tuple[Task, Facts]] = []
    for t in singles:
        first = _after(initial[t.account], t.kinds[0], 1)
        assert first is not None
        frontier.append((t, first))
    for n in range(2, max_requests + 1):
        grown: list[tuple[Task, Facts]] = []
        for task, facts in frontier:
            if KINDS[task.kinds[-1]].ends_call:
                built.rejected["follows a transfer"] += 1
                continue
            for kind in KINDS.values():
                if not may_follow(list(task.kinds), kind.id):
                    built.rejected["repeats a requirement"] += 1
                elif not kind.valid(facts):
                    built.rejected["not valid after the earlier requests"] += 1
                elif kind.refusal and not kind.valid(initial[task.account]):
                    built.rejected["refusal not valid on the seeded account"] += 1
                elif (after := _after(facts, kind.id, n)) is None:
                    built.rejected["a check the manual answers"] += 1
                else:
                    grown.append((Task(task.account, (*task.kinds, kind.id)), after))
        built.admitted[n] = [t for t, _ in grown]
        frontier = grown
    return built
