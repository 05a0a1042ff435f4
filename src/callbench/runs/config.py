"""Run configuration files (TOML), so a sweep can be repeated exactly. Keys never appear here, only
the names of the environment variables that hold them.

    suite = "starter"
    candidates = ["openai:gpt-4.1-mini", "oracle"]
    caller = "openai:gpt-4.1-mini"
    repeats = 3
    seed = 1
    concurrency = 16
    step_timeout_s = 300        # seconds a candidate may take over one message (0: no deadline)
    call_timeout_s = 900        # seconds of candidate time in one call (0: no deadline)
    executor = "local"          # local | processes | ray
    processes = 2               # worker processes (executor "processes")
    address = "ray://head:10001"   # Ray cluster (executor "ray"; default: a local cluster)
    channel = "audio"           # text (default) | audio: synthesis, background, line, recognition

    [audio]                     # the audio channel (channel = "audio")
    synthesizer = "auto"        # auto (Piper for English, espeak-ng otherwise) | espeak-ng |
                                # piper:joe (English)
    recognizer = "auto"         # auto | whisper:tiny.en | whisper:base | pocketsphinx |
                                # openai-compatible:URL#MODEL
    loss = 0.0                  # packet loss on the telephone line, 0-1
    jitter_ms = 0.0             # packets later than the jitter buffer are lost
    keep_audio = true           # write each turn's audio (FLAC) into the run folder
    background = "television"   # every call under this sound (clean | street | cafe |
                                # television) instead of the suite's casting

    [candidate]                 # settings for model-backed candidates
    base_url = "http://127.0.0.1:8000/v1"
    api_key_env = "MY_ENDPOINT_KEY"
    temperature = 0.0
    max_tokens = 400
    user_first = false          # empty user message before the first assistant turn
    concluding_message = false  # goodbye as an argument of call-ending tools
    http_transport = "aiohttp"  # the SDK's aiohttp transport; "httpx" is the SDK's default client

    [caller_model]              # settings for an LLM caller
    temperature = 0.7

    judge = "openai:gpt-4.1"    # task and conversation judges; without one, judged items are "not
    measured"
    [judge_model]
    temperature = 0.0

    [limits."openai:*"]         # per endpoint, shared by every role on it: in-flight requests,
    per-minute budgets
    concurrency = 16
    rpm = 500
    tpm = 200000

    [prices."openai:gpt-4.1-mini"]   # USD per million tokens; no price, no cost figure
    input = 0.40
    cached_input = 0.10
    output = 1.60
"""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ..call.audio.plan import AudioPlan
from ..errors import CallbenchError
from ..grading.scripts import (
    LANGUAGE_DETECTORS,
    LINGUA_HINT,
    LanguageDetector,
    lingua_available,
)
from ..models.base import TRANSPORTS, ModelSettings
from ..models.limits import ProviderLimits

if TYPE_CHECKING:  # the manifest module imports this one; only its type is named here
    from .manifest import RunManifest

RUN_KEYS = {
    "suite",
    "candidates",
    "caller",
    "judge",
    "repeats",
    "seed",
    "concurrency",
    "scenarios",
    "out",
    "infra_reruns",
    "scoring",
    "language_detector",
    "step_timeout_s",
    "call_timeout_s",
    "executor",
    "processes",
    "address",
    "channel",
}
SECTIONS = {"candidate", "caller_model", "judge_model", "prices", "limits", "audio"}
AUDIO_KEYS = {"synthesizer", "recognizer", "loss", "jitter_ms", "keep_audio", "background"}
CHANNELS = ("text", "audio")
SETTING_KEYS = set(ModelSettings.__dataclass_fields__)
ADAPTER_KEYS = {"base_url", "api_key_env", "user_first", "concluding_message"}


EXECUTORS = ("local", "processes", "ray")
SCORING = ("guards", "reference")
DEFAULT_CANDIDATES = ("oracle", "noop", "shortcut", "spray")
"""The answer key, the floor and the two scripts with no model: together they show whether the suite
is sound."""
DEFAULT_SUITE = "starter"


class ConfigError(CallbenchError):
    pass


def unknown_executor(name: object) -> str:
    return f"unknown executor '{name}' (local, processes or ray)"


