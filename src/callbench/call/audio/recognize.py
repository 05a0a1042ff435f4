"""Speech recognition: what a text agent (or an LLM caller) observes of the audio it was sent.

Three recognisers, chosen by a spec string (`make_recognizer`):
- "whisper:tiny.en", "whisper:base", "whisper:/path/to/ctranslate2-model" — faster-whisper, offline,
  models found on disk (models.py); each model is loaded once per process and shared;
- "pocketsphinx" — the light English-only fallback with pocketsphinx's bundled en-us model;
- "openai-compatible:URL#MODEL" — any `/v1/audio/transcriptions` endpoint (the languages no local
  model hears well), through the official SDK; its failures are classified like every provider
  failure (models/errors.py): a 5xx, a timeout or a lost connection is infrastructure, retried with
  the model layer's backoff, and never scored against the candidate.

Audio is handed to recognisers in memory (16 kHz mono float32 for the local ones, WAV bytes for
the endpoint): no temporary files. Voice activity filtering is off by default: the channel sends
one short caller turn at a time, and Silero VAD drops the quiet first syllable of a short turn.
"""

from __future__ import annotations

import io
import math
import os
import threading
import time
import wave
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...models.base import ModelSettings
from ...models.provider import backoff_s
from ...models.secrets import register_secret
from .models import INSTALL_HINT, WhisperModel, whisper_model
from .types import Audio, Recognizer

RATE = 16_000
"""What every local recogniser listens at."""

_PAD_S = 0.05
"""Silence put on both ends before the FFT resampler and cut after, so the end of a turn does not
wrap around into its start (an FFT treats the signal as periodic)."""


