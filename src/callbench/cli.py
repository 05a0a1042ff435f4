"""The `callbench` command: a thin face on the library. Heavy imports happen inside commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

import typer

from .cli_generate import generate_app, import_app
from .cli_suites import register_suite_tools

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Evaluate phone and voice agents on whole simulated calls.",
)

SCHEMA_KINDS = ("suite", "agent", "scenario", "trace", "report")


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


@app.command()
def validate(
    suite: str = typer.Argument("starter", help="suite folder or built-in suite id"),
    gameability: bool = typer.Option(
        False,
        "--gameability",
        help="also run the noop, shortcut and spray baselines and "
        "report max(shortcut, spray) - noop on the task pillar",
    ),
    max_gameability: float = typer.Option(
        10.0, "--max-gameability", help="with --gameability: fail above this figure"
    ),
    repeats: int = typer.Option(
        1, "--repeats", min=1, help="with --gameability: repeats per scenario"
    ),
) -> None:
    """Check a suite: every file, every reference, every matcher, every excerpt, every reference
    solution."""
    from .errors import SuiteNotFound
    from .suite_check import check_suite

    try:
        result = check_suite(suite)
    except SuiteNotFound as exc:
        _fail(str(exc))
    for p in result.problems:
        typer.echo(str(p), err=p.level == "error")
    if result.errors:
        typer.echo(f"{len(result.errors)} error(s), {len(result.warnings)} warning(s)", err=True)
        raise typer.Exit(1)
    s = result.suite
    assert s is not None, "a suite that did not load has errors"
    typer.echo(
        f"ok: suite '{s.id}' {s.manifest.version}: {len(s.agents)} agents, {len(s.scenarios)} "
        "scenarios, "
        f"{len(result.warnings)} warning(s); sha256 {s.sha256}"
    )
    if gameability:
        from .gameability import measure

        found = measure(s, repeats=repeats)
        task = ", ".join(f"{k} {v:.1f}" for k, v in found["task"].items())
        typer.echo(
            f"gameability {found['figure']:+.1f} (task pillar: {task}; limit {max_gameability:g})"
        )
        for row in found["worst_scenarios"]:
            typer.echo(
                f"  {row['scenario']}: {row['above_noop']:+.1f} above the noop "
                f"(shortcut {row.get('shortcut', 0):.1f}, spray {row.get('spray', 0):.1f})"
            )
        if found["figure"] is not None and found["figure"] > max_gameability:
            typer.echo(
                f"gameable: a script with no model earns {found['figure']:.1f} above doing nothing",
                err=True,
            )
            raise typer.Exit(1)


@app.command()
def run(
    suite: str | None = typer.Option(
        None, "--suite", help="suite folder or built-in suite id (default: starter)"
    ),
    candidate: list[str] | None = typer.Option(
        None,
        "--candidate",
        "-c",
        help="repeatable: oracle | noop | shortcut | spray | a model spec (openai:gpt-4.1-mini, "
        "openai-compatible:URL#MODEL, json:ollama:llama3.2) | python:module:attr | "
        "http://host/agent",
    ),
    repeats: int | None = typer.Option(None, "--repeats", min=1),
    seed: int | None = typer.Option(None, "--seed"),
    out: Path | None = typer.Option(
        None, "--out", help="run folder (default: runs/<suite>-<timestamp>)"
    ),
    caller: str | None = typer.Option(
        None, "--caller", help="'scripted' (default) or a model spec for an LLM caller"
    ),
    scenario: list[str] | None = typer.Option(
        None, "--scenario", help="limit to these scenario ids (repeatable)"
    ),
    concurrency: int | None = typer.Option(None, "--concurrency", min=1),
    base_url: str | None = typer.Option(
        None, "--base-url", help="endpoint for model-backed candidates"
    ),
    caller_base_url: str | None = typer.Option(
        None, "--caller-base-url", help="endpoint for an LLM caller"
    ),
    api_key_env: str | None = typer.Option(
        None, "--api-key-env", help="environment variable holding the candidate endpoint's key"
    ),
    temperature: float | None = typer.Option(
        None, "--temperature", help="candidate sampling temperature"
    ),
    judge: str | None = typer.Option(
        None,
        "--judge",
        help="model spec for the LLM judges (default: none; judged items not measured)",
    ),
    judge_base_url: str | None = typer.Option(
        None, "--judge-base-url", help="endpoint for the judge model"
    ),
    config: Path | None = typer.Option(
        None, "--config", help="a TOML run configuration (flags override it)"
    ),
    resume: Path | None = typer.Option(
        None,
        "--resume",
        help="continue an interrupted run in this folder (same suite and configuration)",
    ),
    max_cost: float | None = typer.Option(
        None,
        "--max-cost",
        help="stop scheduling calls before this many USD would be spent (needs prices)",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="estimate tokens and cost from the suite, spend nothing"
    ),
    executor: str | None = typer.Option(
        None, "--executor", help="local (default) | processes | ray"
    ),
    processes: int | None = typer.Option(
        None, "--processes", min=1, help="worker processes (with --executor processes; default 2)"
    ),
    address: str | None = typer.Option(
        None, "--address", help="Ray cluster address (with --executor ray)"
    ),
    scoring: str | None = typer.Option(
        None,
        "--scoring",
        help="guards (default: kept rules earn nothing, broken ones "
        "cost) | reference (every item on both sides, as published benchmarks score)",
    ),
    language_detector: str | None = typer.Option(
        None,
        "--language-detector",
        help="script (default: letters alone) | lingua (needs callbench[lingua]): how the script "
        "check tells apart languages that share a script, such as Hindi and Marathi",
    ),
    step_timeout: float | None = typer.Option(
        None,
        "--step-timeout",
        min=0,
        help="seconds a candidate may take over "
        "one message before it counts as its failure (default 300; 0: none)",
    ),
    call_timeout: float | None = typer.Option(
        None,
        "--call-timeout",
        min=0,
        help="seconds of candidate time in one call (default 900; 0: none)",
    ),
    html: Path | None = typer.Option(
        None, "--html", help="also write the self-contained HTML report here when the run ends"
    ),
    channel: str | None = typer.Option(
        None,
        "--channel",
        help="text (default) | audio: the caller's words are synthesized, mixed with the "
        "background, sent down a telephone line and recognised (needs callbench[voice])",
    ),
    synthesizer: str | None = typer.Option(
        None,
        "--synthesizer",
        help="with --channel audio: auto (default: Piper for English, espeak-ng otherwise) | "
        "espeak-ng | piper:joe",
    ),
    recognizer: str | None = typer.Option(
        None,
        "--recognizer",
        help="with --channel audio: auto (default: Whisper tiny.en for English, base otherwise) | "
        "whisper:tiny.en | whisper:base | pocketsphinx | openai-compatible:URL#MODEL",
    ),
    background: str | None = typer.Option(
        None, "--background", help="with --channel audio: all calls in clean|street|cafe|television"
    ),
) -> None:
    """Run candidates × scenarios × repeats, write every trace and report.json, and print the
    scores."""
    from rich.console import Console

    from .errors import CallbenchError, SuiteError, SuiteNotFound
    from .reports.progress import RunProgress
    from .reports.table import summary_table
    from .runs import RunConfig, RunFlags, RunManifest, make_cast, make_executor, plan, run_suite
    from .runs.budget import estimate
    from .runs.config import read_config, run_folder, suite_source
    from .runs.runner import unheard_scenarios
    from .suite_check import load_suite

    flags = RunFlags(
        suite=suite,
        candidates=tuple(candidate or ()),
        repeats=repeats,
        seed=seed,
        caller=caller,
        scenarios=tuple(scenario or ()),
        concurrency=concurrency,
        base_url=base_url,
        caller_base_url=caller_base_url,
        api_key_env=api_key_env,
        temperature=temperature,
        judge=judge,
        judge_base_url=judge_base_url,
        scoring=scoring,
        language_detector=language_detector,
        step_timeout_s=step_timeout,
        call_timeout_s=call_timeout,
        config=config,
        out=out,
        executor=executor,
        processes=processes,
        address=address,
        channel=channel,
        synthesizer=synthesizer,
        recognizer=recognizer,
        background=background,
    )
    try:
        file = read_config(config) if config else {}
        resumed = RunManifest.read(resume) if resume is not None else None
        run_config = RunConfig.from_sources(flags, file, resumed)
    except CallbenchError as exc:
        _fail(str(exc))
    source = suite_source(flags, file, resumed)
    try:
        loaded = load_suite(source)
    except SuiteNotFound as exc:
        _fail(str(exc))
    except SuiteError as exc:
        for p in exc.problems:
            typer.echo(str(p), err=True)
        _fail(
            f"suite '{source}' is invalid ({len(exc.problems)} error(s)); run `callbench validate "
            f"{source}`"
        )
    if dry_run:
        try:
            typer.echo(json.dumps(estimate(loaded, run_config, make_cast(run_config)), indent=1))
        except CallbenchError as exc:  # deliberate errors only: a bug shows its traceback
            _fail(str(exc))
        return
    try:
        out = run_folder(flags, file, resume, loaded.id)
    except CallbenchError as exc:
        _fail(str(exc))
    if max_cost is not None and not run_config.prices:
        _fail("--max-cost needs prices for the models (a [prices] table in --config)")
    console = Console()
    try:
        attempts = len(plan(loaded, run_config))
        for sid, why in unheard_scenarios(loaded, run_config).items():
            console.print(f"left out {sid}: {why}", markup=False, highlight=False)
    except CallbenchError as exc:
        _fail(str(exc))
    try:
        with RunProgress(console, attempts, run_config.prices) as progress:
            result = run_suite(
                loaded,
                run_config,
                out,
                progress.update,
                resume=resume is not None,
                executor=make_executor(run_config),
                max_cost=max_cost,
            )
    except CallbenchError as exc:  # deliberate errors only: a bug shows its traceback
        _fail(str(exc))
    store = result.report.get("store", {})
    if store.get("stopped_by_budget"):
        typer.echo(
            f"stopped by --max-cost after spending ${store['spent_usd']}; {store['pending']} "
            "call(s) left: "
            f"resume with `callbench run --resume {out} --max-cost ...`",
            err=True,
        )
    console.print(summary_table(result.report))
    console.print(
        f"traces and report.json in [bold]{out}[/bold]; read a call with `callbench show "
        f"{out}/traces/<candidate>/<scenario>/r0.json`"
    )
    if html is not None:
        from .reports.html import render_html

        typer.echo(f"html: {render_html(out, html)}")


@app.command()
def score(
    run_dir: Path = typer.Argument(..., help="a run folder written by `callbench run`"),
    judge: str | None = typer.Option(
        None, "--judge", help="model spec for the LLM judges (none: judged items not measured)"
    ),
    judge_base_url: str | None = typer.Option(None, "--judge-base-url"),
    grader: list[str] | None = typer.Option(
        None,
        "--grader",
        help="only these graders (repeatable): actions, "
        "conversation_checks, spoken_checks, task_judge, conversation_judge",
    ),
    tag: str | None = typer.Option(
        None, "--tag", help="name of the new report (report-<tag>.json)"
    ),
    force: bool = typer.Option(
        False, "--force", help="re-score even if the suite changed since the run"
    ),
    scoring: str | None = typer.Option(
        None, "--scoring", help="guards | reference (default: the run's own mode)"
    ),
) -> None:
    """Re-grade a stored run's traces without replaying any call; writes a new report beside the old
    one."""
    from rich.console import Console

    from .errors import CallbenchError
    from .reports.table import summary_table
    from .runs.rescore import rescore

    try:
        result = rescore(
            run_dir,
            judge=judge,
            judge_options={"base_url": judge_base_url} if judge_base_url else None,
            graders=grader,
            tag=tag,
            force=force,
            scoring=scoring,
        )
    except CallbenchError as exc:
        _fail(str(exc))
    Console().print(summary_table(result.report))
    typer.echo(f"new report: {result.report_path}")


@app.command()
def calibrate(
    run_dir: Path = typer.Argument(..., help="a run folder written by `callbench run`"),
    judge: str = typer.Option(..., "--judge", help="model spec of the judge to calibrate"),
    judge_base_url: str | None = typer.Option(None, "--judge-base-url"),
    repeats: int = typer.Option(
        2, "--repeats", min=2, help="judgments per trace for self-agreement"
    ),
    limit: int | None = typer.Option(
        None, "--limit", min=1, help="calibrate on at most this many traces"
    ),
) -> None:
    """Agreement of the LLM graders with code, with themselves, and across criterion order (Cohen's
    kappa)."""
    from .errors import CallbenchError
    from .runs.calibrate import calibrate as run_calibration

    try:
        path, result = run_calibration(
            run_dir,
            judge,
            judge_options={"base_url": judge_base_url} if judge_base_url else None,
            repeats=repeats,
            limit=limit,
        )
    except CallbenchError as exc:
        _fail(str(exc))
    for name, block in (
        ("code vs LLM", result["code_vs_llm"]),
        ("self, task", result["self_agreement"]["task"]),
        ("self, conversation", result["self_agreement"]["conversation"]),
        ("order, task", result["order_sensitivity"]["task"]),
        ("order, conversation", result["order_sensitivity"]["conversation"]),
    ):
        typer.echo(
            f"{name:22} items {block['items']:4}  agreement {block['rate']}  kappa "
            f"{block['kappa']}  "
            f"disagreements {len(block['disagreements'])}"
        )
    typer.echo(f"judge failures: {result['judge_failures']}; details in {path}")


@app.command()
def report(
    run_dir: Path = typer.Argument(..., help="a run folder"),
    html: Path | None = typer.Option(
        None, "--html", help="also write a self-contained HTML report with a trace viewer"
    ),
) -> None:
    """Rebuild report.json from the run's stored scorecards (and optionally the HTML report)."""
    from rich.console import Console

    from .errors import CallbenchError
    from .reports.table import summary_table
    from .runs.rebuild import rebuild_report

    try:
        path, built = rebuild_report(run_dir)
    except CallbenchError as exc:
        _fail(str(exc))
    Console().print(summary_table(built))
    typer.echo(f"report: {path}")
    if html is not None:
        from .reports.html import render_html

        typer.echo(f"html: {render_html(run_dir, html, built)}")


