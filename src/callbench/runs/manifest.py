"""run.json: the run's manifest, written once when the run starts and read by everything that
continues or re-reads it (`--resume`, `callbench score`, `callbench report`, the worker processes
of the processes and Ray executors).

Like Inspect AI's EvalSpec/EvalConfig, one typed record holds the whole configuration (what
decides the results, how the run ran, the prices, the model options of every role: endpoints, key
variable names and settings, never a key) and its provenance (code version, suite hash, when).
Every reader goes through `RunManifest.read` and `to_config`, so no reader can rebuild the
configuration its own way and drop a field (before this, a resumed run lost its concurrency and
limits, and re-scoring lost the judge's options and with them its cost).

Files written by earlier versions (no `manifest_version`, no `execution` section) read as version 1;
what they did not record (concurrency, limits, executor) takes today's defaults, as `--resume` of
such a run always did.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import platform
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from .._version import __version__
from ..call.audio.plan import AudioPlan
from ..errors import CallbenchError
from ..files import write_json_atomic
from ..layout import MANIFEST, RunLayout
from ..models.limits import ProviderLimits
from ..provenance import code_version
from ..spec import Suite
from ..spec.generation_record import GenerationRecord, read_generation_record
from .config import RoleOptions, RunConfig

MANIFEST_VERSION = 3
"""1: run.json before the manifest (no `execution`, no provenance beyond the code version).
3: `generation`, the summary of the suite's generation manifest (manifest.json) when it has one."""


def run_id(suite: Suite, config: RunConfig) -> str:
    """Derived from what determines the run (suite hash and the result-deciding settings), not
    from time or place, so the statistics seeded by it are the same for the same run wherever and
    whenever it is rebuilt."""
    key = json.dumps({"suite": suite.sha256, **config.as_dict()}, sort_keys=True)
    return f"{suite.id}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SuiteInfo(_Section):
    id: str
    version: str
    sha256: str
    source: str | None = None
    """where the suite was loaded from (a folder or a built-in id): where a resume loads it again"""


class AudioSettings(_Section):
    """The audio channel's settings (`AudioPlan`), as the manifest records them."""

    synthesizer: str = "auto"
    recognizer: str = "auto"
    loss: float = 0.0
    jitter_ms: float = 0.0
    keep_audio: bool = True
    background: str | None = None


class RunSettings(_Section):
    """What decides the run's results (`RunConfig.as_dict`): hashed into the run id, and what a
    resume must not change."""

    candidates: tuple[str, ...]
    repeats: int
    seed: int
    caller: str
    scenarios: tuple[str, ...] | None = None
    infra_reruns: int = 3
    judge: str | None = None
    scoring: Literal["guards", "reference"] = "guards"
    language_detector: Literal["script", "lingua"] = "script"
    step_timeout_s: float | None = 300.0
    call_timeout_s: float | None = 900.0
    channel: Literal["text", "audio"] = "text"
    audio: AudioSettings = Field(default_factory=lambda: AudioSettings())


class Execution(_Section):
    """How the run ran: may change on resume without changing what it measures."""

    concurrency: int = 8
    executor: Literal["local", "processes", "ray"] = "local"
    processes: int = 2
    address: str | None = None
    limits: dict[str, ProviderLimits] = Field(default_factory=dict)


class Options(_Section):
    candidate: RoleOptions = RoleOptions()
    caller: RoleOptions = RoleOptions()
    judge: RoleOptions = RoleOptions()


Prices = dict[str, dict[Literal["input", "cached_input", "output"], float]]
_PRICES: TypeAdapter[Prices] = TypeAdapter(Prices)


