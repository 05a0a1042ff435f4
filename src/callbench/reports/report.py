"""report.json: what a run measured, how sure we are, where candidates fail and what they cost, with
a
sha256 manifest of every artifact it summarises (so a leaderboard can verify it offline)."""

from __future__ import annotations

import hashlib
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

from .._version import __version__
from ..grading import Scorecard
from ..grading.scorecard import CUTOFF
from .statistics import comparisons, intervals, pass_hat, ranking, slices
from .summary import COVERAGE_FLOOR, candidate_summary

REPORT_SCHEMA_VERSION = 3
"""3: scoring modes (guards by default, the reference formula on request), guard summaries,
completion at the
provisional cutoff, and the gameability figure."""
SCORING_NOTE = {
    "guards": "guards: a kept rule (forbidden action, gate, 'never say', no-write, obligation) "
    "enters neither side of "
    "its pillar; a broken one enters with r = 0 and fails the call",
    "reference": "reference: every applicable item on both sides, kept rules included (comparable "
    "with published "
    "figures; doing nothing earns the kept rules)",
}


def manifest(out_dir: Path, scorecards: str = "scorecards") -> dict[str, str]:
    files = sorted(p for sub in ("traces", scorecards) for p in (out_dir / sub).rglob("*.json"))
    files += [out_dir / "run.json"] if (out_dir / "run.json").exists() else []
    return {
        p.relative_to(out_dir).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(files)
    }


def code_version() -> dict[str, Any]:
    """The package version, plus the git commit and whether the tree was dirty when run from a
    checkout."""
    info: dict[str, Any] = {"package": __version__}
    root = Path(__file__).resolve().parents[3]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5
        )
        if commit.returncode == 0:
            info["commit"] = commit.stdout.strip()
            dirty = subprocess.run(
                ["git", "-C", str(root), "status", "--porcelain", "--", "src"],
                capture_output=True,
                text=True,
                timeout=5,
            )
            info["dirty"] = bool(dirty.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return info


BASELINE_FLOOR, GAMING = "noop", ("shortcut", "spray")


def gameability(candidates: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """max(shortcut, spray) - noop on the task pillar: how much a script with no model earns above
    doing
    nothing. None unless the noop and at least one gaming baseline ran."""
    floor = (candidates.get(BASELINE_FLOOR) or {}).get("task")
    gaming = {
        name: candidates[name]["task"]
        for name in GAMING
        if (candidates.get(name) or {}).get("task") is not None
    }
    if floor is None or not gaming:
        return None
    worst = max(gaming, key=gaming.get)
    return {
        "figure": round(gaming[worst] - floor, 2),
        "noop": floor,
        "by": worst,
        "baselines": gaming,
    }


def build_report(
    suite,
    config,
    cards: list[Scorecard],
    out_dir: Path,
    *,
    caller: dict | None = None,
    judge: dict | None = None,
    candidate_models: dict | None = None,
    scorecards: str = "scorecards",
    rescored_from: str | None = None,
    run_id: str | None = None,
    samples: int = 2000,
) -> dict[str, Any]:
    mode = getattr(config, "scoring", "guards")
    cards = [c.in_mode(mode) for c in cards]
    by_candidate: dict[str, list[Scorecard]] = defaultdict(list)
    for c in cards:
        by_candidate[c.candidate].append(c)
    run_id = run_id or out_dir.name
    prices = getattr(config, "prices", None)
    candidates = {}
    for name, group in by_candidate.items():
        row = candidate_summary(group, prices)
        row["intervals"] = intervals(group, run_id, name, samples)
        row["pass_k"] = pass_hat(group)
        candidates[name] = row
    order = ranking(candidates)
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "run_id": run_id,
        "suite": {"id": suite.id, "version": suite.manifest.version, "sha256": suite.sha256},
        "instructions_sha256": {
            aid: a.instructions_sha256 for aid, a in sorted(suite.agents.items())
        },
        "run": config.as_dict(),
        "scoring": {"mode": mode, "rule": SCORING_NOTE[mode], "cutoff": CUTOFF},
        "gameability": gameability(candidates),
        "caller": caller or {"kind": config.caller, "model": None},
        "candidate_models": candidate_models or {},
        "judge": judge,
        "graders": sorted({g for c in cards for g in c.graders}),
        "rescored_from": rescored_from,
        "code": code_version(),
        "coverage_floor": COVERAGE_FLOOR,
        "bootstrap": {
            "samples": samples,
            "levels": "agents > scenarios > repeats",
            "seeded_by": "run_id",
        },
        "ranking": order,
        "unmeasured": sorted(n for n, r in candidates.items() if not r["measured"]),
        "candidates": candidates,
        "comparisons": comparisons(by_candidate, order, run_id, samples),
        "slices": slices(cards, suite),
        "manifest": manifest(out_dir, scorecards),
    }
