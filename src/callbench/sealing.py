"""Sealed splits: publish a suite without some of its scenarios, and prove later that a run's
sealed scenarios are the ones committed to before the run.

`seal_suite` writes the public suite (the scenarios of the split removed) and, in it, `sealed.json`:
for each sealed scenario its id, agent, file and a commitment sha256(salt || the file's bytes with
CRLF and CR read as LF), one random 32-byte salt per scenario. The salts go to a separate private
file, never into the public folder: without its salt, a commitment cannot be checked against a
guessed scenario, so publishing it says nothing about the scenario. An unsalted hash of a sealed
file would let anyone confirm a guess, which is why the public copy of a generation manifest loses
the sealed scenarios' entries and is re-pointed at the public suite's hash.

`verify_seal` is the reveal: with the salts and the full suite, every sealed scenario the run used
must match its commitment, the revealed suite must be the one the run measured (the report's
suite hash), and the run must have used the whole split. Only then is the report official;
`mark_report` writes the finding into report.json (`seal`), official or not.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import CallbenchError, SuiteError
from .layout import REPORT
from .reports.model import Report, SealCheck, load_report
from .reports.report import write_report
from .spec import Suite, load_suite_files
from .spec.folder import SEAL_SALTS, bundle_files
from .spec.generation import MANIFEST_FILE
from .spec.generation_record import load_generation_manifest
from .spec.loading import suite_hash_without_manifest
from .suite_check import check_suite, load_suite
from .suites import locate

SEALED_FILE = "sealed.json"
SPLIT_TAG = "split:"
COMMITMENT_RULE = "sha256(salt || scenario file bytes, CRLF and CR read as LF)"
SALT_BYTES = 32


class SealError(CallbenchError):
    """Sealing or verifying cannot proceed (bad inputs, mismatched files): not a verdict."""


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SealedScenario(_File):
    id: str
    agent: str
    file: str = Field(description="path in the full suite, e.g. scenarios/<agent>/<id>.yaml")
    commitment: str = Field(description="hex sha256 of salt || canonical file bytes")


class Selection(_File):
    """How the split was chosen: its `split:<name>` tags, or a stable fraction of an untagged
    suite."""

    by: Literal["tag", "fraction"]
    tag: str | None = None
    fraction: float | None = None
    seed: int | None = None


class SealedSplit(_File):
    """sealed.json, in the public suite folder."""

    format: Literal["callbench-sealed-split"] = "callbench-sealed-split"
    version: int = 1
    suite_id: str
    suite_version: str
    split: str
    selection: Selection
    commitment: str = COMMITMENT_RULE
    created: str
    scenarios: list[SealedScenario]


class SealSalts(_File):
    """The private salts file: what reveals the commitments. Never published before the reveal."""

    format: Literal["callbench-seal-salts"] = "callbench-seal-salts"
    version: int = 1
    sealed_sha256: str = Field(description="sha256 of the sealed.json these salts open")
    suite_sha256: str = Field(description="the full suite's hash when it was sealed")
    split: str
    salts: dict[str, str] = Field(description="scenario id -> hex salt")


def canonical_bytes(data: bytes) -> bytes:
    """The file's bytes with line endings made LF, so a checkout that rewrote them still opens."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def commitment(salt: bytes, data: bytes) -> str:
    return hashlib.sha256(salt + canonical_bytes(data)).hexdigest()


def splits(suite: Suite) -> dict[str, list[str]]:
    """Split name -> the ids of the scenarios tagged `split:<name>`."""
    found: dict[str, list[str]] = {}
    for sid, scenario in sorted(suite.scenarios.items()):
        for tag in scenario.tags:
            if tag.startswith(SPLIT_TAG):
                found.setdefault(tag[len(SPLIT_TAG) :], []).append(sid)
    return found


