"""A loopback OpenAI Realtime server speaking exactly the subset the adapter uses (see
callbench/candidates/voice/openai_realtime.py), with a reference-replaying agent behind it.

`mode` breaks it on purpose: "close_mid_response" drops the connection after the first audio
delta of the second response; "rate_limit" answers the first response.create with an error event
carrying a rate-limit code. The server around the protocol (port, thread, shutdown, a refused
handshake) is loopback.py's."""

from __future__ import annotations

import base64
import json

from websockets.sync.server import ServerConnection

from callbench.spec import Scenario

from .loopback import LoopbackServer
from .reference_agent import ReferenceAgent, chunks

RATE = 24000


class RealtimeFake(LoopbackServer):
    path = "/v1/realtime"

    def __init__(self, scenario: Scenario, mode: str = "ok"):
        super().__init__()
        self.agent = ReferenceAgent(scenario, RATE)
        self.mode = mode
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.unknown: list[str] = []
        self.responses = 0

    def handle(self, ws: ServerConnection) -> None:
        assert ws.request is not None
        self.headers.append(dict(ws.request.headers))
        self.paths.append(ws.request.path)
        ws.send(json.dumps({"type": "session.created", "session": {}}))
        buffer = bytearray()
        after_tools = False
        for raw in ws:
            event = json.loads(raw)
            kind = event["type"]
            if kind == "session.update":
                self.agent.config.append(event["session"])
                ws.send(json.dumps({"type": "session.updated", "session": event["session"]}))
            elif kind == "input_audio_buffer.append":
                buffer += base64.b64decode(event["audio"])
            elif kind == "input_audio_buffer.commit":
                self.agent.received_audio_bytes.append(len(buffer))
                buffer.clear()
                after_tools = False
            elif kind == "conversation.item.create":
                item = event["item"]
                assert item["type"] == "function_call_output" and item["call_id"]
                self.agent.tool_outputs.append(item["output"])
                after_tools = True
            elif kind == "response.create":
                self.responses += 1
                if self.mode == "rate_limit":
                    error = {
                        "type": "rate_limit_error",
                        "code": "rate_limit_exceeded",
                        "message": "Rate limit reached for requests",
                    }
                    ws.send(json.dumps({"type": "error", "error": error}))
                    continue
                if not self.respond(ws, after_tools):
                    return
            else:
                self.unknown.append(kind)

    def respond(self, ws: ServerConnection, after_tools: bool) -> bool:
        reply = self.agent.reply(after_tools)
        rid = f"resp_{self.responses}"
        ws.send(json.dumps({"type": "response.created", "response": {"id": rid}}))
        names = ("response.output_audio.delta", "response.audio.delta")  # both, as the API renamed
        for i, piece in enumerate(chunks(reply.pcm16)):
            delta = base64.b64encode(piece).decode("ascii")
            ws.send(json.dumps({"type": names[i % 2], "response_id": rid, "delta": delta}))
            if self.mode == "close_mid_response" and self.responses >= 2:
                ws.close()
                return False
        if reply.text:
            ws.send(
                json.dumps({"type": "response.output_audio_transcript.delta", "delta": reply.text})
            )
        output = []
        for n, (name, arguments) in enumerate(reply.calls):
            call_id = f"call_{self.responses}_{n}"
            item = {"type": "function_call", "call_id": call_id, "name": name}
            if n % 2 == 0:  # some calls announced by their own event, all listed in response.done
                ws.send(
                    json.dumps(
                        {
                            "type": "response.function_call_arguments.done",
                            **item,
                            "arguments": arguments,
                        }
                    )
                )
            output.append({**item, "arguments": arguments, "status": "completed"})
        ws.send(
            json.dumps(
                {
                    "type": "response.done",
                    "response": {"id": rid, "status": "completed", "output": output},
                }
            )
        )
        return True
