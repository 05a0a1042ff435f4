"""Commands that check, audit and seal suites (`callbench audit`, `seal`, `verify-seal`), kept apart
from cli.py, which stays small. `register_suite_tools(app)` mounts them."""

from __future__ import annotations

from pathlib import Path

import typer


def seal(
    suite: str = typer.Argument(..., help="suite folder or built-in suite id"),
    split: str = typer.Option(
        "test", "--split", help="the split to seal: scenarios tagged split:NAME"
    ),
    out: Path = typer.Option(..., "--out", help="the public suite folder to write (new or empty)"),
    salt_file: Path | None = typer.Option(
        None, "--salt-file", help="the private salts file (default: SUITE/.seal-salts.json)"
    ),
    fraction: float | None = typer.Option(
        None, "--fraction", help="a suite with no split tags: seal this fraction of its scenarios"
    ),
    seed: int = typer.Option(0, "--seed", help="with --fraction: which scenarios (stable)"),
) -> None:
    """Publish a suite without one split: the public suite plus sealed.json, a salted sha256
    commitment per sealed scenario; the salts go to a private file for the reveal."""
    from .errors import CallbenchError
    from .sealing import seal_suite

    try:
        result = seal_suite(suite, split, out, salt_file, fraction, seed)
    except CallbenchError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(
        f"sealed {len(result.sealed)} scenario(s) of split '{split}': {', '.join(result.sealed)}"
    )
    for note in result.notes:
        typer.echo(note)
    typer.echo(
        f"public suite ({result.public_scenarios} scenarios) and {result.sealed_file.name} -> "
        f"{result.public}\nsalts -> {result.salts_file} (keep private until the reveal)"
    )


def verify_seal(
    report: Path = typer.Argument(..., help="a report.json or a run folder"),
    sealed: Path = typer.Option(..., "--sealed", help="the published sealed.json"),
    suite: str = typer.Option(..., "--suite", help="the full suite (the reveal)"),
    salts: Path = typer.Option(..., "--salts", help="the salts file `callbench seal` wrote"),
) -> None:
    """Check that every sealed scenario the run used matches its commitment, and record the
    finding in the report: official only when it verifies (exit 1 when it does not)."""
    from .errors import CallbenchError
    from .sealing import mark_report

    try:
        path, check = mark_report(report, sealed, suite, salts)
    except CallbenchError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if check.official:
        typer.echo(
            f"official: {len(check.verified)} sealed scenario(s) of split '{check.split}' match "
            f"their commitments; {path} updated"
        )
        return
    for reason in check.reasons:
        typer.echo(f"not official: {reason}", err=True)
    typer.echo(f"{path} updated (seal.official = false)", err=True)
    raise typer.Exit(1)


def register_suite_tools(app: typer.Typer) -> None:
    """Mount this module's commands on the `callbench` app."""
    app.command("seal")(seal)
    app.command("verify-seal")(verify_seal)