def choose(
    suite: Suite, split: str, fraction: float | None = None, seed: int = 0
) -> tuple[list[str], Selection]:
    """The scenarios of the split: those tagged `split:<split>`, or, in a suite with no split tags
    at all, round(fraction x n) of them ordered by sha256(seed, id): the same ids for the same seed
    however the suite's files are listed."""
    tagged = splits(suite)
    if fraction is not None:
        if tagged:
            raise SealError(
                f"the suite tags its splits ({', '.join(SPLIT_TAG + s for s in tagged)}): seal a "
                "tagged split, or remove the tags to choose one with --fraction"
            )
        if not 0 < fraction < 1:
            raise SealError(f"--fraction must lie strictly between 0 and 1 (got {fraction})")
        ids = sorted(suite.scenarios)
        ids.sort(key=lambda sid: hashlib.sha256(f"{seed}\0{sid}".encode()).hexdigest())
        count = min(len(ids) - 1, max(1, round(fraction * len(ids))))
        return sorted(ids[:count]), Selection(by="fraction", fraction=fraction, seed=seed)
    if not tagged:
        raise SealError(
            f"no scenario carries a {SPLIT_TAG}<name> tag: tag the split's scenarios, or choose "
            "one with --fraction F --seed N"
        )
    if split not in tagged:
        raise SealError(
            f"no scenario is tagged {SPLIT_TAG}{split} (splits in the suite: "
            f"{', '.join(sorted(tagged))})"
        )
    return tagged[split], Selection(by="tag", tag=SPLIT_TAG + split)


@dataclass
class SealResult:
    public: Path
    sealed_file: Path
    salts_file: Path
    sealed: list[str]
    public_scenarios: int
    notes: list[str] = field(default_factory=list)


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def seal_suite(
    suite: str | Path,
    split: str,
    out: Path,
    salt_file: Path | None = None,
    fraction: float | None = None,
    seed: int = 0,
) -> SealResult:
    """Write the public suite to `out` and the salts to `salt_file` (default: the suite folder's
    .seal-salts.json, which the suite hash and the loader ignore). Refuses to overwrite either."""
    root = locate(suite)
    full = load_suite(root)
    out, salt_file = Path(out), Path(salt_file) if salt_file else root / SEAL_SALTS
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SealError(f"{out}: exists and is not an empty folder")
    if _inside(out, root) or _inside(root, out):
        raise SealError(f"{out}: the public folder must lie outside the suite folder {root}")
    if _inside(salt_file, out):
        raise SealError(f"{salt_file}: the salts must not be written into the public folder")
    if salt_file.exists():
        raise SealError(f"{salt_file}: exists (it may open an earlier seal); choose another file")
    ids, selection = choose(full, split, fraction, seed)
    if len(ids) >= len(full.scenarios):
        raise SealError(f"split '{split}' holds every scenario: nothing would be left to publish")
    sealed_files = {full.scenario_files[sid] for sid in ids}
    files, problems = bundle_files(root)
    if problems:
        raise SuiteError(problems)
    out.mkdir(parents=True, exist_ok=True)
    for path in files:
        rel = path.relative_to(root).as_posix()
        if rel in sealed_files or rel in (MANIFEST_FILE, SEALED_FILE):
            continue
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, out / rel)
    salts = {sid: secrets.token_bytes(SALT_BYTES) for sid in ids}
    record = SealedSplit(
        suite_id=full.id,
        suite_version=full.manifest.version,
        split=split,
        selection=selection,
        created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        scenarios=[
            SealedScenario(
                id=sid,
                agent=full.scenarios[sid].agent,
                file=full.scenario_files[sid],
                commitment=commitment(salts[sid], (root / full.scenario_files[sid]).read_bytes()),
            )
            for sid in ids
        ],
    )
    raw = (json.dumps(record.model_dump(mode="json"), indent=1) + "\n").encode()
    (out / SEALED_FILE).write_bytes(raw)
    notes = _public_manifest(root, out, set(ids), split)
    public = check_suite(out)  # e.g. a suite-level reference to a sealed scenario
    if public.errors:
        raise SealError(
            f"{out}: the public suite does not validate without the sealed scenarios "
            f"({len(public.errors)} error(s); first: {public.errors[0]}); no salts were written"
        )
    secret = SealSalts(
        sealed_sha256=hashlib.sha256(raw).hexdigest(),
        suite_sha256=full.sha256,
        split=split,
        salts={sid: salt.hex() for sid, salt in salts.items()},
    )
    salt_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(salt_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(secret.model_dump(mode="json"), indent=1) + "\n")
    return SealResult(out, out / SEALED_FILE, salt_file, ids, len(full.scenarios) - len(ids), notes)


