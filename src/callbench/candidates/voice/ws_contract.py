"""Bring your own voice stack (Pipecat, LiveKit, a bespoke pipeline) over one WebSocket.

`callbench run --channel audio -c ws://127.0.0.1:8765/voice` connects once per call and speaks
this contract. Every message is one JSON text frame with a "type". Audio is mono 16-bit
little-endian PCM ("pcm16") at the rate named in `session.start` (8000 or 16000 Hz), base64 in
the "audio" field, both ways.

callbench -> stack

    {"type": "session.start", "instructions": str, "tools": [{"name", "description",
     "parameters" (JSON Schema)}], "language": "en", "direction": "inbound" | "outbound",
     "call_context": {...}, "audio": {"format": "pcm16", "rate": 16000}}
    {"type": "audio.append", "audio": base64}      the caller's turn, in one or more pieces
    {"type": "tool.result", "call_id": str, "output": str}
    {"type": "response.create"}                    your turn: answer what was sent since the last

stack -> callbench (after each response.create, in order)

    {"type": "audio.delta", "audio": base64}       your speech, streamed
    {"type": "transcript", "text": str}            optional: what you meant to say
    {"type": "tool.call", "call_id": str, "name": str, "arguments": JSON text or object}
    {"type": "response.done"}                      your turn is over
    {"type": "error", "message": str}              you failed (scored as the candidate's error)

Turns are strict: callbench sends the caller's audio (or the results of the tools you called),
then `response.create`, then reads until `response.done`. A stack that calls tools ends its
response after the calls; callbench runs them, sends one `tool.result` per call and a new
`response.create`. Your audio is heard by the run's recogniser down the telephone line: that is
what you are graded on, and what the caller hears. Turn detection is callbench's (the caller's
turn arrives whole), so a stack should not wait for silence.

Failures: a stack that cannot be reached (refused, handshake timed out) is infrastructure
(excluded, counted against coverage); a message that breaks this contract, an `error` event, or
a connection that closes mid-call is the candidate's failure (scored). A stack that never ends its
response is ended by the run's per-call deadline, also as the candidate's failure.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import AsyncIterator
from typing import Any

import numpy as np

from ...call.audio.types import Audio
from ...errors import AudioError, ModelError
from ...models.errors import ProviderTimeout, ProviderTransportError
from .protocol import AudioOut, ToolCallOut, TranscriptOut, TurnDone, VoiceEvent, VoiceSessionSetup

RATES = (8000, 16000)


def encode_pcm16(audio: Audio, rate: int) -> str:
    """`audio` at `rate`, as base64 pcm16 (the contract's audio field)."""
    from ...call.audio.signal import resample, to_pcm16

    if audio.rate != rate:
        audio = resample(audio, rate)
    return base64.b64encode(to_pcm16(audio).tobytes()).decode("ascii")


def decode_pcm16(data: str, rate: int) -> Audio:
    """The contract's audio field as Audio; ValueError when it is not base64 pcm16."""
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, TypeError) as exc:
        raise ValueError(f"audio is not base64: {exc}") from None
    if len(raw) % 2:
        raise ValueError("pcm16 audio has an odd number of bytes")
    samples = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
    return Audio(samples, rate)


def _websockets() -> Any:
    try:
        import websockets.asyncio.client as client
    except ImportError:
        raise AudioError(
            "the WebSocket voice contract needs the websockets package: "
            "pip install 'callbench[voice]'"
        ) from None
    return client


