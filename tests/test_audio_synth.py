"""Speech synthesis: espeak-ng for every suite language, Piper for English, persona voices."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from callbench.call.audio.signal import rms
from callbench.call.audio.synth import (
    MOOD_VOICES,
    EspeakSynthesizer,
    PiperSynthesizer,
    SynthesisError,
    make_synthesizer,
    voice_for,
)
from callbench.call.audio.types import Voice

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng absent")

# about three seconds of speech in each suite language
SENTENCES = {
    "en": "I would like to check the balance on my account, please.",
    "hi": "मैं अपने खाते की शेष राशि जानना चाहता हूँ।",
    "hi-Latn": "Main apne khaate ki baaki raashi jaanna chahta hoon.",
    "gu": "હું મારા ખાતાની બાકી રકમ જાણવા માંગુ છું.",
    "mr": "मला माझ्या खात्यातील शिल्लक रक्कम जाणून घ्यायची आहे.",
    "ta": "என் கணக்கில் உள்ள இருப்புத் தொகையை அறிய விரும்புகிறேன்.",
    "bn": "আমি আমার অ্যাকাউন্টের বাকি টাকা জানতে চাই।",
}


@needs_espeak
@pytest.mark.parametrize("language", sorted(SENTENCES))
def test_espeak_speaks_every_suite_language(language: str) -> None:
    audio = EspeakSynthesizer().synthesize(SENTENCES[language], language, Voice())
    assert audio.rate == 22050
    assert 1.0 < audio.seconds < 12.0, audio.seconds
    assert rms(audio.samples) > 0.01
    assert np.max(np.abs(audio.samples)) <= 1.0


@needs_espeak
def test_espeak_rate_changes_duration() -> None:
    synth = EspeakSynthesizer()
    slow = synth.synthesize(SENTENCES["en"], "en", Voice(rate_wpm=120))
    fast = synth.synthesize(SENTENCES["en"], "en", Voice(rate_wpm=240))
    assert fast.seconds < 0.7 * slow.seconds


@needs_espeak
def test_espeak_is_deterministic_and_the_variant_changes_the_sound() -> None:
    synth = EspeakSynthesizer()
    first = synth.synthesize(SENTENCES["hi"], "hi", Voice(name="f2", pitch=60))
    again = synth.synthesize(SENTENCES["hi"], "hi", Voice(name="f2", pitch=60))
    other = synth.synthesize(SENTENCES["hi"], "hi", Voice(name="m3", pitch=60))
    assert np.array_equal(first.samples, again.samples)
    assert len(other.samples) != len(first.samples) or not np.array_equal(
        other.samples, first.samples
    )


@needs_espeak
def test_espeak_reads_text_that_looks_like_an_option_as_text() -> None:
    audio = EspeakSynthesizer().synthesize("--version -h", "en", Voice())
    assert audio.seconds > 0.3 and rms(audio.samples) > 0.01


def test_unsupported_language_and_missing_program_are_clear_errors() -> None:
    with pytest.raises(SynthesisError, match="'fr'"):
        EspeakSynthesizer().synthesize("bonjour", "fr", Voice())
    with pytest.raises(SynthesisError, match="apt-get install espeak-ng"):
        EspeakSynthesizer(program="espeak-ng-not-here").synthesize("hello", "en", Voice())
    with pytest.raises(SynthesisError, match="English only"):
        PiperSynthesizer().synthesize("नमस्ते", "hi", Voice())


def test_make_synthesizer_knows_its_specs() -> None:
    assert make_synthesizer("espeak-ng").name == "espeak-ng"
    assert make_synthesizer("piper:joe").name == "piper:joe"
    with pytest.raises(ValueError, match="'festival'"):
        make_synthesizer("festival")


def mean(voices: list[Voice], attr: str) -> float:
    return float(np.mean([getattr(v, attr) for v in voices]))


def test_voice_for_follows_the_mood_table_and_the_seed() -> None:
    calm = [voice_for("calm", seed) for seed in range(20)]
    angry = [voice_for("angry", seed) for seed in range(20)]
    confused = [voice_for("confused", seed) for seed in range(20)]
    anxious = [voice_for("anxious", seed) for seed in range(20)]
    assert mean(angry, "rate_wpm") > mean(calm, "rate_wpm") > mean(confused, "rate_wpm")
    assert mean(anxious, "rate_wpm") > mean(calm, "rate_wpm")
    assert mean(angry, "pitch") > mean(calm, "pitch")
    assert voice_for("calm", 7) == voice_for("calm", 7)
    assert voice_for("calm", np.random.default_rng(7)) == voice_for("calm", 7)
    assert len(set(calm)) > 5  # callers differ
    for v in calm:
        assert abs(v.rate_wpm - MOOD_VOICES["calm"][0]) <= 8
    with pytest.raises(ValueError, match="'bored'"):
        voice_for("bored", 1)


def test_piper_speaks_english_deterministically_and_rate_changes_duration() -> None:
    pytest.importorskip("piper", reason="piper-tts is in the voice extra: bash scripts/install")
    synth = PiperSynthesizer()
    first = synth.synthesize(SENTENCES["en"], "en", Voice())
    again = synth.synthesize(SENTENCES["en"], "en-US", Voice())
    fast = synth.synthesize(SENTENCES["en"], "en", Voice(rate_wpm=240))
    assert first.rate == 22050
    assert 1.5 < first.seconds < 8.0 and rms(first.samples) > 0.01
    assert np.array_equal(first.samples, again.samples)
    assert fast.seconds < 0.8 * first.seconds


@needs_espeak
def test_auto_speaks_english_with_piper_and_every_other_language_with_espeak() -> None:
    pytest.importorskip("piper", reason="piper-tts is in the voice extra: bash scripts/install")
    auto = make_synthesizer("auto")
    voice = Voice(name=None, rate_wpm=160, pitch=50)
    english = auto.synthesize("Your bill is paid.", "en", voice)
    assert np.array_equal(
        english.samples,
        make_synthesizer("piper:joe").synthesize("Your bill is paid.", "en", voice).samples,
    )
    hindi = auto.synthesize("आपका बिल भर दिया गया है।", "hi", voice)
    espeak = make_synthesizer("espeak-ng").synthesize("आपका बिल भर दिया गया है।", "hi", voice)
    assert np.array_equal(hindi.samples, espeak.samples)
