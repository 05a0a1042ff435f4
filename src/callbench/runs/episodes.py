"""Who plays in a run, and one attempt played with reruns: the candidate, the caller and the judges
resolved once per run, the episode itself assembled by `play` (below this layer, shared with the
suite's reference proof).

A `Cast` resolves names once per run (model clients are shared across calls, so
connection pools and rate limits are too) and builds fresh per-call objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..call import Failure, Trace
from ..call.audio.plan import AudioPlan
from ..callers import Caller, LineCaller, ScriptedCaller
from ..callers.llm import LLMCaller
from ..candidates import Candidate, CandidateEntry, candidate_entry
from ..grading.judges import CONVERSATION_PROMPT, TASK_PROMPT, ConversationJudge, TaskJudge, sha
from ..grading.scorecard import default_graders
from ..grading.scripts import LanguageDetector
from ..models.base import ModelSettings
from ..models.limits import ProviderGate, ProviderLimits
from ..models.specs import PROVIDERS, ModelSpec, build_model, parse_spec
from ..play import Attempt, cast_for, play_once, suite_ref
from ..spec import Scenario, Suite
from .config import ConfigError

__all__ = ["Attempt", "Cast", "make_caller", "run_attempt", "suite_ref"]


@dataclass
class Cast:
    """Who plays in a run: candidate entries and the caller, resolved once."""

    caller: str = "scripted"
    candidate_options: dict[str, Any] = field(default_factory=dict)
    caller_options: dict[str, Any] = field(default_factory=dict)
    models: dict[str, Any] = field(default_factory=dict)
    entries: dict[str, CandidateEntry] = field(default_factory=dict)
    judge: str | None = None
    judge_options: dict[str, Any] = field(default_factory=dict)
    limits: dict[str, ProviderLimits] = field(default_factory=dict)
    """per endpoint (a model spec label, or 'provider:*' for all of a provider): ProviderLimits"""
    step_timeout_s: float | None = None
    """the candidate's deadline per message (see EpisodeSetup)"""
    call_timeout_s: float | None = None
    """the candidate's deadline over a whole call"""
    language_detector: LanguageDetector = "script"
    """how the script check tells apart languages that share a script (see RunConfig)"""
    audio: AudioPlan | None = None
    """the audio channel's settings; None: the text channel"""
    gates: dict[str, Any] = field(default_factory=dict)
    gate_factory: Any = None
    """(endpoint key, ProviderLimits) -> gate; None makes in-process ProviderGates (Ray workers pass
    one
    whose gates live in a cluster-wide actor, so limits hold across workers)"""

    def gate_for(self, spec: ModelSpec) -> Any:
        """The shared gate of an endpoint: every role and model on it waits in the same line."""
        limits = self.limits.get(spec.label) or self.limits.get(f"{spec.provider}:*")
        if limits is None:
            return None
        key = spec.base_url or spec.provider
        if key not in self.gates:
            self.gates[key] = (self.gate_factory or (lambda _key, lim: ProviderGate(lim)))(
                key, limits
            )
        return self.gates[key]

    def attach(self, model: Any, spec: ModelSpec) -> Any:
        if hasattr(model, "gate"):
            model.gate = self.gate_for(spec)
        return model

    def entry(self, name: str) -> CandidateEntry:
        if name not in self.entries:
            self.entries[name] = candidate_entry(name, models=self.models, **self.candidate_options)
            spec = self.entries[name].spec
            if spec is not None:
                self.attach(self.models[spec.label], spec)
        return self.entries[name]

    def caller_model(self) -> tuple[Any, ModelSpec]:
        spec = parse_spec(
            self.caller,
            base_url=self.caller_options.get("base_url"),
            api_key_env=self.caller_options.get("api_key_env"),
            settings=self.caller_options.get("settings"),
        )
        # the caller's own client (and, for a local model, its own server and cache)
        key = f"caller:{spec.label}"
        if key not in self.models:
            self.models[key] = self.attach(build_model(spec), spec)
        return self.models[key], spec

    def judge_model(self) -> tuple[Any, ModelSpec]:
        """The judges' model: temperature 0 and a fixed seed unless the run says otherwise."""
        settings = self.judge_options.get("settings") or replace(
            ModelSettings(), temperature=0.0, seed=0
        )
        spec = parse_spec(
            self.judge or "",
            base_url=self.judge_options.get("base_url"),
            api_key_env=self.judge_options.get("api_key_env"),
            settings=settings,
        )
        key = f"judge:{spec.label}"
        if key not in self.models:
            self.models[key] = self.attach(build_model(spec), spec)
        return self.models[key], spec

    def graders(self) -> list[Any]:
        graders: list[Any] = list(default_graders(self.language_detector))
        if self.judge:
            model, spec = self.judge_model()
            graders += [TaskJudge(model, spec.label), ConversationJudge(model, spec.label)]
        return graders

    def judge_info(self) -> dict[str, Any] | None:
        if not self.judge:
            return None
        _, spec = self.judge_model()
        return {
            "model": spec.label,
            "settings": spec.settings.public(),
            "prompt_sha256": {
                "task_judge": sha(TASK_PROMPT),
                "conversation_judge": sha(CONVERSATION_PROMPT),
            },
        }

    def caller_info(self) -> dict[str, Any]:
        if self.caller in ("scripted", "lines"):
            return {"kind": self.caller, "model": None}
        _, spec = self.caller_model()
        return {"kind": "llm", "model": spec.label, "settings": spec.settings.public()}

    def make_caller(self, scenario: Scenario, suite: Suite) -> Caller:
        return make_caller(self.caller, scenario, suite, self)


