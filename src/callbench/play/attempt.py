"""One attempt of a suite, assembled and played: the scenario as cast, the seeded backend and
channel, the episode setup, and the call itself.

This sits below `runs` (which adds who plays: the named candidates, callers and judges, reruns,
the store) and below `suite_check` (whose reference proof plays the oracle through exactly this
assembly): both reach the one way an episode is put together without importing each other.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..backends import build_backend
from ..call import EpisodeSetup, SuiteRef, TextChannel, Trace, run_episode
from ..call.audio.plan import AudioPlan
from ..callers import Caller
from ..candidates import Candidate
from ..errors import AudioError
from ..spec import Scenario, Suite
from .casting import cast_scenario, conditions
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


def cast_for(suite: Suite, attempt: Attempt) -> tuple[Scenario, dict[str, str]]:
    """The scenario as this attempt plays it (its assigned persona) and the assignment itself."""
    assigned = conditions(suite, attempt.scenario_id, attempt.repeat)
    return cast_scenario(suite, suite.scenarios[attempt.scenario_id], assigned), assigned


async def play_once(
    suite: Suite,
    attempt: Attempt,
    run_seed: int,
    candidate: Candidate,
    caller: Caller,
    *,
    cast: tuple[Scenario, dict[str, str]] | None = None,
    caller_name: str = "",
    step_timeout_s: float | None = None,
    call_timeout_s: float | None = None,
    audio: AudioPlan | None = None,
) -> Trace:
    """Play `attempt` once with the given candidate and caller, made for the cast scenario (`cast`:
    what `cast_for` gave the caller of this function, so it is not computed twice). Every random
    choice derives from the run seed, the scenario and the repeat, so the same attempt plays the
    same call wherever it runs. `caller_name` names a caller that has no `name` of its own."""
    scenario, assigned = cast or cast_for(suite, attempt)
    if audio is not None and audio.background is not None:
        # the run puts every call under one sound (`--background`): recorded as its condition
        assigned = {**assigned, "background": audio.background}
    agent = suite.agent_for(scenario)
    seed = derive_seed(run_seed, attempt.scenario_id, attempt.repeat)
    defaults = suite.manifest.defaults
    setup = EpisodeSetup(
        trace_id=attempt.trace_id,
        suite=suite_ref(suite),
        scenario=scenario,
        agent=agent,
        candidate_name=attempt.candidate,
        caller_name=getattr(caller, "name", caller_name),
        repeat=attempt.repeat,
        seed=seed,
        max_caller_turns=defaults.max_caller_turns,
        max_tool_calls_per_turn=defaults.max_tool_calls_per_turn,
        conditions=assigned,
        step_timeout_s=step_timeout_s,
        call_timeout_s=call_timeout_s,
    )
    backend = build_backend(
        scenario.backend,
        scenario.caller.knows,
        agent.definition.tools,
        scenario.caller.datetime.date(),
    )
    background_name = assigned.get("background", "")
    background = suite.manifest.casting.backgrounds.get(background_name)
    sound = background.sound_for(background_name) if background is not None else None
    if audio is not None and audio.background is not None:
        sound = audio.background
    text = TextChannel(
        scenario.channel,
        scenario.caller.knows,
        random.Random(derive_seed(seed, "channel")),
        # through the audio channel the background is sound, not misheard words
        background=background if audio is None else None,
        background_rng=random.Random(derive_seed(seed, "background")),
        language=scenario.language,
    )
    attach = getattr(candidate, "attach_channel", None)  # a voice candidate hears and speaks
    if audio is None:
        if attach is not None:
            raise AudioError(
                f"candidate {attempt.candidate!r} speaks audio: run it with --channel audio"
            )
        return await run_episode(setup, candidate, caller, backend, text)
    from ..call.audio.plan import FlacSink, build_channel

    sink = FlacSink() if audio.keep_audio else None
    channel = build_channel(
        audio,
        text,
        language=scenario.language,
        mood=scenario.caller.persona.mood,
        background=sound,
        seed=derive_seed(seed, "audio"),
        sink=sink,
    )
    if attach is not None:
        attach(channel)
    try:
        trace = await run_episode(setup, candidate, caller, backend, channel)
    finally:
        close = getattr(candidate, "close", None)  # a voice session ends with its call
        if attach is not None and close is not None:
            await close()
    if sink is not None:
        trace.audio_files.update(sink.files)
    return trace
