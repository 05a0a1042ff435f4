"""Voice stacks as candidates: the protocol a speech-to-speech model, a bundled platform or a
cascade speaks to callbench, and the values that cross it.

A voice stack hears audio and answers with audio and tool calls; callbench's turn loop is turns of
text. `VoiceCandidate` (adapter.py) joins the two: at each of its turns it sends the caller's turn
as the audio channel carried it (after the background and the telephone line), asks the stack to
respond, and collects what comes back until the stack finishes its turn or calls tools. Its audio
goes down the line to the run's recogniser, and what that hears is what the candidate said: graded,
and what the caller hears. So every stack is judged on the sound it made, by the same ears.

The session is the small seam each adapter implements (OpenAI Realtime, Gemini Live, a generic
WebSocket contract, a local cascade); everything else is shared.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...call.audio.types import Audio
from ...call.types import Usage
from ...spec import ToolSpec


@dataclass(frozen=True)
class VoiceSessionSetup:
    """What a stack is told when the call opens: what a deployed agent would know."""

    instructions: str
    tools: tuple[ToolSpec, ...]
    language: str
    direction: str
    call_context: dict[str, Any] = field(default_factory=dict)
    recognize: Callable[[Audio], str] | None = field(default=None, compare=False, repr=False)
    """the run's recogniser for this call's language (blocking; one recognition at a time):
    for stacks that hear through callbench's ears, like the cascade"""


@dataclass(frozen=True)
class AudioOut:
    """A piece of the stack's speech, in order."""

    audio: Audio


@dataclass(frozen=True)
class TranscriptOut:
    """The stack's own account of what it said (optional; kept as the intended text)."""

    text: str


@dataclass(frozen=True)
class ToolCallOut:
    call_id: str
    name: str
    arguments: str
    """JSON text, as the stack sent it (parsed and checked by the turn loop)"""


@dataclass(frozen=True)
class TurnDone:
    """The stack finished its response (it now waits for the caller or for tool results).
    `usage` and `error`, when a stack knows them (a cascade's chat model), are kept on the
    candidate's message as a text candidate's are."""

    usage: Usage | None = None
    error: str | None = None


VoiceEvent = AudioOut | TranscriptOut | ToolCallOut | TurnDone


class VoiceSession(Protocol):
    """One call with a stack. The adapter drives it strictly in turns:
    `send_audio` (the caller's turn) then `respond`, or `send_tool_result` for each call then
    `respond`; then it reads `events()` until a `TurnDone`. A stack that calls tools ends its
    response after them (`TurnDone`) and continues once the results are sent."""

    async def send_audio(self, audio: Audio) -> None: ...

    async def send_tool_result(self, call_id: str, result: Any) -> None: ...

    async def respond(self) -> None: ...

    def events(self) -> AsyncIterator[VoiceEvent]: ...

    async def close(self) -> None: ...


class VoiceStack(Protocol):
    """A voice candidate's factory: opens one session per call."""

    name: str

    async def open(self, setup: VoiceSessionSetup) -> VoiceSession: ...
