"""The console summary of a report."""

from __future__ import annotations

from typing import Any

from rich.table import Table


def _fmt(value: float | None) -> str:
    return "n/m" if value is None else f"{value:.1f}"


def summary_table(report: dict[str, Any]) -> Table:
    suite = report["suite"]
    table = Table(
        title=f"{suite['id']} {suite['version']} — seed {report['run']['seed']}, "
        f"{report['run']['repeats']} repeat(s)"
    )
    scoring = report.get("scoring") or {"mode": "reference", "cutoff": 70}
    for col in (
        "candidate",
        "task",
        "conversation",
        "scenarios ok",
        "calls ok",
        f"task≥{scoring['cutoff']:g}",
        "coverage",
    ):
        table.add_column(col, justify="left" if col == "candidate" else "right")
    for name, row in report["candidates"].items():
        coverage = f"{row['coverage'] * 100:.0f}%" + ("" if row["measured"] else " (unmeasured)")
        partial = "" if row.get("pillars_complete", True) else "*"
        cutoff = row.get("completion_at_cutoff")
        table.add_row(
            name,
            _fmt(row["task"]) + partial,
            _fmt(row["conversation"]) + partial,
            f"{row['scenarios_passed']}/{row['scenarios']}",
            f"{row['calls_passed']}/{row['attempted']}",
            f"{cutoff['passed']}/{cutoff['of']}" if cutoff else "-",
            coverage,
        )
    caption = [
        f"scoring: {scoring['mode']} mode; task/conversation: pillar scores 0-100; * = "
        "deterministic items only "
        "(judged items not measured: no --judge); ok: every deterministic check met; "
        f"task≥{scoring['cutoff']:g}: calls at the provisional cutoff with no guard broken"
    ]
    game = report.get("gameability")
    if game:
        caption.append(
            f"gameability {game['figure']:+.1f}: {game['by']} {game['baselines'][game['by']]:.1f} "
            f"against noop {game['noop']:.1f} on the task pillar (a script with no model should "
            "earn nothing)"
        )
    table.caption = "\n".join(caption)
    return table
