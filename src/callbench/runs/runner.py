"""A sweep: candidates × scenarios × repeats, each call run, scored and written to the run folder
(its layout: callbench/layout.py; its manifest, run.json: runs/manifest.py).
"""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..call import Trace
from ..callers import ScriptedCallerUnavailable
from ..errors import AudioError
from ..files import write_json_atomic
from ..grading import Scorecard
from ..layout import STORE, TEMPORARY_SUFFIX, RunLayout
from ..reports.report import build_report
from ..spec import Suite
from .budget import Budget
from .config import DEFAULT_CANDIDATES, ConfigError, RunConfig
from .episodes import Attempt, Cast
from .executors import AttemptJob, Executor, LocalExecutor, close_models
from .manifest import RunManifest
from .store import RunStore, StoreError, run_lock, unwritable

__all__ = [
    "DEFAULT_CANDIDATES",
    "RunConfig",
    "RunResult",
    "attempt_order",
    "make_cast",
    "plan",
    "run_suite",
    "run_suite_async",
    "unheard_scenarios",
]


@dataclass
class RunResult:
    out_dir: Path
    report: dict[str, Any]
    scorecards: list[Scorecard] = field(default_factory=list)


def make_cast(config: RunConfig, gate_factory: Any = None) -> Cast:
    """Resolve every candidate and the caller before anything runs, so a bad name or a missing key
    fails fast."""
    cast = Cast(
        caller=config.caller,
        candidate_options=dict(config.candidate_options),
        caller_options=dict(config.caller_options),
        judge=config.judge,
        judge_options=dict(config.judge_options),
        limits=dict(config.limits),
        step_timeout_s=config.step_timeout_s,
        call_timeout_s=config.call_timeout_s,
        language_detector=config.language_detector,
        gate_factory=gate_factory,
        audio=config.audio if config.channel == "audio" else None,
    )
    for name in config.candidates:
        cast.entry(name)
    if config.judge:
        cast.judge_model()
    return cast


def plan(suite: Suite, config: RunConfig, cast: Cast | None = None) -> list[Attempt]:
    """The attempts of a run; refuses up front (not mid-run) scenarios the chosen caller cannot
    play."""
    scenario_ids = list(config.scenarios) if config.scenarios else list(suite.scenarios)
    unknown = [s for s in scenario_ids if s not in suite.scenarios]
    if unknown:
        raise ConfigError(f"unknown scenario(s): {', '.join(unknown)}")
    unplayable = []
    cast = cast or make_cast(config)
    for sid in scenario_ids:
        try:
            cast.make_caller(suite.scenarios[sid], suite)
        except ScriptedCallerUnavailable as exc:
            unplayable.append(str(exc))
    if unplayable:
        raise ConfigError(f"the '{config.caller}' caller cannot run: " + "; ".join(unplayable))
    unheard = unheard_scenarios(suite, config, scenario_ids)
    if unheard and (config.scenarios or len(unheard) == len(scenario_ids)):
        # scenarios named on purpose, or nothing left: refused now, not mid-run
        raise ConfigError(next(iter(unheard.values())))
    return attempt_order(config, [s for s in scenario_ids if s not in unheard])


def unheard_scenarios(
    suite: Suite, config: RunConfig, scenario_ids: list[str] | None = None
) -> dict[str, str]:
    """Scenarios of an audio run in a language its recogniser cannot hear, with why (the error
    naming the recogniser to use). A run over a whole suite leaves them out and says so (the
    starter suite's Gujarati calls under `--recognizer auto`); `plan` refuses a run that names
    them."""
    if config.channel != "audio":
        return {}
    ids = scenario_ids if scenario_ids is not None else list(config.scenarios or suite.scenarios)
    why: dict[str, str] = {}
    for language in sorted({suite.scenarios[sid].language for sid in ids}):
        try:
            config.audio.recognizer_for(language)
        except AudioError as exc:
            why[language] = str(exc)
    return {
        sid: why[suite.scenarios[sid].language]
        for sid in ids
        if suite.scenarios[sid].language in why
    }


def attempt_order(config: RunConfig, scenario_ids: list[str]) -> list[Attempt]:
    """The one order of a run's attempts, used for running and for re-scoring, so reports line
    up."""
    return [
        Attempt(c, s, r)
        for c in config.candidates
        for s in scenario_ids
        for r in range(config.repeats)
    ]


