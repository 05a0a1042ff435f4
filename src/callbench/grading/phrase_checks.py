"""Phrase checks: claims that are not a value. "No change fee" said after the rebooking (earned, in
its window,
in a turn a caller could follow); "instant refund" or a full card number never said (a guard over
every
message, however long).

Terms are found in the whole message (`callbench.text.find_cue`, linear). Patterns are an author's
regular
expressions run on a candidate's speech, through `callbench.spec.matchers.regex_search`: linear-time
RE2 on
the whole message wherever it reads the pattern as Python does, else Python's engine on the first
`MAX_REGEX_TEXT` characters; a pattern with nested quantifiers never runs on Python's engine, and a
check
holding one that nothing can run safely (no google-re2) is not measured, and says why.
"""

from __future__ import annotations

from ..call.trace import Trace
from ..spec import Scenario, SuiteManifest
from ..spec.matchers import MAX_REGEX_TEXT, regex_problem, regex_search
from ..text import find_cue
from .base import CodeGrader, ItemVerdict, Label
from .windows import bounds, limit_of, unfollowable

__all__ = ["MAX_REGEX_TEXT", "PhraseChecks"]


class PhraseChecks(CodeGrader):
    name = "phrase_checks"

    def grade(
        self, trace: Trace, scenario: Scenario, suite: SuiteManifest | None = None
    ) -> list[ItemVerdict]:
        checks = getattr(scenario, "phrase_checks", [])
        if not checks:
            return []
        hidden = unfollowable(trace, limit_of(suite))
        out = []
        for check in checks:
            guard = check.must == "not_say"
            refused = [
                problem for p in check.patterns if (problem := regex_problem(p, ignorecase=True))
            ]
            if refused:
                out.append(
                    ItemVerdict(
                        id=check.id,
                        kind="check",
                        pillar="task",
                        weight=check.weight,
                        label="not_measured",
                        r=None,
                        grader=self.name,
                        guard=guard,
                        diagnostic="rule_compliance" if guard else "stated_facts",
                        detail="; ".join(refused),
                    )
                )
                continue
            where = bounds(trace, scenario, check.after, check.before)
            hit = None
            if where.closed is None:
                for m in trace.messages:
                    if m.role != "candidate" or not m.text or not where.holds(m.index):
                        continue
                    if not guard and m.index in hidden:
                        continue
                    text = m.text
                    said = next((t for t in check.terms if find_cue(t, text)), None) or next(
                        (p for p in check.patterns if regex_search(p, text, ignorecase=True)), None
                    )
                    if said is not None:
                        hit = (m.index, said)
                        break
            label: Label
            if guard:
                ok = hit is None
                detail = (
                    f"said {hit[1]!r} at #{hit[0]}" if hit else f"never said ({where.describe()})"
                )
                label = "not_applicable" if where.closed else ("met" if ok else "not_met")
                r = None if where.closed else float(ok)
            else:
                ok = hit is not None
                detail = (
                    f"said {hit[1]!r} at #{hit[0]}"
                    if hit
                    else f"none of {check.terms} in a followable turn ({where.describe()})"
                )
                label, r = ("met" if ok else "not_met"), float(ok)
            out.append(
                ItemVerdict(
                    id=check.id,
                    kind="check",
                    pillar="task",
                    weight=check.weight,
                    label=label,
                    r=r,
                    grader=self.name,
                    guard=guard,
                    evidence=[hit[0]] if hit else [],
                    diagnostic="rule_compliance" if guard else "stated_facts",
                    detail=detail,
                )
            )
        return out
