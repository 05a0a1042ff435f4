"""What a suite is made of: agents by domain and language, calls by language, difficulty, direction
and tag, instruction lengths and tool counts.

A bundle is judged first by its composition (the reference multilingual bundle publishes exactly
these figures), so the numbers are computed from the loaded suite rather than kept by hand in a
README that drifts. Lengths are counted in characters of the rendered instructions (what the
candidate reads), the way the reference counts them.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .scenario import Scenario
from .state import StateBackendSpec
from .suite import Suite

UNDECLARED = "(none)"


@dataclass(frozen=True)
class Spread:
    """Minimum, median and maximum of a list of counts (all 0 for an empty list)."""

    minimum: float
    median: float
    maximum: float
    total: int

    @classmethod
    def of(cls, values: list[int]) -> Spread:
        if not values:
            return cls(0, 0, 0, 0)
        return cls(min(values), statistics.median(values), max(values), sum(values))


@dataclass(frozen=True)
class Composition:
    suite: str
    agents: int
    calls: int
    agents_by_domain_language: dict[str, dict[str, int]]
    calls_by_language: dict[str, int]
    calls_by_difficulty: dict[str, int]
    calls_by_direction: dict[str, int]
    calls_by_tag: dict[str, int]
    calls_by_language_difficulty: dict[str, dict[str, int]]
    calls_per_agent: Spread
    instruction_chars: Spread
    tools: Spread
    agents_by_direction: dict[str, int] = field(default_factory=dict)
    coverage: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in self.__dict__.items():
            out[name] = value.__dict__ if isinstance(value, Spread) else value
        return out


def _nested(pairs: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for outer, inner in sorted(pairs):
        row = table.setdefault(outer, {})
        row[inner] = row.get(inner, 0) + 1
    return table


def features(scenario: Scenario, end_tools: set[str]) -> set[str]:
    """What a call exercises, read from its structure rather than from its free-form tags, so a
    coverage table cannot be inflated by labelling."""
    found: set[str] = set()
    if scenario.channel.seeded_first_turn:
        found.add("channel: seeded first-turn damage")
    for event in scenario.channel.events:
        found.add(f"channel: {event.kind}")
    backend = scenario.backend
    if isinstance(backend, StateBackendSpec):
        for name, tool in backend.tools.items():
            if tool.failures:
                found.add("failed call-ending tool" if name in end_tools else "injected failure")
    if scenario.refusal is not None:
        found.add("refusal")
    if scenario.gates is not None:
        found.add("verification/disclosure gate")
    if scenario.spoken_checks:
        found.add("spoken check")
    if any(a.count.exactly == 0 and a.guard for a in scenario.expected_actions):
        found.add("forbidden action (inaction guard)")
    if any(
        ("transfer" in a.tool or "escalat" in a.tool) and (a.count.min or a.count.exactly or 0) > 0
        for a in scenario.expected_actions
    ):
        found.add("transfer or escalation")
    if any(c.excerpts for c in scenario.criteria):
        found.add("judged criterion with excerpts")
    return found


def composition(suite: Suite) -> Composition:
    agents = suite.agents
    scenarios = list(suite.scenarios.values())
    direction_of = {aid: a.definition.direction for aid, a in agents.items()}
    per_agent = Counter(sc.agent for sc in scenarios)
    return Composition(
        suite=suite.id,
        agents=len(agents),
        calls=len(scenarios),
        agents_by_domain_language=_nested(
            [(a.definition.domain or UNDECLARED, a.definition.language) for a in agents.values()]
        ),
        calls_by_language=dict(sorted(Counter(sc.language for sc in scenarios).items())),
        calls_by_difficulty=dict(sorted(Counter(sc.difficulty for sc in scenarios).items())),
        calls_by_direction=dict(
            sorted(Counter(direction_of[sc.agent] for sc in scenarios).items())
        ),
        calls_by_tag=dict(sorted(Counter(t for sc in scenarios for t in sc.tags).items())),
        calls_by_language_difficulty=_nested([(sc.language, sc.difficulty) for sc in scenarios]),
        calls_per_agent=Spread.of([per_agent.get(aid, 0) for aid in agents]),
        instruction_chars=Spread.of([len(a.instructions) for a in agents.values()]),
        tools=Spread.of([len(a.definition.tools) for a in agents.values()]),
        agents_by_direction=dict(sorted(Counter(direction_of.values()).items())),
        coverage=dict(
            sorted(
                Counter(
                    f
                    for sc in scenarios
                    for f in features(sc, {t.name for t in agents[sc.agent].definition.end_tools})
                ).items()
            )
        ),
    )
