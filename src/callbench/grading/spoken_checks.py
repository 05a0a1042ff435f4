"""Spoken-value checks: did the agent say the right number, date or identifier, in the right part of
the call?

Declared per scenario (`spoken_checks:`) and decided by code with the spoken-value parser; an LLM
verifier
can decide the same checks beside it for calibration. A value must be stated inside the check's
window
(anchored on an action or a plan step; closed when the anchor never happened) and in an agent turn a
caller
could follow: a figure buried in a recital of the instructions or a dump of tool results tells
nobody
anything. A `must: not_state` check is a guard and reads every message, however long.
"""

from __future__ import annotations

from ..call.trace import Trace
from ..spec import Scenario, SuiteManifest, make_scope, resolve
from .base import CodeGrader, ItemVerdict
from .windows import bounds, limit_of, unfollowable


class SpokenChecks(CodeGrader):
    name = "spoken_checks"

    def grade(
        self, trace: Trace, scenario: Scenario, suite: SuiteManifest | None = None
    ) -> list[ItemVerdict]:
        checks = getattr(scenario, "spoken_checks", [])
        if not checks:
            return []
        from .spoken import Window
        from .spoken_stated import stated

        scope = make_scope(scenario.caller.knows, scenario.backend.hidden)
        hidden = frozenset(unfollowable(trace, limit_of(suite)))
        out = []
        for check in checks:
            guard = check.must == "not_state"
            where = bounds(trace, scenario, check.after, check.before)
            if where.closed is not None:
                out.append(
                    ItemVerdict(
                        id=check.id,
                        kind="spoken",
                        pillar="task",
                        weight=check.weight,
                        guard=guard,
                        label="not_applicable" if guard else "not_met",
                        r=None if guard else 0.0,
                        grader=self.name,
                        diagnostic="rule_compliance" if guard else "stated_facts",
                        detail=f"the window is {where.describe()}"
                        + ("; nothing to keep" if guard else ""),
                    )
                )
                continue
            window = Window(
                speaker=check.speaker,
                from_index=where.lo,
                to_index=where.hi,
                topic=tuple(check.topic),
                exclude=frozenset() if guard else hidden,
            )
            expected = resolve(check.value, scope)
            finding = stated(
                trace,
                expected,
                check.kind,
                tolerance=check.tolerance,
                unit=check.unit,
                window=window,
                language=scenario.language,
                today=scenario.caller.datetime.date(),
            )
            ok = finding.found if check.must == "state" else not finding.found
            out.append(
                ItemVerdict(
                    id=check.id,
                    kind="spoken",
                    pillar="task",
                    weight=check.weight,
                    label="met" if ok else "not_met",
                    r=1.0 if ok else 0.0,
                    grader=self.name,
                    diagnostic="rule_compliance" if guard else "stated_facts",
                    guard=guard,
                    evidence=[finding.message_index] if finding.message_index is not None else [],
                    detail=finding.detail,
                )
            )
        return out
