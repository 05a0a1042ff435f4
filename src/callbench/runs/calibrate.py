"""`callbench calibrate RUN --judge MODEL`: calibration of the LLM graders on a stored run's
traces."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from pathlib import Path
from typing import Any

from ..call import Trace, read_trace
from ..files import write_json_atomic
from ..grading.calibration import calibrate_traces
from ..spec import Scenario
from .episodes import Cast
from .executors import close_models
from .stored import open_run


def calibrate(
    run_dir: str | Path,
    judge: str,
    *,
    judge_options: dict[str, Any] | None = None,
    repeats: int = 2,
    limit: int | None = None,
    tag: str | None = None,
) -> tuple[Path, dict[str, Any]]:
    return asyncio.run(_calibrate(Path(run_dir), judge, judge_options or {}, repeats, limit, tag))


async def _calibrate(
    run_dir: Path,
    judge: str,
    judge_options: dict[str, Any],
    repeats: int,
    limit: int | None,
    tag: str | None,
) -> tuple[Path, dict[str, Any]]:
    run = open_run(run_dir)
    suite = run.suite
    traces: list[tuple[Trace, Scenario]] = []
    for path in sorted(run.layout.traces.rglob("*.json")):
        trace = read_trace(path)
        if trace.outcome == "completed" and trace.scenario_id in suite.scenarios:
            traces.append((trace, suite.scenarios[trace.scenario_id]))
    traces = traces[:limit] if limit else traces
    cast = Cast(
        judge=judge,
        judge_options=run.judge_options(judge, judge_options),
        limits=dict(run.config.limits),
    )
    model, spec = cast.judge_model()
    try:
        result = await calibrate_traces(
            traces,
            suite.manifest,
            model,
            spec.label,
            repeats,
            language_detector=run.config.language_detector,
        )
    finally:
        await close_models(cast)
    result["judge_settings"] = spec.settings.public()
    path = run_dir / f"calibration-{tag or dt.datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    write_json_atomic(path, json.dumps(result, indent=1, ensure_ascii=False))
    return path, result