class WebSocketStack:
    """A voice stack behind `url` (ws:// or wss://), speaking the contract above."""

    def __init__(
        self,
        url: str,
        rate: int = 16000,
        open_timeout_s: float = 10.0,
        headers: dict[str, str] | None = None,
    ):
        if rate not in RATES:
            raise ValueError(f"the contract's audio rate is one of {RATES}, not {rate}")
        self.url, self.rate, self.open_timeout_s = url, rate, open_timeout_s
        self.headers = headers or {}
        self.name = url

    async def open(self, setup: VoiceSessionSetup) -> WebSocketSession:
        client = _websockets()
        from websockets.exceptions import WebSocketException

        try:
            ws = await client.connect(
                self.url,
                open_timeout=self.open_timeout_s,
                additional_headers=self.headers or None,
                max_size=2**24,
            )
        except TimeoutError:
            raise ProviderTimeout(
                f"voice stack {self.url}: no WebSocket handshake within {self.open_timeout_s:g} s"
            ) from None
        except (OSError, WebSocketException) as exc:  # refused, DNS, a refused handshake
            raise ProviderTransportError(
                f"voice stack {self.url}: cannot connect ({type(exc).__name__}: {exc})"
            ) from None
        session = WebSocketSession(ws, self.url, self.rate)
        await session.send(
            {
                "type": "session.start",
                "instructions": setup.instructions,
                "tools": [
                    {"name": t.name, "description": t.description, "parameters": t.parameters}
                    for t in setup.tools
                ],
                "language": setup.language,
                "direction": setup.direction,
                "call_context": setup.call_context,
                "audio": {"format": "pcm16", "rate": self.rate},
            }
        )
        return session


class WebSocketSession:
    def __init__(self, ws: Any, url: str, rate: int):
        self.ws, self.url, self.rate = ws, url, rate

    async def send(self, message: dict[str, Any]) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            await self.ws.send(json.dumps(message, ensure_ascii=False, default=str))
        except ConnectionClosed as exc:
            raise ModelError(
                f"voice stack {self.url} closed the connection mid-call: {exc}"
            ) from None

    async def send_audio(self, audio: Audio) -> None:
        await self.send({"type": "audio.append", "audio": encode_pcm16(audio, self.rate)})

    async def send_tool_result(self, call_id: str, result: Any) -> None:
        output = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        await self.send({"type": "tool.result", "call_id": call_id, "output": output})

    async def respond(self) -> None:
        await self.send({"type": "response.create"})

    async def events(self) -> AsyncIterator[VoiceEvent]:
        from websockets.exceptions import ConnectionClosed

        while True:
            try:
                frame = await self.ws.recv()
            except ConnectionClosed as exc:
                raise ModelError(
                    f"voice stack {self.url} closed the connection mid-call: {exc}"
                ) from None
            event = self._event(frame)
            yield event
            if isinstance(event, TurnDone):
                return

    def _event(self, frame: Any) -> VoiceEvent:
        """One server message as an event; anything outside the contract is the stack's error."""

        def broken(why: str) -> ModelError:
            return ModelError(f"voice stack {self.url} broke the contract: {why}")

        if not isinstance(frame, str):
            raise broken("a binary frame (every message is JSON text)")
        try:
            message = json.loads(frame)
        except json.JSONDecodeError:
            raise broken(f"a message that is not JSON: {frame[:120]!r}") from None
        if not isinstance(message, dict):
            raise broken(f"a message that is not an object: {frame[:120]!r}")
        kind = message.get("type")
        if kind == "audio.delta":
            data = message.get("audio")
            if not isinstance(data, str):
                raise broken("audio.delta without a base64 'audio' string")
            try:
                return AudioOut(decode_pcm16(data, self.rate))
            except ValueError as exc:
                raise broken(str(exc)) from None
        if kind == "transcript":
            text = message.get("text")
            if not isinstance(text, str):
                raise broken("transcript without a 'text' string")
            return TranscriptOut(text)
        if kind == "tool.call":
            call_id, name = message.get("call_id"), message.get("name")
            arguments = message.get("arguments", "{}")
            if not isinstance(call_id, str) or not call_id or not isinstance(name, str):
                raise broken("tool.call needs a 'call_id' and a 'name' string")
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)
            return ToolCallOut(call_id, name, arguments)
        if kind == "response.done":
            return TurnDone()
        if kind == "error":
            raise ModelError(f"voice stack {self.url} failed: {str(message.get('message'))[:300]}")
        raise broken(f"an unknown message type {str(kind)[:60]!r}")

    async def close(self) -> None:
        await self.ws.close()
