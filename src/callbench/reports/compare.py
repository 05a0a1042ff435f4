"""`callbench compare`: two candidates paired on the scenarios both completed, from a run or two
reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import CallbenchError
from ..layout import MANIFEST, SCORECARDS, candidate_folder
from .model import Report, load_report


def _from_report(report: Report, candidate: str | None) -> tuple[str, dict[str, list[float]]]:
    names = list(report.candidates)
    name = candidate or (names[0] if len(names) == 1 else None)
    if name is None or name not in report.candidates:
        raise CallbenchError(f"name one of the report's candidates: {', '.join(names)}")
    rows = report.candidates[name].per_scenario
    overall = all(r.overall is not None for r in rows.values())
    series = {}
    for sid, r in rows.items():
        value = r.overall if overall else r.task
        if value is not None:
            series[f"{r.agent}/{sid}"] = [value]
    return name, series


def _from_run(path: Path, a: str, b: str) -> dict[str, dict[str, list[float]]]:
    """Per call, from the run's scorecards: overall where measured, else task."""
    from ..grading import Scorecard

    series = {}
    for name in (a, b):
        folder = path / SCORECARDS / candidate_folder(name)
        if not folder.is_dir():
            raise CallbenchError(f"{path}: no scorecards for candidate '{name}'")
        data: dict[str, list[float]] = {}
        for file in sorted(folder.rglob("*.json")):
            card = Scorecard.model_validate_json(file.read_text(encoding="utf-8"))
            value = card.overall if card.overall is not None else card.task.score
            if card.outcome == "completed" and value is not None:
                data.setdefault(f"{card.agent_id}/{card.scenario_id}", []).append(value)
        series[name] = data
    return series


def compare(
    first: str | Path, second: str, third: str | None = None, samples: int = 2000
) -> dict[str, Any]:
    """`compare(RUN, A, B)` pairs per call from the run's scorecards; `compare(REPORT_A, REPORT_B)`
    pairs the
    per-scenario means of two reports (optionally naming the candidate of each as `path::name`)."""
    from ..stats.bootstrap import seed_for
    from ..stats.paired import paired_comparison

    path = Path(first)
    if path.is_dir():
        if third is None:
            raise CallbenchError("compare RUN CANDIDATE_A CANDIDATE_B")
        a, b = second, third
        series = _from_run(path, a, b)
        run_id = (
            json.loads((path / MANIFEST).read_text()).get("run_id", path.name)
            if (path / MANIFEST).exists()
            else path.name
        )
    else:
        reports = []
        for spec in (first, second):
            file, _, cand = str(spec).partition("::")
            reports.append((load_report(file), cand or None))
        (a, da), (b, db) = _from_report(*reports[0]), _from_report(*reports[1])
        if reports[0][0].suite.sha256 != reports[1][0].suite.sha256:
            raise CallbenchError(
                "the two reports were made on different suites (sha256 differs); a paired "
                "comparison needs the same scenarios"
            )
        run_id = f"{reports[0][0].run_id}|{reports[1][0].run_id}"
        if a == b:
            a, b = f"{a} (1)", f"{b} (2)"
        series = {a: da, b: db}
    result = paired_comparison(
        series[a], series[b], samples=samples, seed=seed_for(run_id, "compare", a, b)
    )
    return {"a": a, "b": b, **result.as_dict()}
