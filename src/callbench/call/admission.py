"""What an outside party may hand the engine: checked against the contract and cleaned at the
boundary.

A candidate is anything from a model server to a stranger's HTTP service, and whatever it sends is
its own
responsibility. A step that breaks the contract (speech that is not text, `tool_calls` that is not a
list of
calls, arguments that are not text) becomes a recorded model error on that message, scored like any
other
mistake, never an infrastructure exclusion that would drop the call from the candidate's average.
Text is
cleaned of characters no trace may hold (`text.clean`), and usage outside its contract (not a
non-negative
whole number within a sane bound) is dropped with a note, so a bogus figure can neither crash the
report nor
buy the candidate anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..text import clean
from .types import CallerUtterance, CandidateStep, ToolCall, Usage

MAX_TOKENS = 10**9
"""More tokens than any single response has ever held: a larger figure is not a measurement."""


@dataclass
class Admitted:
    step: CandidateStep
    sanitised: bool = False
    notes: list[str] = field(default_factory=list)


def _text(value: Any, admitted: Admitted) -> str | None:
    if value is None:
        return None
    cleaned, changed = clean(value)
    admitted.sanitised |= changed
    return cleaned


def _usage(usage: Any, notes: list[str]) -> Usage | None:
    if usage is None:
        return None
    fields = ("prompt_tokens", "completion_tokens", "cached_tokens", "retries")
    values = [getattr(usage, f, None) for f in fields]
    if isinstance(usage, Usage) and all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_TOKENS for v in values
    ):
        return usage
    notes.append(f"usage out of contract ignored: {str(usage)[:120]}")
    return None


def admit_step(step: Any) -> Admitted:
    """The step as the engine may use it: a malformed one becomes an error message that carries what
    was sent."""
    if not isinstance(step, CandidateStep):
        return Admitted(
            CandidateStep(
                error=f"the agent answered with a {type(step).__name__}, not a step",
                raw=clean(repr(step)[:2000])[0],
            )
        )
    admitted = Admitted(step)
    admitted.notes += (
        [_text(n, admitted) or "" for n in step.notes if isinstance(n, str)]
        if isinstance(step.notes, tuple)
        else []
    )
    problems: list[str] = []
    speech = step.speech
    if speech is not None and not isinstance(speech, str):
        problems.append(f"speech is a {type(speech).__name__}, not text")
        speech = None
    calls: list[ToolCall] = []
    raw_calls = step.tool_calls
    if not isinstance(raw_calls, (tuple, list)):
        problems.append(f"tool_calls is a {type(raw_calls).__name__}, not a list")
        raw_calls = ()
    for i, call in enumerate(raw_calls):
        if (
            not isinstance(call, ToolCall)
            or not isinstance(call.name, str)
            or not isinstance(call.arguments, str)
            or not (call.id is None or isinstance(call.id, str))
        ):
            problems.append(f"tool_calls[{i}] is not a call with a text name and text arguments")
            continue
        calls.append(
            ToolCall(
                name=_text(call.name, admitted) or "",
                arguments=_text(call.arguments, admitted) or "",
                id=_text(call.id, admitted),
            )
        )
    error = (
        step.error
        if isinstance(step.error, str)
        else (None if step.error is None else repr(step.error))
    )
    error = "; ".join(p for p in [error, *problems] if p) or None
    raw = (
        step.raw
        if isinstance(step.raw, str)
        else (None if step.raw is None and not problems else repr(step)[:2000])
    )
    admitted.step = CandidateStep(
        speech=_text(speech, admitted),
        tool_calls=tuple(calls),
        usage=_usage(step.usage, admitted.notes),
        error=_text(error, admitted),
        raw=_text(raw, admitted),
        latency_s=_latency(step.latency_s, admitted.notes),
    )
    return admitted


def _latency(value: Any, notes: list[str]) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e6:
        notes.append(f"latency out of contract ignored: {str(value)[:60]}")
        return None
    return float(value)


def admit_utterance(utterance: CallerUtterance) -> tuple[CallerUtterance, bool]:
    """A caller turn with its text cleaned (an LLM caller's reply is outside text too)."""
    text, changed = (
        clean(utterance.text) if isinstance(utterance.text, str) else (str(utterance.text), True)
    )
    if not changed:
        return utterance, False
    return CallerUtterance(
        text=text,
        expressed_steps=utterance.expressed_steps,
        done=utterance.done,
        usage=utterance.usage,
        notes=utterance.notes,
    ), True
