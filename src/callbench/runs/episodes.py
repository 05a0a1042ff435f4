"""Assembling one episode from a suite: the candidate, the caller, the backend and the channel, all
seeded.

A `Cast` resolves names once per run (model clients are shared across calls, so
connection pools and rate limits are too) and builds fresh per-call objects.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ..backends import build_backend
from ..call import EpisodeSetup, Failure, SuiteRef, TextChannel, Trace, run_episode
from ..callers import Caller, LineCaller, ScriptedCaller
from ..candidates import Candidate, CandidateEntry, candidate_entry
from ..spec import Scenario, Suite
from .casting import cast_scenario, conditions
from .config import ConfigError
from .seeds import derive_seed


@dataclass(frozen=True)
class Attempt:
    """One cell of the plan: a candidate on a scenario, one repeat."""

    candidate: str
    scenario_id: str
    repeat: int

    @property
    def trace_id(self) -> str:
        return f"{self.candidate}/{self.scenario_id}/r{self.repeat}"


def suite_ref(suite: Suite) -> SuiteRef:
    return SuiteRef(id=suite.manifest.id, version=suite.manifest.version, sha256=suite.sha256)


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
    limits: dict[str, Any] = field(default_factory=dict)
    """per endpoint (a model spec label, or 'provider:*' for all of a provider): ProviderLimits"""
    step_timeout_s: float | None = None
    """the candidate's deadline per message (see EpisodeSetup)"""
    call_timeout_s: float | None = None
    """the candidate's deadline over a whole call"""
    gates: dict[str, Any] = field(default_factory=dict)
    gate_factory: Any = None
    """(endpoint key, ProviderLimits) -> gate; None makes in-process ProviderGates (Ray workers pass
    one
    whose gates live in a cluster-wide actor, so limits hold across workers)"""

    def gate_for(self, spec) -> Any:
        """The shared gate of an endpoint: every role and model on it waits in the same line."""
        from ..models.limits import ProviderGate

        limits = self.limits.get(spec.label) or self.limits.get(f"{spec.provider}:*")
        if limits is None:
            return None
        key = spec.base_url or spec.provider
        if key not in self.gates:
            self.gates[key] = (self.gate_factory or (lambda _key, lim: ProviderGate(lim)))(
                key, limits
            )
        return self.gates[key]

    def attach(self, model, spec):
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

    def caller_model(self):
        from ..models.specs import build_model, parse_spec

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

    def judge_model(self):
        """The judges' model: temperature 0 and a fixed seed unless the run says otherwise."""
        from dataclasses import replace

        from ..models.base import ModelSettings
        from ..models.specs import build_model, parse_spec

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

    def graders(self) -> list:
        from ..grading.judges import ConversationJudge, TaskJudge
        from ..grading.scorecard import default_graders

        graders = default_graders()
        if self.judge:
            model, spec = self.judge_model()
            graders += [TaskJudge(model, spec.label), ConversationJudge(model, spec.label)]
        return graders

    def judge_info(self) -> dict[str, Any] | None:
        if not self.judge:
            return None
        _, spec = self.judge_model()
        from ..grading.judges import CONVERSATION_PROMPT, TASK_PROMPT, sha

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
    from ..callers.llm import LLMCaller
    from ..models.specs import PROVIDERS

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
        final = trace.outcome != "excluded" or not (trace.failure and trace.failure.retryable)
        if final or len(history) >= infra_reruns or candidate is not None or caller is not None:
            trace.reruns = history
            return trace
        history.append(trace.failure)  # type: ignore[arg-type]


async def _run_once(
    suite: Suite,
    attempt: Attempt,
    run_seed: int,
    cast: Cast,
    candidate: Candidate | None,
    caller: Caller | None,
) -> Trace:
    scenario = suite.scenarios[attempt.scenario_id]
    agent = suite.agent_for(scenario)
    seed = derive_seed(run_seed, attempt.scenario_id, attempt.repeat)
    defaults = suite.manifest.defaults
    assigned = conditions(suite, attempt.scenario_id, attempt.repeat)
    scenario = cast_scenario(suite, scenario, assigned)
    caller = caller or cast.make_caller(scenario, suite)
    setup = EpisodeSetup(
        trace_id=attempt.trace_id,
        suite=suite_ref(suite),
        scenario=scenario,
        agent=agent,
        candidate_name=attempt.candidate,
        caller_name=getattr(caller, "name", cast.caller),
        repeat=attempt.repeat,
        seed=seed,
        max_caller_turns=defaults.max_caller_turns,
        max_tool_calls_per_turn=defaults.max_tool_calls_per_turn,
        conditions=assigned,
        step_timeout_s=cast.step_timeout_s,
        call_timeout_s=cast.call_timeout_s,
    )
    candidate = candidate or cast.entry(attempt.candidate).make(scenario)
    backend = build_backend(
        scenario.backend,
        scenario.caller.knows,
        agent.definition.tools,
        scenario.caller.datetime.date(),
    )
    background = suite.manifest.casting.backgrounds.get(assigned.get("background", ""))
    channel = TextChannel(
        scenario.channel,
        scenario.caller.knows,
        random.Random(derive_seed(seed, "channel")),
        background=background,
        background_rng=random.Random(derive_seed(seed, "background")),
        language=scenario.language,
    )
    return await run_episode(setup, candidate, caller, backend, channel)