@app.command()
def leaderboard(
    paths: list[Path] = typer.Argument(..., help="run folders, report files, or folders of them"),
    out: Path = typer.Option(
        ..., "--out", help="folder for leaderboard.csv, leaderboard.md and leaderboard.json"
    ),
    force: bool = typer.Option(
        False,
        "--force",
        help="rank reports with different suites, callers or judges anyway (marked)",
    ),
) -> None:
    """A ranked table from report files alone, offline and reproducible; refuses to mix unlike
    runs."""
    from .errors import CallbenchError
    from .reports.leaderboard import build_leaderboard

    try:
        sources: list[str | Path] = list(paths)
        board = build_leaderboard(sources, out, force=force)
    except CallbenchError as exc:
        _fail(str(exc))
    typer.echo((out / "leaderboard.md").read_text(encoding="utf-8"))
    if board["mixed"]:
        typer.echo("warning: mixed comparison: " + "; ".join(board["mixed"]), err=True)


@app.command()
def compare(
    first: str = typer.Argument(
        ..., help="a run folder, or a report file (path or path::candidate)"
    ),
    second: str = typer.Argument(..., help="candidate A (with a run) or the second report"),
    third: str | None = typer.Argument(None, help="candidate B (with a run)"),
) -> None:
    """Paired comparison of two candidates on the scenarios both completed: mean difference,
    interval, wins/losses/ties."""
    from .errors import CallbenchError
    from .reports.compare import compare as paired

    try:
        r = paired(first, second, third)
    except CallbenchError as exc:
        _fail(str(exc))
    if r["mean_diff"] is None:
        typer.echo(f"{r['a']} vs {r['b']}: no scenario completed by both")
        return
    typer.echo(
        f"{r['a']} − {r['b']}: {r['mean_diff']:+.2f} points [{r['low']:+.2f}, {r['high']:+.2f}] "
        f"over {r['n']} shared scenarios; "
        f"wins {r['wins']}, losses {r['losses']}, ties {r['ties']}"
    )


