"""`callbench generate ...` and `callbench import ...`: suites built by code or converted from
another benchmark (kept apart from cli.py, which stays small)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from .errors import SuiteError

generate_app = typer.Typer(
    no_args_is_help=True, help="Build suites from an executable policy model and its data."
)


@generate_app.command("utility")
def generate_utility(
    out: Path = typer.Option(
        None, help="suite folder to write (default: the built-in utility-billing suite)"
    ),
    runs: list[Path] = typer.Option(
        [],
        "--runs",
        help="stored runs of this suite whose outcomes set the difficulty (repeatable)",
    ),
    prove: bool = typer.Option(True, help="validate and play every task with the oracle"),
) -> None:
    """Construct the utility-billing calls recursively, select the 100-call exam by predicted
    difficulty, write it, and prove every call solvable by the oracle through the services."""
    from .generate.utility.pipeline import generate
    from .suites import BUILTIN_ROOT

    target = out or BUILTIN_ROOT / "utility-billing"
    try:
        result = generate(target, runs, prove=prove)
    except SuiteError as exc:
        typer.echo(f"generated suite failed its proof:\n{exc}", err=True)
        raise typer.Exit(1) from None
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    summary = result.summary()
    typer.echo(json.dumps({k: summary[k] for k in ("construction", "exam")}, indent=1))
    typer.echo(f"{len(result.written)} scenarios -> {target}")


@generate_app.command("manifest")
def generate_manifest_cmd(
    suite: str = typer.Argument(..., help="suite folder or built-in suite id"),
    generator: str = typer.Option(..., help="who or what wrote the calls, in words"),
    model: str = typer.Option(None, help="the model that wrote them, when one did"),
    origin: str = typer.Option("hand_written", help="generated | hand_written | imported"),
    brief: list[Path] = typer.Option(
        [], "--brief", help="the brief the authors followed (hashed into prompts; repeatable)"
    ),
    reviews: Path = typer.Option(
        None, help="YAML review ledger: scenario id -> {reviewer, reviewed_on, notes}"
    ),
    require_reviews: bool = typer.Option(False, help="fail when a call has no review"),
) -> None:
    """Write manifest.json for an authored suite: per call its file and agent sources by hash, its
    audit status and its review; the briefs by hash; the audit summary."""
    from .errors import CallbenchError
    from .generate.authored import write_authored_manifest

    if origin not in ("generated", "hand_written", "imported"):
        typer.echo(f"error: --origin: unknown origin {origin!r}", err=True)
        raise typer.Exit(2)
    try:
        path = write_authored_manifest(
            suite,
            generator=generator,
            model=model,
            origin=origin,  # type: ignore[arg-type]  # checked against the Literal just above
            briefs=brief,
            reviews=reviews,
            require_reviews=require_reviews,
        )
    except CallbenchError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"manifest -> {path}")


@generate_app.command("scenarios")
def generate_scenarios_cmd(
    agent: Path = typer.Option(..., help="the agent's folder (holding agent.yaml) or agent.yaml"),
    count: int = typer.Option(..., min=1, help="how many scenarios to ask for"),
    model: str = typer.Option(
        ..., help="model spec, e.g. openai:gpt-4.1 or openai-compatible:URL#MODEL"
    ),
    out: Path = typer.Option(None, help="new suite folder to write (default: generated-<agent>)"),
    difficulty: str = typer.Option(
        "easy=1,medium=2,hard=1", help="difficulty targets, cycled through per batch"
    ),
    track: list[str] = typer.Option(
        [], "--track", help="track targets (name or name=count; repeatable), cycled per batch"
    ),
    max_attempts: int = typer.Option(3, min=1, help="drafts per scenario (the first + repairs)"),
    seed: int = typer.Option(None, help="sampling seed (scenario i gets seed+i)"),
    temperature: float = typer.Option(None, help="sampling temperature"),
    language: str = typer.Option(
        None, help="must equal the agent's language: scenarios are written in it, never translated"
    ),
    example: bool = typer.Option(
        True, help="show the agent's shortest existing scenario for the format"
    ),
) -> None:
    """Ask a model for scenarios one at a time, from the agent's whole definition; each draft is
    validated and played by the oracle, failures go back for repair; the suite gets manifest.json
    and drafts that never passed go to OUT/rejected/ with their reasons."""
    import asyncio

    from .generate.scenarios import (
        GenerateSettings,
        GenerationResult,
        generate_scenarios,
        parse_targets,
        read_agent,
    )
    from .models.base import ModelSettings, close_models
    from .models.specs import ModelSpecError, build_model, parse_spec

    try:
        source = read_agent(agent)
        if language is not None and language != source.language:
            raise ValueError(
                f"--language {language}: the agent speaks '{source.language}'; scenarios are "
                "authored in the agent's language, never translated"
            )
        settings = GenerateSettings(
            count=count,
            difficulty=parse_targets(difficulty, {}),
            tracks=parse_targets(",".join(track), {}),
            max_attempts=max_attempts,
            seed=seed,
            example=example,
        )
        spec = parse_spec(model, settings=ModelSettings(temperature=temperature, seed=seed))
        chat = build_model(spec)
    except (SuiteError, ValueError, ModelSpecError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    target = out or Path(f"generated-{source.id}")

    async def go() -> GenerationResult:
        try:
            return await generate_scenarios(agent, target, chat, spec.label, settings)
        finally:
            await close_models([chat])

    try:
        result = asyncio.run(go())
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    for path in result.written:
        typer.echo(f"accepted  {path}")
    for r in result.rejected:
        typer.echo(f"rejected  {target / r.file} after {r.attempts} attempt(s):")
        for reason in r.reasons[:10]:
            typer.echo(f"    {reason}")
    typer.echo(
        f"{len(result.written)} of {count} scenarios -> {target} "
        f"({len(result.rejected)} rejected, {result.requests} model requests); "
        f"manifest: {target / 'manifest.json'}"
    )


import_app = typer.Typer(
    no_args_is_help=True, help="Convert scenarios from other benchmarks into a callbench suite."
)


@import_app.command("openvoicecs")
def import_openvoicecs(
    file: Path = typer.Argument(
        ..., help="OpenVoiceCS scenarios JSON (a list, or an object with 'scenarios')"
    ),
    out_dir: Path = typer.Argument(..., help="folder to write the suite into"),
) -> None:
    """Convert OpenVoiceCS-Bench scenarios into a state-backend suite; what cannot be converted is
    listed per scenario."""
    from .importers import ImportFormatError, convert_openvoicecs

    try:
        report = convert_openvoicecs(file, out_dir)
    except ImportFormatError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    for s in report.scenarios:
        typer.echo(
            f"{s.id}: {'SKIPPED' if s.skipped else 'converted'} - {len(s.converted)} converted, "
            f"{len(s.approximated)} approximated, {len(s.dropped)} dropped"
        )
    typer.echo(
        f"{report.converted_count} of {len(report.scenarios)} scenarios -> {out_dir} "
        f"({len(report.agents)} agents); report: {Path(out_dir) / 'CONVERSION.md'}"
    )
    if report.unsayable:
        typer.echo(
            f"{len(report.unsayable)} scenario(s) need an argument value no one ever says (listed "
            "in "
            f"CONVERSION.md): no agent can be expected to pass them as converted"
        )
