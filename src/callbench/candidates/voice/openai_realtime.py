"""OpenAI Realtime as a voice candidate: the subset of its WebSocket protocol callbench uses.

Client events: `session.update` (instructions, the agent's tools as function definitions, PCM16
audio at 24 kHz both ways, server turn detection off: the turn loop commits each caller turn
itself), `input_audio_buffer.append` / `input_audio_buffer.commit`, `conversation.item.create`
(a `function_call_output`) and `response.create`.
Server events: the audio and transcript deltas (under both the current `response.output_audio.*`
names and the older `response.audio.*` ones), `response.function_call_arguments.done` and the
function calls among `response.done`'s output items, `response.done` and `error`. Every other
event (session.created, rate_limits.updated, output item bookkeeping, ...) is not needed and is
passed over.

Errors: see realtime_ws.py. An `error` event is classified by its code and type (a rate limit or a
server error is infrastructure); a response that ends `failed` likewise.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from ...errors import ModelError
from .protocol import (
    AudioOut,
    ToolCallOut,
    TranscriptOut,
    TurnDone,
    VoiceEvent,
    VoiceSessionSetup,
)
from .realtime_ws import (
    RealtimeStack,
    audio_from_base64,
    close_quietly,
    error_for_code,
    pcm16_base64,
    receive_json,
    send_json,
    tool_result_text,
    with_query,
)

DEFAULT_URL = "wss://api.openai.com/v1/realtime"
RATE = 24000
SERVICE = "OpenAI Realtime"
AUDIO_DELTAS = {"response.output_audio.delta", "response.audio.delta"}
TRANSCRIPT_DELTAS = {"response.output_audio_transcript.delta", "response.audio_transcript.delta"}


class OpenAIRealtimeStack(RealtimeStack):
    """Opens one Realtime session per call (settings: `RealtimeStack`). The model goes in the
    endpoint's `model` query parameter, the key in the Authorization header."""

    service = SERVICE
    default_url = DEFAULT_URL
    default_key_env = "OPENAI_API_KEY"
    prefix = "openai-realtime"

    def endpoint(self, key: str) -> tuple[str, dict[str, str]]:
        return with_query(self.base_url, "model", self.model), {"Authorization": f"Bearer {key}"}

    async def start(self, conn: Any, setup: VoiceSessionSetup) -> OpenAIRealtimeSession:
        await send_json(conn, session_update(setup, self.model, self.voice), SERVICE)
        return OpenAIRealtimeSession(conn, self.timeout_s)


def session_update(setup: VoiceSessionSetup, model: str, voice: str | None) -> dict[str, Any]:
    audio_format = {"type": "audio/pcm", "rate": RATE}
    output: dict[str, Any] = {"format": audio_format}
    if voice:
        output["voice"] = voice
    return {
        "type": "session.update",
        "session": {
            "type": "realtime",
            "model": model,
            "instructions": setup.instructions,
            "output_modalities": ["audio"],
            "audio": {"input": {"format": audio_format, "turn_detection": None}, "output": output},
            "tools": [
                {
                    "type": "function",
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                }
                for tool in setup.tools
            ],
            "tool_choice": "auto",
        },
    }


class OpenAIRealtimeSession:
    def __init__(self, conn: Any, timeout_s: float):
        self.conn = conn
        self.timeout_s = timeout_s

    async def send_audio(self, audio: Any) -> None:
        for chunk in pcm16_base64(audio, RATE):
            append = {"type": "input_audio_buffer.append", "audio": chunk}
            await send_json(self.conn, append, SERVICE)
        await send_json(self.conn, {"type": "input_audio_buffer.commit"}, SERVICE)

    async def send_tool_result(self, call_id: str, result: Any) -> None:
        output = tool_result_text(result)
        item = {"type": "function_call_output", "call_id": call_id, "output": output}
        await send_json(self.conn, {"type": "conversation.item.create", "item": item}, SERVICE)

    async def respond(self) -> None:
        await send_json(self.conn, {"type": "response.create"}, SERVICE)

    async def events(self) -> AsyncIterator[VoiceEvent]:
        called: set[str] = set()
        while True:
            event = await receive_json(self.conn, SERVICE, self.timeout_s)
            kind = event.get("type")
            if kind in AUDIO_DELTAS:
                yield AudioOut(audio_from_base64(event.get("delta"), RATE, SERVICE))
            elif kind in TRANSCRIPT_DELTAS:
                delta = event.get("delta")
                if isinstance(delta, str) and delta:
                    yield TranscriptOut(delta)
            elif kind == "response.function_call_arguments.done":
                call = function_call(event)
                if call.call_id not in called:
                    called.add(call.call_id)
                    yield call
            elif kind == "response.done":
                response = event.get("response")
                if not isinstance(response, dict):
                    raise ModelError(f"{SERVICE} sent response.done without a response")
                failed(response)
                for item in response.get("output") or []:
                    if isinstance(item, dict) and item.get("type") == "function_call":
                        call = function_call(item)
                        if call.call_id not in called:
                            called.add(call.call_id)
                            yield call
                yield TurnDone()
                return
            elif kind == "error":
                error = event.get("error")
                error = error if isinstance(error, dict) else {}
                raise error_for_code(
                    SERVICE,
                    str(error.get("code") or ""),
                    str(error.get("type") or ""),
                    str(error.get("message") or ""),
                )

    async def close(self) -> None:
        await close_quietly(self.conn)


def function_call(data: dict[str, Any]) -> ToolCallOut:
    call_id, name, arguments = data.get("call_id"), data.get("name"), data.get("arguments")
    if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
        raise ModelError(f"{SERVICE} sent a function call without a call_id or a name")
    if not isinstance(arguments, str):
        raise ModelError(f"{SERVICE} sent function call arguments that are not JSON text")
    return ToolCallOut(call_id=call_id, name=name, arguments=arguments)


def failed(response: dict[str, Any]) -> None:
    """A response the service ended as failed raises its classified error."""
    if response.get("status") != "failed":
        return
    details = response.get("status_details")
    error = details.get("error") if isinstance(details, dict) else None
    error = error if isinstance(error, dict) else {}
    raise error_for_code(
        SERVICE,
        str(error.get("code") or ""),
        str(error.get("type") or "server_error"),
        str(error.get("message") or "the response failed"),
    )
