"""Spoken-value checks: did the agent say the right number, date or identifier, in the right part of the call?

Declared per scenario (`spoken_checks:`) and decided by code with the spoken-value parser; an LLM verifier
can decide the same checks beside it for calibration.
"""

from __future__ import annotations

from ..call.trace import Trace
from ..spec import Scenario, SuiteManifest, make_scope, resolve
from .base import ItemVerdict


class SpokenChecks:
    name = "spoken_checks"

    def grade(self, trace: Trace, scenario: Scenario, suite: SuiteManifest | None = None) -> list[ItemVerdict]:
        checks = getattr(scenario, "spoken_checks", [])
        if not checks:
            return []
        from .spoken import Window
        from .spoken_stated import stated

        scope = make_scope(scenario.caller.knows, scenario.backend.hidden)
        out = []
        for check in checks:
            lo, hi = window_bounds(trace, check, scenario)
            window = Window(speaker=check.speaker, from_index=lo, to_index=hi, topic=tuple(check.topic))
            expected = resolve(check.value, scope)
            finding = stated(trace, expected, check.kind, tolerance=check.tolerance, unit=check.unit, window=window,
                             language=scenario.language, today=scenario.caller.datetime.date())
            ok = finding.found if check.must == "state" else not finding.found
            out.append(ItemVerdict(id=check.id, kind="spoken", pillar="task", weight=check.weight,
                                   label="met" if ok else "not_met", r=1.0 if ok else 0.0, grader=self.name,
                                   diagnostic="stated_facts" if check.must == "state" else "rule_compliance",
                                   evidence=[finding.message_index] if finding.message_index is not None else [],
                                   detail=finding.detail))
        return out


def window_bounds(trace: Trace, check, scenario: Scenario) -> tuple[int | None, int | None]:
    """Translate `before`/`after` action ids into message indices: the first call of that tool whose
    arguments satisfy the action's matchers (None when it never happened: an open bound)."""
    from .actions import _matching

    scope = make_scope(scenario.caller.knows, scenario.backend.hidden)
    actions = {a.id: a for a in scenario.expected_actions}

    def first(action_id: str | None) -> int | None:
        if action_id is None or action_id not in actions:
            return None
        found = _matching(actions[action_id], trace.tool_events, scope)
        return found[0].call_message_index if found else None

    lo = first(check.after)
    hi = first(check.before)
    return (lo, hi - 1 if hi is not None else None)