@app.command()
def export(
    run_dir: Path = typer.Argument(..., help="a run folder"),
    jsonl: Path | None = typer.Option(
        None, "--jsonl", help="every finished trace, one JSON object per line"
    ),
    parquet: Path | None = typer.Option(None, "--parquet", help="one row per call (needs pyarrow)"),
) -> None:
    """Export a run's traces from its store."""
    from .errors import CallbenchError
    from .layout import RunLayout
    from .runs.store import RunStore

    layout = RunLayout(run_dir)
    if not layout.store.exists():
        _fail(f"{run_dir}: no run store ({layout.store.name})")
    try:
        store = RunStore(layout.store, create=False)
    except CallbenchError as exc:
        _fail(str(exc))
    try:
        if jsonl:
            typer.echo(f"{store.export_jsonl(jsonl)} traces -> {jsonl}")
        if parquet:
            typer.echo(f"{store.export_parquet(parquet)} rows -> {parquet}")
    except CallbenchError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot write the export: {exc.strerror or exc}")
    finally:
        store.close()


app.add_typer(import_app, name="import")
app.add_typer(generate_app, name="generate")
for _register in (register_suite_tools,):  # commands that check, seal and audit suites
    _register(app)


@app.command()
def show(trace: Path = typer.Argument(..., help="a trace file written by `callbench run`")) -> None:
    """Print one call as a transcript, with tool calls and channel damage marked."""
    from rich.console import Console

    from .call import read_trace
    from .errors import TraceError
    from .reports.transcript import render_transcript

    try:
        loaded = read_trace(trace)
    except TraceError as exc:
        _fail(str(exc))
    Console().print(render_transcript(loaded))


