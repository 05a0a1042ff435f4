"""report.json: what a run measured, per candidate and per scenario, with a manifest of its artifacts.

Means are taken over scenarios (each scenario first averaged over its
repeats), over completed calls only; excluded calls are counted in coverage,
never scored as zero. A candidate under the coverage floor is reported but
marked unmeasured.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections import defaultdict
from pathlib import Path
from statistics import fmean
from typing import Any

from .._version import __version__
from ..grading import Scorecard

REPORT_SCHEMA_VERSION = 1
COVERAGE_FLOOR = 0.9


def _mean(values: list[float]) -> float | None:
    return round(fmean(values), 4) if values else None


def diagnostic_means(cards: list[Scorecard]) -> dict[str, float | None]:
    """Each diagnostic averaged over the calls where it was measured (None where it never was)."""
    from ..grading.diagnostics import DIAGNOSTICS

    out = {}
    for name in DIAGNOSTICS:
        values = [c.diagnostics.get(name) for c in cards if c.diagnostics.get(name) is not None]
        out[name] = _mean(values)
    return out


def usage_summary(cards: list[Scorecard], prices: dict[str, dict[str, float]] | None) -> dict[str, Any]:
    """Tokens by role over every attempt (excluded ones too: they were spent), and cost where a price is known."""
    roles: dict[str, dict[str, Any]] = {}
    for card in cards:
        for role, u in card.usage.items():
            row = roles.setdefault(role, {"model": card.models.get(role), "calls": 0, "prompt_tokens": 0,
                                          "completion_tokens": 0, "cached_tokens": 0})
            row["calls"] += u.calls
            row["prompt_tokens"] += u.prompt_tokens
            row["completion_tokens"] += u.completion_tokens
            row["cached_tokens"] += u.cached_tokens
    for row in roles.values():
        price = (prices or {}).get(row["model"] or "")
        if price:
            uncached = row["prompt_tokens"] - row["cached_tokens"]
            row["cost_usd"] = round((uncached * price.get("input", 0) + row["cached_tokens"] * price.get("cached_input", price.get("input", 0))
                                     + row["completion_tokens"] * price.get("output", 0)) / 1e6, 6)
    return roles


def candidate_summary(cards: list[Scorecard], prices: dict[str, dict[str, float]] | None = None) -> dict[str, Any]:
    completed = [c for c in cards if c.outcome == "completed"]
    by_scenario: dict[str, list[Scorecard]] = defaultdict(list)
    for c in completed:
        by_scenario[c.scenario_id].append(c)
    scenario_rows = {}
    for sid, group in sorted(by_scenario.items()):
        task = [c.task.score for c in group if c.task.score is not None]
        scenario_rows[sid] = {
            "agent": group[0].agent_id,
            "repeats": len(group),
            "task": _mean(task),
            "passed_repeats": sum(c.deterministic_passed for c in group),
            "end_reasons": sorted({c.end_reason or "none" for c in group}),
        }
    task_means = [r["task"] for r in scenario_rows.values() if r["task"] is not None]
    coverage = len(completed) / len(cards) if cards else 0.0
    excluded: dict[str, int] = defaultdict(int)
    for c in cards:
        if c.outcome == "excluded":
            excluded[c.failure.kind if c.failure else (c.end_reason or "unknown")] += 1
    return {
        "attempted": len(cards),
        "completed": len(completed),
        "excluded": dict(excluded),
        "coverage": round(coverage, 4),
        "measured": coverage >= COVERAGE_FLOOR,
        "task": _mean(task_means),
        "conversation": _mean([c.conversation.score for c in completed if c.conversation.score is not None]),
        "pillars_complete": bool(completed) and all(c.task.unmeasured_items == 0 and c.conversation.unmeasured_items == 0
                                                    for c in completed),
        "overall": _mean([c.overall for c in completed if c.overall is not None]),
        "diagnostics": diagnostic_means(completed),
        "judge_failures": sum(1 for c in cards if c.failure is not None and c.failure.kind == "JudgeFailure"),
        "task_points": sum(c.task.points for c in completed),
        "task_max_points": sum(c.task.max_points for c in completed),
        "unmeasured_items": sum(c.task.unmeasured_items + c.conversation.unmeasured_items for c in completed),
        "calls_passed": sum(c.deterministic_passed for c in completed),
        "model_errors": sum(1 for c in completed if c.failure is not None),
        "reruns": sum(c.reruns for c in cards),
        "usage": usage_summary(cards, prices),
        "scenarios": len(scenario_rows),
        "scenarios_passed": sum(1 for r in scenario_rows.values() if r["passed_repeats"] == r["repeats"]),
        "per_scenario": scenario_rows,
    }


def manifest(out_dir: Path, scorecards: str = "scorecards") -> dict[str, str]:
    files = sorted(p for sub in ("traces", scorecards) for p in (out_dir / sub).rglob("*.json"))
    files += [out_dir / "run.json"] if (out_dir / "run.json").exists() else []
    return {p.relative_to(out_dir).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(files)}


def code_version() -> dict[str, Any]:
    """The package version, plus the git commit and whether the tree was dirty when run from a checkout."""
    info: dict[str, Any] = {"package": __version__}
    root = Path(__file__).resolve().parents[3]
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        if commit.returncode == 0:
            info["commit"] = commit.stdout.strip()
            dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "src"], capture_output=True, text=True, timeout=5)
            info["dirty"] = bool(dirty.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def build_report(suite, config, cards: list[Scorecard], out_dir: Path, *, caller: dict | None = None,
                 judge: dict | None = None, candidate_models: dict | None = None, scorecards: str = "scorecards",
                 rescored_from: str | None = None) -> dict[str, Any]:
    by_candidate: dict[str, list[Scorecard]] = defaultdict(list)
    for c in cards:
        by_candidate[c.candidate].append(c)
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "suite": {"id": suite.id, "version": suite.manifest.version, "sha256": suite.sha256},
        "instructions_sha256": {aid: a.instructions_sha256 for aid, a in sorted(suite.agents.items())},
        "run": config.as_dict(),
        "caller": caller or {"kind": config.caller, "model": None},
        "candidate_models": candidate_models or {},
        "judge": judge,
        "graders": sorted({g for c in cards for g in c.graders}),
        "rescored_from": rescored_from,
        "code": code_version(),
        "coverage_floor": COVERAGE_FLOOR,
        "candidates": {name: candidate_summary(group, getattr(config, "prices", None)) for name, group in by_candidate.items()},
        "manifest": manifest(out_dir, scorecards),
    }
