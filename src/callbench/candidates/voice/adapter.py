"""`VoiceCandidate`: a voice stack played through callbench's turn loop.

Each `step` the loop asks for one candidate message. The adapter sends the stack whatever is new
since its last step — the caller's turn as audio (the channel's recording of it, after background
and line), or the results of the tools the stack called — asks it to respond, and reads events
until the stack ends its response. Its audio goes down the line to the run's recogniser
(`AudioChannel.agent_audio`); the recognised text is the message's speech. Tool calls are passed
on as they came. The time from the end of the caller's speech to the stack's first audio is the
response latency, reported per call.

A stack that breaks its protocol (an event the adapter cannot use, a message that is not the
protocol's) fails as the candidate's error; a stack that cannot be reached, drops its connection or
answers with a rate limit or a server error is infrastructure, retried and excluded as a provider's
failure is (the session adapters raise the typed errors).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import numpy as np

from ...call.audio.types import Audio
from ...call.types import CandidateStep, ToolCall
from ...call.views import CandidateView
from ...errors import AudioError, ModelError
from .protocol import (
    AudioOut,
    ToolCallOut,
    TranscriptOut,
    TurnDone,
    VoiceSession,
    VoiceSessionSetup,
    VoiceStack,
)

GAP_SECONDS = 0.3
"""silence between the fragments of one caller turn (a pause the VAD split at)"""


class VoiceCandidate:
    def __init__(self, stack: VoiceStack, name: str | None = None):
        self.stack = stack
        self.name = name or stack.name
        self.channel: Any = None
        self.session: VoiceSession | None = None
        self.seen = 0
        """how many of the view's messages the stack has been given"""

    def attach_channel(self, channel: Any) -> None:
        """The audio channel of this call (play_once attaches it before the call starts)."""
        self.channel = channel

    async def step(self, view: CandidateView) -> CandidateStep:
        if self.channel is None:
            raise AudioError(f"voice candidate {self.name!r} needs the audio channel")
        if self.session is None:
            self.session = await self.stack.open(
                VoiceSessionSetup(
                    instructions=view.system_prompt(),
                    tools=view.tools,
                    language=view.language,
                    direction=view.direction,
                    call_context=dict(view.call_context),
                    recognize=self._recognize,
                )
            )
        session = self.session
        new = view.messages[self.seen :]
        self.seen = len(view.messages)
        sent_audio = False
        for message in new:
            if message.role == "tool":
                await session.send_tool_result(message.tool_call_id or "", message.text)
        if any(m.role == "caller" for m in new):
            await session.send_audio(self._caller_turn())
            sent_audio = True
        await session.respond()
        started = time.perf_counter()
        audio: list[Audio] = []
        transcript: list[str] = []
        calls: list[ToolCall] = []
        first_audio: float | None = None
        done = TurnDone()
        async for event in session.events():
            if isinstance(event, AudioOut):
                if first_audio is None:
                    first_audio = time.perf_counter() - started
                audio.append(event.audio)
            elif isinstance(event, TranscriptOut):
                transcript.append(event.text)
            elif isinstance(event, ToolCallOut):
                calls.append(ToolCall(name=event.name, arguments=event.arguments, id=event.call_id))
            elif isinstance(event, TurnDone):
                done = event
                break
            else:
                raise ModelError(f"voice stack {self.name!r} sent an unknown event {event!r}")
        speech = None
        if audio:
            said = " ".join(t.strip() for t in transcript if t.strip()) or None
            # recognition takes seconds: off the event loop, so other calls in flight go on
            heard = await asyncio.to_thread(self.channel.agent_audio, _join(audio), said)
            speech = heard or None
        return CandidateStep(
            speech=speech,
            tool_calls=tuple(calls),
            latency_s=first_audio if sent_audio else None,
            usage=done.usage,
            error=done.error,
        )

    def _recognize(self, audio: Audio) -> str:
        stages = self.channel.stages
        with stages.lock:
            return str(stages.recognizer.transcribe(audio, self.channel.language)).strip()

    def _caller_turn(self) -> Audio:
        pieces = list(self.channel.caller_audio)
        if not pieces:
            raise AudioError("the audio channel holds no caller audio for this turn")
        return _join(pieces, gap=GAP_SECONDS)

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()
            self.session = None


def _join(pieces: list[Audio], gap: float = 0.0) -> Audio:
    """Pieces at one rate, in order (resampled to the first's rate), with `gap` seconds between."""
    from ...call.audio.signal import resample

    rate = pieces[0].rate
    parts: list[np.ndarray] = []
    for i, piece in enumerate(pieces):
        if i and gap:
            parts.append(np.zeros(int(gap * rate), dtype=np.float32))
        parts.append((piece if piece.rate == rate else resample(piece, rate)).samples)
    return Audio(np.concatenate(parts).astype(np.float32), rate)
