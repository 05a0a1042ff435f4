"""The generation manifest of an authored suite: how each call was made and who reviewed it.

A generated suite gets its manifest from the generator that wrote it. A suite written by authors
(people, or model sessions working from a brief, one agent each) needs the same record to be
trusted: which brief the authors followed (by hash), which agent files each call was written
against (by hash), what the audit says of each call today, and the review of each call — who read
it whole, when, and what they found. The reviews live in a YAML ledger kept beside the suite
(`scenario id -> {reviewer, reviewed_on, notes}`); a ledger naming a call the suite does not have,
or a call without a review when `require_reviews` is set, is an error naming the file and field.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import yaml

from .._version import __version__
from ..audit import audit_suite
from ..errors import CallbenchError
from ..spec.generation import MANIFEST_FILE, GenerationManifest, ManifestScenario, manifest_json
from ..spec.loading import suite_hash_without_manifest
from ..suite_check import load_suite

Origin = Literal["generated", "hand_written", "imported"]


class ReviewLedgerError(CallbenchError):
    """The review ledger is unreadable or names what the suite does not hold."""


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_reviews(path: Path, scenario_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The ledger as `id -> {reviewer, reviewed_on, notes}`, checked against the suite."""
    known = set(scenario_ids)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ReviewLedgerError(f"{path}: unreadable review ledger ({exc})") from None
    if not isinstance(data, dict):
        raise ReviewLedgerError(f"{path}: a mapping of scenario id -> review is expected")
    out: dict[str, dict[str, Any]] = {}
    for sid, entry in data.items():
        if sid not in known:
            raise ReviewLedgerError(f"{path}: {sid}: no such scenario in the suite")
        if not isinstance(entry, dict) or not entry.get("reviewer"):
            raise ReviewLedgerError(f"{path}: {sid}.reviewer: required")
        day = entry.get("reviewed_on")
        if isinstance(day, str):
            try:
                day = dt.date.fromisoformat(day)
            except ValueError:
                raise ReviewLedgerError(f"{path}: {sid}.reviewed_on: not a date") from None
        if not isinstance(day, dt.date):
            raise ReviewLedgerError(f"{path}: {sid}.reviewed_on: required (YYYY-MM-DD)")
        unknown = set(entry) - {"reviewer", "reviewed_on", "notes"}
        if unknown:
            raise ReviewLedgerError(f"{path}: {sid}.{sorted(unknown)[0]}: unknown field")
        out[sid] = {
            "reviewer": str(entry["reviewer"]),
            "reviewed_on": day,
            "notes": str(entry.get("notes") or ""),
        }
    return out


def write_authored_manifest(
    suite_ref: str | Path,
    *,
    generator: str,
    model: str | None,
    origin: Origin,
    briefs: list[Path],
    reviews: Path | None,
    require_reviews: bool = False,
    created: dt.datetime | None = None,
) -> Path:
    """Audit the suite and write its manifest.json; returns the path."""
    suite = load_suite(suite_ref)
    root = suite.root
    ledger = read_reviews(reviews, suite.scenarios) if reviews is not None else {}
    missing = sorted(set(suite.scenarios) - set(ledger))
    if require_reviews and missing:
        raise ReviewLedgerError(
            f"{reviews}: {len(missing)} scenario(s) without a review, first {missing[0]}"
        )
    report = audit_suite(root)
    by_file: dict[str, set[str]] = {}
    for finding in report.findings:
        by_file.setdefault(finding.file, set()).add(finding.level)
    entries = []
    for sid, scenario in sorted(suite.scenarios.items()):
        rel = suite.scenario_files[sid]
        agent = suite.agents[scenario.agent]
        agent_file = Path(agent.file)
        agent_dir = agent_file.parent
        sources = {
            agent_file.as_posix(): _sha(root / agent_file),
            (agent_dir / agent.definition.instructions).as_posix(): _sha(
                root / agent_dir / agent.definition.instructions
            ),
        }
        levels = by_file.get(rel, set())
        review = ledger.get(sid, {})
        entries.append(
            ManifestScenario(
                id=sid,
                file=rel,
                sha256=_sha(root / rel),
                origin=origin,
                sources=sources,
                audit="failed" if "error" in levels else "warnings" if levels else "passed",
                reviewer=review.get("reviewer"),
                reviewed_on=review.get("reviewed_on"),
                notes=review.get("notes", ""),
            )
        )
    manifest = GenerationManifest(
        generator=generator,
        generator_version=__version__,
        model=model,
        settings={"origin": origin, "reviews": reviews.name if reviews else None},
        prompts={brief.name: _sha(brief) for brief in briefs},
        created=created or dt.datetime.now(dt.UTC).replace(microsecond=0),
        suite_sha256=suite_hash_without_manifest(root),
        scenarios=entries,
        audit={
            "errors": len(report.errors),
            "warnings": len(report.warnings),
            "checked": dict(report.checked),
        },
    )
    path = root / MANIFEST_FILE
    path.write_text(manifest_json(manifest), encoding="utf-8")
    return path
