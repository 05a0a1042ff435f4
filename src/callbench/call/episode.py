"""One episode: the turn loop of a whole simulated call, producing its trace.

The contract: the candidate speaks first; each round the
caller advances at most one plan step and speaks, the channel renders it, and
the candidate answers with speech and/or tool calls, chaining up to
`max_tool_calls_per_turn` calls before the caller speaks again. The call ends
on a call-ending tool whose result meets its success condition, on the caller
ending the call, or after `max_caller_turns` caller turns. A call-ending tool
that fails hands control back to the candidate.

Who is to blame when something raises: the roles' implementations convert what third-party code
did wrong (a user's agent, an HTTP agent, a model provider, the caller simulator's model) into the
typed errors of `callbench.errors`, and only those end a call here: an `InfrastructureError` is
excluded (and rerun by the runner), a `ModelError` is the candidate's, scored. Any other exception
is a bug in callbench (this loop, a backend, a scripted caller) and propagates with its traceback:
a harness bug must fail the run, never pass for a provider's failure.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from ..errors import EpisodeError, ModelError
from ..spec import LoadedAgent, Scenario, SuccessCondition, evaluate
from ..spec.matchers import MISSING, same_value
from ..speech import figure_count, word_count
from .admission import admit_step, admit_utterance
from .channel import Channel
from .roles import Backend, Caller, Candidate
from .trace import (
    CallerTurnRecord,
    EndRecord,
    Failure,
    Message,
    RoleUsage,
    SuiteRef,
    ToolCallRecord,
    ToolEvent,
    Trace,
    WorldRecord,
)
from .types import CONCLUDING_MESSAGE, ObservedMessage, PublicTurn, ToolCall, ToolOutcome, Usage
from .views import CallerView, CandidateView, check_utterance

T = TypeVar("T")
EndReason = Literal["end_tool", "caller", "turn_limit", "model_error", "infrastructure"]


class CandidateTimeout(ModelError):
    """The candidate blew a deadline: its failure, scored, not the infrastructure's."""


@dataclass(frozen=True)
class EpisodeSetup:
    """Everything fixed before the call starts."""

    trace_id: str
    suite: SuiteRef
    scenario: Scenario
    agent: LoadedAgent
    candidate_name: str
    caller_name: str
    repeat: int
    seed: int
    max_caller_turns: int = 30
    max_tool_calls_per_turn: int = 10
    conditions: dict[str, str] = field(default_factory=dict)
    step_timeout_s: float | None = None
    """the longest the candidate may take over one message (request, tool chain step); None: no
    limit"""
    call_timeout_s: float | None = None
    """the longest the candidate may take over the whole call, summed over its messages; None: no
    limit"""


