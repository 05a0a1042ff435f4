"""Scores split by one attribute of the scenario or the call, with counts.

Slices are descriptive. Each slice holds different agents and tasks, so a gap
between the Tamil and the English slice mixes language with whatever else those
scenarios differ in; a causal claim would need the same scenarios translated
and checked for equivalence. Counts travel with every number so a reader can
see how thin a slice is.
"""

from __future__ import annotations

from typing import Any

UNKNOWN = "unknown"


def _values(row: dict[str, Any], by: str) -> list[str]:
    value = row.get(by)
    if by == "tags":
        tags = [str(t) for t in value or [] if t is not None and str(t) != ""]
        return sorted(set(tags)) or [UNKNOWN]
    if by == "persona" and isinstance(value, dict):
        value = value.get("mood")
    if value is None or value == "":
        return [UNKNOWN]
    return [str(value)]


def slice_scores(rows: list[dict], by: str) -> dict[str, dict]:
    """{candidate: {slice value: {"calls", "scored", "scenarios", "mean", "pass_rate"}}}.

    `by` is a row key: language, difficulty, tags, persona, background,
    requests (or any other). A call counts in every one of its tags' slices, so
    tag slices overlap and their calls do not add up to the total. Persona dicts
    are sliced by their "mood"; missing values go under "unknown".

    These are not causal comparisons: each slice contains different scenarios
    (different agents, tasks and difficulty), so differences between slices
    cannot be attributed to the sliced attribute.

    A call whose score is None (skipped, or not measured) is counted in "calls"
    but kept out of "scored", "mean" and "pass_rate": a failure to measure is
    not a zero. "scenarios" counts distinct (agent, scenario) pairs.
    """
    acc: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        candidate = str(row.get("candidate", UNKNOWN))
        for value in _values(row, by):
            cell = acc.setdefault(candidate, {}).setdefault(
                value, {"calls": 0, "scored": 0, "scenarios": set(), "sum": 0.0, "passed": 0}
            )
            cell["calls"] += 1
            cell["scenarios"].add((row.get("agent"), row.get("scenario")))
            if row.get("score") is not None:
                cell["scored"] += 1
                cell["sum"] += float(row["score"])
                cell["passed"] += bool(row.get("passed"))
    return {
        candidate: {
            value: {
                "calls": c["calls"],
                "scored": c["scored"],
                "scenarios": len(c["scenarios"]),
                "mean": c["sum"] / c["scored"] if c["scored"] else None,
                "pass_rate": c["passed"] / c["scored"] if c["scored"] else None,
            }
            for value, c in sorted(slices.items())
        }
        for candidate, slices in sorted(acc.items())
    }
