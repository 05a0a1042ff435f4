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
from ..grading import Scorecard
from ..grading.scorecard import SCORING_MODES
from .episodes import Cast
from .executors import score_off_loop
from .files import write_json_atomic
from .runner import attempt_order, config_from_run, scorecard_path, trace_path


@dataclass
class RescoreResult:
    report_path: Path
    report: dict[str, Any]
    scorecards: list[Scorecard]


def read_run(run_dir: Path) -> dict[str, Any]:
    try:
        return json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CallbenchError(f"{run_dir}: not a run folder (no run.json)") from None
    except json.JSONDecodeError as exc:
        raise CallbenchError(f"{run_dir}/run.json: not valid JSON ({exc.msg})") from None


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
    """`scoring`: the mode of the new report (default: the run's own)."""
    from ..reports.report import build_report
    from ..suite_check import load_suite

    run = read_run(run_dir)
    suite = load_suite(run["suite"].get("source") or run["suite"]["id"])
    if suite.sha256 != run["suite"]["sha256"] and not force:
        raise CallbenchError(
            f"the suite has changed since this run (sha256 {run['suite']['sha256'][:12]}… then, "
            f"{suite.sha256[:12]}… now): re-scoring would grade old calls against new rules; use "
            "--force to do it anyway"
        )
    stored = config_from_run(run)
    config = replace(
        stored,
        judge=judge,
        judge_options=dict(judge_options or {}),
        scoring=scoring or stored.scoring,
    )
    if config.scoring not in SCORING_MODES:
        raise CallbenchError(
            f"unknown scoring mode '{config.scoring}' (one of {', '.join(SCORING_MODES)})"
        )
    cast = Cast(caller=config.caller, judge=judge, judge_options=dict(judge_options or {}))
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
    folder = f"scorecards-{tag}"
    attempts = attempt_order(
        config, list(config.scenarios) if config.scenarios else list(suite.scenarios)
    )
    cards: list[Scorecard] = []
    for attempt in attempts:
        path = trace_path(run_dir, attempt)
        if not path.exists():
            # an attempt the run never finished: nothing to grade, and the report counts what exists
            continue
        trace = read_trace(path)
        card = await score_off_loop(
            trace, suite.scenarios[attempt.scenario_id], suite.manifest, chosen
        )
        write_json_atomic(scorecard_path(run_dir, attempt, folder), card.model_dump_json(indent=1))
        cards.append(card)
    for model in cast.models.values():
        close = getattr(model, "aclose", None)
        if close is not None:
            await close()
    old = (
        json.loads((run_dir / "report.json").read_text(encoding="utf-8"))
        if (run_dir / "report.json").exists()
        else {}
    )
    report = build_report(
        suite,
        config,
        cards,
        run_dir,
        caller=old.get("caller"),
        judge=cast.judge_info(),
        candidate_models=old.get("candidate_models"),
        scorecards=folder,
        rescored_from="report.json",
        run_id=run.get("run_id"),
    )
    report_path = run_dir / f"report-{tag}.json"
    write_json_atomic(report_path, json.dumps(report, indent=1, ensure_ascii=False))
    return RescoreResult(report_path=report_path, report=report, scorecards=cards)