class _Episode:
    def __init__(
        self,
        setup: EpisodeSetup,
        candidate: Candidate,
        caller: Caller,
        backend: Backend,
        channel: Channel,
    ):
        self.setup, self.candidate, self.caller, self.backend, self.channel = (
            setup,
            candidate,
            caller,
            backend,
            channel,
        )
        agent = setup.agent.definition
        self.tools = {t.name: t for t in agent.tools}
        self.trace = Trace(
            id=setup.trace_id,
            suite=setup.suite,
            scenario_id=setup.scenario.id,
            agent_id=agent.id,
            candidate=setup.candidate_name,
            caller=setup.caller_name,
            repeat=setup.repeat,
            seed=setup.seed,
            instructions_sha256=setup.agent.instructions_sha256,
            conditions=dict(setup.conditions),
            channel="audio" if channel.kind == "audio" else "text",
        )
        self.observed: list[ObservedMessage] = []
        self.public: list[PublicTurn] = []
        self.expressed: list[str] = []
        self.turn = 0
        self.call_counter = 0
        self.candidate_seconds = 0.0
        self.base_view = CandidateView(
            instructions=setup.agent.instructions,
            tools=tuple(agent.tools),
            language=agent.language,
            direction=agent.direction,
            call_context=dict(setup.scenario.call_context),
        )

    # --- recording -------------------------------------------------------------------------
    def _message(self, **fields: Any) -> Message:
        msg = Message(index=len(self.trace.messages), turn=self.turn, **fields)
        self.trace.messages.append(msg)
        return msg

    def _usage(self, role: str, usage: Usage | None) -> None:
        u = self.trace.usage.setdefault(role, RoleUsage())
        u.calls += 1
        if usage is not None:
            u.prompt_tokens += usage.prompt_tokens
            u.completion_tokens += usage.completion_tokens
            u.cached_tokens += usage.cached_tokens
            u.retries += usage.retries

    def _end(self, reason: EndReason, detail: str = "") -> None:
        last = len(self.trace.messages) - 1
        self.trace.end = EndRecord(
            reason=reason, after_message=last if last >= 0 else None, detail=detail
        )

    # --- the loop -----------------------------------------------------------------------------
    async def run(self) -> Trace:
        timings = self.trace.timings
        timings.started_at = dt.datetime.now(dt.UTC).isoformat()
        started = time.perf_counter()
        try:
            await self._loop()
        except EpisodeError as exc:  # only typed failures end a call; a bug propagates
            self._fail(exc)
        finish = getattr(self.backend, "finish", None)  # a remote world (http) reads its state here
        if finish is not None:
            try:
                await finish()
            except EpisodeError as exc:  # no final state: the attempt cannot be graded
                if self.trace.failure is None or self.trace.failure.failure_class == "model":
                    self._fail(exc)
        self.trace.unapplied_channel_events = self.channel.unfired()
        snapshot = getattr(
            self.backend, "snapshot", None
        )  # stateful backends only; graders read it from the trace
        if callable(snapshot):
            self.trace.world = WorldRecord.model_validate(snapshot())
        timings.finished_at = dt.datetime.now(dt.UTC).isoformat()
        timings.wall_seconds = time.perf_counter() - started
        return self.trace

    def _fail(self, exc: EpisodeError) -> None:
        cls: Literal["infrastructure", "model"] = (
            "model" if exc.failure_class == "model" else "infrastructure"
        )
        self.trace.failure = Failure(
            failure_class=cls,
            kind=type(exc).__name__,
            detail=str(exc),
            retryable=getattr(exc, "retryable", True),
        )
        if cls == "infrastructure":
            self.trace.outcome = "excluded"
            self._end("infrastructure", str(exc))
        else:
            self._end("model_error", str(exc))

    async def _loop(self) -> None:
        limit = self.setup.max_caller_turns
        if await self._candidate_turn():
            return
        while True:
            if self.turn >= limit:
                self._end("turn_limit", f"{limit} caller turns reached")
                return
            self.turn += 1
            if await self._caller_turn():
                self._end("caller", "the caller ended the call")
                return
            if await self._candidate_turn():
                return

    async def _caller_turn(self) -> bool:
        view = CallerView(
            brief=self.setup.scenario.caller,
            language=self.setup.scenario.language,
            conversation=tuple(self.public),
            expressed=tuple(self.expressed),
            turn=self.turn,
        )
        t0 = time.perf_counter()
        # a simulator's model failing raises an InfrastructureError from the model layer; anything
        # else raised here is a bug in the caller and fails the run
        utterance = await self.caller.respond(view)
        self.trace.timings.caller_seconds.append(time.perf_counter() - t0)
        self._usage("caller", utterance.usage)
        self.trace.notes += [f"caller: {n}" for n in utterance.notes]
        utterance, sanitised = admit_utterance(utterance)
        check_utterance(view, utterance)
        self.expressed.extend(utterance.expressed_steps)
        self.public.append(PublicTurn("caller", utterance.text))
        args = (utterance.text, self.turn, utterance.expressed_steps)
        if self.channel.blocking:
            fragments, events = await asyncio.to_thread(self.channel.render, *args)
        else:
            fragments, events = self.channel.render(*args)
        indices = []
        for fragment in fragments:
            indices.append(self._message(role="caller", text=fragment, sanitised=sanitised).index)
            self.observed.append(ObservedMessage(role="caller", text=fragment))
        self.trace.caller_turns.append(
            CallerTurnRecord(
                turn=self.turn,
                intended=utterance.text,
                observed=fragments,
                message_indices=indices,
                expressed_steps=list(utterance.expressed_steps),
                done=utterance.done,
                channel_events=events,
                audio=self.channel.take_audio(),
            )
        )
        return utterance.done

    async def _heard(self, text: str) -> None:
        """The agent's words reach the caller through the channel's way back."""
        if self.channel.blocking:
            heard, record = await asyncio.to_thread(self.channel.hear_agent, text)
        else:
            heard, record = self.channel.hear_agent(text)
        said = None
        if record is not None:
            self.trace.agent_audio.append(record)
            if record.intended:  # a voice candidate that gave no transcript is known as heard
                said = (word_count(record.intended), figure_count(record.intended))
        self.public.append(PublicTurn("agent", heard, said, transcribed=record is not None))

    async def _candidate_turn(self) -> bool:
        """Run the candidate until it stops calling tools; True when a call-ending tool
        succeeded."""
        budget = self.setup.max_tool_calls_per_turn
        used = 0
        while True:
            view = self._view()
            t0 = time.perf_counter()
            # the adapter converts its agent's or provider's failures into typed errors (see
            # call.roles); anything else raised here is a bug in the adapter and fails the run
            step = await self._within_deadline(self.candidate.step(view))
            elapsed = time.perf_counter() - t0
            self.candidate_seconds += elapsed
            self.trace.timings.candidate_seconds.append(elapsed)
            admitted = admit_step(
                step
            )  # whatever the candidate sent is its own: checked, cleaned, never a crash
            step = admitted.step
            self.trace.notes += admitted.notes
            if step.latency_s is not None:
                self.trace.timings.response_latency_seconds.append(round(step.latency_s, 6))
            self._usage("candidate", step.usage)
            calls = [
                c if c.id else ToolCall(c.name, c.arguments, self._next_call_id())
                for c in step.tool_calls
            ]
            if not step.speech and not calls:
                if (
                    step.error
                ):  # nothing usable came out: the failure is kept, the caller hears silence
                    self._message(
                        role="candidate",
                        text=None,
                        error=step.error,
                        raw=step.raw,
                        sanitised=admitted.sanitised,
                    )
                return False
            msg = self._message(
                role="candidate",
                text=step.speech or None,
                error=step.error,
                raw=step.raw,
                tool_calls=[
                    ToolCallRecord(id=c.id or "", name=c.name, raw_arguments=c.arguments)
                    for c in calls
                ],
                sanitised=admitted.sanitised,
            )
            self.observed.append(
                ObservedMessage(role="candidate", text=step.speech or None, tool_calls=tuple(calls))
            )
            if step.speech:
                await self._heard(step.speech)
            if not calls:
                return False
            ended = limited = False
            for call in calls:
                if used >= budget:
                    limited = True
                    self._record_tool(
                        msg.index,
                        call,
                        None,
                        None,
                        ToolOutcome(
                            result={
                                "status": "error",
                                "message": f"tool call limit of {budget} per turn reached",
                            },
                            source="limit",
                        ),
                        known=call.name in self.tools,
                    )
                    continue
                used += 1
                ended = await self._run_tool(msg.index, call) or ended
            if ended:
                self._end("end_tool", "a call-ending tool succeeded")
                return True
            if limited:
                return False

    async def _within_deadline(self, pending: Awaitable[T]) -> T:
        """The candidate's answer, or a model error when it blows its per-message or whole-call
        deadline: an agent
        that never answers (or drips one byte at a time) has failed, and the sweep moves on."""
        bounds: dict[str, float] = {}
        if self.setup.step_timeout_s is not None:
            bounds["one message"] = self.setup.step_timeout_s
        if self.setup.call_timeout_s is not None:
            bounds["the whole call"] = max(0.0, self.setup.call_timeout_s - self.candidate_seconds)
        if not bounds:
            return await pending
        which = min(bounds, key=lambda k: bounds[k])
        try:
            return await asyncio.wait_for(pending, timeout=bounds[which])
        except TimeoutError:
            given = (
                f"{self.setup.step_timeout_s:g} s"
                if which == "one message"
                else f"{self.setup.call_timeout_s:g} s of candidate time, {bounds[which]:.1f} s of "
                "it left at this message"
            )
            raise CandidateTimeout(
                f"the candidate did not answer within its deadline for {which} ({given})"
            ) from None

    def _next_call_id(self) -> str:
        self.call_counter += 1
        return f"call_{self.call_counter}"

    def _view(self) -> CandidateView:
        return CandidateView(**{**self.base_view.__dict__, "messages": tuple(self.observed)})

    async def _run_tool(self, call_index: int, call: ToolCall) -> bool:
        arguments, parse_error = parse_arguments(call.arguments)
        tool = self.tools.get(call.name)
        concluding = None
        if (
            tool is not None
            and tool.ends_call
            and arguments is not None
            and CONCLUDING_MESSAGE in arguments
        ):
            arguments = dict(arguments)
            value = arguments.pop(CONCLUDING_MESSAGE)
            concluding = value if isinstance(value, str) and value.strip() else None
        if tool is None:
            outcome = ToolOutcome(
                result={"status": "error", "message": f"unknown tool '{call.name}'"},
                source="unknown_tool",
            )
        else:
            t0 = time.perf_counter()
            outcome = await self.backend.call(call.name, arguments)  # ours: a bug here propagates
            self.trace.timings.tool_seconds.append(time.perf_counter() - t0)
        success = None
        if tool is not None and tool.ends_call and tool.success is not None:
            success = success_holds(tool.success, outcome.result)
        event = self._record_tool(
            call_index,
            call,
            arguments,
            parse_error,
            outcome,
            tool is not None,
            bool(tool and tool.ends_call),
            success,
            concluding,
        )
        if outcome.source == "unavailable":  # the world says this tool does not exist on this call
            raise ModelError(f"called {call.name}, which this call does not offer")
        if concluding:
            self._message(role="candidate", text=concluding)
            self.observed.append(ObservedMessage(role="candidate", text=concluding))
            await self._heard(concluding)
        return event.ended_call

    def _record_tool(
        self,
        call_index: int,
        call: ToolCall,
        arguments: dict[str, Any] | None,
        parse_error: str | None,
        outcome: ToolOutcome,
        known: bool = True,
        ends: bool = False,
        success: bool | None = None,
        concluding: str | None = None,
    ) -> ToolEvent:
        text = json.dumps(outcome.result, ensure_ascii=False, sort_keys=True)
        msg = self._message(role="tool", text=text, tool_call_id=call.id, tool_name=call.name)
        self.observed.append(
            ObservedMessage(role="tool", text=text, tool_call_id=call.id, tool_name=call.name)
        )
        event = ToolEvent(
            index=msg.index,
            call_message_index=call_index,
            turn=self.turn,
            call_id=call.id or "",
            name=call.name,
            raw_arguments=call.arguments,
            arguments=arguments,
            parse_error=parse_error,
            known_tool=known,
            response_source=outcome.source,
            queue_position=outcome.queue_position,
            matcher_results=outcome.matcher_results,
            result=outcome.result,
            ends_call_tool=ends,
            success=success,
            ended_call=bool(success),
            concluding_message=concluding,
        )
        self.trace.tool_events.append(event)
        return event


def parse_arguments(raw: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """Arguments must be a JSON object; anything else is recorded as the candidate's parse error."""
    if raw is None or not str(raw).strip():
        return {}, None
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, TypeError) as exc:
        return None, f"arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, got {type(value).__name__}"
    return value, None


def success_holds(condition: SuccessCondition, result: Any) -> bool:
    """Does a call-ending tool's result meet the agent's typed success condition?"""
    value: Any = result
    for part in condition.path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            value = MISSING
            break
    if condition.match is not None:
        return evaluate(condition.match, value, condition.path).ok
    return value is not MISSING and same_value(value, condition.equals)


async def run_episode(
    setup: EpisodeSetup,
    candidate: Candidate,
    caller: Caller,
    backend: Backend,
    channel: Channel,
) -> Trace:
    """Run one whole call. Infrastructure failures end in an excluded trace, never a half-saved
    one; a bug in callbench raises (see the module docstring)."""
    return await _Episode(setup, candidate, caller, backend, channel).run()
