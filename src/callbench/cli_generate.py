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
