"""Resampling, speech level, mixing at an SNR and the WAV/FLAC round trips."""

from __future__ import annotations

import numpy as np
import pytest

from callbench.call.audio.signal import (
    fast_length,
    flac_bytes,
    mix_at_snr,
    read_audio_bytes,
    read_wav,
    resample,
    rms,
    speech_energy,
    wav_bytes,
)
from callbench.call.audio.types import Audio


def tone(freq: float, seconds: float, rate: int, amplitude: float = 0.5) -> Audio:
    t = np.arange(int(seconds * rate)) / rate
    return Audio((amplitude * np.sin(2 * np.pi * freq * t)).astype(np.float32), rate)


def level_at(audio: Audio, freq: float) -> float:
    """Amplitude of the spectral component nearest `freq` (Hann-windowed)."""
    window = np.hanning(len(audio.samples))
    spectrum = np.abs(np.fft.rfft(audio.samples * window)) / (window.sum() / 2)
    freqs = np.fft.rfftfreq(len(audio.samples), 1 / audio.rate)
    near = np.abs(freqs - freq) < 30
    return float(spectrum[near].max()) if near.any() else 0.0


def test_downsampling_keeps_a_tone_below_the_new_nyquist() -> None:
    out = resample(tone(3500, 1.0, 16000), 8000)
    assert out.rate == 8000 and len(out.samples) == 8000
    assert level_at(out, 3500) == pytest.approx(0.5, rel=0.05)


def test_downsampling_removes_a_tone_above_the_new_nyquist_instead_of_aliasing_it() -> None:
    out = resample(tone(5000, 1.0, 16000), 8000)
    # naive decimation would fold 5 kHz to 3 kHz at full strength
    assert level_at(out, 3000) < 0.005
    assert rms(out.samples) < 0.01


def test_upsampling_keeps_the_tone_and_length() -> None:
    out = resample(tone(1000, 0.5, 8000), 22050)
    assert len(out.samples) == round(0.5 * 22050)
    assert level_at(out, 1000) == pytest.approx(0.5, rel=0.05)
    assert level_at(out, 7000) < 0.005


def test_resample_to_the_same_rate_is_the_identity() -> None:
    audio = tone(440, 0.1, 16000)
    assert resample(audio, 16000) is audio


def test_speech_energy_ignores_pauses() -> None:
    speech = tone(300, 1.0, 16000, 0.3)
    halting = Audio(
        np.concatenate([speech.samples, np.zeros(32000, np.float32), speech.samples]), 16000
    )
    assert speech_energy(halting) == pytest.approx(speech_energy(speech), rel=0.01)
    assert speech_energy(speech) == pytest.approx(0.3 / np.sqrt(2), rel=0.01)
    # the plain RMS does fall with the pause
    assert rms(halting.samples) < 0.75 * rms(speech.samples)
    assert speech_energy(Audio.silence(1.0, 16000)) == 0.0


@pytest.mark.parametrize("snr_db", [0.0, 5.0, 12.0])
def test_mix_at_snr_sets_the_level_and_keeps_the_speech_length(snr_db: float) -> None:
    speech = Audio(
        np.concatenate([tone(300, 1.0, 16000, 0.1).samples, np.zeros(8000, np.float32)]), 16000
    )
    noise = Audio(np.random.default_rng(1).normal(0, 0.01, 7000).astype(np.float32), 16000)
    mix = mix_at_snr(speech, noise, snr_db)
    assert len(mix.audio.samples) == len(speech.samples)  # noise looped to the speech's length
    assert mix.scale == 1.0
    measured = 20 * np.log10(speech_energy(speech) / rms(mix.noise.samples))
    assert measured == pytest.approx(snr_db, abs=0.05)
    assert np.allclose(mix.audio.samples, speech.samples + mix.noise.samples, atol=1e-6)


def test_mix_that_would_clip_is_scaled_down_and_keeps_its_snr() -> None:
    speech = tone(300, 1.0, 16000, 0.95)
    noise = Audio(np.random.default_rng(2).normal(0, 0.2, 16000).astype(np.float32), 16000)
    mix = mix_at_snr(speech, noise, 0.0)
    assert mix.scale < 1.0
    assert np.max(np.abs(mix.audio.samples)) <= 1.0
    assert mix.measured_snr_db == pytest.approx(0.0, abs=0.05)


def test_mix_resamples_noise_at_another_rate() -> None:
    speech = tone(300, 0.5, 16000, 0.3)
    noise = tone(1000, 0.5, 8000, 0.3)
    mix = mix_at_snr(speech, noise, 10.0)
    assert len(mix.audio.samples) == 8000
    assert mix.measured_snr_db == pytest.approx(10.0, abs=0.1)


def test_wav_round_trip_within_one_pcm_step() -> None:
    audio = tone(440, 0.2, 16000, 0.7)
    back = read_wav(wav_bytes(audio))
    assert back.rate == 16000 and len(back.samples) == len(audio.samples)
    assert np.max(np.abs(back.samples - audio.samples)) <= 1.5 / 32768
    assert read_audio_bytes(wav_bytes(audio)).rate == 16000


def test_flac_round_trip_is_lossless_at_16_bit() -> None:
    pytest.importorskip("soundfile", reason="soundfile is in the voice extra: bash scripts/install")
    audio = tone(440, 0.2, 8000, 0.7)
    data = flac_bytes(audio)
    assert data[:4] == b"fLaC"
    back = read_audio_bytes(data)
    assert back.rate == 8000
    assert np.array_equal(read_audio_bytes(wav_bytes(audio)).samples, back.samples)


def test_fast_length_is_the_next_5_smooth_number() -> None:
    def smooth(m: int) -> bool:
        for p in (2, 3, 5):
            while m % p == 0:
                m //= p
        return m == 1

    for n in range(1, 3000):
        f = fast_length(n)
        assert f >= n and smooth(f) and not any(smooth(k) for k in range(n, f))


@pytest.mark.parametrize("n_in", [22050, 22051, 22037, 1, 7])
def test_resample_lengths_are_exact_for_awkward_input_lengths(n_in: int) -> None:
    audio = Audio(np.ones(n_in, dtype=np.float32) * 0.1, 22050)
    assert len(resample(audio, 16000).samples) == round(n_in * 16000 / 22050)
