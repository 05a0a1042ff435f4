"""The agent behind the loopback fakes: it replays a scenario's reference solution, turn by turn,
as a realtime model would answer: each `say` as espeak-ng speech, each reference call as a function
call whose result it waits for before going on (`same_turn` entries continue after the results,
the others after the caller's next turn). It hears nothing: it records what it was sent."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from callbench.call.audio.signal import resample, to_pcm16
from callbench.call.audio.types import Voice
from callbench.spec import Scenario, make_scope, resolve


@dataclass
class Reply:
    pcm16: bytes
    """the speech at the fake's output rate (empty when the turn says nothing)"""
    text: str
    calls: list[tuple[str, str]]
    """(function name, JSON arguments)"""


@dataclass
class ReferenceAgent:
    scenario: Scenario
    rate: int
    position: int = 0
    received_audio_bytes: list[int] = field(default_factory=list)
    """PCM16 bytes of each caller turn the fake was sent"""
    tool_outputs: list[str] = field(default_factory=list)
    config: list[dict[str, Any]] = field(default_factory=list)

    def reply(self, after_tools: bool) -> Reply:
        from callbench.call.audio.synth import make_synthesizer

        entries = self.scenario.reference
        if self.position >= len(entries) or entries[self.position].same_turn != after_tools:
            return Reply(b"", "", [])
        entry = entries[self.position]
        self.position += 1
        scope = make_scope(self.scenario.caller.knows, self.scenario.backend.hidden)
        text = str(resolve(entry.say, scope)) if entry.say else ""
        pcm = b""
        if text:
            audio = make_synthesizer("espeak-ng").synthesize(text, "en", Voice())
            pcm = to_pcm16(resample(audio, self.rate)).tobytes()
        calls = [
            (c.tool, json.dumps(resolve(c.args, scope), ensure_ascii=False)) for c in entry.calls
        ]
        return Reply(pcm, text, calls)


def chunks(data: bytes, size: int = 9600) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]
