"""Re-scoring a stored run: the traces are graded again with the current (or chosen) graders,
without
replaying a single call, and the new scorecards and report are written beside the old ones."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..call import read_trace
from ..errors import CallbenchError
from ..files import write_json_atomic
from ..grading import Scorecard
from ..grading.scorecard import SCORING_MODES
from ..layout import scorecards_folder
from ..reports.report import build_report
from .episodes import Cast
from .executors import close_models, score_off_loop
from .stored import open_run


@dataclass
class RescoreResult:
    report_path: Path
    report: dict[str, Any]
    scorecards: list[Scorecard]


def rescore(
    run_dir: str | Path,
    *,
    judge: str | None = None,
    judge_options: dict[str, Any] | None = None,
    graders: list[str] | None = None,
    tag: str | None = None,
    force: bool = False,
    scoring: str | None = None,
) -> RescoreResult:
    return asyncio.run(
        rescore_async(
            Path(run_dir),
            judge=judge,
            judge_options=judge_options,
            graders=graders,
            tag=tag,
            force=force,
            scoring=scoring,
        )
    )


async def rescore_async(
    run_dir: Path,
    *,
    judge: str | None = None,
    judge_options: dict[str, Any] | None = None,
    graders: list[str] | None = None,
    tag: str | None = None,
    force: bool = False,
    scoring: str | None = None,
) -> RescoreResult:
    """`scoring`: the mode of the new report (default: the run's own). `judge_options` of the
    run's own judge add to (and override) the options it ran with: its key variable and settings
    stay; a different judge takes only the options given."""
    run = open_run(run_dir)
    suite, stored = run.suite, run.config
    if run.suite_changed and not force:
        raise CallbenchError(
            f"the suite has changed since this run (sha256 {run.manifest.suite.sha256[:12]}… "
            f"then, {suite.sha256[:12]}… now): re-scoring would grade old calls against new "
            "rules; use --force to do it anyway"
        )
    config = replace(
        stored,
        judge=judge,
        judge_options=run.judge_options(judge, judge_options),
        scoring=scoring or stored.scoring,
    )
    if config.scoring not in SCORING_MODES:
        raise CallbenchError(
            f"unknown scoring mode '{config.scoring}' (one of {', '.join(SCORING_MODES)})"
        )
    cast = Cast(
        caller=config.caller,
        judge=config.judge,
        judge_options=dict(config.judge_options),
        limits=dict(config.limits),
    )
    chosen = cast.graders()
    if graders:
        unknown = set(graders) - {g.name for g in chosen}
        if unknown:
            raise CallbenchError(
                f"unknown grader(s) {sorted(unknown)} (available: "
                f"{', '.join(g.name for g in chosen)})"
            )
        chosen = [g for g in chosen if g.name in graders]
    tag = tag or "rescored-" + dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = scorecards_folder(tag)
    cards: list[Scorecard] = []
    try:
        for attempt in run.attempts():
            path = run.layout.trace(attempt)
            if not path.exists():
                # an attempt the run never finished: nothing to grade, the report counts what exists
                continue
            trace = read_trace(path)
            card = await score_off_loop(
                trace, suite.scenarios[attempt.scenario_id], suite.manifest, chosen
            )
            write_json_atomic(run.layout.scorecard(attempt, folder), card.model_dump_json(indent=1))
            cards.append(card)
    finally:
        await close_models(cast)
    old = run.old_report()
    report = build_report(
        suite,
        config,
        cards,
        run_dir,
        caller=old.get("caller"),
        judge=cast.judge_info(),
        candidate_models=old.get("candidate_models"),
        scorecards=folder,
        rescored_from=run.layout.report().name,
        run_id=run.manifest.run_id,
        generation=run.manifest.generation,
    )
    report_path = run.layout.report(tag)
    write_json_atomic(report_path, json.dumps(report, indent=1, ensure_ascii=False))
    return RescoreResult(report_path=report_path, report=report, scorecards=cards)
