"""report.json: what a run measured, how sure we are, where candidates fail and what they cost,
with a sha256 manifest of every artifact it summarises (so a leaderboard can verify it offline).

The report is built as the typed `Report` (reports/model.py), so a field of the wrong type or a
misspelt key fails here, in the harness, rather than in a reader months later."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Protocol

from ..files import write_json_atomic
from ..grading import Scorecard
from ..grading.scorecard import CUTOFF
from ..layout import MANIFEST, SCORECARDS, TRACES
from ..provenance import code_version
from ..spec import Suite
from ..spec.generation_record import GenerationRecord
from .model import (
    AudioCell,
    AudioTable,
    Bootstrap,
    CallerInfo,
    CandidateRow,
    CodeVersion,
    Gameability,
    JudgeInfo,
    Report,
    RunSettings,
    Scoring,
    SuiteRef,
    as_report,
)
from .slices_requests import add_request_slices
from .statistics import comparisons, intervals, pass_hat, ranking, slices
from .summary import COVERAGE_FLOOR, candidate_summary


class RunConfig(Protocol):
    """What a report reads of a run's configuration (runs.RunConfig has it; reports sit below runs,
    so they name only the part they read)."""

    @property
    def scoring(self) -> str: ...
    @property
    def prices(self) -> dict[str, dict[str, float]]: ...
    @property
    def caller(self) -> str: ...
    def as_dict(self) -> dict[str, Any]: ...


__all__ = ["Report", "build_report", "code_version", "make_report", "manifest", "write_report"]

REPORT_SCHEMA_VERSION = 6
"""3: scoring modes (guards by default, the reference formula on request), guard summaries,
completion at the provisional cutoff, and the gameability figure. 4: per candidate, completion by
the number of requests (requests-N tags) and the transfer rate by persona. 5: `generation`, the
suite's generation manifest as the run recorded it, and `seal`, what `callbench verify-seal` found
(the report is official only when it verified). 6: `audio`, word error rates and completion
by background condition for runs through the audio channel."""
SCORING_NOTE = {
    "guards": "guards: a kept rule (forbidden action, gate, 'never say', no-write, obligation) "
    "enters neither side of "
    "its pillar; a broken one enters with r = 0 and fails the call",
    "reference": "reference: every applicable item on both sides, kept rules included (comparable "
    "with published "
    "figures; doing nothing earns the kept rules)",
}


def manifest(out_dir: Path, scorecards: str = SCORECARDS) -> dict[str, str]:
    files = sorted(p for sub in (TRACES, scorecards) for p in (out_dir / sub).rglob("*.json"))
    files += [out_dir / MANIFEST] if (out_dir / MANIFEST).exists() else []
    return {
        p.relative_to(out_dir).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(files)
    }


BASELINE_FLOOR, GAMING = "noop", ("shortcut", "spray")


def gameability(candidates: dict[str, CandidateRow]) -> Gameability | None:
    """max(shortcut, spray) - noop on the task pillar: how much a script with no model earns above
    doing nothing. None unless the noop and at least one gaming baseline ran."""
    noop = candidates.get(BASELINE_FLOOR)
    floor = noop.task if noop else None
    gaming = {
        name: task
        for name in GAMING
        if name in candidates and (task := candidates[name].task) is not None
    }
    if floor is None or not gaming:
        return None
    worst = max(gaming, key=lambda name: gaming[name])
    return Gameability(
        figure=round(gaming[worst] - floor, 2), noop=floor, by=worst, baselines=gaming
    )


def make_report(
    suite: Suite,
    config: RunConfig,
    cards: list[Scorecard],
    out_dir: Path,
    *,
    caller: dict[str, Any] | None = None,
    judge: dict[str, Any] | None = None,
    candidate_models: dict[str, Any] | None = None,
    scorecards: str = SCORECARDS,
    rescored_from: str | None = None,
    run_id: str | None = None,
    samples: int = 2000,
    generation: GenerationRecord | None = None,
) -> Report:
    """The typed report of a run's scorecards (validated as it is built)."""
    mode = config.scoring
    cards = [c.in_mode(mode) for c in cards]
    by_candidate: dict[str, list[Scorecard]] = defaultdict(list)
    for c in cards:
        by_candidate[c.candidate].append(c)
    run_id = run_id or out_dir.name
    candidates: dict[str, CandidateRow] = {}
    for name, group in by_candidate.items():
        row = candidate_summary(group, config.prices)
        row.intervals = intervals(group, run_id, name, samples)
        row.pass_k = pass_hat(group)
        candidates[name] = row
    add_request_slices(candidates, by_candidate, suite)
    order = ranking(candidates)
    return Report(
        schema_version=REPORT_SCHEMA_VERSION,
        run_id=run_id,
        suite=SuiteRef(id=suite.id, version=suite.manifest.version, sha256=suite.sha256),
        instructions_sha256={aid: a.instructions_sha256 for aid, a in sorted(suite.agents.items())},
        run=RunSettings.model_validate(config.as_dict()),
        scoring=Scoring.model_validate(
            {"mode": mode, "rule": SCORING_NOTE[mode], "cutoff": CUTOFF}
        ),
        gameability=gameability(candidates),
        caller=CallerInfo.model_validate(caller or {"kind": config.caller, "model": None}),
        candidate_models=candidate_models or {},
        judge=JudgeInfo.model_validate(judge) if judge else None,
        graders=sorted({g for c in cards for g in c.graders}),
        rescored_from=rescored_from,
        code=CodeVersion(**code_version()),
        coverage_floor=COVERAGE_FLOOR,
        bootstrap=Bootstrap(
            samples=samples, levels="agents > scenarios > repeats", seeded_by="run_id"
        ),
        ranking=order,
        unmeasured=sorted(n for n, r in candidates.items() if not r.measured),
        candidates=candidates,
        comparisons=comparisons(by_candidate, order, run_id, samples),
        slices=slices(cards, suite),
        audio=audio_table(cards),
        manifest=manifest(out_dir, scorecards),
        generation=generation,
    )


