"""Audits across the scenarios of a suite: near-duplicates and balance.

Two scenarios of one agent whose briefs and plans read alike test the same thing twice (a
generator stuck on one idea, or a copy edited too little); a suite where one difficulty, one
language or one track holds most scenarios measures that slice and little else.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from typing import Any

from ..spec import Scenario, Suite, make_scope, resolve
from ..spec.templates import TemplateError
from .findings import Finding

SIMILAR = 90.0
"""rapidfuzz token_set_ratio at or above which two briefs of one agent are near-duplicates."""

DOMINANT = 0.70
"""Share above which one value of a balance dimension dominates..."""
BALANCE_MIN = 20
"""...in a suite of at least this many scenarios (smaller suites are too small to balance)."""

FAMILY = re.compile(r"^(?P<family>[a-z][a-z_]*)(?::(?P<value>.+)|-(?P<n>\d+))$")
"""A tag naming a value of a family: `requests-4` (requests = 4), `track:billing` (track =
billing)."""


def brief_text(sc: Scenario) -> str:
    """What makes a scenario the call it is: who calls, why, and what they mean at each step."""
    c = sc.caller
    return " ".join([c.context, c.reason] + [s.meaning for s in c.plan])


def graded(sc: Scenario) -> str:
    """What a scenario grades, as text: every expected action, check, expected state and change,
    gate, refusal and criterion (ordering anchors included), templates resolved, and every fact
    the caller knows replaced by its name, so two scenarios that differ only in who calls (name,
    account number) read alike."""
    scope = make_scope(sc.caller.knows, sc.backend.hidden)
    fields = (
        "expected_actions",
        "spoken_checks",
        "phrase_checks",
        "expected_state",
        "expected_changes",
        "refusal",
        "gates",
        "criteria",
    )
    parts: Any = sc.model_dump(mode="json", by_alias=True, include=set(fields))
    try:
        parts = resolve(parts, scope)
    except TemplateError:
        pass  # validate's finding; compare the unresolved text
    text = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    known = [(k, v) for k, v in sc.caller.knows.items() if isinstance(v, (str, int))]
    for k, v in sorted(known, key=lambda kv: -len(str(kv[1]))):
        if len(str(v)) >= 3:
            text = text.replace(str(v), f"<{k}>")
    return text


def duplicates(suite: Suite) -> tuple[list[Finding], int]:
    """Pairs of one agent's scenarios that are the same call graded the same way: briefs scoring at
    least SIMILAR (rapidfuzz token_set_ratio) and the same graded content once the caller's own
    facts are masked. Similar briefs alone are not enough: a generated suite asks the same
    requests of many accounts on purpose, and a different account with different figures is a
    different test. Returns the warnings (naming both) and the number of pairs compared."""
    from rapidfuzz import fuzz  # only the audit compares texts; keeps the import off load paths

    by_agent: dict[str, list[str]] = defaultdict(list)
    for sid, sc in suite.scenarios.items():
        by_agent[sc.agent].append(sid)
    out = []
    pairs = 0
    for sids in by_agent.values():
        texts = {sid: brief_text(suite.scenarios[sid]) for sid in sids}
        grades = {sid: graded(suite.scenarios[sid]) for sid in sids}
        for i, a in enumerate(sids):
            for b in sids[i + 1 :]:
                pairs += 1
                if grades[a] != grades[b]:
                    continue
                score = fuzz.token_set_ratio(texts[a], texts[b])
                if score >= SIMILAR:
                    out.append(
                        Finding(
                            "duplicates",
                            "warning",
                            suite.scenario_files[a],
                            "caller",
                            f"'{a}' is the same call as '{b}' ({suite.scenario_files[b]}): briefs "
                            f"{score:.0f}% alike (>= {SIMILAR:g}) and the same graded actions and "
                            "checks; make one a different call or drop it",
                            None,
                        )
                    )
    return out, pairs


def balance(suite: Suite) -> tuple[dict[str, dict[str, int]], list[Finding]]:
    """Counts per difficulty, language, agent and tag family, and a warning for each dimension
    where one value holds more than DOMINANT of a suite of BALANCE_MIN or more scenarios.

    Language is judged only in a suite that has more than one (a suite written for one language's
    callers is a choice, not a slant); a tag family is judged only where each scenario carries at
    most one of its values (`requests-N`), not where they stack (`request:balance` beside
    `request:extension`)."""
    scenarios = list(suite.scenarios.values())
    table: dict[str, Counter[str]] = {
        "difficulty": Counter(s.difficulty for s in scenarios),
        "language": Counter(s.language for s in scenarios),
        "agent": Counter(s.agent for s in scenarios),
    }
    single: dict[str, bool] = {}
    for s in scenarios:
        seen: Counter[str] = Counter()
        for tag in s.tags:
            m = FAMILY.match(tag)
            if m is None:
                continue
            family = "tag:" + m["family"]
            table.setdefault(family, Counter())[m["value"] or m["n"]] += 1
            seen[family] += 1
        for family, n in seen.items():
            single[family] = single.get(family, True) and n == 1
    judged = ["difficulty", "agent"] + (["language"] if len(table["language"]) > 1 else [])
    judged += [f for f, one in single.items() if one]
    out = []
    total = len(scenarios)
    if total >= BALANCE_MIN:
        for dim in judged:
            value, n = table[dim].most_common(1)[0]
            if dim == "agent" and len(table[dim]) == 1:
                continue  # a suite for one agent
            if n / total > DOMINANT:
                out.append(
                    Finding(
                        "balance",
                        "warning",
                        "suite.yaml",
                        dim,
                        f"{n} of {total} scenarios ({n / total:.0%}) have {dim} '{value}' (over "
                        f"{DOMINANT:.0%}): the suite measures mostly that slice",
                    )
                )
    return {k: dict(sorted(v.items())) for k, v in table.items()}, out
