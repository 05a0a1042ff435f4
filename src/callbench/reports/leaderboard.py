"""An offline leaderboard from report files alone: verified, comparable, byte-for-byte reproducible.

Reports are ranked together only when they measured the same thing: the same
suite (hash), the same caller model, the same judge model and the same scoring
mode (guards or reference; a report from before the modes used the reference formula). Mixing is
refused with the reason, unless forced, and a forced table says so on every
output. Every report's manifest is checked against the artifacts beside it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path
from typing import Any

from ..errors import CallbenchError

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
)


class LeaderboardError(CallbenchError):
    pass


def find_reports(paths: list[str | Path]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            found.append(path)
        elif (path / "report.json").is_file():
            found.append(path / "report.json")
        elif path.is_dir():
            found += sorted(path.rglob("report.json"))
        else:
            raise LeaderboardError(f"{path}: no such file or folder")
    if not found:
        raise LeaderboardError("no report.json found in " + ", ".join(map(str, paths)))
    return sorted(set(found))


def verify_manifest(path: Path, report: dict[str, Any]) -> dict[str, int]:
    """Every listed artifact that is present must match its hash; absent ones are counted (published
    reports
    may travel without their traces), a changed one is an error."""
    checked = missing = 0
    for rel, digest in sorted(report.get("manifest", {}).items()):
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


def _identity(report: dict[str, Any]) -> dict[str, Any]:
    return {
        "suite": report.get("suite", {}).get("sha256"),
        "caller": (report.get("caller") or {}).get("model")
        or (report.get("caller") or {}).get("kind"),
        "judge": (report.get("judge") or {}).get("model"),
        "scoring": (report.get("scoring") or {}).get("mode", "reference"),
    }


def build_leaderboard(
    paths: list[str | Path], out_dir: str | Path, force: bool = False
) -> dict[str, Any]:
    reports = []
    for path in find_reports(paths):
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise LeaderboardError(
                f"{path}: not a readable report ({exc.__class__.__name__})"
            ) from None
        if "candidates" not in report or "suite" not in report:
            raise LeaderboardError(f"{path}: not a callbench report (no 'candidates' or 'suite')")
        reports.append((path, report, verify_manifest(path, report)))
    identities = {json.dumps(_identity(r), sort_keys=True) for _, r, _ in reports}
    mixed = []
    if len(identities) > 1:
        for key in ("suite", "caller", "judge", "scoring"):
            values = sorted({str(_identity(r)[key]) for _, r, _ in reports})
            if len(values) > 1:
                mixed.append(f"{key} differs: {', '.join(values)}")
        if not force:
            raise LeaderboardError(
                "refusing to rank together reports that measured different things: "
                + "; ".join(mixed)
                + " (use --force to rank them anyway; the output will be marked)"
            )
    ranked, unmeasured = [], []
    for _, report, _ in reports:
        for name, row in sorted(report["candidates"].items()):
            entry = _row(name, row, report)
            (ranked if row.get("measured") else unmeasured).append(entry)
    ranked.sort(
        key=lambda e: (
            -(
                e["overall"]
                if e["overall"] is not None
                else (e["task"] if e["task"] is not None else -1)
            ),
            e["candidate"],
            e["run_id"],
        )
    )
    for i, entry in enumerate(ranked, 1):
        entry["rank"] = i
    board = {
        "schema_version": 1,
        "mixed": mixed,
        "identity": [json.loads(i) for i in sorted(identities)],
        "reports": [{"run_id": r.get("run_id"), "manifest": v} for _, r, v in reports],
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


def _row(name: str, row: dict[str, Any], report: dict[str, Any]) -> dict[str, Any]:
    iv = row.get("intervals", {})
    comp = row.get("completion", {})
    op = row.get("operational", {})
    wilson = comp.get("wilson") or [None, None]
    return {
        "rank": None,
        "candidate": name,
        "run_id": report.get("run_id"),
        "overall": row.get("overall"),
        "overall_low": iv.get("overall", {}).get("low"),
        "overall_high": iv.get("overall", {}).get("high"),
        "task": row.get("task"),
        "task_low": iv.get("task", {}).get("low"),
        "task_high": iv.get("task", {}).get("high"),
        "conversation": row.get("conversation"),
        "completion_rate": comp.get("rate"),
        "completion_low": wilson[0],
        "completion_high": wilson[1],
        "cutoff_rate": (row.get("completion_at_cutoff") or {}).get("rate"),
        "coverage": row.get("coverage"),
        "tokens_per_resolved_call": op.get("tokens_per_resolved_call"),
        "cost_per_resolved_call": op.get("cost_per_resolved_call"),
        "cause": row.get("unmeasured_cause"),
    }


def _fmt(value: Any) -> str:
    if value is None:
        return ""
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
        "tokens / resolved call |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
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
            f"{_fmt(r['tokens_per_resolved_call'])} |"
        )
    if board["unmeasured"]:
        lines += ["", "## Unmeasured (below the coverage floor; not ranked)", ""]
        lines += [
            f"- {u['candidate']} ({u['run_id']}): coverage {u['coverage']:.0%}; {u['cause']}"
            for u in board["unmeasured"]
        ]
    return "\n".join(lines) + "\n"
