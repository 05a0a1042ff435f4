"""A sweep: candidates × scenarios × repeats, each call run, scored and written to the run folder.

Layout of a run folder:
    run.json                                   the run's configuration
    traces/<candidate>/<scenario>/r<k>.json    one trace per attempt, written whole (temp file + rename)
    scorecards/<candidate>/<scenario>/r<k>.json
    report.json                                summary + sha256 manifest of every file above
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._version import __version__
from ..call import Trace
from ..grading import Scorecard
from ..grading.scorecard import score_trace_async
from ..spec import Suite
from .episodes import Attempt, Cast, run_attempt


@dataclass(frozen=True)
class RunConfig:
    candidates: tuple[str, ...] = ("oracle", "noop", "shortcut")
    repeats: int = 1
    seed: int = 0
    caller: str = "scripted"
    concurrency: int = 8
    scenarios: tuple[str, ...] | None = None
    infra_reruns: int = 3
    """an attempt that fails for infrastructure reasons (provider, caller simulator) is rerun this many times"""
    candidate_options: dict[str, Any] = field(default_factory=dict, hash=False)
    caller_options: dict[str, Any] = field(default_factory=dict, hash=False)
    judge: str | None = None
    """a model spec for the task and conversation judges; None: judged items are reported as not measured"""
    judge_options: dict[str, Any] = field(default_factory=dict, hash=False)
    prices: dict[str, dict[str, float]] = field(default_factory=dict, hash=False)
    """USD per million tokens by model label: {"openai:gpt-4.1-mini": {"input": .4, "cached_input": .1, "output": 1.6}}"""

    def as_dict(self) -> dict[str, Any]:
        return {"candidates": list(self.candidates), "repeats": self.repeats, "seed": self.seed, "caller": self.caller,
                "scenarios": list(self.scenarios) if self.scenarios else None, "infra_reruns": self.infra_reruns,
                "judge": self.judge}


@dataclass
class RunResult:
    out_dir: Path
    report: dict[str, Any]
    scorecards: list[Scorecard] = field(default_factory=list)


def run_id(suite: Suite, config: RunConfig) -> str:
    """Derived from what determines the run (suite hash and configuration), not from time or place, so the
    statistics seeded by it are the same for the same run wherever and whenever it is rebuilt."""
    import hashlib

    key = json.dumps({"suite": suite.sha256, **config.as_dict()}, sort_keys=True)
    return f"{suite.id}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def make_cast(config: RunConfig) -> Cast:
    """Resolve every candidate and the caller before anything runs, so a bad name or a missing key fails fast."""
    cast = Cast(caller=config.caller, candidate_options=dict(config.candidate_options), caller_options=dict(config.caller_options),
                judge=config.judge, judge_options=dict(config.judge_options))
    for name in config.candidates:
        cast.entry(name)
    if config.judge:
        cast.judge_model()
    return cast


def plan(suite: Suite, config: RunConfig, cast: Cast | None = None) -> list[Attempt]:
    """The attempts of a run; refuses up front (not mid-run) scenarios the chosen caller cannot play."""
    scenario_ids = list(config.scenarios) if config.scenarios else list(suite.scenarios)
    unknown = [s for s in scenario_ids if s not in suite.scenarios]
    if unknown:
        raise ValueError(f"unknown scenario(s): {', '.join(unknown)}")
    unplayable = []
    cast = cast or make_cast(config)
    for sid in scenario_ids:
        try:
            cast.make_caller(suite.scenarios[sid], suite)
        except ValueError as exc:
            unplayable.append(str(exc))
    if unplayable:
        raise ValueError(f"the '{config.caller}' caller cannot run: " + "; ".join(unplayable))
    return attempt_order(config, scenario_ids)


def attempt_order(config: RunConfig, scenario_ids: list[str]) -> list[Attempt]:
    """The one order of a run's attempts, used for running and for re-scoring, so reports line up."""
    return [Attempt(c, s, r) for c in config.candidates for s in scenario_ids for r in range(config.repeats)]


def write_json_atomic(path: Path, text: str) -> None:
    """Write whole or not at all: a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def trace_path(out: Path, attempt: Attempt) -> Path:
    return out / "traces" / attempt.candidate / attempt.scenario_id / f"r{attempt.repeat}.json"


def scorecard_path(out: Path, attempt: Attempt) -> Path:
    return out / "scorecards" / attempt.candidate / attempt.scenario_id / f"r{attempt.repeat}.json"


async def run_suite_async(suite: Suite, config: RunConfig, out_dir: Path,
                          on_done: Callable[[Attempt, Scorecard], None] | None = None) -> RunResult:
    from ..reports.report import build_report

    cast = make_cast(config)
    attempts = plan(suite, config, cast)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out_dir / "run.json", json.dumps({"run_id": run_id(suite, config),
                                                       "suite": {"id": suite.id, "version": suite.manifest.version, "sha256": suite.sha256,
                                                                 "source": str(suite.root)},
                                                       "config": config.as_dict(), "prices": config.prices,
                                                       "code_version": __version__}, indent=1))
    graders = cast.graders()
    gate = asyncio.Semaphore(max(1, config.concurrency))
    cards: dict[Attempt, Scorecard] = {}

    async def one(attempt: Attempt) -> None:
        async with gate:
            trace: Trace = await run_attempt(suite, attempt, config.seed, cast=cast, infra_reruns=config.infra_reruns)
        card = await score_trace_async(trace, suite.scenarios[attempt.scenario_id], suite.manifest, graders)
        write_json_atomic(trace_path(out_dir, attempt), trace.to_json())
        write_json_atomic(scorecard_path(out_dir, attempt), card.model_dump_json(indent=1))
        cards[attempt] = card
        if on_done:
            on_done(attempt, card)

    try:
        await asyncio.gather(*(one(a) for a in attempts))
    finally:
        for model in cast.models.values():
            close = getattr(model, "aclose", None)
            if close is not None:
                await close()
    ordered = [cards[a] for a in attempts]
    report = build_report(suite, config, ordered, out_dir, caller=cast.caller_info(), judge=cast.judge_info(),
                          candidate_models={n: e.model for n, e in cast.entries.items() if e.model}, run_id=run_id(suite, config))
    write_json_atomic(out_dir / "report.json", json.dumps(report, indent=1, ensure_ascii=False))
    return RunResult(out_dir=out_dir, report=report, scorecards=ordered)


def run_suite(suite: Suite, config: RunConfig, out_dir: str | Path,
              on_done: Callable[[Attempt, Scorecard], None] | None = None) -> RunResult:
    return asyncio.run(run_suite_async(suite, config, Path(out_dir), on_done))
