"""Per-candidate figures from scorecards: scores, completion, coverage, exclusions, flakiness, cost
and speed.

Means are taken over scenarios (each scenario first averaged over its
repeats), over completed calls only; excluded calls are counted in coverage
and in the exclusions table (passes as well as failures), never scored as zero.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import fmean

from ..grading import Scorecard
from ..pricing import tokens_cost
from .model import (
    CandidateRow,
    Completion,
    CutoffCompletion,
    ExclusionCount,
    Guards,
    Operational,
    ScenarioRow,
    UsageRow,
)

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
        name: _mean([v for c in cards if (v := c.diagnostics.get(name)) is not None])
        for name in DIAGNOSTICS
    }


def usage_summary(
    cards: list[Scorecard], prices: dict[str, dict[str, float]] | None
) -> dict[str, UsageRow]:
    """Tokens by role over every attempt (excluded ones too: they were spent), and cost where a
    price is known."""
    roles: dict[str, UsageRow] = {}
    for card in cards:
        for role, u in card.usage.items():
            row = roles.setdefault(
                role,
                UsageRow(
                    model=card.models.get(role),
                    calls=0,
                    prompt_tokens=0,
                    completion_tokens=0,
                    cached_tokens=0,
                    retries=0,
                ),
            )
            row.calls += u.calls
            row.prompt_tokens += u.prompt_tokens
            row.completion_tokens += u.completion_tokens
            row.cached_tokens = (row.cached_tokens or 0) + u.cached_tokens
            row.retries = (row.retries or 0) + u.retries
    for row in roles.values():
        cost = tokens_cost(
            (prices or {}).get(row.model or ""),
            row.prompt_tokens,
            row.cached_tokens or 0,
            row.completion_tokens,
        )
        if cost is not None:
            row.cost_usd = round(cost, 6)
    return roles


def operational(cards: list[Scorecard], usage: dict[str, UsageRow], passed: int) -> Operational:
    """What it costs to resolve a call: the denominator is calls actually resolved, so failures are
    charged."""
    tokens = sum(r.prompt_tokens + r.completion_tokens for r in usage.values())
    costs = [r.cost_usd for r in usage.values() if r.cost_usd is not None]
    cost = round(sum(costs), 6) if costs else None
    latencies = [x for c in cards for x in c.candidate_latency_s]
    responses = [x for c in cards for x in c.response_latency_s]
    return Operational(
        tokens=tokens,
        tokens_per_call=round(tokens / len(cards), 2) if cards else None,
        tokens_per_resolved_call=round(tokens / passed, 2) if passed else None,
        cost_usd=cost,
        cost_per_call=round(cost / len(cards), 6) if cost is not None and cards else None,
        cost_per_resolved_call=round(cost / passed, 6) if cost is not None and passed else None,
        latency_p50_s=_percentile(latencies, 50),
        latency_p90_s=_percentile(latencies, 90),
        latency_p99_s=_percentile(latencies, 99),
        response_latency_p50_s=_percentile(responses, 50),
        response_latency_p90_s=_percentile(responses, 90),
        response_latency_p99_s=_percentile(responses, 99),
        tool_calls_per_call=round(fmean([c.tool_calls for c in cards]), 3) if cards else None,
    )


def _scenario_rows(completed: list[Scorecard]) -> dict[str, ScenarioRow]:
    """Each scenario's repeats averaged, pillar by pillar, over its completed calls."""
    by_scenario: dict[str, list[Scorecard]] = defaultdict(list)
    for c in completed:
        by_scenario[c.scenario_id].append(c)
    return {
        sid: ScenarioRow(
            agent=group[0].agent_id,
            repeats=len(group),
            task=_mean([c.task.score for c in group if c.task.score is not None]),
            conversation=_mean(
                [c.conversation.score for c in group if c.conversation.score is not None]
            ),
            overall=_mean([c.overall for c in group if c.overall is not None]),
            passed_repeats=sum(c.deterministic_passed for c in group),
            end_reasons=sorted({c.end_reason or "none" for c in group}),
        )
        for sid, group in sorted(by_scenario.items())
    }


def _exclusions(cards: list[Scorecard]) -> tuple[dict[str, int], dict[str, ExclusionCount]]:
    """Excluded calls by failure type, and by class with how many of them passed anyway."""
    excluded: dict[str, int] = defaultdict(int)
    classes: dict[str, ExclusionCount] = {}
    for c in cards:
        if c.outcome == "excluded":
            excluded[c.failure.kind if c.failure else (c.end_reason or "unknown")] += 1
            row = classes.setdefault(exclusion_class(c), ExclusionCount(count=0, passes=0))
            row.count += 1
            row.passes += int(c.completed_call)
    return dict(excluded), classes


