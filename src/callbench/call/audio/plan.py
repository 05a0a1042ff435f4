"""A run's audio channel as settings (`AudioPlan`), and the channel built from them per call.

The plan is plain data — spec strings and numbers — so it is recorded with the run, travels to
worker processes and Ray workers, and is turned into loaded models once per process
(`stages_for`): a Whisper model takes a second to load and hundreds of megabytes, so every call of
a process shares it.

Recognition by language: "auto" picks Whisper tiny.en for English and Whisper base for the other
languages it knows (Hindi, Marathi, Tamil, Bengali); Gujarati has no local model (Whisper was not
trained on it), so a run in Gujarati needs `--recognizer openai-compatible:URL#MODEL` and says so.
"""

from __future__ import annotations

import functools
import random
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ...errors import AudioError
from .channel import AudioChannel, AudioStages
from .types import Audio, AudioRef, AudioSink, MemorySink, Voice

AUTO_RECOGNIZER = {"en": "whisper:tiny.en"}
"""the recogniser "auto" picks per language; any other language gets Whisper base"""
NO_LOCAL_MODEL = {"gu"}


@dataclass(frozen=True)
class AudioPlan:
    synthesizer: str = "auto"
    """auto (Piper for English, espeak-ng for the other languages) | espeak-ng | piper:joe"""
    recognizer: str = "auto"
    loss: float = 0.0
    """packet loss on the telephone line, 0-1"""
    jitter_ms: float = 0.0
    keep_audio: bool = True
    """write each turn's audio (FLAC) into the run folder; off: audio is hashed, not kept"""
    background: str | None = None
    """every call's background sound (clean, street, cafe, television) instead of the one the
    suite's casting gives it: the same calls measured under one condition at a time"""

    def __post_init__(self) -> None:
        if not 0.0 <= self.loss < 1.0:
            raise AudioError(f"audio loss must be in [0, 1), got {self.loss}")
        if self.jitter_ms < 0:
            raise AudioError(f"audio jitter_ms must be >= 0, got {self.jitter_ms}")
        from .backgrounds import BACKGROUNDS

        if self.background is not None and self.background not in BACKGROUNDS:
            raise AudioError(
                f"audio background must be one of {', '.join(BACKGROUNDS)}, got {self.background!r}"
            )

    def recognizer_for(self, language: str) -> str:
        if self.recognizer != "auto":
            return self.recognizer
        primary = language.split("-")[0].lower()
        if primary in NO_LOCAL_MODEL:
            raise AudioError(
                f"no local speech recogniser hears language '{language}' (Whisper was not trained "
                "on it): pass --recognizer openai-compatible:URL#MODEL for a service that does"
            )
        return AUTO_RECOGNIZER.get(primary, "whisper:base")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@functools.lru_cache(maxsize=8)
def _stages(synthesizer: str, recognizer: str, loss: float, jitter_ms: float) -> AudioStages:
    from .recognize import make_recognizer
    from .synth import make_synthesizer

    return AudioStages(
        synthesizer=make_synthesizer(synthesizer),
        recognizer=make_recognizer(recognizer),
        loss=loss,
        jitter_ms=jitter_ms,
    )


def stages_for(plan: AudioPlan, language: str) -> AudioStages:
    """The loaded stages for a call in `language`, shared by every call of this process."""
    return _stages(plan.synthesizer, plan.recognizer_for(language), plan.loss, plan.jitter_ms)


def build_channel(
    plan: AudioPlan,
    text: Any,
    *,
    language: str,
    mood: str,
    background: str | None,
    seed: int,
    sink: AudioSink | None,
) -> AudioChannel:
    """The audio channel of one call: the text channel (authored events only), the process's
    stages, a voice for the persona and the background sound, all seeded from the call's seed."""
    from .synth import voice_for

    voice: Voice = voice_for(mood, seed)
    return AudioChannel(
        text,
        stages_for(plan, language),
        language=language,
        voice=voice,
        background=background,
        rng=np.random.default_rng(random.Random(seed).getrandbits(64)),
        sink=sink or MemorySink(),
    )


@dataclass
class FlacSink:
    """Keeps each piece of audio as FLAC bytes named by their content hash (the same sound twice is
    one file), for the run to write into its folder (`audio/ab/abcd....flac`)."""

    folder: str = "audio"
    files: dict[str, bytes] = field(default_factory=dict)

    def save(self, audio: Audio) -> AudioRef:
        import hashlib

        from .signal import flac_bytes

        data = flac_bytes(audio)
        digest = hashlib.sha256(data).hexdigest()
        rel = f"{self.folder}/{digest[:2]}/{digest}.flac"
        self.files[rel] = data
        return AudioRef(rel, digest, audio.seconds, "flac")
