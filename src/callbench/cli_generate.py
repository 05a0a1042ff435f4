"""`callbench generate ...`: suites built by code (kept apart from cli.py, which stays small)."""

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
