"""A sweep: candidates × scenarios × repeats, each call run, scored and written to the run folder.

Layout of a run folder:
    run.json                                   the run's configuration
    run.sqlite                                 the store: what the run has done (runs/store.py)
    run.lock                                   held by the one process sweeping the folder
    traces/<candidate>/<scenario>/r<k>.json    one trace per attempt, written whole (temp file +
    rename)
    scorecards/<candidate>/<scenario>/r<k>.json
    report.json                                summary + sha256 manifest of every file above

<candidate> is `candidate_folder(name)`: the name itself when it is a plain file name, else a slug
and a hash.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._version import __version__
from ..call import Trace
from ..callers import ScriptedCallerUnavailable
from ..grading import Scorecard
from ..spec import Suite
from .budget import Budget
from .config import ConfigError
from .episodes import Attempt, Cast
from .files import write_json_atomic
from .store import RunStore, StoreError, run_lock, unwritable

DEFAULT_CANDIDATES = ("oracle", "noop", "shortcut", "spray")
"""The answer key, the floor and the two scripts with no model: together they show whether the suite
is sound."""


@dataclass(frozen=True)
class RunConfig:
    candidates: tuple[str, ...] = DEFAULT_CANDIDATES
    repeats: int = 1
    seed: int = 0
    caller: str = "scripted"
    concurrency: int = 8
    scenarios: tuple[str, ...] | None = None
    infra_reruns: int = 3
    """an attempt that fails for infrastructure reasons (provider, caller simulator) is rerun this
    many times"""
    candidate_options: dict[str, Any] = field(default_factory=dict, hash=False)
    caller_options: dict[str, Any] = field(default_factory=dict, hash=False)
    judge: str | None = None
    """a model spec for the task and conversation judges; None: judged items are reported as not
    measured"""
    judge_options: dict[str, Any] = field(default_factory=dict, hash=False)
    limits: dict[str, Any] = field(default_factory=dict, hash=False)
    """per endpoint: {"openai:gpt-4.1-mini" or "openai:*": ProviderLimits(concurrency=, rpm=,
    tpm=)}"""
    prices: dict[str, dict[str, float]] = field(default_factory=dict, hash=False)
    """USD per million tokens by model label: {"openai:gpt-4.1-mini": {"input": .4, "cached_input":
    .1, "output": 1.6}}"""
    step_timeout_s: float | None = 300.0
    """the candidate's deadline for one message (a model request, an agent's answer); blown: a model
    error, scored"""
    call_timeout_s: float | None = 900.0
    """the candidate's deadline over a whole call, summed over its messages (the utility-billing
    reference used 900 s)"""
    scoring: str = "guards"
    """how verdicts fold into pillars: "guards" (kept rules earn nothing, broken ones cost) or
    "reference"
    (every applicable item on both sides); scorecards carry both, reports use this one"""

    def as_dict(self) -> dict[str, Any]:
        return {
            "candidates": list(self.candidates),
            "repeats": self.repeats,
            "seed": self.seed,
            "caller": self.caller,
            "scenarios": list(self.scenarios) if self.scenarios else None,
            "infra_reruns": self.infra_reruns,
            "judge": self.judge,
            "scoring": self.scoring,
            "step_timeout_s": self.step_timeout_s,
            "call_timeout_s": self.call_timeout_s,
        }


@dataclass
class RunResult:
    out_dir: Path
    report: dict[str, Any]
    scorecards: list[Scorecard] = field(default_factory=list)


def run_id(suite: Suite, config: RunConfig) -> str:
    """Derived from what determines the run (suite hash and configuration), not from time or place,
    so the
    statistics seeded by it are the same for the same run wherever and whenever it is rebuilt."""
    import hashlib

    key = json.dumps({"suite": suite.sha256, **config.as_dict()}, sort_keys=True)
    return f"{suite.id}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


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
        gate_factory=gate_factory,
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
    return attempt_order(config, scenario_ids)


def attempt_order(config: RunConfig, scenario_ids: list[str]) -> list[Attempt]:
    """The one order of a run's attempts, used for running and for re-scoring, so reports line
    up."""
    return [
        Attempt(c, s, r)
        for c in config.candidates
        for s in scenario_ids
        for r in range(config.repeats)
    ]


PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:+@=-]{0,119}")
"""A candidate name that is already a safe, portable-enough folder name (oracle,
openai:gpt-4.1-mini): kept as is."""


def candidate_folder(name: str) -> str:
    """The folder of a candidate's files. Names are not paths: `http://host/../../x` must not
    write outside the run, and `http://host/a/./b` and `http://host/a/b` are two candidates, so
    two folders. A plain name is its own folder (runs made before read back unchanged); any other
    becomes a readable slug plus a hash of the exact name.
    Plain names never contain "~" and every slug does, so no candidate can land in another's
    folder."""
    if PLAIN_NAME.fullmatch(name):
        return name
    readable = re.sub(r"[^A-Za-z0-9_.+@=-]+", "-", name).strip("-.")[:60].strip("-.") or "candidate"
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{readable}~{digest}"


def trace_path(out: Path, attempt: Attempt) -> Path:
    return (
        out
        / "traces"
        / candidate_folder(attempt.candidate)
        / attempt.scenario_id
        / f"r{attempt.repeat}.json"
    )


def scorecard_path(out: Path, attempt: Attempt, folder: str = "scorecards") -> Path:
    """`folder`: another set of the run's scorecards with the same layout (a re-score's
    scorecards-<tag>)."""
    return (
        out
        / folder
        / candidate_folder(attempt.candidate)
        / attempt.scenario_id
        / f"r{attempt.repeat}.json"
    )


def _strip(card: Scorecard) -> Scorecard:
    """What the report needs of a call, without its per-item verdicts (those stay in the store and
    files)."""
    return card.model_copy(update={"items": []})


def _run_meta(suite: Suite, config: RunConfig) -> dict[str, Any]:
    return {
        "run_id": run_id(suite, config),
        "suite": {
            "id": suite.id,
            "version": suite.manifest.version,
            "sha256": suite.sha256,
            "source": str(suite.root),
        },
        "config": config.as_dict(),
        "prices": config.prices,
        "code_version": __version__,
        "options": {
            role: _public_options(getattr(config, f"{role}_options"))
            for role in ("candidate", "caller", "judge")
        },
    }


def _public_options(options: dict[str, Any]) -> dict[str, Any]:
    """Adapter options as stored for resume: endpoints, key variable names and settings (never a
    key)."""
    out = {
        k: v
        for k, v in options.items()
        if k != "settings" and isinstance(v, (str, int, float, bool, dict, type(None)))
    }
    if options.get("settings") is not None:
        out["settings"] = options["settings"].__dict__
    return out


def config_from_run(meta: dict[str, Any]) -> RunConfig:
    """The configuration a stored run was made with, so `--resume` continues exactly that run."""
    from ..models.base import ModelSettings

    def options(raw: dict[str, Any] | None) -> dict[str, Any]:
        raw = dict(raw or {})
        if isinstance(raw.get("settings"), dict):
            raw["settings"] = ModelSettings(**raw["settings"])
        return raw

    cfg = meta["config"]
    opts = meta.get("options", {})
    return RunConfig(
        candidates=tuple(cfg["candidates"]),
        repeats=cfg["repeats"],
        seed=cfg["seed"],
        caller=cfg["caller"],
        scenarios=tuple(cfg["scenarios"]) if cfg.get("scenarios") else None,
        infra_reruns=cfg.get("infra_reruns", 3),
        judge=cfg.get("judge"),
        prices=meta.get("prices", {}),
        scoring=cfg.get("scoring", "guards"),
        step_timeout_s=cfg.get("step_timeout_s", 300.0),
        call_timeout_s=cfg.get("call_timeout_s", 900.0),
        candidate_options=options(opts.get("candidate")),
        caller_options=options(opts.get("caller")),
        judge_options=options(opts.get("judge")),
    )


def _check_resumable(out_dir: Path, store: RunStore, meta: dict[str, Any]) -> None:
    """Resume only the same run: a changed suite or configuration would mix two experiments in one
    report."""
    old = store.get_meta("run")
    if old is None:
        raise StoreError(f"{out_dir}: no run store to resume (run.sqlite missing or empty)")
    if old["suite"]["sha256"] != meta["suite"]["sha256"]:
        raise StoreError(
            f"cannot resume {out_dir}: the suite changed (sha256 {old['suite']['sha256'][:12]}… "
            "then, "
            f"{meta['suite']['sha256'][:12]}… now)"
        )
    changed = sorted(
        k
        for k in set(old["config"]) | set(meta["config"])
        if old["config"].get(k) != meta["config"].get(k)
    )
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
    executor: Any = None,
    max_cost: float | None = None,
) -> RunResult:
    """Run (or resume) a sweep, holding the run folder's lock from before anything there is touched
    until the
    report is written: a second sweep of the folder refuses at once instead of running every call
    again."""
    cast = make_cast(config)
    attempts = plan(suite, config, cast)
    meta = _run_meta(suite, config)
    if (
        resume and not (out_dir / "run.sqlite").is_file()
    ):  # checked before the lock, which would leave a file
        raise StoreError(f"{out_dir}: no run store to resume (run.sqlite missing or empty)")
    if not resume:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise unwritable(out_dir, exc) from None
    with run_lock(out_dir):
        store = RunStore(out_dir / "run.sqlite", create=not resume)
        try:
            return await _sweep(
                suite,
                config,
                out_dir,
                store,
                cast,
                attempts,
                meta,
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
    meta: dict[str, Any],
    on_done: Callable[[Attempt, Scorecard], None] | None,
    resume: bool,
    executor: Any,
    max_cost: float | None,
) -> RunResult:
    """The store commits each finished call whole; the JSON files beside it are written from the
    same data just
    before, and rewritten on resume if they went missing. The first save the disk refuses stops
    the sweep."""
    from ..reports.report import build_report
    from .executors import AttemptJob, LocalExecutor

    if resume:
        _check_resumable(out_dir, store, meta)
        _remove_leftovers(out_dir)
    else:
        store.set_meta(run=meta)
        _write(out_dir, out_dir / "run.json", json.dumps(meta, indent=1))
    by_id = {a.trace_id: a for a in attempts}
    store.add_attempts(attempts)
    store.reset_interrupted()
    for (
        trace_id,
        trace_json,
        card_json,
    ) in store.finished():  # files lost after the commit (deleted, an older run)
        a = by_id[trace_id]
        if not trace_path(out_dir, a).exists() or not scorecard_path(out_dir, a).exists():
            _write(out_dir, trace_path(out_dir, a), trace_json)
            _write(out_dir, scorecard_path(out_dir, a), card_json)
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
    executor = executor or LocalExecutor(config.concurrency)
    # what exists now (suite, SDKs, plan) lives all sweep: keep the full collections from walking it
    gc.freeze()
    try:
        await executor.run(todo, job, deliver, lambda: bool(broken) or budget.exhausted())
    finally:
        gc.unfreeze()
        for model in cast.models.values():
            close = getattr(model, "aclose", None)
            if close is not None:
                await close()
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
        run_id=meta["run_id"],
    )
    report["store"] = {
        "attempts": len(attempts),
        **{k: counts.get(k, 0) for k in ("pending", "running", "completed", "excluded")},
        "stopped_by_budget": budget.exhausted() and counts.get("pending", 0) > 0,
        "spent_usd": round(budget.spent, 6),
    }
    _write(out_dir, out_dir / "report.json", json.dumps(report, indent=1, ensure_ascii=False))
    return RunResult(out_dir=out_dir, report=report, scorecards=cards)


def _save_call(
    out_dir: Path, store: RunStore, attempt: Attempt, trace: Trace, card: Scorecard, made: set[Path]
) -> None:
    """Files first, then the commit that makes the call count: a call whose files the disk refused
    is not done
    and runs again on resume. If the commit fails too, its files go: nothing is left half-saved."""
    trace_json, card_json = trace.to_json(), card.model_dump_json(indent=1)
    paths = (trace_path(out_dir, attempt), scorecard_path(out_dir, attempt))
    try:
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
        for leftover in out_dir.rglob("*.tmp"):
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
