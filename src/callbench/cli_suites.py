"""Commands that check, audit and seal suites (`callbench audit`, `seal`, `verify-seal`), kept apart
from cli.py, which stays small. `register_suite_tools(app)` mounts them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer


def audit(
    suite: str = typer.Argument("starter", help="suite folder or built-in suite id"),
    json_path: Path | None = typer.Option(
        None, "--json", help="also write every finding and the summary here, for CI"
    ),
    gameability: bool = typer.Option(
        False,
        "--gameability",
        help="also run the noop, shortcut and spray baselines (a whole run of the suite) and "
        "fail when max(shortcut, spray) - noop on the task pillar is above --max-gameability",
    ),
    max_gameability: float = typer.Option(
        10.0, "--max-gameability", help="with --gameability: an error above this figure"
    ),
) -> None:
    """Audit a suite beyond validate: dependencies, caller isolation, pinned arguments, excerpt
    hashes, caller lines, duplicates, balance (and the gameability figure). Exit 1 on any error."""
    from .audit import audit_suite
    from .errors import SuiteNotFound

    try:
        report = audit_suite(suite)
    except SuiteNotFound as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if gameability and report.sha256 is not None and not report.errors:
        from .gameability import measure
        from .suite_check import load_suite

        report.add_gameability(measure(load_suite(suite)), max_gameability)
    elif gameability:
        report.skipped["gameability"] = "the suite has errors: baselines not run"
    for finding in report.findings:
        typer.echo(str(finding))
    _print_tables(report)
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(
            json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    verdict = "FAILED" if report.errors else "ok"
    typer.echo(
        f"{verdict}: suite '{report.suite}': {len(report.errors)} error(s), "
        f"{len(report.warnings)} warning(s); sha256 {report.sha256}"
    )
    if report.errors:
        raise typer.Exit(1)


def _print_tables(report: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    checks = Table(title=f"audit of {report.suite}")
    for column in ("check", "errors", "warnings", "checked", "note"):
        checks.add_column(
            column, justify="right" if column in ("errors", "warnings", "checked") else "left"
        )
    for name, row in report.summary().items():
        checks.add_row(
            name,
            str(row["errors"]),
            str(row["warnings"]),
            str(row["checked"]),
            row["skipped"] or "",
        )
    balance = Table(title="balance")
    for column in ("dimension", "counts"):
        balance.add_column(column)
    for dim, counts in report.balance.items():
        balance.add_row(dim, ", ".join(f"{k} {v}" for k, v in counts.items()))
    console = Console()
    console.print(checks)
    console.print(balance)
    if report.gameability is not None:
        g = report.gameability
        task = ", ".join(f"{k} {v:.1f}" for k, v in g["task"].items())
        console.print(f"gameability {g['figure']:+.1f} (task pillar: {task}; limit {g['limit']:g})")


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


def describe(
    suite: str = typer.Argument("starter", help="suite folder or built-in suite id"),
    json_path: Path | None = typer.Option(None, "--json", help="also write the figures here"),
) -> None:
    """A suite's composition: agents by domain and language, calls by language, difficulty,
    direction and tag, instruction lengths and tool counts."""
    from rich.console import Console
    from rich.table import Table

    from .errors import SuiteError, SuiteNotFound
    from .spec.composition import composition
    from .suite_check import load_suite

    try:
        made = composition(load_suite(suite))
    except (SuiteNotFound, SuiteError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    languages = sorted(made.calls_by_language)
    grid = Table(title=f"{made.suite}: agents by domain and language")
    for column in ("domain", *languages, "agents"):
        grid.add_column(column, justify="left" if column == "domain" else "right")
    for domain, row in made.agents_by_domain_language.items():
        grid.add_row(domain, *(str(row.get(lang, 0)) for lang in languages), str(sum(row.values())))
    calls = Table(title="calls")
    calls.add_column("by")
    calls.add_column("counts")
    for name in ("language", "difficulty", "direction"):
        counts = getattr(made, f"calls_by_{name}")
        calls.add_row(name, ", ".join(f"{k} {v}" for k, v in counts.items()) or "-")
    calls.add_row("exercises", ", ".join(f"{k} {v}" for k, v in made.coverage.items()) or "-")
    for lang, row in made.calls_by_language_difficulty.items():
        calls.add_row(f"{lang} by difficulty", ", ".join(f"{k} {v}" for k, v in row.items()))
    console = Console()
    console.print(grid)
    console.print(calls)
    chars, tools, per = made.instruction_chars, made.tools, made.calls_per_agent
    directions = ", ".join(f"{k} {v}" for k, v in made.agents_by_direction.items())
    console.print(
        f"{made.agents} agents ({directions}), {made.calls} calls "
        f"({per.minimum:g}-{per.maximum:g} per agent); instructions "
        f"{chars.minimum:,.0f}-{chars.maximum:,.0f} characters (median {chars.median:,.0f}); "
        f"{tools.total} tools ({tools.minimum:g}-{tools.maximum:g} per agent)"
    )
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(
            json.dumps(made.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )


def register_suite_tools(app: typer.Typer) -> None:
    """Mount this module's commands on the `callbench` app."""
    app.command("describe")(describe)
    app.command("audit")(audit)
    app.command("seal")(seal)
    app.command("verify-seal")(verify_seal)
