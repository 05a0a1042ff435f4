"""`callbench report RUN`: rebuild report.json from what the run stored, without running or grading
anything."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import CallbenchError
from ..files import write_json_atomic
from ..grading import Scorecard
from ..layout import SCORECARDS
from ..reports.report import build_report
from .stored import open_run


def rebuild_report(
    run_dir: str | Path, scorecards: str = SCORECARDS
) -> tuple[Path, dict[str, Any]]:
    run_dir = Path(run_dir)
    run = open_run(run_dir)
    if run.suite_changed:
        raise CallbenchError(
            f"{run_dir}: the suite has changed since this run; the report would describe other "
            "rules"
        )
    cards = []
    for attempt in run.attempts():
        path = run.layout.scorecard(attempt, scorecards)
        if path.exists():
            cards.append(Scorecard.model_validate_json(path.read_text(encoding="utf-8")))
    if not cards:
        raise CallbenchError(f"{run_dir}: no scorecards under {scorecards}/")
    old = run.old_report()
    report = build_report(
        run.suite,
        run.config,
        cards,
        run_dir,
        caller=old.get("caller"),
        judge=old.get("judge"),
        candidate_models=old.get("candidate_models"),
        scorecards=scorecards,
        run_id=run.manifest.run_id,
        generation=run.manifest.generation,
    )
    if old.get("seal") is not None:  # verified against this very suite: rebuilding keeps it
        report["seal"] = old["seal"]
    path = run.layout.report()
    write_json_atomic(path, json.dumps(report, indent=1, ensure_ascii=False))
    return path, report
