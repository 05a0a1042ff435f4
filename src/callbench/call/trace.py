"""The trace: the indexed record of one call, and the only thing graders read.

Everything is plain JSON. Wall-clock measurements live only under `timings`
(and `usage` for model-backed roles), because they are the one part that may
differ between two runs with the same seed; the rest must replay byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from ..errors import TraceError
from ..spec import MatchResult

TRACE_SCHEMA_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
"""3: audio records (caller turns heard through the audio channel, the agent as the caller heard
it)"""
"""2 added `Message.sanitised`, `Trace.notes` and `RoleUsage.retries`; version 1 traces read
unchanged."""


class _T(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCallRecord(_T):
    id: str
    name: str
    raw_arguments: str


class Message(_T):
    """One entry of the conversation. `index` is what judges and verdicts cite as evidence."""

    index: int
    role: Literal["candidate", "caller", "tool"]
    turn: int = Field(
        description="the caller turn this message follows (0: before the caller first spoke)"
    )
    text: str | None = None
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    tool_call_id: str | None = None
    tool_name: str | None = None
    error: str | None = Field(
        default=None, description="a model-side problem with this candidate message"
    )
    raw: str | None = Field(
        default=None, description="the model's raw output, when it could not be understood"
    )
    sanitised: bool = Field(
        default=False,
        description="outside text in this message had lone surrogates, control or "
        "bidirectional-override characters, replaced by U+FFFD",
    )


class ChannelEventRecord(_T):
    kind: str
    origin: Literal["authored", "seeded", "background"]
    anchor: str = Field(description="'turn 3' or 'step give_id': what the event was keyed to")
    applied: bool
    detail: str = ""
    before: str | None = None
    after: str | None = None


class AudioTurnRecord(_T):
    """One stretch of speech through the audio channel: what was meant, what the recogniser
    heard, and the audio as heard (after the background and the telephone line)."""

    speaker: Literal["caller", "agent"]
    intended: str
    recognised: str
    wer: float | None = Field(
        description="word error rate of recognised against intended (None: nothing intended "
        "was known, as for a voice candidate that gives no transcript of its own audio)"
    )
    background: str = "clean"
    audio_path: str = Field(description="the audio file, relative to the run folder")
    audio_sha256: str
    audio_seconds: float
    synth_seconds: float = 0.0
    line_seconds: float = 0.0
    recognise_seconds: float = 0.0


class CallerTurnRecord(_T):
    turn: int
    intended: str = Field(description="what the caller meant to say; never shown to the candidate")
    observed: list[str] = Field(description="the fragments the candidate received")
    message_indices: list[int]
    expressed_steps: list[str] = Field(default_factory=list)
    done: bool = False
    channel_events: list[ChannelEventRecord] = Field(default_factory=list)
    audio: list[AudioTurnRecord] = Field(
        default_factory=list, description="each fragment through the audio channel, when it ran"
    )


class ToolEvent(_T):
    index: int = Field(description="index of the tool-result message")
    call_message_index: int
    turn: int
    call_id: str
    name: str
    raw_arguments: str
    arguments: dict[str, Any] | None = None
    parse_error: str | None = None
    known_tool: bool = True
    response_source: str
    queue_position: int | None = None
    matcher_results: list[MatchResult] = Field(default_factory=list)
    result: Any = None
    ends_call_tool: bool = False
    success: bool | None = Field(
        default=None, description="for call-ending tools: did the result meet the success condition"
    )
    ended_call: bool = False
    concluding_message: str | None = None


def backend_events(trace: Trace) -> list[ToolEvent]:
    """The tool events that reached the backend, in order (unknown tools and calls over the per-turn
    limit never do): position i here is backend call i, as the state ledger's `call_index`
    counts."""
    return [e for e in trace.tool_events if e.known_tool and e.response_source != "limit"]


class LedgerEntry(_T):
    call_index: int = Field(
        description="ordinal of the backend call that made the write (see backend_events)"
    )
    tool: str
    op: Literal["set", "merge", "append", "increment", "delete"]
    path: str
    value: Any = Field(
        default=None,
        description="the operand: value set, object merged, item appended, signed increment",
    )


class WorldRecord(_T):
    """The end of a stateful world, as the backend reported it, so graders never need the live
    backend."""

    kind: str
    initial_sha256: str
    final_sha256: str
    final_state: Any = None
    ledger: list[LedgerEntry] = Field(default_factory=list)
    calls: int = 0


class EndRecord(_T):
    reason: Literal["end_tool", "caller", "turn_limit", "model_error", "infrastructure"]
    after_message: int | None = None
    detail: str = ""


class Failure(_T):
    failure_class: Literal["infrastructure", "model"]
    kind: str
    detail: str = ""
    retryable: bool = Field(
        default=True,
        description="whether running the attempt again could succeed (false for auth errors)",
    )


class RoleUsage(_T):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    retries: int = Field(
        default=0, description="requests the model layer repeated after a retryable provider error"
    )


class Timings(_T):
    """Wall-clock facts, kept apart: the only fields allowed to differ between identical runs."""

    started_at: str = ""
    finished_at: str = ""
    wall_seconds: float = 0.0
    candidate_seconds: list[float] = Field(default_factory=list)
    caller_seconds: list[float] = Field(default_factory=list)
    tool_seconds: list[float] = Field(default_factory=list)
    response_latency_seconds: list[float] = Field(
        default_factory=list,
        description="a voice candidate's turns: end of the caller's speech to its first audio",
    )


class SuiteRef(_T):
    id: str
    version: str
    sha256: str


class Trace(_T):
    schema_version: int = TRACE_SCHEMA_VERSION
    id: str
    suite: SuiteRef
    scenario_id: str
    agent_id: str
    candidate: str
    caller: str
    repeat: int
    seed: int
    instructions_sha256: str
    conditions: dict[str, str] = Field(
        default_factory=dict,
        description="the persona and background the suite's casting assigned to this call",
    )
    messages: list[Message] = Field(default_factory=list)
    caller_turns: list[CallerTurnRecord] = Field(default_factory=list)
    tool_events: list[ToolEvent] = Field(default_factory=list)
    unapplied_channel_events: list[ChannelEventRecord] = Field(default_factory=list)
    channel: Literal["text", "audio"] = "text"
    agent_audio: list[AudioTurnRecord] = Field(
        default_factory=list,
        description="the agent's words as the caller heard them through the audio channel",
    )
    end: EndRecord | None = None
    world: WorldRecord | None = Field(
        default=None, description="final state and write ledger of a state backend"
    )
    outcome: Literal["completed", "excluded"] = "completed"
    failure: Failure | None = None
    reruns: list[Failure] = Field(
        default_factory=list,
        description="infrastructure failures of earlier runs of this attempt, each rerun from "
        "scratch",
    )
    usage: dict[str, RoleUsage] = Field(default_factory=dict)
    timings: Timings = Field(default_factory=Timings)
    notes: list[str] = Field(
        default_factory=list,
        description="what the harness repaired or ignored in what an outside "
        "party sent (characters replaced, usage out of contract)",
    )

    _audio_files: dict[str, bytes] = PrivateAttr(default_factory=dict)
    """the audio the records name (path relative to the run folder -> encoded bytes), carried from
    wherever the call played to the one process that writes the run folder; never serialised
    into the trace"""

    @property
    def audio_files(self) -> dict[str, bytes]:
        return self._audio_files

    def without_timings(self) -> dict[str, Any]:
        """The part of the trace that must be identical for identical seeds and inputs."""
        return self.model_dump(mode="json", exclude={"timings", "usage"})

    def to_json(self) -> str:
        return self.model_dump_json(indent=1)

    def speech(self, role: str = "candidate") -> list[Message]:
        return [m for m in self.messages if m.role == role and m.text]


def read_trace(path: str | Path) -> Trace:
    """Load a trace file, refusing unknown schema versions with a clear message."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TraceError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TraceError(f"{path}: not a readable JSON trace ({exc.__class__.__name__})") from None
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version not in READABLE_VERSIONS:
        raise TraceError(
            f"{path}: schema_version {version!r} is not supported (expected one of "
            f"{READABLE_VERSIONS})"
        )
    try:
        return Trace.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise TraceError(f"{path}: {loc}: {first['msg']}") from None
