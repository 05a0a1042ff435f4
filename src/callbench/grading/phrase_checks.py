"""Phrase checks: claims that are not a value. "No change fee" said after the rebooking (earned, in its window,
in a turn a caller could follow); "instant refund" or a full card number never said (a guard over every
message, however long)."""

from __future__ import annotations

import re

from ..call.trace import Trace
from ..spec import Scenario, SuiteManifest
from ..text import find_cue
from .base import ItemVerdict
from .windows import bounds, limit_of, unfollowable

MAX_TEXT = 20_000
"""A pattern is run on at most this many characters of one message, so an author's regular expression cannot
stall grading on a pathological reply."""


class PhraseChecks:
    name = "phrase_checks"

    def grade(self, trace: Trace, scenario: Scenario, suite: SuiteManifest | None = None) -> list[ItemVerdict]:
        checks = getattr(scenario, "phrase_checks", [])
        if not checks:
            return []
        hidden = unfollowable(trace, limit_of(suite))
        out = []
        for check in checks:
            guard = check.must == "not_say"
            where = bounds(trace, scenario, check.after, check.before)
            hit = None
            if where.closed is None:
                patterns = [re.compile(p, re.IGNORECASE) for p in check.patterns]
                for m in trace.messages:
                    if m.role != "candidate" or not m.text or not where.holds(m.index):
                        continue
                    if not guard and m.index in hidden:
                        continue
                    text = m.text[:MAX_TEXT]
                    said = next((t for t in check.terms if find_cue(t, text)), None) or \
                        next((p.pattern for p in patterns if p.search(text)), None)
                    if said is not None:
                        hit = (m.index, said)
                        break
            if guard:
                ok = hit is None
                detail = f"said {hit[1]!r} at #{hit[0]}" if hit else f"never said ({where.describe()})"
                label = "not_applicable" if where.closed else ("met" if ok else "not_met")
                r = None if where.closed else float(ok)
            else:
                ok = hit is not None
                detail = f"said {hit[1]!r} at #{hit[0]}" if hit else \
                    f"none of {check.terms} in a followable turn ({where.describe()})"
                label, r = ("met" if ok else "not_met"), float(ok)
            out.append(ItemVerdict(id=check.id, kind="check", pillar="task", weight=check.weight, label=label,
                                   r=r, grader=self.name, guard=guard, evidence=[hit[0]] if hit else [],
                                   diagnostic="rule_compliance" if guard else "stated_facts", detail=detail))
        return out