def make_caller(kind: str, scenario: Scenario, suite: Suite, cast: Cast | None = None) -> Caller:
    if kind == "scripted":
        return ScriptedCaller(
            scenario,
            suite.manifest.defaults.caller_phrases.get(scenario.language),
            suite.manifest.defaults.followable_words,
            suite.manifest.defaults.followable_figures,
        )
    if kind == "lines":
        return LineCaller()
    if kind.partition(":")[0] not in PROVIDERS:
        raise ConfigError(
            f"unknown caller '{kind}' (use 'scripted' or a model spec such as openai:gpt-4.1-mini)"
        )
    model, spec = (cast or Cast(caller=kind)).caller_model()
    return LLMCaller(model, name=spec.label, json_mode=spec.provider == "local")


async def run_attempt(
    suite: Suite,
    attempt: Attempt,
    run_seed: int,
    caller_kind: str = "scripted",
    candidate: Candidate | None = None,
    caller: Caller | None = None,
    cast: Cast | None = None,
    infra_reruns: int = 0,
) -> Trace:
    """Run one attempt; an infrastructure failure is rerun from scratch up to `infra_reruns` times.

    `candidate`/`caller` override the named ones (tests pass fakes here). Each
    rerun starts from the same seed, so only the failing component differs.
    """
    cast = cast or Cast(caller=caller_kind)
    history: list[Failure] = []
    while True:
        trace = await _run_once(suite, attempt, run_seed, cast, candidate, caller)
        failure = trace.failure
        retry = trace.outcome == "excluded" and failure is not None and failure.retryable
        if (
            not retry
            or failure is None
            or len(history) >= infra_reruns
            or candidate is not None
            or caller is not None
        ):
            trace.reruns = history
            return trace
        history.append(failure)


async def _run_once(
    suite: Suite,
    attempt: Attempt,
    run_seed: int,
    cast: Cast,
    candidate: Candidate | None,
    caller: Caller | None,
) -> Trace:
    played_as = cast_for(suite, attempt)
    scenario = played_as[0]
    caller = caller or cast.make_caller(scenario, suite)
    candidate = candidate or cast.entry(attempt.candidate).make(scenario)
    return await play_once(
        suite,
        attempt,
        run_seed,
        candidate,
        caller,
        cast=played_as,
        caller_name=cast.caller,
        step_timeout_s=cast.step_timeout_s,
        call_timeout_s=cast.call_timeout_s,
        audio=cast.audio,
    )
