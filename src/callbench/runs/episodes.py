"""Assembling one episode from a suite: the candidate, the caller, the backend and the channel, all seeded."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..backends import build_backend
from ..call import EpisodeSetup, SuiteRef, TextChannel, Trace, run_episode
from ..callers import Caller, LineCaller, ScriptedCaller
from ..candidates import Candidate, candidate_entry
from ..spec import Scenario, Suite
from .seeds import derive_seed

CALLERS = ("scripted",)


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


def make_caller(kind: str, scenario: Scenario, suite: Suite) -> Caller:
    if kind == "scripted":
        return ScriptedCaller(scenario, suite.manifest.defaults.caller_phrases.get(scenario.language))
    if kind == "lines":
        return LineCaller()
    raise ValueError(f"unknown caller '{kind}' (available: {', '.join(CALLERS)})")


async def run_attempt(suite: Suite, attempt: Attempt, run_seed: int, caller_kind: str = "scripted",
                      candidate: Candidate | None = None, caller: Caller | None = None) -> Trace:
    """Run one attempt. `candidate`/`caller` override the named ones (tests pass fakes here)."""
    scenario = suite.scenarios[attempt.scenario_id]
    agent = suite.agent_for(scenario)
    seed = derive_seed(run_seed, attempt.scenario_id, attempt.repeat)
    defaults = suite.manifest.defaults
    setup = EpisodeSetup(trace_id=attempt.trace_id, suite=suite_ref(suite), scenario=scenario, agent=agent,
                         candidate_name=attempt.candidate, caller_name=caller.name if caller else caller_kind,
                         repeat=attempt.repeat, seed=seed, max_caller_turns=defaults.max_caller_turns,
                         max_tool_calls_per_turn=defaults.max_tool_calls_per_turn)
    candidate = candidate or candidate_entry(attempt.candidate).make(scenario)
    caller = caller or make_caller(caller_kind, scenario, suite)
    backend = build_backend(scenario.backend, scenario.caller.knows)
    channel = TextChannel(scenario.channel, scenario.caller.knows, random.Random(derive_seed(seed, "channel")))
    return await run_episode(setup, candidate, caller, backend, channel)
