"""`callbench generate scenarios`: a model writes scenarios for one agent, one at a time; each draft
is validated, played by the oracle and audited; failures go back to the model
with the exact problems, a bounded number of times; the suite records how it was made.

Output folder layout: suite.yaml and agents/<id>/ copied from the agent's suite, the accepted
scenarios under scenarios/<id>/, drafts that never passed under rejected/ (with their reasons, also
in the manifest), and manifest.json. A provider failure ends only the draft it hit (kept in
rejected/ with the error), since it says nothing about the drafts to come; a bug in callbench
propagates.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol, cast

from ..._version import __version__
from ...audit import AuditReport, audit_suite
from ...models.ask_json import JsonRejected, ask_json
from ...models.base import ChatModel, ModelSettings
from ...models.errors import ContextOverflow, ProviderError
from ...spec.generation import (
    MANIFEST_FILE,
    GenerationManifest,
    ManifestScenario,
    manifest_json,
)
from ...spec.loading import suite_hash_without_manifest
from .draft import (
    CheckedDraft,
    DraftRejected,
    Requirements,
    SuiteCheckFn,
    check_draft,
    dump_yaml,
    rejected_text,
)
from .prompts import REPAIR, SYSTEM, example_for, prompt_hashes, request_text
from .source import AgentSource, read_agent, sha256_bytes

GENERATOR = "callbench generate scenarios"
AuditStatus = Literal["passed", "warnings", "failed", "not_run"]


@dataclass(frozen=True)
class GenerateSettings:
    count: int
    difficulty: dict[str, int] = field(default_factory=lambda: {"easy": 1, "medium": 2, "hard": 1})
    """target weights: each batch cycles through the expanded list (easy, medium, medium, hard)"""
    tracks: dict[str, int] = field(default_factory=dict)
    max_attempts: int = 3
    seed: int | None = None
    example: bool = True
    """show the shortest existing scenario of the agent, for the format"""

    def targets(self) -> list[tuple[str, str | None]]:
        """(difficulty, track) for each of the `count` scenarios, cycling through both lists."""
        levels = [d for d, n in self.difficulty.items() for _ in range(n)] or ["medium"]
        tracks: list[str | None] = [t for t, n in self.tracks.items() for _ in range(n)] or [None]
        pairs = zip(itertools.cycle(levels), itertools.cycle(tracks), strict=False)
        return list(itertools.islice(pairs, self.count))

    def public(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "difficulty": dict(self.difficulty),
            "tracks": dict(self.tracks),
            "max_attempts": self.max_attempts,
            "example": self.example,
        }


@dataclass
class Rejection:
    index: int
    file: str
    attempts: int
    reasons: list[str]
    difficulty: str
    track: str | None
    by_attempt: list[list[str]] = field(default_factory=list)
    """every attempt's problems, in order (`reasons` is the last)"""

    def record(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "attempts": self.attempts,
            "difficulty": self.difficulty,
            "track": self.track,
            "reasons": self.reasons,
            "by_attempt": self.by_attempt,
        }


@dataclass
class GenerationResult:
    out: Path
    manifest: GenerationManifest
    written: list[Path]
    rejected: list[Rejection]
    requests: int = 0


def parse_targets(text: str | None, default: dict[str, int]) -> dict[str, int]:
    """`easy=1,medium=2,hard=1` (a bare name counts once) -> weights."""
    if not text:
        return dict(default)
    out: dict[str, int] = {}
    for part in text.split(","):
        name, _, weight = part.strip().partition("=")
        if not name:
            continue
        try:
            n = int(weight) if weight else 1
        except ValueError:
            raise ValueError(f"'{part}': write name=count, e.g. medium=2") from None
        if n < 0:
            raise ValueError(f"'{part}': a count cannot be negative")
        out[name.strip()] = out.get(name.strip(), 0) + n
    return out


def prepare_out(agent: AgentSource, out: Path) -> None:
    """A new suite folder: suite.yaml (from the agent's suite, or a minimal one) and the agent's
    folder. An existing non-empty folder is refused: a batch never overwrites reviewed work."""
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"{out} is not empty; give --out a new folder")
    out.mkdir(parents=True, exist_ok=True)
    suite_id = re.sub(r"[^a-z0-9_-]+", "-", out.name.lower()).strip("-_") or "generated"
    if agent.suite_root is not None:
        text = (agent.suite_root / "suite.yaml").read_text(encoding="utf-8")
        # its own id, so runs and reports never take it for the suite it was copied from
        text = re.sub(r"^id:.*$", f"id: {suite_id}", text, count=1, flags=re.M)
        (out / "suite.yaml").write_text(text, encoding="utf-8")
    else:
        minimal = {"id": suite_id, "version": "0.1.0", "languages": [agent.language]}
        (out / "suite.yaml").write_text(dump_yaml(minimal), encoding="utf-8")
    shutil.copytree(agent.folder, out / "agents" / agent.id, ignore=_ignore)


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in ("__pycache__", ".DS_Store")}


class _Seedable(Protocol):
    settings: ModelSettings


def _seeded(model: ChatModel, seed: int | None) -> None:
    """Give the model this draft's seed (for providers that honour one)."""
    settings = getattr(model, "settings", None)
    if seed is not None and isinstance(settings, ModelSettings):
        cast(_Seedable, model).settings = replace(settings, seed=seed)