def _resample(audio: Audio, rate: int) -> np.ndarray:
    """`audio`'s samples at `rate`, band-limited: the spectrum is cut (or zero-extended) at the
    lower Nyquist frequency, so 22.05 kHz synthesis does not alias into 16 kHz recognition.

    A private helper: part A's `signal.resample` was not on main when this was written. The FFT
    resampler costs milliseconds per turn; a windowed-sinc loop in numpy took 0.4 s per second of
    audio, more than tiny.en's own decoding."""
    x = np.asarray(audio.samples, dtype=np.float64)
    if audio.rate == rate or len(x) == 0:
        return x.astype(np.float32)
    step = audio.rate // math.gcd(audio.rate, rate)  # input lengths that map to whole outputs
    pad = -(-int(_PAD_S * audio.rate) // step) * step  # whole outputs: no fractional shift
    n_in = -(-(len(x) + 2 * pad) // step) * step
    padded = np.zeros(n_in)
    padded[pad : pad + len(x)] = x
    n_out = n_in * rate // audio.rate
    spectrum = np.fft.rfft(padded)
    keep = min(len(spectrum), n_out // 2 + 1)
    out_spectrum = np.zeros(n_out // 2 + 1, dtype=complex)
    out_spectrum[:keep] = spectrum[:keep]
    y = np.fft.irfft(out_spectrum, n_out) * (n_out / n_in)
    start = pad * rate // audio.rate
    y = y[start : start + int(round(len(x) * rate / audio.rate))]
    return np.clip(y, -1.0, 1.0).astype(np.float32)


def samples_16k(audio: Audio) -> np.ndarray:
    """Mono float32 at 16 kHz, what faster-whisper and pocketsphinx take."""
    return _resample(audio, RATE)


def wav_bytes(audio: Audio) -> bytes:
    """16-bit PCM WAV of `audio` at its own rate (what a transcription endpoint accepts)."""
    pcm = (np.clip(audio.samples, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(audio.rate)
        w.writeframes(pcm)
    return buf.getvalue()


class LanguageNotHeard(ValueError):
    """The chosen recogniser cannot hear the call's language; the message names an alternative."""


# --- faster-whisper ---------------------------------------------------------------------------

_LOADED: dict[tuple[str, int], Any] = {}
_LOAD_LOCK = threading.Lock()


def _load_whisper(model: WhisperModel, cpu_threads: int) -> Any:
    """One `WhisperModel` per (folder, threads) per process: loading tiny.en takes ~0.3 s, base
    ~1 s, and a run transcribes thousands of turns."""
    key = (str(model.path), cpu_threads)
    with _LOAD_LOCK:
        loaded = _LOADED.get(key)
        if loaded is None:
            try:
                from faster_whisper import WhisperModel as FW  # type: ignore[import-untyped]  # no stubs
            except ImportError:
                raise ImportError(
                    f"whisper recognition needs faster-whisper: {INSTALL_HINT}"
                ) from None
            loaded = _LOADED[key] = FW(
                str(model.path), device="cpu", compute_type="int8", cpu_threads=cpu_threads
            )
        return loaded


TOKENS_PER_SECOND = 25
"""Text tokens Whisper may produce per second of audio. Fast speech is about 4 syllables a second;
Devanagari, Bengali and Tamil take 2-4 byte-level tokens a syllable, English well under one."""

MAX_TOKENS = 400
"""Whisper's decoder holds 448 tokens, the prompt (start, language, task) included."""

_FALLBACK = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def token_budget(seconds: float) -> int:
    """How many tokens one segment of a turn of `seconds` may decode to."""
    return max(24, min(MAX_TOKENS, int(24 + TOKENS_PER_SECOND * seconds)))


def _default_threads() -> int:
    return max(1, min(4, os.cpu_count() or 1))


@dataclass
class FasterWhisperRecognizer:
    """Whisper through faster-whisper (CTranslate2, int8 on the CPU). Greedy decoding
    (`beam_size=1`) by default: beam 5 costs about three times the time for little gain on
    short turns.

    A turn's decoding time is bounded, because a channel's real-time factor is what makes audio
    runs affordable: Whisper's temperature fallback (re-decoding up to five more times when the
    text repeats itself) is off unless `fallback`, and the tokens decoded are capped by the
    audio's length (`TOKENS_PER_SECOND`). Both bite only on speech the model cannot hear: on
    espeak-ng Marathi, base looped ("नूं नूं नूं ...") at ten times real time without them."""

    model: str = "tiny.en"
    beam_size: int = 1
    cpu_threads: int = field(default_factory=_default_threads)
    vad_filter: bool = False
    fallback: bool = False
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self._model = whisper_model(self.model)
        self.name = f"whisper:{self.model}"

    def hears(self, language: str) -> bool:
        return self._model.hears(language)

    def transcribe(self, audio: Audio, language: str) -> str:
        fw = _load_whisper(self._model, self.cpu_threads)
        samples = samples_16k(audio)
        if len(samples) == 0:
            return ""
        lang = language.split("-")[0].lower()
        if self._model.languages == frozenset({"en"}):
            lang = "en"  # an English-only model takes no other language token
        segments, _info = fw.transcribe(
            samples,
            language=lang,
            beam_size=self.beam_size,
            vad_filter=self.vad_filter,
            condition_on_previous_text=False,
            temperature=_FALLBACK if self.fallback else 0.0,
            max_new_tokens=token_budget(audio.seconds),
        )
        return " ".join(s.text.strip() for s in segments).strip()


# --- pocketsphinx -----------------------------------------------------------------------------


@dataclass
class PocketSphinxRecognizer:
    """CMU PocketSphinx with its bundled en-us model: fast, English only, far less accurate than
    Whisper — the fallback when faster-whisper cannot be installed."""

    name: str = "pocketsphinx"

    def __post_init__(self) -> None:
        self._decoder: Any = None
        self._lock = threading.Lock()

    def hears(self, language: str) -> bool:
        return language.split("-")[0].lower() == "en"

    def transcribe(self, audio: Audio, language: str) -> str:
        if not self.hears(language):
            raise LanguageNotHeard(f"pocketsphinx hears English only, not {language!r}")
        pcm = (np.clip(samples_16k(audio), -1.0, 1.0) * 32767.0).astype("<i2").tobytes()
        with self._lock:
            if self._decoder is None:
                try:
                    from pocketsphinx import Config, Decoder  # type: ignore[import-untyped]  # no stubs
                except ImportError:
                    raise ImportError(f"pocketsphinx recognition: {INSTALL_HINT}") from None
                config = Config(loglevel="FATAL")  # bundled en-us model, no log spam
                self._decoder = Decoder(config)
            d = self._decoder
            d.start_utt()
            d.process_raw(pcm, full_utt=True)
            d.end_utt()
            hyp = d.hyp()
        return hyp.hypstr.strip() if hyp is not None else ""


# --- an OpenAI-compatible transcription endpoint ----------------------------------------------


@dataclass
class OpenAITranscriptionRecognizer:
    """Any endpoint serving `POST {base_url}/audio/transcriptions` (OpenAI, a vLLM or
    whisper.cpp server, ...). The key is read from `api_key_env` and registered as a secret, so no
    error message, log or trace can carry it; an endpoint that needs no key gets a placeholder."""

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    settings: ModelSettings = field(default_factory=ModelSettings)
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = f"openai-compatible:{self.base_url}#{self.model}"
        self._client: Any = None

    def hears(self, language: str) -> bool:
        return True  # the endpoint's business; a refusal comes back as a 4xx

    def _sdk(self) -> Any:
        if self._client is None:
            import openai

            key = os.environ.get(self.api_key_env)
            register_secret(key)
            self._client = openai.OpenAI(
                base_url=self.base_url,
                api_key=key or "not-needed",
                timeout=self.settings.timeout_s,
                max_retries=0,  # retried here, with the model layer's backoff and classification
            )
        return self._client

    def transcribe(self, audio: Audio, language: str) -> str:
        from ...models.openai_compat import classify

        client = self._sdk()
        data = wav_bytes(audio)
        attempts = self.settings.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                result = client.audio.transcriptions.create(
                    model=self.model,
                    file=("turn.wav", data, "audio/wav"),
                    language=language.split("-")[0].lower(),
                    response_format="json",
                )
                text = getattr(result, "text", None)
                if not isinstance(text, str):
                    raise TypeError("transcription without text")
                return text.strip()
            except Exception as exc:  # classified by type; a bug of ours is re-raised by classify
                err = classify(exc)
                err.attempts, err.retries = attempt, attempt - 1
                if not err.retryable or attempt == attempts:
                    raise err from None
                time.sleep(backoff_s(self.settings, attempt, err.retry_after))
        raise AssertionError("unreachable")  # pragma: no cover


# --- specs ------------------------------------------------------------------------------------

SPECS = (
    "whisper:tiny.en",
    "whisper:base",
    "whisper:PATH",
    "pocketsphinx",
    "openai-compatible:URL#MODEL",
)

ENDPOINT_HINT = (
    "use an OpenAI-compatible transcription endpoint for it "
    "(recognizer 'openai-compatible:https://host/v1#MODEL')"
)


def make_recognizer(spec: str, **options: Any) -> Recognizer:
    """The recogniser a spec names (see SPECS); `options` go to its constructor."""
    kind, _, rest = spec.partition(":")
    if kind == "whisper" and rest:
        return FasterWhisperRecognizer(model=rest, **options)
    if spec == "pocketsphinx":
        return PocketSphinxRecognizer(**options)
    if kind == "openai-compatible" and rest:
        url, _, model = rest.partition("#")
        if not url or not model:
            raise ValueError(f"recognizer spec {spec!r}: expected openai-compatible:URL#MODEL")
        return OpenAITranscriptionRecognizer(base_url=url, model=model, **options)
    raise ValueError(f"unknown recognizer {spec!r}: expected one of {', '.join(SPECS)}")


def recognizer_for_language(spec: str, language: str, **options: Any) -> Recognizer:
    """`make_recognizer(spec)`, refused up front when that recogniser cannot hear `language`
    (tiny.en for Hindi, pocketsphinx for anything but English, Whisper base for Gujarati)."""
    recognizer = make_recognizer(spec, **options)
    hears = getattr(recognizer, "hears", None)
    if hears is not None and not hears(language):
        raise LanguageNotHeard(
            f"recognizer {spec!r} cannot hear language {language!r}; {ENDPOINT_HINT}"
        )
    return recognizer
