"""An offline leaderboard from report files alone: verified, comparable, byte-for-byte reproducible.

Reports are ranked together only when they measured the same thing: the same
suite (hash), the same caller model, the same judge model and the same scoring
mode (guards or reference; a report from before the modes used the reference formula). Mixing is
refused with the reason, unless forced, and a forced table says so on every
output. Every report's manifest is checked against the artifacts beside it.

A row is official when its report is of a run on a sealed split whose commitments `callbench
verify-seal` checked (report.json `seal.official`); the `official` column says so, and says nothing
about rows never verified.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import CallbenchError
from ..layout import REPORT
from .model import CandidateRow, Report, load_report

COLUMNS = (
    "rank",
    "candidate",
    "run_id",
    "overall",
    "overall_low",
    "overall_high",
    "task",
    "task_low",
    "task_high",
    "conversation",
    "completion_rate",
    "completion_low",
    "completion_high",
    "cutoff_rate",
    "coverage",
    "tokens_per_resolved_call",
    "cost_per_resolved_call",
    "official",
)


class LeaderboardError(CallbenchError):
    pass


def find_reports(paths: Sequence[str | Path]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            found.append(path)
        elif (path / REPORT).is_file():
            found.append(path / REPORT)
        elif path.is_dir():
            found += sorted(path.rglob(REPORT))
        else:
            raise LeaderboardError(f"{path}: no such file or folder")
    if not found:
        raise LeaderboardError("no report.json found in " + ", ".join(map(str, paths)))
    return sorted(set(found))


def verify_manifest(path: Path, report: Report) -> dict[str, int]:
    """Every listed artifact that is present must match its hash; absent ones are counted (published
    reports may travel without their traces), a changed one is an error."""
    checked = missing = 0
    for rel, digest in sorted(report.manifest.items()):
        file = path.parent / rel
        if not file.exists():
            missing += 1
            continue
        if hashlib.sha256(file.read_bytes()).hexdigest() != digest:
            raise LeaderboardError(
                f"{path}: manifest check failed: {rel} has changed since the report was written"
            )
        checked += 1
    return {"checked": checked, "missing": missing}


def _identity(report: Report) -> dict[str, str | None]:
    """What must be equal for two reports to be ranked together; a report from before the scoring
    modes used the reference formula."""
    caller = report.caller
    return {
        "suite": report.suite.sha256,
        "caller": (caller.model or caller.kind) if caller else None,
        "judge": report.judge.model if report.judge else None,
        "scoring": report.scoring.mode if report.scoring else "reference",
    }


def _load(path: Path) -> Report:
    try:
        return load_report(path)
    except CallbenchError as exc:
        raise LeaderboardError(str(exc)) from None


def _mixed(reports: list[Report], force: bool) -> tuple[list[str], set[str]]:
    """What differs between the reports' identities; an error unless forced."""
    identities = {json.dumps(_identity(r), sort_keys=True) for r in reports}
    mixed: list[str] = []
    if len(identities) > 1:
        for key in ("suite", "caller", "judge", "scoring"):
            values = sorted({str(_identity(r)[key]) for r in reports})
            if len(values) > 1:
                mixed.append(f"{key} differs: {', '.join(values)}")
        if not force:
            raise LeaderboardError(
                "refusing to rank together reports that measured different things: "
                + "; ".join(mixed)
                + " (use --force to rank them anyway; the output will be marked)"
            )
    return mixed, identities


def _sort_key(entry: dict[str, Any]) -> tuple[float, str, str]:
    score = entry["overall"] if entry["overall"] is not None else entry["task"]
    return (-(score if score is not None else -1), entry["candidate"], entry["run_id"] or "")


