"""Background conditions: levels after mixing, reproducibility from the seed, and their sound."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from callbench.call.audio.backgrounds import (
    BACKGROUND_RMS,
    BACKGROUND_SNR_DB,
    CAFE_SENTENCES,
    NEWS_SENTENCES,
    background_audio,
    mix,
    mix_detail,
)
from callbench.call.audio.signal import frame_rms, rms, speech_energy
from callbench.call.audio.synth import EspeakSynthesizer
from callbench.call.audio.types import Audio, Voice

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng absent")
RATE = 16000


def caller(text: str = "Hello, I am calling about my water bill from last month.") -> Audio:
    from callbench.call.audio.signal import resample

    return resample(EspeakSynthesizer().synthesize(text, "en", Voice()), RATE)


@pytest.mark.parametrize("kind", ["street", "cafe", "television"])
def test_mixed_snr_matches_the_table(kind: str) -> None:
    speech = caller()
    result = mix_detail(speech, kind, np.random.default_rng(11), "en")
    snr = BACKGROUND_SNR_DB[kind]
    assert snr is not None
    measured = 20 * np.log10(speech_energy(result.speech) / rms(result.noise.samples))
    assert measured == pytest.approx(snr, abs=0.5)
    assert len(result.audio.samples) == len(speech.samples)
    assert np.allclose(
        result.audio.samples, result.speech.samples + result.noise.samples, atol=1e-5
    )
    assert np.max(np.abs(result.audio.samples)) <= 1.0


def test_clean_leaves_the_speech_as_it_is() -> None:
    speech = caller()
    assert BACKGROUND_SNR_DB["clean"] is None
    assert np.array_equal(mix(speech, "clean", np.random.default_rng(1)).samples, speech.samples)
    room = background_audio("clean", 2.0, RATE, np.random.default_rng(1), "en")
    assert 0 < rms(room.samples) < 1e-3


@pytest.mark.parametrize("kind", ["street", "cafe", "television", "clean"])
def test_same_seed_same_audio_and_different_seeds_differ(kind: str) -> None:
    def make(seed: int) -> Audio:
        return background_audio(kind, 4.0, RATE, np.random.default_rng(seed), "hi")

    first, again, other = make(5), make(5), make(6)
    assert first.rate == RATE and len(first.samples) == 4 * RATE
    assert np.array_equal(first.samples, again.samples)
    assert not np.allclose(first.samples, other.samples)


def test_mix_is_reproducible_from_the_seed() -> None:
    speech = caller()
    a = mix(speech, "cafe", np.random.default_rng(42), "en")
    b = mix(speech, "cafe", np.random.default_rng(42), "en")
    c = mix(speech, "cafe", np.random.default_rng(43), "en")
    assert np.array_equal(a.samples, b.samples)
    assert not np.array_equal(a.samples, c.samples)


@pytest.mark.parametrize("language", sorted(CAFE_SENTENCES))
def test_speech_backgrounds_exist_for_every_suite_language(language: str) -> None:
    assert len(CAFE_SENTENCES[language]) >= 3 and len(NEWS_SENTENCES[language]) >= 3
    for kind in ("cafe", "television"):
        audio = background_audio(kind, 3.0, RATE, np.random.default_rng(2), language)
        assert rms(audio.samples) == pytest.approx(BACKGROUND_RMS, rel=0.3)


def test_hindi_in_latin_script_uses_the_hindi_tables_and_unknown_languages_fail() -> None:
    a = background_audio("cafe", 2.0, RATE, np.random.default_rng(3), "hi-Latn")
    b = background_audio("cafe", 2.0, RATE, np.random.default_rng(3), "hi")
    assert np.array_equal(a.samples, b.samples)
    with pytest.raises(ValueError, match="'fr'"):
        background_audio("television", 2.0, RATE, np.random.default_rng(3), "fr")
    with pytest.raises(ValueError, match="'rain'"):
        background_audio("rain", 2.0, RATE, np.random.default_rng(3), "en")


def band_share(audio: Audio, low: float, high: float) -> float:
    power = np.abs(np.fft.rfft(audio.samples.astype(np.float64))) ** 2
    freqs = np.fft.rfftfreq(len(audio.samples), 1 / audio.rate)
    return float(power[(freqs >= low) & (freqs < high)].sum() / power.sum())


def test_television_is_band_limited_like_a_small_speaker_and_has_pauses() -> None:
    tv = background_audio("television", 8.0, RATE, np.random.default_rng(4), "en")
    assert band_share(tv, 0, 120) < 0.01
    assert band_share(tv, 6500, 8000) < 0.001
    levels = frame_rms(tv)
    assert (levels < 0.05 * levels.max()).mean() > 0.05  # pauses between sentences


def test_street_is_mostly_low_frequency_and_its_loudness_varies_as_vehicles_pass() -> None:
    street = background_audio("street", 12.0, RATE, np.random.default_rng(7), "en")
    assert band_share(street, 0, 1000) > 0.7
    # loudness over half-second windows swings by more than steady noise would
    windows = street.samples[: 24 * 8000].reshape(24, 8000)
    levels = np.sqrt((windows.astype(np.float64) ** 2).mean(axis=1))
    assert levels.max() / levels.min() > 2.0


def test_cafe_has_clatter_transients_above_the_babble() -> None:
    cafe = background_audio("cafe", 10.0, RATE, np.random.default_rng(9), "en")
    # clinks ring at 1.8-7 kHz, where babble from espeak-ng has little energy
    assert band_share(cafe, 1800, 7000) > 0.02
    levels = frame_rms(cafe)
    assert levels.max() > 2.5 * np.median(levels)
