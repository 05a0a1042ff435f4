"""The values and small protocols the audio channel is built from.

Audio moves through the channel as one immutable value (`Audio`: mono float32 samples in [-1, 1]
at a sample rate), so each stage — synthesis, background, telephone line, recognition — is a pure
function of its input and a seeded generator, testable alone and swappable. The protocols are the
seams a user replaces: a synthesizer (espeak-ng, Piper, or their own), a recogniser (faster-whisper,
pocketsphinx, an OpenAI-compatible endpoint), and a sink that keeps the audio of a call (the run
folder, content-hashed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


@dataclass(frozen=True, eq=False)
class Audio:
    """Mono audio: float32 samples in [-1, 1] at `rate` Hz."""

    samples: np.ndarray
    rate: int

    def __post_init__(self) -> None:
        if self.rate <= 0:
            raise ValueError(f"sample rate must be positive, got {self.rate}")
        if self.samples.ndim != 1:
            raise ValueError("audio must be mono (one dimension of samples)")

    @property
    def seconds(self) -> float:
        return len(self.samples) / self.rate

    @classmethod
    def silence(cls, seconds: float, rate: int) -> Audio:
        return cls(np.zeros(int(round(seconds * rate)), dtype=np.float32), rate)


@dataclass(frozen=True)
class Voice:
    """How a persona sounds: a synthesizer voice name (None: the language's default), speaking
    rate in words per minute and pitch (espeak-ng's 0-99 scale, 50 neutral)."""

    name: str | None = None
    rate_wpm: int = 160
    pitch: int = 50


@dataclass(frozen=True)
class AudioRef:
    """Where a sink kept one piece of audio: a path relative to the run folder and its hash."""

    path: str
    sha256: str
    seconds: float
    format: str = "flac"


class Synthesizer(Protocol):
    name: str

    def synthesize(self, text: str, language: str, voice: Voice) -> Audio: ...


class Recognizer(Protocol):
    name: str

    def transcribe(self, audio: Audio, language: str) -> str: ...


class AudioSink(Protocol):
    def save(self, audio: Audio) -> AudioRef: ...


@dataclass
class MemorySink:
    """A sink that keeps audio in memory (tests, and runs that keep no audio files)."""

    kept: list[Audio] = field(default_factory=list)

    def save(self, audio: Audio) -> AudioRef:
        import hashlib

        pcm = (np.clip(audio.samples, -1, 1) * 32767).astype("<i2").tobytes()
        digest = hashlib.sha256(pcm + str(audio.rate).encode()).hexdigest()
        self.kept.append(audio)
        return AudioRef(f"memory/{digest[:16]}", digest, audio.seconds, "pcm")