class RoleOptions(BaseModel):
    """A role's adapter options: endpoint, the name of the variable holding its key, settings. The
    typed form of a RunConfig options dict, as the manifest records it and a run file is checked
    against."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = None
    api_key_env: str | None = None
    user_first: bool | None = None
    concluding_message: bool | None = None
    http: dict[str, Any] | None = None
    """options of an HTTP agent candidate (HttpAgentCandidate's keyword arguments)"""
    settings: ModelSettings | None = None

    @classmethod
    def of(cls, options: dict[str, Any]) -> RoleOptions:
        return cls(**options)

    def as_options(self) -> dict[str, Any]:
        """The RunConfig options dict: the keys that were set, values as given."""
        values = {k: getattr(self, k) for k in type(self).model_fields}
        return {k: v for k, v in values.items() if v is not None}


def deadline(value: float | None, default: float) -> float | None:
    """A deadline as given (flag or file) to what RunConfig takes: absent is the default, 0 is
    none."""
    if value is None:
        return default
    return float(value) or None


def read_config(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: malformed TOML: {exc}") from None
    unknown = set(data) - RUN_KEYS - SECTIONS
    if unknown:
        raise ConfigError(
            f"{path}: unknown key(s) {sorted(unknown)} (known: {sorted(RUN_KEYS | SECTIONS)})"
        )
    for key in ("step_timeout_s", "call_timeout_s"):
        value = data.get(key, 0)
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not 0 <= value < float("inf")
        ):
            raise ConfigError(
                f"{path}: {key} must be a number of seconds (0 for no deadline), not {value!r}"
            )
    if data.get("channel", CHANNELS[0]) not in CHANNELS:
        raise ConfigError(f"{path}: channel must be one of {list(CHANNELS)}")
    bad_audio = set(data.get("audio", {})) - AUDIO_KEYS
    if bad_audio:
        raise ConfigError(f"{path}: [audio] unknown key(s) {sorted(bad_audio)}")
    if data.get("executor", EXECUTORS[0]) not in EXECUTORS:
        raise ConfigError(unknown_executor(data["executor"]))
    processes = data.get("processes", 1)
    if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
        raise ConfigError(f"{path}: processes must be a positive integer, not {processes!r}")
    if not isinstance(data.get("address", ""), str):
        raise ConfigError(f"{path}: address must be a string (a Ray cluster address)")
    for section in ("candidate", "caller_model", "judge_model"):
        bad = set(data.get(section, {})) - SETTING_KEYS - ADAPTER_KEYS
        if bad:
            raise ConfigError(f"{path}: [{section}] unknown key(s) {sorted(bad)}")
        try:
            RoleOptions.model_validate(_typed_section(data.get(section, {})))
        except ValidationError as exc:
            first = exc.errors()[0]
            at = ".".join(str(x) for x in first["loc"] if x != "settings")
            raise ConfigError(f"{path}: [{section}] {at}: {first['msg']}") from None
        transport = data.get(section, {}).get("http_transport", TRANSPORTS[0])
        if transport not in TRANSPORTS:
            raise ConfigError(
                f"{path}: [{section}] http_transport must be one of {list(TRANSPORTS)}, not "
                f"{transport!r}"
            )
    for endpoint, limit in data.get("limits", {}).items():
        bad = set(limit) - {"concurrency", "rpm", "tpm"}
        if bad or not all(isinstance(v, int) and v > 0 for v in limit.values()):
            raise ConfigError(
                f'{path}: [limits."{endpoint}"] takes positive integers for concurrency, rpm, tpm'
            )
    for model, price in data.get("prices", {}).items():
        bad = set(price) - {"input", "cached_input", "output"}
        if bad or not all(isinstance(v, (int, float)) for v in price.values()):
            raise ConfigError(
                f'{path}: [prices."{model}"] takes numbers for input, cached_input, output (USD '
                "per million tokens)"
            )
    return data


def _typed_section(section: Mapping[str, Any]) -> dict[str, Any]:
    """A [candidate]-like section in RoleOptions' shape (settings keys under "settings")."""
    out = {k: v for k, v in section.items() if k in ADAPTER_KEYS}
    out["settings"] = {k: v for k, v in section.items() if k in SETTING_KEYS}
    return out


def role_options(section: Mapping[str, Any]) -> dict[str, Any]:
    """Split a [candidate]/[caller_model] section into adapter options and ModelSettings."""
    settings = ModelSettings(**{k: v for k, v in section.items() if k in SETTING_KEYS})
    options = {k: v for k, v in section.items() if k in ADAPTER_KEYS}
    options["settings"] = settings
    return options


def limits_from(data: Mapping[str, Any]) -> dict[str, ProviderLimits]:
    return {
        endpoint: ProviderLimits(**values) for endpoint, values in data.get("limits", {}).items()
    }


@dataclass(frozen=True)
class RunConfig:
    """Everything that decides what a run does and how it runs, bar the suite itself. Recorded whole
    in the run's manifest (runs/manifest.py) and read back from it by `--resume`, `callbench score`
    and `callbench report`: a field added here must be added there (a test checks it)."""

    candidates: tuple[str, ...] = DEFAULT_CANDIDATES
    repeats: int = 1
    seed: int = 0
    caller: str = "scripted"
    concurrency: int = 8
    scenarios: tuple[str, ...] | None = None
    infra_reruns: int = 3
    """an attempt that fails for infrastructure reasons (provider, caller simulator) is rerun this
    many times"""
    candidate_options: dict[str, Any] = field(default_factory=dict, hash=False)
    caller_options: dict[str, Any] = field(default_factory=dict, hash=False)
    judge: str | None = None
    """a model spec for the task and conversation judges; None: judged items are reported as not
    measured"""
    judge_options: dict[str, Any] = field(default_factory=dict, hash=False)
    limits: dict[str, ProviderLimits] = field(default_factory=dict, hash=False)
    """per endpoint: {"openai:gpt-4.1-mini" or "openai:*": ProviderLimits(concurrency=, rpm=,
    tpm=)}"""
    prices: dict[str, dict[str, float]] = field(default_factory=dict, hash=False)
    """USD per million tokens by model label: {"openai:gpt-4.1-mini": {"input": .4, "cached_input":
    .1, "output": 1.6}}"""
    step_timeout_s: float | None = 300.0
    """the candidate's deadline for one message (a model request, an agent's answer); blown: a model
    error, scored"""
    call_timeout_s: float | None = 900.0
    """the candidate's deadline over a whole call, summed over its messages (the utility-billing
    reference used 900 s)"""
    scoring: str = "guards"
    """how verdicts fold into pillars: "guards" (kept rules earn nothing, broken ones cost) or
    "reference" (every applicable item on both sides); scorecards carry both, reports use this
    one"""
    language_detector: LanguageDetector = "script"
    """how the script check tells apart languages that share a script (Hindi and Marathi):
    "script" (letters alone; needs nothing) or "lingua" (the lingua detector, `pip install
    'callbench[lingua]'`). A setting, never "whatever is installed": scores must not depend on
    the machine"""
    executor: str = "local"
    """who runs the calls: "local" (this process), "processes" or "ray" (see `make_executor`)"""
    processes: int = 2
    """worker processes of the "processes" executor"""
    address: str | None = None
    """the Ray cluster of the "ray" executor (None: a small local one)"""
    channel: str = "text"
    """what stands between the caller and the candidate: "text" (authored damage on the words) or
    "audio" (speech synthesis, background sound, the telephone line, speech recognition)"""
    audio: AudioPlan = field(default_factory=AudioPlan)
    """the audio channel's settings (used when channel is "audio")"""

    def as_dict(self) -> dict[str, Any]:
        """What decides the run's results: hashed into its id, and what a resume must not change
        (concurrency, limits, prices and the executor change how it runs, not what it measures)."""
        return {
            "candidates": list(self.candidates),
            "repeats": self.repeats,
            "seed": self.seed,
            "caller": self.caller,
            "scenarios": list(self.scenarios) if self.scenarios else None,
            "infra_reruns": self.infra_reruns,
            "judge": self.judge,
            "scoring": self.scoring,
            "step_timeout_s": self.step_timeout_s,
            "call_timeout_s": self.call_timeout_s,
            # only when it differs from the default, so runs made before the setting keep their id
            **(
                {"language_detector": self.language_detector}
                if self.language_detector != "script"
                else {}
            ),
            # only for audio runs, so text runs keep their id
            **(
                {"channel": self.channel, "audio": self.audio.as_dict()}
                if self.channel != "text"
                else {}
            ),
        }

    @classmethod
    def from_sources(
        cls,
        flags: RunFlags | None = None,
        file: Mapping[str, Any] | None = None,
        resumed: RunManifest | None = None,
    ) -> RunConfig:
        """The configuration of a run from its three sources, the one merge every front end uses.

        A new run: a flag given wins over the run file (`read_config`), which wins over RunConfig's
        defaults; a section's keys ([candidate], [caller_model], [judge_model]) merge one by one,
        so `--temperature` keeps the file's `base_url`.
        A resumed run (`resumed`, the stored manifest): the stored configuration, whole. Flags that
        would change what the run measures are refused (ConfigError naming them), and so is a run
        file; the flags that only change how it runs (concurrency, executor, processes, address)
        win over the stored ones.
        """
        flags = flags or RunFlags()
        if resumed is not None:
            given = [FLAG_NAMES[f] for f in RESUME_REFUSED if getattr(flags, f) not in (None, ())]
            if given:
                raise ConfigError(
                    f"--resume continues the stored run exactly; drop {', '.join(given)} (the "
                    "run's own settings are used)"
                )
            if file:
                raise ConfigError("a resumed run takes no run file: it continues the stored one")
            stored = resumed.to_config()
            config = replace(
                stored,
                **{k: getattr(flags, k) for k in EXECUTION_FLAGS if getattr(flags, k) is not None},
            )
        else:
            config = _fresh(flags, file or {})
        if config.scoring not in SCORING:
            raise ConfigError(f"unknown scoring mode '{config.scoring}' (guards or reference)")
        if config.executor not in EXECUTORS:
            raise ConfigError(unknown_executor(config.executor))
        if config.channel not in CHANNELS:
            raise ConfigError(f"unknown channel '{config.channel}' (text or audio)")
        if config.language_detector not in LANGUAGE_DETECTORS:
            raise ConfigError(
                f"unknown language detector '{config.language_detector}' "
                f"({' or '.join(LANGUAGE_DETECTORS)})"
            )
        if config.language_detector == "lingua" and not lingua_available():
            raise ConfigError(LINGUA_HINT)
        return config


@dataclass(frozen=True)
class RunFlags:
    """What a front end (the command line) was given for a run; None (or empty) is "not given"."""

    suite: str | None = None
    candidates: tuple[str, ...] = ()
    repeats: int | None = None
    seed: int | None = None
    caller: str | None = None
    scenarios: tuple[str, ...] = ()
    concurrency: int | None = None
    base_url: str | None = None
    caller_base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = None
    judge: str | None = None
    judge_base_url: str | None = None
    scoring: str | None = None
    language_detector: str | None = None
    step_timeout_s: float | None = None
    """seconds; 0: no deadline"""
    call_timeout_s: float | None = None
    config: Path | None = None
    """the run file the flags came with (only to refuse it with --resume)"""
    out: Path | None = None
    executor: str | None = None
    processes: int | None = None
    address: str | None = None
    channel: str | None = None
    synthesizer: str | None = None
    recognizer: str | None = None
    background: str | None = None


FLAG_NAMES = {
    "candidates": "--candidate",
    "repeats": "--repeats",
    "seed": "--seed",
    "caller": "--caller",
    "scenarios": "--scenario",
    "judge": "--judge",
    "config": "--config",
    "suite": "--suite",
    "out": "--out",
    "scoring": "--scoring",
    "language_detector": "--language-detector",
    "step_timeout_s": "--step-timeout",
    "call_timeout_s": "--call-timeout",
    "base_url": "--base-url",
    "caller_base_url": "--caller-base-url",
    "api_key_env": "--api-key-env",
    "temperature": "--temperature",
    "judge_base_url": "--judge-base-url",
    "channel": "--channel",
    "synthesizer": "--synthesizer",
    "recognizer": "--recognizer",
}
RESUME_REFUSED = tuple(FLAG_NAMES)
"""flags that would make a resumed run another experiment, in the order the refusal names them"""
EXECUTION_FLAGS = ("concurrency", "executor", "processes", "address")
"""flags that change how a run runs, not what it measures: a resume may change them"""


def _fresh(flags: RunFlags, file: Mapping[str, Any]) -> RunConfig:
    """Flag over file over default, key by key (see `RunConfig.from_sources`)."""
    sections: dict[str, dict[str, Any]] = {
        "candidate": {
            "base_url": flags.base_url,
            "api_key_env": flags.api_key_env,
            "temperature": flags.temperature,
        },
        "caller_model": {"base_url": flags.caller_base_url},
        "judge_model": {"base_url": flags.judge_base_url},
    }
    merged = {
        name: {
            **file.get(name, {}),
            **{k: v for k, v in given.items() if v is not None},
        }
        for name, given in sections.items()
    }
    default = RunConfig()

    def pick(flag: Any, key: str) -> Any:
        return flag if flag not in (None, ()) else file.get(key, getattr(default, key))

    return RunConfig(
        candidates=tuple(flags.candidates or file.get("candidates") or DEFAULT_CANDIDATES),
        repeats=pick(flags.repeats, "repeats"),
        seed=pick(flags.seed, "seed"),
        caller=pick(flags.caller, "caller"),
        concurrency=pick(flags.concurrency, "concurrency"),
        scenarios=tuple(flags.scenarios or file.get("scenarios") or ()) or None,
        infra_reruns=file.get("infra_reruns", default.infra_reruns),
        candidate_options=role_options(merged["candidate"]),
        caller_options=role_options(merged["caller_model"]),
        judge=flags.judge or file.get("judge"),
        judge_options=role_options(merged["judge_model"]) if merged["judge_model"] else {},
        prices=dict(file.get("prices", {})),
        limits=limits_from(file),
        scoring=pick(flags.scoring, "scoring"),
        language_detector=pick(flags.language_detector, "language_detector"),
        step_timeout_s=deadline(
            flags.step_timeout_s
            if flags.step_timeout_s is not None
            else file.get("step_timeout_s"),
            300.0,
        ),
        call_timeout_s=deadline(
            flags.call_timeout_s
            if flags.call_timeout_s is not None
            else file.get("call_timeout_s"),
            900.0,
        ),
        executor=pick(flags.executor, "executor"),
        processes=pick(flags.processes, "processes"),
        address=pick(flags.address, "address"),
        channel=pick(flags.channel, "channel"),
        audio=_audio_plan(flags, file.get("audio", {})),
    )


def _audio_plan(flags: RunFlags, section: Mapping[str, Any]) -> AudioPlan:
    given = {k: v for k, v in section.items() if k in AUDIO_KEYS}
    if flags.synthesizer:
        given["synthesizer"] = flags.synthesizer
    if flags.recognizer:
        given["recognizer"] = flags.recognizer
    if flags.background:
        given["background"] = flags.background
    try:
        return AudioPlan(**given)
    except (TypeError, CallbenchError) as exc:
        raise ConfigError(f"[audio]: {exc}") from None


def suite_source(
    flags: RunFlags, file: Mapping[str, Any] | None = None, resumed: RunManifest | None = None
) -> str:
    """The suite a run plays: the stored one on resume, else the flag, the run file, the
    starter."""
    if resumed is not None:
        return resumed.suite.source or resumed.suite.id
    return flags.suite or (file or {}).get("suite") or DEFAULT_SUITE


def run_folder(
    flags: RunFlags,
    file: Mapping[str, Any] | None,
    resumed_from: Path | None,
    suite_id: str,
    now: dt.datetime | None = None,
) -> Path:
    """Where a run writes: the resumed folder; else the flag, the run file's `out`, or
    runs/<suite>-<timestamp>. A new run refuses a folder that already holds something."""
    if resumed_from is not None:
        return resumed_from
    given = (file or {}).get("out")
    out = flags.out or (Path(given) if given else None)
    if out is None:
        stamp = (now or dt.datetime.now()).strftime("%Y%m%d-%H%M%S")
        out = Path("runs") / f"{suite_id}-{stamp}"
    if out.exists() and any(out.iterdir()):
        raise ConfigError(
            f"run folder {out} already exists and is not empty; choose another --out, or "
            "--resume it"
        )
    return out
