"""Signal processing the audio channel needs: resampling, speech level, mixing at an SNR, and
encoding to WAV / FLAC bytes.

Everything is numpy-vectorised and deterministic, so a (scenario, repeat) seed gives the same
samples on every machine. Resampling is done in the frequency domain (the spectrum is cut or
zero-padded to the new length), which is an ideal low-pass: downsampling to the telephone's 8 kHz
removes everything above 4 kHz instead of folding it back as aliasing, as a real codec's input
filter would.
"""

from __future__ import annotations

import io
import wave
from dataclasses import dataclass
from math import gcd
from typing import Any

import numpy as np

from callbench.call.audio.types import Audio

FRAME_SECONDS = 0.02
# a 20 ms frame counts as speech when its RMS is within this many dB of the loudest frames; the
# pauses espeak-ng and Piper put between words and sentences fall far below it
ACTIVE_FRAME_RANGE_DB = 35.0
INSTALL_HINT = "pip install 'callbench[voice]'"


def resample(audio: Audio, rate: int) -> Audio:
    """The same sound at `rate` Hz, band-limited: going down, content above the new Nyquist
    frequency is removed rather than aliased."""
    if rate <= 0:
        raise ValueError(f"sample rate must be positive, got {rate}")
    if rate == audio.rate:
        return audio
    n_in = len(audio.samples)
    n_out = int(round(n_in * rate / audio.rate))
    if n_in == 0 or n_out == 0:
        return Audio(np.zeros(n_out, dtype=np.float32), rate)
    # Pad with silence, so the FFT's circular wrap does not smear the end of the sound into its
    # start, to a length that is a whole number of rate-ratio periods (the output length is then
    # exact) and whose FFTs have only small prime factors (fast: an awkward length such as a
    # large prime would take several times longer). The padding is cut off afterwards.
    common = gcd(audio.rate, rate)
    step_in, step_out = audio.rate // common, rate // common
    periods = fast_length(-(-(n_in + max(64, n_in // 16)) // step_in))
    x = np.zeros(periods * step_in)
    x[:n_in] = audio.samples
    n_pad_out = periods * step_out
    spectrum = np.fft.rfft(x)
    bins = n_pad_out // 2 + 1
    if bins <= len(spectrum):
        cut = spectrum[:bins].copy()
        if n_pad_out % 2 == 0:
            # the new Nyquist bin is shared by positive and negative frequencies
            cut[-1] = cut[-1].real
    else:
        cut = np.zeros(bins, dtype=complex)
        cut[: len(spectrum)] = spectrum
    y = np.fft.irfft(cut, n_pad_out) * (n_pad_out / len(x))
    return Audio(np.clip(y[:n_out], -1.0, 1.0).astype(np.float32), rate)


def fast_length(n: int) -> int:
    """The smallest integer >= n whose only prime factors are 2, 3 and 5 (fast FFT sizes)."""
    if n <= 1:
        return 1
    best = 1 << (n - 1).bit_length()
    p5 = 1
    while p5 < best:
        p35 = p5
        while p35 < best:
            # the smallest power of two bringing p35 to at least n
            p2 = p35 << max(0, (-(-n // p35) - 1).bit_length())
            best = min(best, p2)
            p35 *= 3
        p5 *= 5
    return best


def rms(samples: np.ndarray) -> float:
    """Root mean square of all samples (0.0 for no samples)."""
    if len(samples) == 0:
        return 0.0
    return float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))


def frame_rms(audio: Audio, frame_seconds: float = FRAME_SECONDS) -> np.ndarray:
    """RMS of each whole frame of `frame_seconds` (a trailing partial frame is dropped)."""
    size = max(1, int(round(frame_seconds * audio.rate)))
    count = len(audio.samples) // size
    if count == 0:
        return np.array([rms(audio.samples)]) if len(audio.samples) else np.zeros(0)
    frames = audio.samples[: count * size].astype(np.float64).reshape(count, size)
    return np.asarray(np.sqrt(np.mean(np.square(frames), axis=1)))


def speech_energy(audio: Audio) -> float:
    """The speech level of `audio`: RMS over its active 20 ms frames only.

    A level over all samples would fall when the speaker pauses, so a halting caller would get
    relatively louder noise than a fluent one at the same nominal SNR; counting only frames within
    ACTIVE_FRAME_RANGE_DB of the loudest keeps the SNR a property of the condition.
    """
    levels = frame_rms(audio)
    if len(levels) == 0 or float(levels.max()) == 0.0:
        return 0.0
    top = float(np.percentile(levels, 95))
    threshold = top * 10 ** (-ACTIVE_FRAME_RANGE_DB / 20)
    active = levels[levels >= threshold]
    return float(np.sqrt(np.mean(np.square(active))))


def fit_length(samples: np.ndarray, length: int) -> np.ndarray:
    """`samples` looped or cut to exactly `length` samples."""
    if length == 0:
        return np.zeros(0, dtype=np.float32)
    if len(samples) == 0:
        return np.zeros(length, dtype=np.float32)
    reps = -(-length // len(samples))
    return np.tile(samples, reps)[:length]


@dataclass(frozen=True)
class Mix:
    """A mix and how it was made: `audio` = `speech` + `noise` (both as they are in the mix,
    after any scaling down), the SNR asked for, and `scale`, the factor the whole mix was turned
    down by to stay within [-1, 1] (1.0 when nothing would have clipped)."""

    audio: Audio
    speech: Audio
    noise: Audio
    snr_db: float
    scale: float

    @property
    def measured_snr_db(self) -> float:
        noise_level = rms(self.noise.samples)
        if noise_level == 0.0:
            return float("inf")
        return 20 * np.log10(speech_energy(self.speech) / noise_level)


def mix_at_snr(speech: Audio, noise: Audio, snr_db: float) -> Mix:
    """`speech` with `noise` added so speech_energy(speech) / RMS(noise) is `snr_db`.

    The result has the speech's length and rate; noise is resampled to that rate and looped or
    cut. If the sum would clip, the whole mix (speech and noise alike, so the SNR is kept) is
    scaled down and the factor recorded in `Mix.scale`.
    """
    if noise.rate != speech.rate:
        noise = resample(noise, speech.rate)
    n = fit_length(noise.samples.astype(np.float64), len(speech.samples))
    s = speech.samples.astype(np.float64)
    level, noise_level = speech_energy(speech), rms(n)
    gain = 0.0 if noise_level == 0.0 else level / (noise_level * 10 ** (snr_db / 20))
    n = n * gain
    total = s + n
    peak = float(np.max(np.abs(total))) if len(total) else 0.0
    scale = 1.0 if peak <= 1.0 else 1.0 / peak
    s, n, total = s * scale, n * scale, total * scale

    def _audio(x: np.ndarray) -> Audio:
        return Audio(np.clip(x, -1.0, 1.0).astype(np.float32), speech.rate)

    return Mix(_audio(total), _audio(s), _audio(n), snr_db, scale)


def to_pcm16(audio: Audio) -> np.ndarray:
    """Samples as little-endian 16-bit integers (clipped, rounded)."""
    return np.asarray(np.round(np.clip(audio.samples, -1.0, 1.0) * 32767.0).astype("<i2"))


def wav_bytes(audio: Audio) -> bytes:
    """A mono 16-bit PCM WAV file holding `audio`."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(audio.rate)
        out.writeframes(to_pcm16(audio).tobytes())
    return buffer.getvalue()


def read_wav(data: bytes) -> Audio:
    """Audio from 16-bit PCM WAV bytes (several channels are averaged to mono).

    Tolerates the streaming header espeak-ng writes with --stdout (sizes it cannot know yet):
    whatever frames are present are read.
    """
    with wave.open(io.BytesIO(data), "rb") as src:
        if src.getsampwidth() != 2:
            raise ValueError(f"only 16-bit PCM WAV is supported, got {8 * src.getsampwidth()}-bit")
        channels, rate = src.getnchannels(), src.getframerate()
        raw = src.readframes(src.getnframes())
    pcm = np.frombuffer(raw[: len(raw) // (2 * channels) * 2 * channels], dtype="<i2")
    samples = pcm.astype(np.float32) / 32768.0
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1)
    return Audio(samples.astype(np.float32), rate)


def _soundfile() -> Any:
    try:
        import soundfile  # type: ignore[import-untyped]  # no stubs published
    except ImportError as exc:  # pragma: no cover - soundfile is installed where tests run
        raise RuntimeError(f"FLAC needs the soundfile package: {INSTALL_HINT}") from exc
    return soundfile


def flac_bytes(audio: Audio) -> bytes:
    """`audio` as a 16-bit FLAC file (lossless, about half the size of WAV for speech)."""
    buffer = io.BytesIO()
    _soundfile().write(buffer, to_pcm16(audio), audio.rate, format="FLAC", subtype="PCM_16")
    return buffer.getvalue()


def read_audio_bytes(data: bytes) -> Audio:
    """Audio from WAV (read with the standard library) or any format soundfile reads (FLAC,
    OGG/Opus where libsndfile supports it), mixed down to mono float32."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        try:
            return read_wav(data)
        except ValueError:
            pass  # not 16-bit PCM: let soundfile try
    samples, rate = _soundfile().read(io.BytesIO(data), dtype="float32", always_2d=True)
    return Audio(np.ascontiguousarray(samples.mean(axis=1), dtype=np.float32), int(rate))