@app.command()
def schema(
    kind: str | None = typer.Argument(
        None, help=f"one of: {', '.join(SCHEMA_KINDS)}; all of them when omitted"
    ),
    out: Path | None = typer.Option(
        None, "--out", help="write <kind>.schema.json files into this folder instead"
    ),
) -> None:
    """Print the JSON Schema of each file kind, for editor autocompletion and for checking a
    report.json."""
    from pydantic import BaseModel

    from .call import Trace
    from .reports.model import Report
    from .spec import AgentDefinition, Scenario, SuiteManifest

    models: dict[str, type[BaseModel]] = {
        "suite": SuiteManifest,
        "agent": AgentDefinition,
        "scenario": Scenario,
        "trace": Trace,
        "report": Report,
    }
    if kind is not None and kind not in models:
        _fail(f"unknown kind '{kind}' (one of: {', '.join(SCHEMA_KINDS)})")
    chosen = {kind: models[kind]} if kind else models
    schemas = {name: model.model_json_schema(by_alias=True) for name, model in chosen.items()}
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for name, body in schemas.items():
            (out / f"{name}.schema.json").write_text(
                json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
            )
            typer.echo(str(out / f"{name}.schema.json"))
        return
    typer.echo(json.dumps(schemas[kind] if kind else schemas, indent=1, ensure_ascii=False))


@app.command("list")
def list_things() -> None:
    """List the built-in suites and candidates."""
    from .candidates import BASELINES
    from .suites import builtin_suites

    typer.echo("suites: " + ", ".join(builtin_suites()))
    for entry in BASELINES.values():
        typer.echo(f"candidate {entry.name}: {entry.description}")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