def _public_manifest(root: Path, out: Path, sealed: set[str], split: str) -> list[str]:
    """The generation manifest of the public copy: the sealed scenarios' entries (their unsalted
    file hashes would confirm a guess) removed, and the suite hash it vouches for made the public
    suite's, with `settings.sealed_split` saying so. Written last: the hash covers sealed.json."""
    loaded = load_generation_manifest(root)
    if loaded is None:
        return []
    manifest, _ = loaded
    public = manifest.model_copy(
        update={
            "scenarios": [s for s in manifest.scenarios if s.id not in sealed],
            "settings": {
                **manifest.settings,
                "sealed_split": {"split": split, "scenarios_removed": len(sealed)},
            },
            "suite_sha256": suite_hash_without_manifest(out),
        }
    )
    (out / MANIFEST_FILE).write_text(
        json.dumps(public.model_dump(mode="json"), indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    return [f"{MANIFEST_FILE}: {len(sealed)} sealed scenario entries removed, suite hash renewed"]


M = TypeVar("M", bound=_File)


def _read(path: Path, model: type[M]) -> tuple[M, bytes]:
    try:
        raw = Path(path).read_bytes()
        return model.model_validate_json(raw), raw
    except OSError as exc:
        raise SealError(f"{path}: unreadable ({exc.__class__.__name__})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "(top)"
        raise SealError(f"{path}: not a {model.__name__} file ({where}: {first['msg']})") from None


def verify_seal(
    report: Report, sealed_path: Path, suite: str | Path, salts_path: Path
) -> SealCheck:
    """Check the report's run against the commitments, revealed by the salts and the full suite.
    Inputs that do not belong together raise SealError; a failed check is a verdict, returned."""
    sealed, raw = _read(sealed_path, SealedSplit)
    salts, _ = _read(salts_path, SealSalts)
    sealed_sha = hashlib.sha256(raw).hexdigest()
    if salts.sealed_sha256 != sealed_sha:
        raise SealError(f"{salts_path}: these salts open another sealed.json, not {sealed_path}")
    ids = [s.id for s in sealed.scenarios]
    unsalted = [sid for sid in ids if sid not in salts.salts]
    if unsalted:
        raise SealError(f"{salts_path}: no salt for {', '.join(unsalted)}")
    root = locate(suite)
    full, problems, _ = load_suite_files(root)
    if full is None:
        raise SuiteError(problems)
    reasons: list[str] = []
    suite_matches = full.sha256 == report.suite.sha256
    if not suite_matches:
        reasons.append(
            f"the revealed suite is not the one the run measured (sha256 "
            f"{report.suite.sha256[:12]}… in the report, {full.sha256[:12]}… revealed)"
        )
    if report.run.scenarios:
        ran = set(report.run.scenarios)
    elif suite_matches:
        ran = set(full.scenarios)
    else:
        ran = {sid for row in report.candidates.values() for sid in row.per_scenario}
    used = [sid for sid in ids if sid in ran]
    not_run = [sid for sid in ids if sid not in ran]
    verified: list[str] = []
    failed: list[str] = []
    for sid in used:
        rel = full.scenario_files.get(sid)
        data = (root / rel).read_bytes() if rel else None
        entry = next(s for s in sealed.scenarios if s.id == sid)
        ok = data is not None and commitment(bytes.fromhex(salts.salts[sid]), data) == (
            entry.commitment
        )
        (verified if ok else failed).append(sid)
    if failed:
        reasons.append(
            f"{len(failed)} sealed scenario(s) do not match their commitment: {', '.join(failed)}"
        )
    if not used:
        reasons.append("the run used no sealed scenario")
    elif not_run:
        reasons.append(f"the run left out {len(not_run)} sealed scenario(s): {', '.join(not_run)}")
    return SealCheck(
        split=sealed.split,
        sealed_sha256=sealed_sha,
        sealed=len(ids),
        used=used,
        verified=verified,
        failed=failed,
        not_run=not_run,
        suite_matches=suite_matches,
        official=not reasons,
        reasons=reasons,
        checked_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    )


def report_path(report_or_run: Path) -> Path:
    """A report file, or a run folder's report.json."""
    path = Path(report_or_run)
    return path / REPORT if path.is_dir() else path


def mark_report(
    report_or_run: Path, sealed_path: Path, suite: str | Path, salts_path: Path
) -> tuple[Path, SealCheck]:
    """Verify and write the finding into the report in place (`seal`; official only when every
    check passed). The report's artifact manifest does not cover report.json, so it still checks."""
    path = report_path(report_or_run)
    report = load_report(path)
    check = verify_seal(report, sealed_path, suite, salts_path)
    write_report(path, report.model_copy(update={"seal": check}))
    return path, check


__all__ = [
    "COMMITMENT_RULE",
    "SEALED_FILE",
    "SPLIT_TAG",
    "SealError",
    "SealResult",
    "SealSalts",
    "SealedScenario",
    "SealedSplit",
    "Selection",
    "canonical_bytes",
    "choose",
    "commitment",
    "mark_report",
    "report_path",
    "seal_suite",
    "splits",
    "verify_seal",
]
