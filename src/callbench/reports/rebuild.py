"""`callbench report RUN`: rebuild report.json from what the run stored, without running or grading
anything."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import CallbenchError
from ..grading import Scorecard


def rebuild_report(
    run_dir: str | Path, scorecards: str = "scorecards"
) -> tuple[Path, dict[str, Any]]:
    from ..runs.files import write_json_atomic
    from ..runs.rescore import read_run
    from ..runs.runner import attempt_order, config_from_run, scorecard_path
    from ..suite_check import load_suite
    from .report import build_report

    run_dir = Path(run_dir)
    run = read_run(run_dir)
    suite = load_suite(run["suite"].get("source") or run["suite"]["id"])
    if suite.sha256 != run["suite"]["sha256"]:
        raise CallbenchError(
            f"{run_dir}: the suite has changed since this run; the report would describe other "
            "rules"
        )
    config = config_from_run(
        run
    )  # the run's own configuration, read the one way every command reads it
    cards = []
    for attempt in attempt_order(
        config, list(config.scenarios) if config.scenarios else list(suite.scenarios)
    ):
        path = scorecard_path(run_dir, attempt, scorecards)
        if path.exists():
            cards.append(Scorecard.model_validate_json(path.read_text(encoding="utf-8")))
    if not cards:
        raise CallbenchError(f"{run_dir}: no scorecards under {scorecards}/")
    old_path = run_dir / "report.json"
    old = json.loads(old_path.read_text(encoding="utf-8")) if old_path.exists() else {}
    report = build_report(
        suite,
        config,
        cards,
        run_dir,
        caller=old.get("caller"),
        judge=old.get("judge"),
        candidate_models=old.get("candidate_models"),
        scorecards=scorecards,
        run_id=run.get("run_id"),
    )
    write_json_atomic(old_path, json.dumps(report, indent=1, ensure_ascii=False))
    return old_path, report