def _strip(card: Scorecard) -> Scorecard:
    """What the report needs of a call, without its per-item verdicts (those stay in the store and
    files)."""
    return card.model_copy(update={"items": []})


def _check_resumable(out_dir: Path, store: RunStore, manifest: RunManifest) -> None:
    """Resume only the same run: a changed suite or configuration would mix two experiments in one
    report."""
    stored = store.get_meta("run")
    if stored is None:
        raise StoreError(f"{out_dir}: no run store to resume ({STORE} missing or empty)")
    old = RunManifest.parse(stored, str(RunLayout(out_dir).store))
    if old.suite.sha256 != manifest.suite.sha256:
        raise StoreError(
            f"cannot resume {out_dir}: the suite changed (sha256 {old.suite.sha256[:12]}… "
            "then, "
            f"{manifest.suite.sha256[:12]}… now)"
        )
    changed = old.changed_settings(manifest)
    if changed:
        raise StoreError(
            f"cannot resume {out_dir}: the run configuration changed ({', '.join(changed)})"
        )


async def run_suite_async(
    suite: Suite,
    config: RunConfig,
    out_dir: Path,
    on_done: Callable[[Attempt, Scorecard], None] | None = None,
    *,
    resume: bool = False,
    executor: Executor | None = None,
    max_cost: float | None = None,
) -> RunResult:
    """Run (or resume) a sweep, holding the run folder's lock from before anything there is touched
    until the
    report is written: a second sweep of the folder refuses at once instead of running every call
    again."""
    cast = make_cast(config)
    attempts = plan(suite, config, cast)
    manifest = RunManifest.build(suite, config)
    layout = RunLayout(out_dir)
    if resume and not layout.store.is_file():  # checked before the lock, which would leave a file
        raise StoreError(f"{out_dir}: no run store to resume ({STORE} missing or empty)")
    if not resume:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise unwritable(out_dir, exc) from None
    with run_lock(out_dir):
        store = RunStore(layout.store, create=not resume)
        try:
            return await _sweep(
                suite,
                config,
                out_dir,
                store,
                cast,
                attempts,
                manifest,
                on_done,
                resume,
                executor,
                max_cost,
            )
        finally:
            store.close()


