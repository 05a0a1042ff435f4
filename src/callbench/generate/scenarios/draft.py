"""One draft from the model, read and put through the suite's own checks.

A draft is accepted only by the checks a hand-written scenario must pass: the JSON object is
written as the scenario YAML file, a staging copy of the output suite with that scenario added is
audited (`audit_suite`: everything `validate` checks, the oracle playing its reference, then the
audit's own checks: caller isolation, pinned arguments, excerpts, caller lines, duplicates).
Extra checks, when given, run on the same staging suite. Every problem is kept word for word,
because the repair prompt shows the model exactly these lines.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ...audit import Finding, audit_suite
from ...errors import Problem
from ...jsontext import find_json_object

SuiteCheckFn = Callable[[Path], list[Problem]]
"""An extra check over a staging suite: its error-level problems reject a draft."""

HEADER = "# Written by `callbench generate scenarios` (see manifest.json); review before use.\n"


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


class DraftRejected(ValueError):
    """The draft failed a check; `problems` are the lines shown to the model."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(f"- {p}" for p in problems))
        self.problems = problems


@dataclass
class Requirements:
    """What this draft was asked to be, checked before the suite's checks run."""

    agent: str
    language: str
    difficulty: str
    track: str | None
    taken: set[str] = field(default_factory=set)


@dataclass
class CheckedDraft:
    id: str
    data: dict[str, Any]
    text: str
    """the scenario file as written (header + YAML)"""
    warnings: list[str]


def problem_line(p: Problem) -> str:
    where = f"{p.file}:{p.line}" if p.line else p.file
    field_ = f" {p.path}" if p.path else ""
    return f"{where}{field_}: {p.message}"


def read_draft(text: str, need: Requirements) -> tuple[str, dict[str, Any]]:
    """The scenario object in the model's answer; rejects what is not one, or not what was asked."""
    data = find_json_object(text, ("caller", "reference", "expected_actions"))
    if data is None:
        raise DraftRejected(
            ["the answer holds no JSON object with the scenario's keys (caller, reference, ...)"]
        )
    problems = []
    sid = data.get("id")
    if not isinstance(sid, str) or not sid:
        problems.append("id: required, a new lowercase-hyphenated identifier")
    elif sid in need.taken:
        problems.append(f"id: '{sid}' is already taken; choose a new id and a different situation")
    if data.get("agent") != need.agent:
        problems.append(f"agent: must be '{need.agent}'")
    if data.get("language") != need.language:
        problems.append(
            f"language: must be '{need.language}' (the agent's language; write in it, never "
            "translate)"
        )
    if data.get("difficulty") != need.difficulty:
        problems.append(f"difficulty: must be '{need.difficulty}' (this scenario's target)")
    if need.track and f"track:{need.track}" not in (data.get("tags") or []):
        problems.append(f"tags: must include 'track:{need.track}' (this scenario's target track)")
    if problems:
        raise DraftRejected(problems)
    return str(sid), data


def check_draft(
    text: str, need: Requirements, suite_root: Path, extra: list[SuiteCheckFn]
) -> CheckedDraft:
    """Read the answer and run every check on a staging copy of `suite_root` (its suite.yaml,
    agents/ and the scenarios accepted so far) with this draft added, so corpus checks (duplicates)
    see the batch. Raises DraftRejected with every error."""
    sid, data = read_draft(text, need)
    body = HEADER + dump_yaml(data)
    with tempfile.TemporaryDirectory(prefix="callbench-draft-") as tmp:
        staging = Path(tmp) / "suite"
        staging.mkdir()
        shutil.copy2(suite_root / "suite.yaml", staging / "suite.yaml")
        shutil.copytree(suite_root / "agents", staging / "agents")
        if (suite_root / "scenarios").is_dir():  # the accepted ones: corpus checks see them all
            shutil.copytree(suite_root / "scenarios", staging / "scenarios")
        target = staging / "scenarios" / need.agent / f"{_safe(sid)}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
        label = target.relative_to(staging).as_posix()
        report = audit_suite(staging)  # validate, the oracle, then the audit's own checks
        errors = [_line(f) for f in report.errors]
        if not errors:
            for check in extra:
                errors += [problem_line(p) for p in check(staging) if p.level == "error"]
        # a corpus warning (balance) names no file; one naming another scenario is not this one's
        warnings = [_line(f) for f in report.warnings if f.file == label]
    if errors:
        raise DraftRejected(errors)
    return CheckedDraft(sid, data, body, warnings)


def _line(f: Finding) -> str:
    """An audit finding as the model and the manifest read it: check, file:line, field, message."""
    where = f"{f.file}:{f.line}" if f.line else f.file
    field_ = f" {f.path}" if f.path else ""
    return f"[{f.check}] {where}{field_}: {f.message}"


def _safe(sid: str) -> str:
    """A file name from a model-written id (the loader then reports an id it refuses)."""
    cleaned = "".join(c if c.isalnum() or c in "-_" else "-" for c in sid)[:80]
    return cleaned or "draft"


def rejected_text(answer: str) -> str:
    """A rejected answer as kept in rejected/: the JSON object pretty-printed when there is one,
    else the answer as the model wrote it."""
    data = find_json_object(answer, ("caller", "reference", "expected_actions"))
    return json.dumps(data, indent=1, ensure_ascii=False) if data is not None else answer


__all__ = [
    "CheckedDraft",
    "DraftRejected",
    "Requirements",
    "SuiteCheckFn",
    "check_draft",
    "dump_yaml",
    "problem_line",
    "read_draft",
    "rejected_text",
]
