"""The generation manifest (`manifest.json` in a suite folder): how a suite's scenarios came to be.

A generated benchmark is only as trustworthy as the record of its making: which generator and model
wrote each scenario, with which prompts (by hash) and seeds, from which source files (by hash), how
many repair attempts it took, what the audits found, and who reviewed it when. `callbench run`
records the manifest's digest and summary with the run, and reports show it. The manifest names the
suite's hash computed without the manifest itself (`suite_hash_without_manifest`), so writing the
manifest does not change what it vouches for.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from .base import Identifier, SpecModel

MANIFEST_FILE = "manifest.json"
MANIFEST_SCHEMA_VERSION = 1


class ManifestScenario(SpecModel):
    id: Identifier
    file: str = Field(description="path of the scenario file, relative to the suite folder")
    sha256: str = Field(description="sha256 of the scenario file's bytes as written")
    origin: Literal["generated", "hand_written", "imported"] = "generated"
    sources: dict[str, str] = Field(
        default_factory=dict,
        description="path -> sha256 of every file the generator read for it (agent, manual, data)",
    )
    seed: int | None = None
    attempts: int = Field(default=1, ge=1, description="drafts until it passed (1 = first)")
    audit: Literal["passed", "warnings", "failed", "not_run"] = "not_run"
    reviewer: str | None = None
    reviewed_on: dt.date | None = None
    notes: str = ""


class GenerationManifest(SpecModel):
    schema_version: int = MANIFEST_SCHEMA_VERSION
    generator: str = Field(description="what wrote the suite, e.g. 'callbench generate scenarios'")
    generator_version: str = ""
    model: str | None = Field(default=None, description="model spec, when a model wrote it")
    settings: dict[str, Any] = Field(
        default_factory=dict, description="temperature, counts, targets: whatever shaped the run"
    )
    prompts: dict[str, str] = Field(
        default_factory=dict, description="prompt name -> sha256 of its text"
    )
    seed: int | None = None
    created: dt.datetime
    suite_sha256: str = Field(description="the suite's hash without manifest.json")
    scenarios: list[ManifestScenario] = Field(default_factory=list)
    rejected: list[dict[str, Any]] = Field(
        default_factory=list, description="drafts that never passed, with their reasons"
    )
    audit: dict[str, Any] = Field(
        default_factory=dict, description="the audit's summary counts when it ran"
    )


def manifest_json(manifest: GenerationManifest) -> str:
    """The manifest as written to manifest.json (stable key order, one key per line)."""
    return json.dumps(manifest.model_dump(mode="json"), indent=1, ensure_ascii=False) + "\n"


def manifest_mismatches(root: Path, manifest: GenerationManifest) -> list[str]:
    """What in the folder no longer matches the manifest: a scenario file whose bytes changed or
    that is gone, and the suite hash. Empty when the manifest vouches for the folder as it is."""
    import hashlib

    from .loading import suite_hash_without_manifest

    root = Path(root)
    out = []
    for entry in manifest.scenarios:
        path = root / entry.file
        if not path.is_file():
            out.append(f"{entry.file}: listed in the manifest but missing")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != entry.sha256:
            out.append(f"{entry.file}: changed since the manifest was written")
    if suite_hash_without_manifest(root) != manifest.suite_sha256:
        out.append("suite_sha256: the suite's files changed since the manifest was written")
    return out


__all__ = [
    "MANIFEST_FILE",
    "GenerationManifest",
    "ManifestScenario",
    "manifest_json",
    "manifest_mismatches",
]