async def _sweep(
    suite: Suite,
    config: RunConfig,
    out_dir: Path,
    store: RunStore,
    cast: Cast,
    attempts: list[Attempt],
    manifest: RunManifest,
    on_done: Callable[[Attempt, Scorecard], None] | None,
    resume: bool,
    executor: Executor | None,
    max_cost: float | None,
) -> RunResult:
    """The store commits each finished call whole; the JSON files beside it are written from the
    same data just
    before, and rewritten on resume if they went missing. The first save the disk refuses stops
    the sweep."""
    layout = RunLayout(out_dir)
    if resume:
        _check_resumable(out_dir, store, manifest)
        _remove_leftovers(out_dir)
    else:
        store.set_meta(run=manifest.as_json())
        try:
            manifest.write(out_dir)
        except OSError as exc:
            raise unwritable(out_dir, exc) from None
    by_id = {a.trace_id: a for a in attempts}
    store.add_attempts(attempts)
    store.reset_interrupted()
    for (
        trace_id,
        trace_json,
        card_json,
    ) in store.finished():  # files lost after the commit (deleted, an older run)
        a = by_id[trace_id]
        if not layout.trace(a).exists() or not layout.scorecard(a).exists():
            _write(out_dir, layout.trace(a), trace_json)
            _write(out_dir, layout.scorecard(a), card_json)
    todo = [by_id[t] for t in store.pending()]
    budget = Budget(max_cost, config.prices)
    for _, _, card_json in store.finished():
        budget.add(Scorecard.model_validate_json(card_json))
    made: set[Path] = set()
    broken: list[StoreError] = []

    def halted(exc: StoreError) -> StoreError:
        """The first failed save ends the sweep; calls still in flight are then not saved (they run
        on resume)."""
        broken.append(exc)
        return StoreError(
            f"{exc}; the calls saved so far are kept: resume the run once this is fixed"
        )

    def start(attempt: Attempt) -> None:
        try:
            store.mark_running(attempt.trace_id)
        except StoreError as exc:
            raise halted(exc) from None

    def deliver(attempt: Attempt, trace: Trace, card: Scorecard) -> None:
        if broken:
            return
        try:
            _save_call(out_dir, store, attempt, trace, card, made)
        except StoreError as exc:
            raise halted(exc) from None
        budget.add(card)
        if on_done:
            on_done(attempt, card)

    job = AttemptJob(suite, config, cast, cast.graders(), on_start=start)
    chosen = executor or LocalExecutor(config.concurrency)
    # what exists now (suite, SDKs, plan) lives all sweep: keep the full collections from walking it
    gc.freeze()
    try:
        await chosen.run(todo, job, deliver, lambda: bool(broken) or budget.exhausted())
    finally:
        gc.unfreeze()
        await close_models(cast)
    # read back rather than kept as calls finish: memory stays flat however long the sweep
    cards = [_strip(Scorecard.model_validate_json(c)) for _, _, c in store.finished()]
    counts = store.counts()
    report = build_report(
        suite,
        config,
        cards,
        out_dir,
        caller=cast.caller_info(),
        judge=cast.judge_info(),
        candidate_models={n: e.model for n, e in cast.entries.items() if e.model},
        run_id=manifest.run_id,
        generation=manifest.generation,
    )
    report["store"] = {
        "attempts": len(attempts),
        **{k: counts.get(k, 0) for k in ("pending", "running", "completed", "excluded")},
        "stopped_by_budget": budget.exhausted() and counts.get("pending", 0) > 0,
        "spent_usd": round(budget.spent, 6),
    }
    _write(out_dir, layout.report(), json.dumps(report, indent=1, ensure_ascii=False))
    return RunResult(out_dir=out_dir, report=report, scorecards=cards)


def _save_call(
    out_dir: Path, store: RunStore, attempt: Attempt, trace: Trace, card: Scorecard, made: set[Path]
) -> None:
    """Files first, then the commit that makes the call count: a call whose files the disk refused
    is not done
    and runs again on resume. If the commit fails too, its files go: nothing is left half-saved."""
    trace_json, card_json = trace.to_json(), card.model_dump_json(indent=1)
    layout = RunLayout(out_dir)
    paths = (layout.trace(attempt), layout.scorecard(attempt))
    try:
        for rel, data in trace.audio_files.items():  # content-addressed: the same name, the same
            _write_audio(out_dir / rel, data)  # bytes, so an existing file is kept
        for path, text in zip(paths, (trace_json, card_json)):
            write_json_atomic(path, text, made)
        store.finish(
            attempt.trace_id,
            card.outcome,
            trace_json,
            card_json,
            card.failure.failure_class if card.outcome == "excluded" and card.failure else None,
        )
    except (OSError, StoreError) as exc:
        for path in paths:
            try:
                path.unlink(missing_ok=True)
            except OSError:
                pass
        raise (exc if isinstance(exc, StoreError) else unwritable(out_dir, exc)) from None


def _write_audio(path: Path, data: bytes) -> None:
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    tmp.replace(path)


def _write(out_dir: Path, path: Path, text: str) -> None:
    """A file of the run; the disk refusing it (full, read-only) is the environment's fault: one
    line, no traceback."""
    try:
        write_json_atomic(path, text)
    except OSError as exc:
        raise unwritable(out_dir, exc) from None


def _remove_leftovers(out_dir: Path) -> None:
    """Temporary files of writes a kill cut short (their calls run again). Only ever done under the
    run's lock:
    otherwise it could pull a file from under another process's write."""
    try:
        for leftover in out_dir.rglob("*" + TEMPORARY_SUFFIX):
            if leftover.is_file():
                leftover.unlink()
    except OSError as exc:
        raise unwritable(out_dir, exc) from None


def run_suite(
    suite: Suite,
    config: RunConfig,
    out_dir: str | Path,
    on_done: Callable[[Attempt, Scorecard], None] | None = None,
    **options: Any,
) -> RunResult:
    return asyncio.run(run_suite_async(suite, config, Path(out_dir), on_done, **options))
