"""A loopback Gemini Live server speaking exactly the subset the adapter uses (see
callbench/candidates/voice/gemini_live.py), with a reference-replaying agent behind it.

`mode`: "close_mid_response" drops the connection (no close frame reason) after the first audio
part of the second turn; "rate_limit" closes the socket on the first turn with code 1011 and a
RESOURCE_EXHAUSTED reason, which is how the Live API reports a quota. Keeps the `key` query
parameter it was given, to check the key reached it. The server around the protocol (port,
thread, shutdown, a refused handshake) is loopback.py's."""

from __future__ import annotations

import base64
import json
from urllib.parse import parse_qs, urlsplit

from websockets.sync.server import ServerConnection

from callbench.spec import Scenario

from .loopback import LoopbackServer
from .reference_agent import ReferenceAgent, chunks

RATE = 24000


class GeminiFake(LoopbackServer):
    path = "/ws/BidiGenerateContent"

    def __init__(self, scenario: Scenario, mode: str = "ok"):
        super().__init__()
        self.agent = ReferenceAgent(scenario, RATE)
        self.mode = mode
        self.keys: list[str] = []
        self.opening_cues: list[str] = []
        self.turns = 0

    def handle(self, ws: ServerConnection) -> None:
        assert ws.request is not None
        self.keys += parse_qs(urlsplit(ws.request.path).query).get("key", [])
        setup = json.loads(ws.recv())["setup"]
        self.agent.config.append(setup)
        ws.send(json.dumps({"setupComplete": {}}))
        buffer = bytearray()
        active = False
        for raw in ws:
            message = json.loads(raw)
            if "realtimeInput" in message:
                data = message["realtimeInput"]
                if "activityStart" in data:
                    assert not active
                    active = True
                elif "audio" in data:
                    assert active and data["audio"]["mimeType"] == "audio/pcm;rate=16000"
                    buffer += base64.b64decode(data["audio"]["data"])
                elif "activityEnd" in data:
                    assert active
                    active = False
                    self.agent.received_audio_bytes.append(len(buffer))
                    buffer.clear()
                    if not self.turn(ws, after_tools=False):
                        return
            elif "clientContent" in message:
                self.opening_cues.append(message["clientContent"]["turns"][0]["parts"][0]["text"])
                if not self.turn(ws, after_tools=False):
                    return
            elif "toolResponse" in message:
                for response in message["toolResponse"]["functionResponses"]:
                    assert response["id"] and response["name"]
                    self.agent.tool_outputs.append(json.dumps(response["response"]))
                if not self.turn(ws, after_tools=True):
                    return

    def turn(self, ws: ServerConnection, after_tools: bool) -> bool:
        self.turns += 1
        if self.mode == "rate_limit":
            ws.close(1011, "RESOURCE_EXHAUSTED: quota exceeded for this project")
            return False
        reply = self.agent.reply(after_tools)
        for piece in chunks(reply.pcm16):
            blob = {"mimeType": f"audio/pcm;rate={RATE}", "data": base64.b64encode(piece).decode()}
            ws.send(json.dumps({"serverContent": {"modelTurn": {"parts": [{"inlineData": blob}]}}}))
            if self.mode == "close_mid_response" and self.turns >= 2:
                ws.socket.close()  # dropped: no close frame
                return False
        if reply.text:
            ws.send(json.dumps({"serverContent": {"outputTranscription": {"text": reply.text}}}))
        if reply.calls:
            calls = [
                {"id": f"fc_{self.turns}_{n}", "name": name, "args": json.loads(arguments)}
                for n, (name, arguments) in enumerate(reply.calls)
            ]
            ws.send(json.dumps({"toolCall": {"functionCalls": calls}}))
        else:
            ws.send(json.dumps({"serverContent": {"turnComplete": True}}))
        return True