def _completion(passed: int, of: int) -> Completion:
    from ..stats.intervals import wilson_interval

    lo, hi = wilson_interval(passed, of)
    return Completion(
        passed=passed,
        of=of,
        rate=round(passed / of, 4) if of else None,
        wilson=(round(lo, 4), round(hi, 4)),
    )


def _repeat_figures(
    completed: list[Scorecard], rows: dict[str, ScenarioRow]
) -> tuple[float | None, list[str], list[float]]:
    """Flake rate over scenarios run more than once, the flaky ones, and completion per repeat."""
    flaky = [sid for sid, r in rows.items() if r.repeats > 1 and 0 < r.passed_repeats < r.repeats]
    multi = [sid for sid, r in rows.items() if r.repeats > 1]
    per_repeat: dict[int, list[bool]] = defaultdict(list)
    for c in completed:
        per_repeat[c.repeat].append(c.deterministic_passed)
    rates = [round(sum(v) / len(v), 4) for _, v in sorted(per_repeat.items())]
    return (round(len(flaky) / len(multi), 4) if multi else None), flaky, rates


def _unmeasured_cause(coverage: float, excluded: dict[str, int]) -> str | None:
    if coverage >= COVERAGE_FLOOR:
        return None
    return (
        f"coverage {coverage:.0%} is below the {COVERAGE_FLOOR:.0%} floor; excluded: "
        + ", ".join(f"{k} {v}" for k, v in sorted(excluded.items()))
    )


def _pillar_mean(values: list[float | None]) -> float | None:
    return _mean([v for v in values if v is not None])


def candidate_summary(
    cards: list[Scorecard], prices: dict[str, dict[str, float]] | None = None
) -> CandidateRow:
    """One candidate's row of report.json (without its intervals and pass^k, which need the run
    id)."""
    completed = [c for c in cards if c.outcome == "completed"]
    rows = _scenario_rows(completed)
    coverage = len(completed) / len(cards) if cards else 0.0
    excluded, exclusions = _exclusions(cards)
    passed = sum(c.deterministic_passed for c in completed)
    flake_rate, flaky, by_repeat = _repeat_figures(completed, rows)
    usage = usage_summary(cards, prices)
    return CandidateRow(
        attempted=len(cards),
        completed=len(completed),
        excluded=excluded,
        exclusions=exclusions,
        coverage=round(coverage, 4),
        measured=coverage >= COVERAGE_FLOOR,
        unmeasured_cause=_unmeasured_cause(coverage, excluded),
        task=_pillar_mean([r.task for r in rows.values()]),
        conversation=_pillar_mean([r.conversation for r in rows.values()]),
        overall=_pillar_mean([r.overall for r in rows.values()]),
        pillars_complete=bool(completed)
        and all(
            c.task.unmeasured_items == 0 and c.conversation.unmeasured_items == 0 for c in completed
        ),
        diagnostics=diagnostic_means(completed),
        judge_failures=sum(
            1 for c in cards if c.failure is not None and c.failure.kind == "JudgeFailure"
        ),
        task_points=sum(c.task.points for c in completed),
        task_max_points=sum(c.task.max_points for c in completed),
        unmeasured_items=sum(
            c.task.unmeasured_items + c.conversation.unmeasured_items for c in completed
        ),
        calls_passed=passed,
        completion=_completion(passed, len(completed)),
        completion_at_cutoff=CutoffCompletion(
            **_completion(sum(c.cutoff_passed for c in completed), len(completed)).model_dump(),
            rule="task pillar >= the provisional cutoff and no guard broken",
        ),
        guards=Guards(
            kept=sum(len(c.guards.kept) for c in completed),
            broken=sum(len(c.guards.broken) for c in completed),
            untested=sum(len(c.guards.untested) for c in completed),
            calls_with_a_broken_guard=sum(1 for c in completed if c.guards.broken),
        ),
        flake_rate=flake_rate,
        flaky_scenarios=flaky,
        completion_by_repeat=by_repeat,
        caller_satisfied_but_failed=sum(
            1 for c in completed if c.caller_satisfied and not c.deterministic_passed
        ),
        caller_satisfied=sum(1 for c in completed if c.caller_satisfied),
        model_errors=sum(1 for c in completed if c.failure is not None),
        reruns=sum(c.reruns for c in cards),
        usage=usage,
        operational=operational(cards, usage, passed),
        scenarios=len(rows),
        scenarios_passed=sum(1 for r in rows.values() if r.passed_repeats == r.repeats),
        per_scenario=rows,
    )
