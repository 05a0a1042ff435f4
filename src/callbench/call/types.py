"""Values that cross the boundaries of one call: pure data, no behaviour.

Candidates, callers and backends exchange only these, so each side can be
replaced by a fake (or a remote service) without touching the turn loop.
`ToolCall` and `Usage` are the model layer's own values (models/types.py),
re-exported here: what a model answers travels into the trace unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..models.types import ToolCall, Usage
from ..spec import MatchResult

__all__ = [
    "CONCLUDING_MESSAGE",
    "CallerUtterance",
    "CandidateStep",
    "ObservedMessage",
    "PublicTurn",
    "ToolCall",
    "ToolOutcome",
    "Usage",
]

CONCLUDING_MESSAGE = "concluding_message"
"""The parameter call-ending tools gain for models that cannot speak and call a tool in one message
(`candidates.tool_schemas(concluding_message=True)`): the engine speaks its value as the candidate's
last words and strips it before the backend sees the arguments."""


@dataclass(frozen=True, slots=True)
class CandidateStep:
    """One candidate message: speech, tool calls, or both. No tool calls means the turn is over."""

    speech: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    error: str | None = None
    """a model-side problem with this message (e.g. an action the JSON loop could not parse);
    recorded, scored"""
    raw: str | None = None
    """the model's raw output when it differs from what was understood (kept for the trace
    reader)"""
    notes: tuple[str, ...] = ()
    """what the adapter ignored in the answer without it being a mistake of the agent's (usage out
    of contract)"""
    latency_s: float | None = None
    """a voice candidate's response latency: seconds from the end of the caller's speech to its
    first audio (None for text candidates and for turns that answer tool results)"""


@dataclass(frozen=True, slots=True)
class ObservedMessage:
    """What the candidate is allowed to see of one trace message."""

    role: Literal["candidate", "caller", "tool"]
    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None


@dataclass(frozen=True, slots=True)
class CallerUtterance:
    """One caller turn as the simulator intends it, before the channel touches it."""

    text: str
    expressed_steps: tuple[str, ...] = ()
    done: bool = False
    usage: Usage | None = None
    notes: tuple[str, ...] = ()
    """what the simulator's model layer ignored or repaired in its provider's answers (kept in the
    trace)"""


@dataclass(frozen=True, slots=True)
class PublicTurn:
    """One line of the public conversation, as the caller heard or said it."""

    speaker: Literal["agent", "caller"]
    text: str
    said: tuple[int, int] | None = None
    """(words, figures written in digits) of the line as its speaker said it, when that is known
    and differs from `text` in kind: through the audio channel `text` is what a recogniser wrote,
    and a recogniser writes "ten forty" as 10:40. How long a turn ran is the speaker's doing, so
    the caller's patience is measured on what was said, its understanding on what was heard."""
    transcribed: bool = False
    """`text` is what a speech recogniser wrote of the line (the audio channel's way back)"""


@dataclass(slots=True)
class ToolOutcome:
    """What a backend answered to one tool call, and why."""

    result: Any
    source: str
    """queue | mismatch | default | unknown_tool | limit | ... : which rule produced the result."""
    queue_position: int | None = None
    matcher_results: list[MatchResult] = field(default_factory=list)
