"""Gemini Live as a voice candidate: the subset of the BidiGenerateContent WebSocket protocol
callbench uses.

Client messages: `setup` (the model, audio responses, the agent's instructions and its tools as
function declarations, automatic activity detection off, output transcription on), then
`realtimeInput` with `activityStart`, the caller's turn as PCM16 at 16 kHz and `activityEnd` (the
turn loop marks each caller turn itself), and `toolResponse.functionResponses` for tool results.
Server messages: `setupComplete`, `serverContent` (`modelTurn.parts[].inlineData` audio at 24 kHz,
`outputTranscription`, `turnComplete`) and `toolCall.functionCalls`. Others (usage metadata,
`goAway`, `toolCallCancellation`) are passed over.

Gemini takes the key in the URL's query: it is never shown (messages name the host only) and is a
registered secret, redacted from anything quoted. Gemini reports failures by closing the socket;
the close code and the canonical status name that leads its reason classify them (realtime_ws.py).
When the agent speaks first there is no caller audio to answer: the session is then sent
OPENING_CUE as a text turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

from ...call.audio.types import Audio
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
    pcm16_base64,
    receive_json,
    send_json,
    tool_result_text,
    with_query,
)

DEFAULT_URL = (
    "wss://generativelanguage.googleapis.com/ws/"
    "google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
)
INPUT_RATE = 16000
OUTPUT_RATE = 24000
SERVICE = "Gemini Live"
OPENING_CUE = "(The call has just been connected. Greet the caller.)"
_RATE = re.compile(r"rate=(\d+)")


class GeminiLiveStack(RealtimeStack):
    """Opens one Live session per call (settings: `RealtimeStack`). The key is added as the
    endpoint's `key` query parameter; the model is named in the setup message."""

    service = SERVICE
    default_url = DEFAULT_URL
    default_key_env = "GEMINI_API_KEY"
    prefix = "gemini-live"

    def endpoint(self, key: str) -> tuple[str, dict[str, str]]:
        return with_query(self.base_url, "key", key), {}

    async def start(self, conn: Any, setup: VoiceSessionSetup) -> GeminiLiveSession:
        await send_json(conn, setup_message(setup, self.model, self.voice), SERVICE)
        while True:  # the service accepts the setup before anything else may be sent
            event = await receive_json(conn, SERVICE, self.timeout_s)
            if "setupComplete" in event:
                return GeminiLiveSession(conn, self.timeout_s)


def setup_message(setup: VoiceSessionSetup, model: str, voice: str | None) -> dict[str, Any]:
    config: dict[str, Any] = {"responseModalities": ["AUDIO"]}
    if voice:
        config["speechConfig"] = {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": voice}}}
    body: dict[str, Any] = {
        "model": model if model.startswith("models/") else f"models/{model}",
        "generationConfig": config,
        "systemInstruction": {"parts": [{"text": setup.instructions}]},
        "realtimeInputConfig": {"automaticActivityDetection": {"disabled": True}},
        "outputAudioTranscription": {},
    }
    if setup.tools:
        body["tools"] = [
            {
                "functionDeclarations": [
                    {
                        "name": tool.name,
                        "description": tool.description,
                        "parametersJsonSchema": tool.parameters,
                    }
                    for tool in setup.tools
                ]
            }
        ]
    return {"setup": body}


class GeminiLiveSession:
    """Gemini answers on its own once a turn ends (activityEnd) or once the tool results it
    waits for arrive; `respond` therefore only sends what is pending."""

    def __init__(self, conn: Any, timeout_s: float):
        self.conn = conn
        self.timeout_s = timeout_s
        self.pending_audio: list[Audio] = []
        self.pending_results: list[dict[str, Any]] = []
        self.names: dict[str, str] = {}
        """call id -> function name (a function response names its function)"""

    async def send_audio(self, audio: Audio) -> None:
        self.pending_audio.append(audio)

    async def send_tool_result(self, call_id: str, result: Any) -> None:
        text = tool_result_text(result)
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text
        response = value if isinstance(value, dict) else {"result": value}
        self.pending_results.append(
            {"id": call_id, "name": self.names.get(call_id, ""), "response": response}
        )

    async def respond(self) -> None:
        results, self.pending_results = self.pending_results, []
        audio, self.pending_audio = self.pending_audio, []
        if results:
            await send_json(self.conn, {"toolResponse": {"functionResponses": results}}, SERVICE)
        if audio:
            await send_json(self.conn, {"realtimeInput": {"activityStart": {}}}, SERVICE)
            for piece in audio:
                for chunk in pcm16_base64(piece, INPUT_RATE):
                    blob = {"data": chunk, "mimeType": f"audio/pcm;rate={INPUT_RATE}"}
                    await send_json(self.conn, {"realtimeInput": {"audio": blob}}, SERVICE)
            await send_json(self.conn, {"realtimeInput": {"activityEnd": {}}}, SERVICE)
        elif not results:  # the agent speaks first: nothing to answer yet
            turn = {"role": "user", "parts": [{"text": OPENING_CUE}]}
            await send_json(
                self.conn, {"clientContent": {"turns": [turn], "turnComplete": True}}, SERVICE
            )

    async def events(self) -> AsyncIterator[VoiceEvent]:
        while True:
            event = await receive_json(self.conn, SERVICE, self.timeout_s)
            content = event.get("serverContent")
            if isinstance(content, dict):
                for out in self._content(content):
                    yield out
                if content.get("turnComplete"):
                    yield TurnDone()
                    return
            calls = event.get("toolCall")
            if isinstance(calls, dict):
                for call in calls.get("functionCalls") or []:
                    yield self._call(call)
                yield TurnDone()  # Gemini now waits for the results
                return

    def _content(self, content: dict[str, Any]) -> list[VoiceEvent]:
        out: list[VoiceEvent] = []
        turn = content.get("modelTurn")
        parts = turn.get("parts") if isinstance(turn, dict) else None
        for part in parts or []:
            data = part.get("inlineData") if isinstance(part, dict) else None
            if isinstance(data, dict) and str(data.get("mimeType", "")).startswith("audio/pcm"):
                rate = _RATE.search(str(data.get("mimeType")))
                out.append(
                    AudioOut(
                        audio_from_base64(
                            data.get("data"), int(rate.group(1)) if rate else OUTPUT_RATE, SERVICE
                        )
                    )
                )
        said = content.get("outputTranscription")
        if isinstance(said, dict) and isinstance(said.get("text"), str) and said["text"]:
            out.append(TranscriptOut(said["text"]))
        return out

    def _call(self, call: Any) -> ToolCallOut:
        if not isinstance(call, dict):
            raise ModelError(f"{SERVICE} sent a function call that is not an object")
        call_id, name, args = call.get("id"), call.get("name"), call.get("args", {})
        if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
            raise ModelError(f"{SERVICE} sent a function call without an id or a name")
        self.names[call_id] = name
        return ToolCallOut(
            call_id=call_id, name=name, arguments=json.dumps(args or {}, ensure_ascii=False)
        )

    async def close(self) -> None:
        await close_quietly(self.conn)
