"""Per-candidate figures from scorecards: scores, completion, coverage, exclusions, flakiness, cost
and speed.

Means are taken over scenarios (each scenario first averaged over its
repeats), over completed calls only; excluded calls are counted in coverage
and in the exclusions table (passes as well as failures), never scored as zero.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import fmean
from typing import Any

from ..grading import Scorecard
from ..pricing import tokens_cost

COVERAGE_FLOOR = 0.9


def _mean(values: list[float]) -> float | None:
    return round(fmean(values), 4) if values else None


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    rank = q / 100 * (len(ordered) - 1)
    lo, hi = int(rank), min(int(rank) + 1, len(ordered) - 1)
    return round(ordered[lo] + (ordered[hi] - ordered[lo]) * (rank - lo), 6)


def exclusion_class(card: Scorecard) -> str:
    """caller failure | judge failure | infrastructure (by exception type, never by message
    text)."""
    kind = card.failure.kind if card.failure else "unknown"
    if kind == "JudgeFailure":
        return "judge failure"
    if kind in ("CallerTurnRejected", "CallerFailure"):
        return "caller failure"
    return "infrastructure"


def diagnostic_means(cards: list[Scorecard]) -> dict[str, float | None]:
    """Each diagnostic averaged over the calls where it was measured (None where it never was)."""
    from ..grading.diagnostics import DIAGNOSTICS

    return {
        name: _mean([c.diagnostics[name] for c in cards if c.diagnostics.get(name) is not None])
        for name in DIAGNOSTICS
    }


def usage_summary(
    cards: list[Scorecard], prices: dict[str, dict[str, float]] | None
) -> dict[str, Any]:
    """Tokens by role over every attempt (excluded ones too: they were spent), and cost where a
    price is known."""
    roles: dict[str, dict[str, Any]] = {}
    for card in cards:
        for role, u in card.usage.items():
            row = roles.setdefault(
                role,
                {
                    "model": card.models.get(role),
                    "calls": 0,
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                    "cached_tokens": 0,
                    "retries": 0,
                },
            )
            row["calls"] += u.calls
            row["prompt_tokens"] += u.prompt_tokens
            row["completion_tokens"] += u.completion_tokens
            row["cached_tokens"] += u.cached_tokens
            row["retries"] += u.retries
    for row in roles.values():
        cost = tokens_cost(
            (prices or {}).get(row["model"] or ""),
            row["prompt_tokens"],
            row["cached_tokens"],
            row["completion_tokens"],
        )
        if cost is not None:
            row["cost_usd"] = round(cost, 6)
    return roles


def operational(cards: list[Scorecard], usage: dict[str, Any], passed: int) -> dict[str, Any]:
    """What it costs to resolve a call: the denominator is calls actually resolved, so failures are
    charged."""
    tokens = sum(r["prompt_tokens"] + r["completion_tokens"] for r in usage.values())
    costs = [r["cost_usd"] for r in usage.values() if "cost_usd" in r]
    cost = round(sum(costs), 6) if costs else None
    latencies = [x for c in cards for x in c.candidate_latency_s]
    return {
        "tokens": tokens,
        "tokens_per_call": round(tokens / len(cards), 2) if cards else None,
        "tokens_per_resolved_call": round(tokens / passed, 2) if passed else None,
        "cost_usd": cost,
        "cost_per_call": round(cost / len(cards), 6) if cost is not None and cards else None,
        "cost_per_resolved_call": round(cost / passed, 6) if cost is not None and passed else None,
        "latency_p50_s": _percentile(latencies, 50),
        "latency_p90_s": _percentile(latencies, 90),
        "latency_p99_s": _percentile(latencies, 99),
        "tool_calls_per_call": round(fmean([c.tool_calls for c in cards]), 3) if cards else None,
    }


def candidate_summary(
    cards: list[Scorecard], prices: dict[str, dict[str, float]] | None = None
) -> dict[str, Any]:
    from ..stats.intervals import wilson_interval

    completed = [c for c in cards if c.outcome == "completed"]
    by_scenario: dict[str, list[Scorecard]] = defaultdict(list)
    for c in completed:
        by_scenario[c.scenario_id].append(c)
    scenario_rows = {}
    for sid, group in sorted(by_scenario.items()):
        scenario_rows[sid] = {
            "agent": group[0].agent_id,
            "repeats": len(group),
            "task": _mean([c.task.score for c in group if c.task.score is not None]),
            "conversation": _mean(
                [c.conversation.score for c in group if c.conversation.score is not None]
            ),
            "overall": _mean([c.overall for c in group if c.overall is not None]),
            "passed_repeats": sum(c.deterministic_passed for c in group),
            "end_reasons": sorted({c.end_reason or "none" for c in group}),
        }
    coverage = len(completed) / len(cards) if cards else 0.0
    excluded: dict[str, int] = defaultdict(int)
    exclusions: dict[str, dict[str, int]] = {}
    for c in cards:
        if c.outcome == "excluded":
            excluded[c.failure.kind if c.failure else (c.end_reason or "unknown")] += 1
            row = exclusions.setdefault(exclusion_class(c), {"count": 0, "passes": 0})
            row["count"] += 1
            row["passes"] += int(c.completed_call)
    passed = sum(c.deterministic_passed for c in completed)
    at_cutoff = sum(c.cutoff_passed for c in completed)
    cut_lo, cut_hi = wilson_interval(at_cutoff, len(completed))
    flaky = [
        sid
        for sid, r in scenario_rows.items()
        if r["repeats"] > 1 and 0 < r["passed_repeats"] < r["repeats"]
    ]
    multi = [sid for sid, r in scenario_rows.items() if r["repeats"] > 1]
    per_repeat: dict[int, list[bool]] = defaultdict(list)
    for c in completed:
        per_repeat[c.repeat].append(c.deterministic_passed)
    repeat_rates = [sum(v) / len(v) for _, v in sorted(per_repeat.items())]
    usage = usage_summary(cards, prices)
    lo, hi = wilson_interval(passed, len(completed))
    measured = coverage >= COVERAGE_FLOOR
    return {
        "attempted": len(cards),
        "completed": len(completed),
        "excluded": dict(excluded),
        "exclusions": exclusions,
        "coverage": round(coverage, 4),
        "measured": measured,
        "unmeasured_cause": None
        if measured
        else (
            f"coverage {coverage:.0%} is below the {COVERAGE_FLOOR:.0%} floor; excluded: "
            + ", ".join(f"{k} {v}" for k, v in sorted(excluded.items()))
        ),
        "task": _mean([r["task"] for r in scenario_rows.values() if r["task"] is not None]),
        "conversation": _mean(
            [r["conversation"] for r in scenario_rows.values() if r["conversation"] is not None]
        ),
        "overall": _mean(
            [r["overall"] for r in scenario_rows.values() if r["overall"] is not None]
        ),
        "pillars_complete": bool(completed)
        and all(
            c.task.unmeasured_items == 0 and c.conversation.unmeasured_items == 0 for c in completed
        ),
        "diagnostics": diagnostic_means(completed),
        "judge_failures": sum(
            1 for c in cards if c.failure is not None and c.failure.kind == "JudgeFailure"
        ),
        "task_points": sum(c.task.points for c in completed),
        "task_max_points": sum(c.task.max_points for c in completed),
        "unmeasured_items": sum(
            c.task.unmeasured_items + c.conversation.unmeasured_items for c in completed
        ),
        "calls_passed": passed,
        "completion": {
            "passed": passed,
            "of": len(completed),
            "rate": round(passed / len(completed), 4) if completed else None,
            "wilson": [round(lo, 4), round(hi, 4)],
        },
        "completion_at_cutoff": {
            "passed": at_cutoff,
            "of": len(completed),
            "rate": round(at_cutoff / len(completed), 4) if completed else None,
            "wilson": [round(cut_lo, 4), round(cut_hi, 4)],
            "rule": "task pillar >= the provisional cutoff and no guard broken",
        },
        "guards": {
            "kept": sum(len(c.guards.kept) for c in completed),
            "broken": sum(len(c.guards.broken) for c in completed),
            "untested": sum(len(c.guards.untested) for c in completed),
            "calls_with_a_broken_guard": sum(1 for c in completed if c.guards.broken),
        },
        "flake_rate": round(len(flaky) / len(multi), 4) if multi else None,
        "flaky_scenarios": flaky,
        "completion_by_repeat": [round(r, 4) for r in repeat_rates],
        "caller_satisfied_but_failed": sum(
            1 for c in completed if c.caller_satisfied and not c.deterministic_passed
        ),
        "caller_satisfied": sum(1 for c in completed if c.caller_satisfied),
        "model_errors": sum(1 for c in completed if c.failure is not None),
        "reruns": sum(c.reruns for c in cards),
        "usage": usage,
        "operational": operational(cards, usage, passed),
        "scenarios": len(scenario_rows),
        "scenarios_passed": sum(
            1 for r in scenario_rows.values() if r["passed_repeats"] == r["repeats"]
        ),
        "per_scenario": scenario_rows,
    }
