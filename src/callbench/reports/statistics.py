"""The uncertainty around a run's figures: hierarchical bootstrap intervals per pillar, paired
comparisons of
candidates ranked next to each other, pass^k across repeats, and slices. All seeded by the run
id."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..grading import Scorecard
from ..spec import Suite
from .model import CandidateRow, Comparison, Interval, Intervals, SliceCell, Slices

PILLARS = ("task", "conversation", "overall")


def _value(card: Scorecard, pillar: str) -> float | None:
    return card.overall if pillar == "overall" else getattr(card, pillar).score


def nested(cards: list[Scorecard], pillar: str) -> dict[str, dict[str, list[float]]]:
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for c in cards:
        value = _value(c, pillar)
        if c.outcome == "completed" and value is not None:
            out[c.agent_id][c.scenario_id].append(value)
    return {a: dict(s) for a, s in out.items()}


def intervals(
    cards: list[Scorecard], run_id: str, candidate: str, samples: int = 2000
) -> Intervals:
    from ..stats.bootstrap import hierarchical_bootstrap, seed_for

    return Intervals(
        **{
            p: Interval(
                **hierarchical_bootstrap(
                    nested(cards, p), samples=samples, seed=seed_for(run_id, candidate, p)
                ).as_dict()
            )
            for p in PILLARS
        }
    )


def pass_hat(cards: list[Scorecard]) -> dict[str, float | None]:
    """pass^k (all k repeats pass) and pass@k, averaged over scenarios, for k up to the fewest
    repeats."""
    from ..stats.intervals import pass_at_k, pass_hat_k

    groups: dict[str, list[bool]] = defaultdict(list)
    for c in cards:
        if c.outcome == "completed":
            groups[c.scenario_id].append(c.deterministic_passed)
    if not groups:
        return {}
    kmax = min(len(v) for v in groups.values())
    out: dict[str, float | None] = {}
    for k in range(1, kmax + 1):
        out[f"pass^{k}"] = round(
            sum(pass_hat_k(len(v), sum(v), k) for v in groups.values()) / len(groups), 4
        )
        out[f"pass@{k}"] = round(
            sum(pass_at_k(len(v), sum(v), k) for v in groups.values()) / len(groups), 4
        )
    return out


def ranking(candidates: dict[str, CandidateRow]) -> list[str]:
    """Measured candidates by overall score (task when no overall exists); unmeasured ones are not
    ranked."""

    def key(name: str) -> tuple[float, str]:
        score = candidates[name].headline()
        return (-(score if score is not None else -1.0), name)

    return sorted((n for n, r in candidates.items() if r.measured), key=key)


def comparisons(
    by_candidate: dict[str, list[Scorecard]], order: list[str], run_id: str, samples: int = 2000
) -> list[Comparison]:
    """Each ranked candidate against the next: paired on the scenarios both completed."""
    from ..stats.bootstrap import seed_for
    from ..stats.paired import paired_comparison

    def per_scenario(cards: list[Scorecard]) -> dict[str, list[float]]:
        pillar = (
            "overall"
            if all(c.overall is not None for c in cards if c.outcome == "completed")
            else "task"
        )
        out: dict[str, list[float]] = defaultdict(list)
        for c in cards:
            v = _value(c, pillar)
            if c.outcome == "completed" and v is not None:
                out[f"{c.agent_id}/{c.scenario_id}"].append(v)
        return dict(out)

    rows: list[Comparison] = []
    for a, b in zip(order, order[1:]):
        result = paired_comparison(
            per_scenario(by_candidate[a]),
            per_scenario(by_candidate[b]),
            samples=samples,
            seed=seed_for(run_id, "paired", a, b),
        )
        rows.append(Comparison(a=a, b=b, **result.as_dict()))
    return rows


def slice_rows(cards: list[Scorecard], suite: Suite) -> list[dict[str, Any]]:
    rows = []
    for c in cards:
        if c.outcome != "completed":
            continue
        sc = suite.scenarios.get(c.scenario_id)
        score = c.overall if c.overall is not None else c.task.score
        rows.append(
            {
                "candidate": c.candidate,
                "scenario": c.scenario_id,
                "agent": c.agent_id,
                "score": score,
                "passed": c.deterministic_passed,
                "language": sc.language if sc else None,
                "difficulty": sc.difficulty if sc else None,
                "tags": list(sc.tags) if sc else [],
                "persona": c.conditions.get("persona") or (sc.caller.persona.mood if sc else None),
                "background": c.conditions.get("background"),
                "requests": None,
            }
        )
    return rows


def slices(cards: list[Scorecard], suite: Suite) -> Slices:
    from ..stats.slices import slice_scores

    rows = slice_rows(cards, suite)
    kinds = ("language", "difficulty", "tags", "persona") + (
        ("background",) if any(r["background"] for r in rows) else ()
    )
    return {
        by: {
            cand: {value: SliceCell(**cell) for value, cell in cells.items()}
            for cand, cells in slice_scores(rows, by).items()
        }
        for by in kinds
    }