def audio_table(cards: list[Scorecard]) -> AudioTable | None:
    """Per candidate and background condition: calls, completion, and word error rates weighted
    by the words meant (a long turn misheard counts for more than a short one). None when no call
    went through the audio channel."""
    groups: dict[str, dict[str, list[Scorecard]]] = defaultdict(lambda: defaultdict(list))
    for c in cards:
        if c.outcome == "completed" and c.audio is not None:
            groups[c.candidate][c.audio.background].append(c)
    if not groups:
        return None

    def wer(group: list[Scorecard], side: str) -> float | None:
        pairs = [
            (getattr(c.audio, f"{side}_wer"), getattr(c.audio, f"{side}_words")) for c in group
        ]
        pairs = [(w, n) for w, n in pairs if w is not None and n]
        total = sum(n for _, n in pairs)
        return round(sum(w * n for w, n in pairs) / total, 4) if total else None

    return {
        cand: {
            bg: AudioCell(
                calls=len(group),
                completed=sum(c.deterministic_passed for c in group),
                completion=round(sum(c.deterministic_passed for c in group) / len(group), 4),
                caller_wer=wer(group, "caller"),
                agent_wer=wer(group, "agent"),
                caller_words=sum(c.audio.caller_words for c in group if c.audio),
            )
            for bg, group in sorted(by_bg.items())
        }
        for cand, by_bg in sorted(groups.items())
    }


def build_report(
    suite: Suite,
    config: RunConfig,
    cards: list[Scorecard],
    out_dir: Path,
    *,
    caller: dict[str, Any] | None = None,
    judge: dict[str, Any] | None = None,
    candidate_models: dict[str, Any] | None = None,
    scorecards: str = SCORECARDS,
    rescored_from: str | None = None,
    run_id: str | None = None,
    samples: int = 2000,
    generation: GenerationRecord | None = None,
) -> dict[str, Any]:
    """`make_report` as report.json holds it: a plain dict, every field validated on the way."""
    return make_report(
        suite,
        config,
        cards,
        out_dir,
        caller=caller,
        judge=judge,
        candidate_models=candidate_models,
        scorecards=scorecards,
        rescored_from=rescored_from,
        run_id=run_id,
        samples=samples,
        generation=generation,
    ).as_json()


def write_report(path: Path, report: Report | dict[str, Any]) -> Report:
    """Validate a report (a dict, as `build_report` returns and the runner extends, or the model)
    and write it atomically; a report that does not match the schema is never written."""
    typed = as_report(report)
    write_json_atomic(path, json.dumps(typed.as_json(), indent=1, ensure_ascii=False))
    return typed