def build_leaderboard(
    paths: Sequence[str | Path], out_dir: str | Path, force: bool = False
) -> dict[str, Any]:
    loaded = [(path, _load(path)) for path in find_reports(paths)]
    checks = [verify_manifest(path, report) for path, report in loaded]
    reports = [report for _, report in loaded]
    mixed, identities = _mixed(reports, force)
    ranked: list[dict[str, Any]] = []
    unmeasured: list[dict[str, Any]] = []
    for report in reports:
        for name, row in sorted(report.candidates.items()):
            (ranked if row.measured else unmeasured).append(_row(name, row, report))
    ranked.sort(key=_sort_key)
    for i, entry in enumerate(ranked, 1):
        entry["rank"] = i
    board = {
        "schema_version": 1,
        "mixed": mixed,
        "identity": [json.loads(i) for i in sorted(identities)],
        "reports": [{"run_id": r.run_id, "manifest": v} for r, v in zip(reports, checks)],
        "ranked": ranked,
        "unmeasured": [
            {
                "candidate": e["candidate"],
                "run_id": e["run_id"],
                "coverage": e["coverage"],
                "cause": e["cause"],
            }
            for e in unmeasured
        ],
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "leaderboard.json").write_text(
        json.dumps(board, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (out / "leaderboard.csv").write_text(_csv(ranked, mixed), encoding="utf-8")
    (out / "leaderboard.md").write_text(_markdown(board), encoding="utf-8")
    return board


def _row(name: str, row: CandidateRow, report: Report) -> dict[str, Any]:
    overall, task = row.interval("overall"), row.interval("task")
    comp, op = row.completion, row.operational
    return {
        "rank": None,
        "candidate": name,
        "run_id": report.run_id,
        "overall": row.overall,
        "overall_low": overall.low if overall else None,
        "overall_high": overall.high if overall else None,
        "task": row.task,
        "task_low": task.low if task else None,
        "task_high": task.high if task else None,
        "conversation": row.conversation,
        "completion_rate": comp.rate if comp else None,
        "completion_low": comp.wilson[0] if comp else None,
        "completion_high": comp.wilson[1] if comp else None,
        "cutoff_rate": row.completion_at_cutoff.rate if row.completion_at_cutoff else None,
        "coverage": row.coverage,
        "tokens_per_resolved_call": op.tokens_per_resolved_call if op else None,
        "cost_per_resolved_call": op.cost_per_resolved_call if op else None,
        "cause": row.unmeasured_cause,
        "official": report.official,
    }


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _csv(rows: list[dict[str, Any]], mixed: list[str]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if (
        mixed
    ):  # a comment line, so a reader (and pandas' comment="#") sees the warning before the numbers
        buf.write("# MIXED: " + " | ".join(m.replace(",", " ") for m in mixed) + "\n")
    writer.writerow(COLUMNS)
    for r in rows:
        writer.writerow([_fmt(r[c]) for c in COLUMNS])
    return buf.getvalue()


def _interval(value: Any, low: Any, high: Any) -> str:
    if value is None:
        return "n/m"
    return (
        f"{value:.1f} [{low:.1f}, {high:.1f}]"
        if low is not None and high is not None
        else f"{value:.1f}"
    )


def _markdown(board: dict[str, Any]) -> str:
    modes = sorted({str(i.get("scoring")) for i in board["identity"]})
    lines = ["# Leaderboard", "", f"Scoring mode: {', '.join(modes)}.", ""]
    if board["mixed"]:
        lines += ["> **Mixed comparison (forced):** " + "; ".join(board["mixed"]), ""]
    lines += [
        "| rank | candidate | overall [95% CI] | task [95% CI] | completion | task ≥ cutoff | "
        "coverage | "
        "tokens / resolved call | official |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in board["ranked"]:
        comp = (
            ""
            if r["completion_rate"] is None
            else f"{r['completion_rate']:.0%} [{r['completion_low']:.0%}, "
            f"{r['completion_high']:.0%}]"
        )
        lines.append(
            f"| {r['rank']} | {r['candidate']} | "
            f"{_interval(r['overall'], r['overall_low'], r['overall_high'])} | "
            f"{_interval(r['task'], r['task_low'], r['task_high'])} | {comp} | "
            f"{'' if r['cutoff_rate'] is None else format(r['cutoff_rate'], '.0%')} | "
            f"{r['coverage']:.0%} | "
            f"{_fmt(r['tokens_per_resolved_call'])} | "
            f"{'yes' if r['official'] else ''} |"
        )
    lines += [
        "",
        "Official: a run on a sealed split whose commitments verified (`callbench verify-seal`).",
    ]
    if board["unmeasured"]:
        lines += ["", "## Unmeasured (below the coverage floor; not ranked)", ""]
        lines += [
            f"- {u['candidate']} ({u['run_id']}): coverage {u['coverage']:.0%}; {u['cause']}"
            for u in board["unmeasured"]
        ]
    return "\n".join(lines) + "\n"