class RunManifest(_Section):
    manifest_version: int = MANIFEST_VERSION
    run_id: str
    suite: SuiteInfo
    config: RunSettings
    execution: Execution = Execution()
    prices: Prices = Field(default_factory=dict)
    options: Options = Options()
    code_version: str | None = None
    code: dict[str, Any] | None = None
    """provenance.code_version(): the installed version, and our commit from our own checkout"""
    created_at: str | None = None
    """UTC, ISO 8601, when the run started (a resume does not rewrite the manifest)"""
    python: str | None = None
    generation: GenerationRecord | None = None
    """the suite's generation manifest: digest, generator, model, counts, and whether it matches"""

    @model_validator(mode="before")
    @classmethod
    def _earlier_versions(cls, data: Any) -> Any:
        """run.json files of earlier versions carry no version number: they are version 1 (so a
        manifest is always made with its version given: `build` does)."""
        if isinstance(data, dict) and "manifest_version" not in data:
            return {**data, "manifest_version": 1}
        return data

    @classmethod
    def build(cls, suite: Suite, config: RunConfig, created_at: str | None = None) -> RunManifest:
        """The manifest of `config` run on `suite`. A suite folder's manifest.json is read here,
        before anything runs, so a malformed one stops the run with the file and field named."""
        return cls(
            manifest_version=MANIFEST_VERSION,
            run_id=run_id(suite, config),
            suite=SuiteInfo(
                id=suite.id,
                version=suite.manifest.version,
                sha256=suite.sha256,
                source=str(suite.root),
            ),
            config=RunSettings(**config.as_dict()),
            # validated, not trusted: a RunConfig made in code may name an unknown executor or price
            execution=Execution.model_validate(
                {
                    "concurrency": config.concurrency,
                    "executor": config.executor,
                    "processes": config.processes,
                    "address": config.address,
                    "limits": dict(config.limits),
                }
            ),
            prices=_PRICES.validate_python(config.prices),
            options=Options(
                candidate=RoleOptions.of(config.candidate_options),
                caller=RoleOptions.of(config.caller_options),
                judge=RoleOptions.of(config.judge_options),
            ),
            code_version=__version__,
            code=code_version(),
            created_at=created_at or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            python=platform.python_version(),
            generation=read_generation_record(suite.root),
        )

    def to_config(self) -> RunConfig:
        """The configuration the run was made with, every field."""
        c, e = self.config, self.execution
        return RunConfig(
            candidates=tuple(c.candidates),
            repeats=c.repeats,
            seed=c.seed,
            caller=c.caller,
            concurrency=e.concurrency,
            scenarios=tuple(c.scenarios) if c.scenarios else None,
            infra_reruns=c.infra_reruns,
            candidate_options=self.options.candidate.as_options(),
            caller_options=self.options.caller.as_options(),
            judge=c.judge,
            judge_options=self.options.judge.as_options(),
            limits=dict(e.limits),
            prices={
                model: {str(k): v for k, v in price.items()} for model, price in self.prices.items()
            },
            step_timeout_s=c.step_timeout_s,
            call_timeout_s=c.call_timeout_s,
            scoring=c.scoring,
            language_detector=c.language_detector,
            channel=c.channel,
            audio=AudioPlan(**c.audio.model_dump()),
            executor=e.executor,
            processes=e.processes,
            address=e.address,
        )

    def as_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def write(self, run_dir: Path) -> Path:
        path = RunLayout(run_dir).manifest
        write_json_atomic(path, json.dumps(self.as_json(), indent=1))
        return path

    @classmethod
    def parse(cls, data: Any, where: str = MANIFEST) -> RunManifest:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            at = ".".join(str(x) for x in first["loc"]) or "(top)"
            raise CallbenchError(
                f"{where}: not a run manifest ({at}: {first['msg']}; {exc.error_count()} "
                "problem(s))"
            ) from None

    @classmethod
    def read(cls, run_dir: Path) -> RunManifest:
        path = RunLayout(run_dir).manifest
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CallbenchError(f"{run_dir}: not a run folder (no {MANIFEST})") from None
        except json.JSONDecodeError as exc:
            raise CallbenchError(f"{path}: not valid JSON ({exc.msg})") from None
        return cls.parse(data, str(path))

    def changed_settings(self, other: RunManifest) -> list[str]:
        """The result-deciding settings that differ between two manifests (sorted names)."""
        mine, theirs = self.config.model_dump(), other.config.model_dump()
        return sorted(k for k in mine if mine[k] != theirs[k])
