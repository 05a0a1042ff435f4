"""The audio channel: the caller's words become sound, meet the room and the telephone line, and
reach a text candidate as what a recogniser made of them.

Order, per caller fragment: authored ASR/VAD events first, on the words (the text channel without
its text background: the sound carries the background now), then synthesis in the persona's voice,
the background condition mixed at its documented level, the telephone line (8 kHz, G.711 mu-law,
optional loss and jitter), recognition. The agent's words go the other way (synthesis in the
agent's voice, the line, recognition) so an LLM caller hears what a recogniser heard.

Every stage is seeded from the attempt's seed, so the same attempt makes the same sound; the
recogniser is deterministic given the sound (greedy decoding). Each fragment is kept as a record:
intended and recognised text, word error rate, the audio as the candidate's side heard it (a
content-hashed file in the run folder) and the seconds each stage took.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..channel import TextChannel
from ..trace import AudioTurnRecord, ChannelEventRecord
from .types import Audio, AudioSink, Recognizer, Synthesizer, Voice

AGENT_VOICE = Voice(name=None, rate_wpm=165, pitch=40)
"""How every candidate sounds through the channel (the same for all, so no candidate is heard
better for its voice)."""


@dataclass
class AudioStages:
    """The replaceable parts of the channel, shared by every call of a run (models load once)."""

    synthesizer: Synthesizer
    recognizer: Recognizer
    loss: float = 0.0
    jitter_ms: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)
    """one recognition at a time per process: the model is shared and its threads are the cores"""


class AudioChannel:
    kind = "audio"
    blocking = True
    """render and hear_agent do seconds of work: the episode runs them off the event loop"""

    def __init__(
        self,
        text: TextChannel,
        stages: AudioStages,
        *,
        language: str,
        voice: Voice,
        background: str | None,
        rng: np.random.Generator,
        sink: AudioSink,
    ):
        if text.background is not None:
            raise ValueError("the audio channel carries the background as sound, not as text")
        self.text, self.stages = text, stages
        self.language, self.voice, self.background = language, voice, background
        self.rng, self.sink = rng, sink
        self._pending: list[AudioTurnRecord] = []
        self.caller_audio: list[Audio] = []
        """the latest caller turn as the candidate's side of the line carries it, fragment by
        fragment: what a voice candidate is sent"""
        self._voiced: dict[str, AudioTurnRecord] = {}

    # the text channel's bookkeeping, unchanged
    def unfired(self) -> list[ChannelEventRecord]:
        return self.text.unfired()

    def render(
        self, text: str, turn: int, steps: tuple[str, ...]
    ) -> tuple[list[str], list[ChannelEventRecord]]:
        fragments, records = self.text.render(text, turn, steps)
        heard = []
        self.caller_audio = []
        for fragment in fragments:
            record = self._pass(fragment, "caller", self.voice, self.background)
            self._pending.append(record)
            if record.recognised.strip():
                heard.append(record.recognised)
        if not heard:
            # nothing came through: the candidate hears a turn of silence, recorded as such
            records.append(
                ChannelEventRecord(
                    kind="inaudible",
                    origin="background",
                    anchor=f"turn {turn}",
                    applied=True,
                    detail="the recogniser heard nothing in this turn",
                )
            )
            heard = [""]
        return heard, records

    def take_audio(self) -> list[AudioTurnRecord]:
        """The records of the fragments rendered since the last call (one caller turn's)."""
        out, self._pending = self._pending, []
        return out

    def hear_agent(self, text: str) -> tuple[str, AudioTurnRecord]:
        """What the caller hears of the agent's words: its own line, no background (the agent is
        in a quiet room), the same recogniser, and the sentence ends the agent's voice made.
        Words a voice candidate spoke as audio were heard already (`agent_audio`): their record
        is returned, not synthesized again."""
        if text in self._voiced:
            record = self._voiced.pop(text)
        else:
            record = self._pass(text, "agent", AGENT_VOICE, None)
        return self._as_heard(record), record

    def _as_heard(self, record: AudioTurnRecord) -> str:
        """The recognised words with the speaker's sentence ends where they are known (the pauses
        and rising questions are in the sound; see `prosody`)."""
        from .prosody import punctuate_like

        if not record.intended:
            return record.recognised
        return punctuate_like(record.intended, record.recognised, self.language)

    def agent_audio(self, audio: Audio, transcript: str | None = None) -> str:
        """A voice candidate's own audio down the line to the recogniser: the text it returns is
        what the candidate is taken to have said (graded, and what the caller hears).
        `transcript`, the stack's own account of its words when it gives one, is kept as the
        intended text, so its WER says how far the line and recogniser moved it."""
        record = self._transmit(audio, "agent", transcript or "", "clean")
        self._voiced[record.recognised] = record
        return record.recognised

    def _pass(
        self, text: str, speaker: Literal["caller", "agent"], voice: Voice, background: str | None
    ) -> AudioTurnRecord:
        """Words spoken in `voice`, the background mixed in, then `_transmit`."""
        from .backgrounds import mix

        t0 = time.perf_counter()
        speech = self.stages.synthesizer.synthesize(text, self.language, voice)
        if background is not None and background != "clean":
            speech = mix(speech, background, self.rng, self.language)
        synth_seconds = time.perf_counter() - t0  # making the sound: the voice and the room
        return self._transmit(speech, speaker, text, background or "clean", synth_seconds)

    def _transmit(
        self,
        audio: Audio,
        speaker: Literal["caller", "agent"],
        intended: str,
        background: str,
        synth_seconds: float = 0.0,
    ) -> AudioTurnRecord:
        """Sound down the telephone line to the recogniser, kept (the far end's audio) and
        recorded. WER needs the intended words: a voice stack without a transcript has none."""
        from .line import TelephoneLine
        from .wer import word_error_rate

        stages = self.stages
        t0 = time.perf_counter()
        heard_audio = TelephoneLine(loss=stages.loss, jitter_ms=stages.jitter_ms).transmit(
            audio, self.rng
        )
        t1 = time.perf_counter()
        with stages.lock:
            recognised = stages.recognizer.transcribe(heard_audio, self.language).strip()
        t2 = time.perf_counter()
        ref = self.sink.save(heard_audio)
        if speaker == "caller":
            self.caller_audio.append(heard_audio)
        return AudioTurnRecord(
            speaker=speaker,
            intended=intended,
            recognised=recognised,
            wer=round(word_error_rate(intended, recognised, self.language), 4)
            if intended
            else None,
            background=background,
            audio_path=ref.path,
            audio_sha256=ref.sha256,
            audio_seconds=round(ref.seconds, 3),
            synth_seconds=round(synth_seconds, 4),
            line_seconds=round(t1 - t0, 4),
            recognise_seconds=round(t2 - t1, 4),
        )


def describe(stages: AudioStages) -> dict[str, Any]:
    """What the run records of its audio channel."""
    return {
        "synthesizer": getattr(stages.synthesizer, "name", type(stages.synthesizer).__name__),
        "recognizer": getattr(stages.recognizer, "name", type(stages.recognizer).__name__),
        "loss": stages.loss,
        "jitter_ms": stages.jitter_ms,
    }
