"""What a run records of a suite's generation manifest (`manifest.json`), and how it is read.

The manifest itself (spec/generation.py) can be long: every scenario's sources, prompts, rejected
drafts. A run and its report keep only what a reader of the results needs to judge the suite's
origin: the manifest's digest (so the full record can be checked against it later), who or what
generated the suite with which model and when, how many scenarios it vouches for, the audit
summary, and whether the manifest still describes the suite it sits in. A manifest that no longer
matches its suite (edited scenarios, a sealed public copy) is recorded as such, not refused: the run
measures the suite as it is, and the report says the manifest vouches for another one.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import CallbenchError
from .generation import MANIFEST_FILE, GenerationManifest
from .loading import suite_hash_without_manifest

MISMATCH = "manifest does not match the suite"


class GenerationRecord(BaseModel):
    """The manifest's summary as run.json and report.json hold it."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    file: str = MANIFEST_FILE
    sha256: str = Field(description="sha256 of manifest.json's bytes")
    generator: str
    generator_version: str = ""
    model: str | None = None
    created: str = Field(description="when the manifest says the suite was generated (ISO 8601)")
    scenarios: int = Field(description="scenarios the manifest lists")
    reviewed: int = Field(description="of them, with a reviewer named")
    scenario_audits: dict[str, int] = Field(
        default_factory=dict, description="audit status -> scenarios (passed, warnings, ...)"
    )
    audit: dict[str, Any] = Field(
        default_factory=dict, description="the manifest's audit summary, as written"
    )
    suite_sha256: str = Field(description="the suite hash the manifest vouches for")
    matches_suite: bool = Field(
        description="the suite's hash without manifest.json equals suite_sha256"
    )
    note: str | None = Field(default=None, description=f"'{MISMATCH}' when it does not")


class ManifestError(CallbenchError):
    """manifest.json is unreadable or not a generation manifest (names the file and the field)."""


def load_generation_manifest(root: Path) -> tuple[GenerationManifest, bytes] | None:
    """The suite's generation manifest and its bytes; None when the suite has none."""
    path = Path(root) / MANIFEST_FILE
    if not path.is_file():
        return None
    try:
        raw = path.read_bytes()
        data = json.loads(raw)
    except OSError as exc:
        raise ManifestError(f"{path}: unreadable ({exc.__class__.__name__})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{path}: not valid JSON ({exc})") from None
    try:
        return GenerationManifest.model_validate(data), raw
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(x) for x in first["loc"]) or "(top)"
        raise ManifestError(
            f"{path}: not a generation manifest (field {field}: {first['msg']}; "
            f"{exc.error_count()} problem(s))"
        ) from None


def read_generation_record(root: Path) -> GenerationRecord | None:
    """The record of the suite's manifest.json, checked against the suite; None without one.
    Raises ManifestError for a manifest that is not valid JSON or not a generation manifest."""
    loaded = load_generation_manifest(root)
    if loaded is None:
        return None
    manifest, raw = loaded
    matches = manifest.suite_sha256 == suite_hash_without_manifest(Path(root))
    return GenerationRecord(
        sha256=hashlib.sha256(raw).hexdigest(),
        generator=manifest.generator,
        generator_version=manifest.generator_version,
        model=manifest.model,
        created=manifest.created.isoformat(),
        scenarios=len(manifest.scenarios),
        reviewed=sum(1 for s in manifest.scenarios if s.reviewer),
        scenario_audits=dict(sorted(Counter(s.audit for s in manifest.scenarios).items())),
        audit=manifest.audit,
        suite_sha256=manifest.suite_sha256,
        matches_suite=matches,
        note=None if matches else MISMATCH,
    )


__all__ = [
    "MISMATCH",
    "GenerationRecord",
    "ManifestError",
    "load_generation_manifest",
    "read_generation_record",
]
