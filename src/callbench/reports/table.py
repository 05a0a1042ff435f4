"""The console summary of a report."""

from __future__ import annotations

from typing import Any

from rich.table import Table


def _fmt(value: float | None) -> str:
    return "n/m" if value is None else f"{value:.1f}"


def summary_table(report: dict[str, Any]) -> Table:
    suite = report["suite"]
    table = Table(title=f"{suite['id']} {suite['version']} — seed {report['run']['seed']}, {report['run']['repeats']} repeat(s)")
    for col in ("candidate", "task", "conversation", "scenarios ok", "calls ok", "coverage"):
        table.add_column(col, justify="left" if col == "candidate" else "right")
    for name, row in report["candidates"].items():
        coverage = f"{row['coverage'] * 100:.0f}%" + ("" if row["measured"] else " (unmeasured)")
        partial = "" if row.get("pillars_complete", True) else "*"
        table.add_row(name, _fmt(row["task"]) + partial, _fmt(row["conversation"]) + partial, f"{row['scenarios_passed']}/{row['scenarios']}",
                      f"{row['calls_passed']}/{row['attempted']}", coverage)
    table.caption = ("task/conversation: pillar scores 0-100; * = deterministic items only (judged items not measured: "
                     "no --judge); ok: every deterministic check met")
    return table