async def generate_scenarios(
    agent_path: Path,
    out: Path,
    model: ChatModel,
    model_spec: str,
    settings: GenerateSettings,
    *,
    extra_checks: list[SuiteCheckFn] | None = None,
    now: dt.datetime | None = None,
) -> GenerationResult:
    """Write `settings.count` drafts' worth of scenarios for the agent into `out`; see the module
    docstring. `extra_checks` (beyond validate, oracle and audit) reject a draft on any error they
    report."""
    agent = read_agent(agent_path)
    out = Path(out)
    prepare_out(agent, out)
    extra = list(extra_checks or [])
    example = example_for(agent) if settings.example else None
    sources = dict(agent.sources)
    if example is not None and agent.suite_root is not None:
        rel = f"scenarios/{agent.id}/{example[0]}"
        sources[rel] = sha256_bytes((agent.suite_root / rel).read_bytes())
    taken = {p.stem for p in out.glob("scenarios/*/*.yaml")}
    taken |= {Path(name).stem for name in agent.examples}
    accepted: list[tuple[CheckedDraft, Path, int, int | None]] = []
    rejected: list[Rejection] = []
    requests = 0
    targets = settings.targets()
    for index, (difficulty, track) in enumerate(targets):
        seed = None if settings.seed is None else settings.seed + index
        _seeded(model, seed)
        need = Requirements(agent.id, agent.language, difficulty, track, set(taken))
        messages = [
            {"role": "system", "content": SYSTEM},
            {
                "role": "user",
                "content": request_text(
                    agent,
                    number=index + 1,
                    count=len(targets),
                    difficulty=difficulty,
                    track=track,
                    taken=sorted(taken),
                    example=example[1] if example else None,
                ),
            },
        ]
        tried: list[str] = []

        history: list[list[str]] = []

        def read(
            text: str,
            need: Requirements = need,
            tried: list[str] = tried,
            history: list[list[str]] = history,
        ) -> CheckedDraft:
            tried.append(text)
            try:
                return check_draft(text, need, out, extra)
            except DraftRejected as exc:
                history.append(exc.problems)
                raise

        try:
            answer = await ask_json(
                model,
                messages,
                read,
                attempts=settings.max_attempts,
                rejects=DraftRejected,
                reask=REPAIR,
            )
        except JsonRejected as exc:
            requests += exc.cost.requests
            rejected.append(_reject(out, index, tried, history, difficulty, track, len(tried)))
            continue
        except (ProviderError, ContextOverflow) as exc:
            requests += len(tried) + 1
            reason = f"provider: {type(exc).__name__}: {exc}"
            history.append([reason])
            rejected.append(_reject(out, index, tried, history, difficulty, track, len(tried) + 1))
            continue
        requests += answer.cost.requests
        draft = answer.value
        path = out / "scenarios" / agent.id / f"{draft.id}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(draft.text, encoding="utf-8")
        taken.add(draft.id)
        accepted.append((draft, path, answer.cost.requests, seed))
    written = [path for _, path, _, _ in accepted]
    final = audit_suite(out)  # the batch as written: corpus checks see every accepted scenario
    status = _audit_status(final, [path.relative_to(out).as_posix() for path in written])
    manifest = GenerationManifest(
        generator=GENERATOR,
        generator_version=__version__,
        model=model_spec,
        settings={**settings.public(), "language": agent.language, "agent": agent.id},
        prompts=prompt_hashes(),
        seed=settings.seed,
        created=now or dt.datetime.now(dt.UTC).replace(microsecond=0),
        suite_sha256=suite_hash_without_manifest(out),
        scenarios=[
            ManifestScenario(
                id=draft.id,
                file=path.relative_to(out).as_posix(),
                sha256=sha256_bytes(path.read_bytes()),
                sources=sources,
                seed=seed,
                attempts=attempts,
                audit=status[path.relative_to(out).as_posix()],
                notes="; ".join(draft.warnings),
            )
            for draft, path, attempts, seed in accepted
        ],
        rejected=[r.record() for r in rejected],
        audit={
            "ok": final.ok,
            "counts": {"errors": len(final.errors), "warnings": len(final.warnings)},
            "summary": final.summary(),
            "balance": final.balance,
        },
    )
    (out / MANIFEST_FILE).write_text(manifest_json(manifest), encoding="utf-8")
    return GenerationResult(out, manifest, written, rejected, requests)


def _audit_status(report: AuditReport, files: list[str]) -> dict[str, AuditStatus]:
    """Per scenario file: failed (an error names it), warnings, or passed."""
    out: dict[str, AuditStatus] = {}
    for file in files:
        levels = {f.level for f in report.findings if f.file == file}
        out[file] = "failed" if "error" in levels else "warnings" if levels else "passed"
    return out


def _reject(
    out: Path,
    index: int,
    tried: list[str],
    history: list[list[str]],
    difficulty: str,
    track: str | None,
    attempts: int,
) -> Rejection:
    """Keep the last draft of a failed scenario in rejected/, with the reasons of every attempt
    beside it (`reasons` are the last attempt's)."""
    folder = out / "rejected"
    folder.mkdir(exist_ok=True)
    name = f"draft-{index + 1:03d}"
    last = tried[-1] if tried else ""
    (folder / f"{name}.json").write_text(rejected_text(last) + "\n", encoding="utf-8")
    record = {"attempts": attempts, "reasons": history[-1], "by_attempt": history}
    (folder / f"{name}.reasons.json").write_text(
        json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return Rejection(
        index, f"rejected/{name}.json", attempts, history[-1], difficulty, track, history
    )


__all__ = [
    "GENERATOR",
    "GenerateSettings",
    "GenerationResult",
    "Rejection",
    "generate_scenarios",
    "parse_targets",
    "prepare_out",
]
