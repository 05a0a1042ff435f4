"""The console summary of a report."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from .model import Report, as_report
from .origin import generation_line, seal_line
from .slices_requests import request_lines


def _fmt(value: float | None) -> str:
    return "n/m" if value is None else f"{value:.1f}"


def summary_table(report: Report | dict[str, Any]) -> Table:
    report = as_report(report)
    suite, run = report.suite, report.run
    table = Table(title=f"{suite.id} {suite.version} — seed {run.seed}, {run.repeats} repeat(s)")
    mode, cutoff = (
        (report.scoring.mode, report.scoring.cutoff) if report.scoring else ("reference", 70.0)
    )
    for col in (
        "candidate",
        "task",
        "conversation",
        "scenarios ok",
        "calls ok",
        f"task≥{cutoff:g}",
        "coverage",
    ):
        table.add_column(col, justify="left" if col == "candidate" else "right")
    for name, row in report.candidates.items():
        coverage = f"{row.coverage * 100:.0f}%" + ("" if row.measured else " (unmeasured)")
        partial = "" if row.pillars_complete is not False else "*"
        at_cutoff = row.completion_at_cutoff
        table.add_row(
            name,
            _fmt(row.task) + partial,
            _fmt(row.conversation) + partial,
            f"{row.scenarios_passed}/{row.scenarios}",
            f"{row.calls_passed}/{row.attempted}",
            f"{at_cutoff.passed}/{at_cutoff.of}" if at_cutoff else "-",
            coverage,
        )
    caption = [
        f"scoring: {mode} mode; task/conversation: pillar scores 0-100; * = "
        "deterministic items only "
        "(judged items not measured: no --judge); ok: every deterministic check met; "
        f"task≥{cutoff:g}: calls at the provisional cutoff with no guard broken"
    ]
    game = report.gameability
    if game:
        caption.append(
            f"gameability {game.figure:+.1f}: {game.by} {game.baselines[game.by]:.1f} "
            f"against noop {game.noop:.1f} on the task pillar (a script with no model should "
            "earn nothing)"
        )
    caption += request_lines(report.candidates)
    caption += audio_lines(report)
    caption += [line for line in (generation_line(report), seal_line(report)) if line]
    table.caption = "\n".join(caption)
    return table


def audio_lines(report: Report) -> list[str]:
    """One line per candidate of an audio run: completion and caller WER by background."""
    if not report.audio:
        return []
    lines = ["audio channel (completion, caller WER, agent WER by background):"]
    for cand, cells in report.audio.items():
        parts = [
            f"{bg} {c.completed}/{c.calls}, WER {_pct(c.caller_wer)} / {_pct(c.agent_wer)}"
            for bg, c in cells.items()
        ]
        lines.append(f"  {cand}: " + "; ".join(parts))
    return lines


def _pct(value: float | None) -> str:
    return "n/m" if value is None else f"{value * 100:.1f}%"
