"""How much a script with no model earns on a suite: max(shortcut, spray) - noop on the task pillar.

`noop` is the floor (polite, never acts); `shortcut` copies identifiers into every tool it can fill
and asks
for what it lacks; `spray` recites cue and refusal words, brute-forces verification and calls every
tool
with every identifier it heard. A sound suite keeps both near the floor: whatever they earn, a model
could earn without understanding the call. `callbench validate --gameability` and every run that
includes
the baselines report the figure, with the scenarios that leak the most.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from .spec import Suite

BASELINES = ("noop", "shortcut", "spray")
DEFAULT_LIMIT = 10.0
"""The most a gaming baseline may earn above the noop before a suite is called gameable."""


def measure(
    suite: Suite, repeats: int = 1, seed: int = 0, out_dir: str | Path | None = None
) -> dict[str, Any]:
    """Run the three baselines with the scripted caller and return the figure, per-baseline task
    pillars and the
    scenarios where a gaming baseline earns the most above the noop."""
    from .runs import RunConfig, run_suite

    config = RunConfig(candidates=BASELINES, repeats=repeats, seed=seed)
    with tempfile.TemporaryDirectory(prefix="callbench-gameability-") as tmp:
        result = run_suite(suite, config, Path(out_dir) if out_dir else Path(tmp) / "run")
        report = result.report
    per: dict[str, dict[str, float]] = defaultdict(dict)
    for name in BASELINES:
        for sid, row in report["candidates"][name]["per_scenario"].items():
            per[sid][name] = row["task"] or 0.0
    leaks = sorted(
        (
            (max(v.get("shortcut", 0.0), v.get("spray", 0.0)) - v.get("noop", 0.0), sid)
            for sid, v in per.items()
        ),
        reverse=True,
    )
    return {
        "figure": (report.get("gameability") or {}).get("figure"),
        "limit": DEFAULT_LIMIT,
        "task": {name: report["candidates"][name]["task"] for name in BASELINES},
        "worst_scenarios": [
            {
                "scenario": sid,
                "above_noop": round(gap, 2),
                **{k: round(x, 2) for k, x in per[sid].items()},
            }
            for gap, sid in leaks[:5]
            if gap > 0
        ],
    }
