"""Background conditions made offline and reproducibly: street, café, television and clean.

No recordings are downloaded: every background is synthesized from a numpy Generator (seeded
per scenario and repeat, as casting is) and, for the speech-like ones, from espeak-ng saying a
few short sentences written in the call's language. The same seed gives the same samples.

- street: a low rumble (brown noise) plus passing vehicles — band-limited noise and an engine
  tone whose loudness rises and falls while its pitch sweeps down as the vehicle passes (a
  Doppler-like shift) — and an occasional horn.
- cafe: babble of several overlapped synthesized voices (different timbres, speeds and pitches)
  saying neutral small talk, plus cup and plate clatter (short, ringing transients).
- television: one news reader with pauses between sentences, band-limited to a small TV
  speaker's range (about 180 Hz - 5 kHz).
- clean: very low room noise; mixing leaves the speech as it is.

Mixing is relative to the caller's speech level (speech_energy: active frames only), at
BACKGROUND_SNR_DB[kind].
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial

import numpy as np

from callbench.call.audio.signal import Mix, fast_length, mix_at_snr, resample, rms
from callbench.call.audio.synth import EspeakSynthesizer, language_base
from callbench.call.audio.types import Audio, Voice

# Speech level over background RMS, in dB, per condition. Chosen to be hard but intelligible for
# a person, in the order the reference found them harmful:
# - street 5 dB: a caller at the roadside; traffic at ~70 dB(A) against close-talk phone speech
#   at ~75 dB. Noise-like, so recognisers degrade gradually.
# - cafe 8 dB: a busy café is usually quieter than traffic, but babble is speech-like and
#   confuses recognisers at a higher SNR than steady noise does.
# - television 3 dB: a television in the same room — one intelligible competing talker, which
#   a recogniser may transcribe instead of the caller; the reference's most damaging condition.
# - clean None: nothing is added.
BACKGROUND_SNR_DB: dict[str, float | None] = {
    "street": 5.0,
    "cafe": 8.0,
    "television": 3.0,
    "clean": None,
}
BACKGROUNDS = tuple(BACKGROUND_SNR_DB)
# level a background is returned at (RMS); mixing rescales it to the condition's SNR anyway
BACKGROUND_RMS = 0.1
CLEAN_ROOM_RMS = 10 ** (-70 / 20)

# Neutral small talk for café babble, a few short sentences per language, written in it.
CAFE_SENTENCES: dict[str, tuple[str, ...]] = {
    "en": (
        "Could I have another coffee, please?",
        "The weather has been lovely this week.",
        "We should meet again on Sunday.",
        "Did you finish the book I lent you?",
    ),
    "hi": (
        "क्या मुझे एक और चाय मिल सकती है?",
        "इस हफ़्ते मौसम बहुत अच्छा रहा।",
        "हम रविवार को फिर मिलेंगे।",
        "क्या तुमने वह किताब पढ़ ली?",
    ),
    "gu": (
        "શું મને બીજી ચા મળશે?",
        "આ અઠવાડિયે હવામાન સરસ રહ્યું.",
        "આપણે રવિવારે ફરી મળીશું.",
        "તમે એ પુસ્તક વાંચી લીધું?",
    ),
    "mr": (
        "मला अजून एक चहा मिळेल का?",
        "या आठवड्यात हवामान छान होतं.",
        "आपण रविवारी पुन्हा भेटू.",
        "तू ते पुस्तक वाचलंस का?",
    ),
    "ta": (
        "எனக்கு இன்னொரு காபி கிடைக்குமா?",
        "இந்த வாரம் வானிலை நன்றாக இருந்தது.",
        "நாம் ஞாயிற்றுக்கிழமை மீண்டும் சந்திப்போம்.",
        "அந்தப் புத்தகத்தைப் படித்து முடித்தாயா?",
    ),
    "bn": (
        "আমি কি আরেক কাপ চা পেতে পারি?",
        "এই সপ্তাহে আবহাওয়া খুব ভালো ছিল।",
        "আমরা রবিবার আবার দেখা করব।",
        "তুমি কি বইটা পড়ে শেষ করেছ?",
    ),
}

# A news reader's lines for the television condition.
NEWS_SENTENCES: dict[str, tuple[str, ...]] = {
    "en": (
        "Good evening, here are tonight's main headlines.",
        "Heavy rain is expected across the region tomorrow.",
        "The city council approved a new budget for road repairs.",
        "In sports, the home team won by three goals.",
    ),
    "hi": (
        "नमस्कार, पेश हैं आज की मुख्य ख़बरें।",
        "कल पूरे क्षेत्र में भारी बारिश की संभावना है।",
        "नगर निगम ने सड़कों की मरम्मत के लिए नया बजट मंज़ूर किया।",
        "खेल जगत में घरेलू टीम ने तीन गोल से जीत हासिल की।",
    ),
    "gu": (
        "નમસ્કાર, આજના મુખ્ય સમાચાર.",
        "આવતીકાલે સમગ્ર વિસ્તારમાં ભારે વરસાદની શક્યતા છે.",
        "મહાનગરપાલિકાએ રસ્તાના સમારકામ માટે નવું બજેટ મંજૂર કર્યું.",
        "રમતગમતમાં સ્થાનિક ટીમે ત્રણ ગોલથી જીત મેળવી.",
    ),
    "mr": (
        "नमस्कार, आजच्या ठळक बातम्या.",
        "उद्या संपूर्ण भागात मुसळधार पावसाची शक्यता आहे.",
        "महानगरपालिकेने रस्ते दुरुस्तीसाठी नवीन अर्थसंकल्प मंजूर केला.",
        "क्रीडा क्षेत्रात स्थानिक संघाने तीन गोलने विजय मिळवला.",
    ),
    "ta": (
        "வணக்கம், இன்றைய முக்கியச் செய்திகள்.",
        "நாளை பகுதி முழுவதும் கனமழை பெய்ய வாய்ப்புள்ளது.",
        "சாலை பழுதுபார்ப்புக்கு மாநகராட்சி புதிய நிதியை ஒதுக்கியது.",
        "விளையாட்டில் உள்ளூர் அணி மூன்று கோல்கள் வித்தியாசத்தில் வென்றது.",
    ),
    "bn": (
        "নমস্কার, আজকের প্রধান খবর।",
        "আগামীকাল গোটা অঞ্চলে ভারী বৃষ্টির সম্ভাবনা রয়েছে।",
        "পৌরসভা রাস্তা মেরামতের জন্য নতুন বাজেট অনুমোদন করেছে।",
        "খেলার খবরে স্থানীয় দল তিন গোলে জিতেছে।",
    ),
}
# espeak-ng timbres for the café's talkers and the news reader
BABBLE_VARIANTS = ("m1", "f2", "m3", "f4")
BABBLE_SPEEDS = (0.92, 1.0, 1.08)
NEWS_VOICE = Voice(name="m2", rate_wpm=170, pitch=45)


def _table_language(language: str, table: dict[str, tuple[str, ...]]) -> str:
    base = language_base(language)
    base = "hi" if base == "hi-Latn" else base
    if base not in table:
        raise ValueError(
            f"no background sentences for language {language!r}; known: {', '.join(table)}"
        )
    return base


@lru_cache(maxsize=128)
def _spoken(language: str, text: str, voice: Voice, speed: float, rate: int) -> np.ndarray:
    """One sentence from espeak-ng, played `speed` times faster (and so higher: another talker's
    voice) at `rate`. Cached, because backgrounds reuse a few sentences and voices: 128 entries
    of a few seconds each stay within about 30 MB."""
    audio = EspeakSynthesizer().synthesize(text, language, voice)
    samples = resample(audio, int(round(rate / speed))).samples
    samples.setflags(write=False)
    return samples


def _shaped_noise(
    rng: np.random.Generator, n: int, rate: int, gain: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """White Gaussian noise shaped in the frequency domain by `gain(freqs)`, unit RMS."""
    if n == 0:
        return np.zeros(0)
    size = fast_length(n)  # generated a little longer at a fast FFT size, then cut
    spectrum = np.fft.rfft(rng.standard_normal(size))
    freqs = np.fft.rfftfreq(size, 1 / rate)
    out = np.fft.irfft(spectrum * gain(freqs), size)[:n]
    level = rms(out)
    return out / level if level > 0 else out


def _band(freqs: np.ndarray, low: float, high: float, order: int = 2) -> np.ndarray:
    """A smooth band-pass gain between `low` and `high` Hz (Butterworth-like magnitude, skirts
    of 6 dB per octave per order)."""
    f = np.maximum(freqs, 1.0)
    return 1 / np.sqrt(1 + (low / f) ** (2 * order)) / np.sqrt(1 + (f / high) ** (2 * order))


def _street(seconds: float, rate: int, rng: np.random.Generator) -> np.ndarray:
    n = int(round(seconds * rate))
    t = np.arange(n) / rate
    # distant traffic: brown noise (amplitude ~ 1/f), rolled off above 2 kHz
    out = 0.5 * _shaped_noise(rng, n, rate, lambda f: _band(f, 20, 2000) / np.maximum(f, 20))
    # passing vehicles: about one every four seconds, each heard for a few seconds
    for _ in range(int(rng.poisson(max(seconds, 1.0) / 4)) + 1):
        centre = rng.uniform(-1.0, seconds + 1.0)
        width = rng.uniform(0.8, 2.0)  # seconds for the loudness to rise and fall
        loud, high = rng.uniform(0.8, 2.0), rng.uniform(800, 2500)
        f0, shift = rng.uniform(70, 160), rng.uniform(0.04, 0.09)
        # only the stretch where the vehicle is audible (within 4 widths of its passing)
        first = max(0, int((centre - 4 * width) * rate))
        last = min(n, int((centre + 4 * width) * rate))
        if last - first < rate // 10:
            continue
        local = t[first:last]
        envelope = np.exp(-0.5 * ((local - centre) / width) ** 2)
        tyre = _shaped_noise(rng, last - first, rate, partial(_band, low=60.0, high=high))
        # engine tone: pitch above f0 while approaching, below it after passing (Doppler-like)
        freq = f0 * (1 - shift * np.tanh((local - centre) / (0.4 * width)))
        phase = 2 * np.pi * np.cumsum(freq) / rate
        engine = sum(np.sin(k * phase) / k for k in (1, 2, 3, 4))
        out[first:last] += loud * envelope * (0.8 * tyre + 0.6 * engine)
    # an occasional horn: two detuned tones with harmonics, under a second
    for _ in range(int(rng.poisson(seconds / 12))):
        start, length = rng.uniform(0, seconds), rng.uniform(0.25, 0.8)
        mask = (t >= start) & (t < start + length)
        if not mask.any():
            continue
        local = t[mask] - start
        edge = np.minimum(1.0, np.minimum(local, length - local) / 0.02)
        tones = sum(
            np.sign(np.sin(2 * np.pi * f * local)) * 0.5 + np.sin(2 * np.pi * f * local)
            for f in (rng.uniform(380, 420), rng.uniform(480, 520))
        )
        out[mask] += rng.uniform(1.0, 2.0) * edge * tones
    return out


def _clatter(seconds: float, rate: int, rng: np.random.Generator) -> np.ndarray:
    """Cups and plates: short bursts of a few ringing high partials that decay in tens of ms."""
    n = int(round(seconds * rate))
    out = np.zeros(n)
    for _ in range(int(rng.poisson(seconds * 0.6))):
        hit_at = rng.uniform(0, seconds)
        for _hit in range(int(rng.integers(1, 4))):  # a clink is often two or three touches
            start = int((hit_at + rng.uniform(0, 0.15)) * rate)
            length = int(rate * 0.12)
            local = np.arange(min(length, max(0, n - start))) / rate
            if len(local) == 0:
                continue
            decay = np.exp(-local / rng.uniform(0.015, 0.05))
            nyquist = rate / 2
            partials = sum(
                np.sin(2 * np.pi * min(rng.uniform(1800, 7000), 0.9 * nyquist) * local)
                for _ in range(3)
            )
            click = rng.standard_normal(len(local)) * np.exp(-local / 0.002)
            out[start : start + len(local)] += rng.uniform(0.5, 1.5) * decay * (partials + click)
    return out


def _talk_track(
    sentences: tuple[str, ...],
    language: str,
    voice: Voice,
    n: int,
    rate: int,
    rng: np.random.Generator,
    gap: tuple[float, float],
    speed: float = 1.0,
) -> np.ndarray:
    """A talker saying random sentences of the table, with gaps, until `n` samples at `rate`
    are filled; starts at a random point so overlapped talkers do not align."""
    pieces: list[np.ndarray] = []
    total = 0
    target = n + int(rng.uniform(0, 2.0) * rate)
    while total < target:
        text = sentences[int(rng.integers(len(sentences)))]
        spoken = _spoken(language, text, voice, speed, rate)
        silence = np.zeros(int(rng.uniform(*gap) * rate))
        pieces += [spoken.astype(np.float64), silence]
        total += len(spoken) + len(silence)
    track = np.concatenate(pieces)
    offset = int(rng.integers(0, max(1, len(track) - n)))
    return track[offset : offset + n]


def _cafe(seconds: float, rate: int, rng: np.random.Generator, language: str) -> np.ndarray:
    base = _table_language(language, CAFE_SENTENCES)
    n = int(round(seconds * rate))
    talk = np.zeros(n)
    for variant in BABBLE_VARIANTS:
        # talkers differ by timbre and by speed (which also moves pitch); a few discrete speeds
        # keep the sentence cache small
        speed = BABBLE_SPEEDS[int(rng.integers(len(BABBLE_SPEEDS)))]
        voice = Voice(name=variant, rate_wpm=165, pitch=50)
        track = _talk_track(CAFE_SENTENCES[base], base, voice, n, rate, rng, (0.3, 1.5), speed)
        level = rms(track)
        talk += rng.uniform(0.6, 1.0) * track / (level if level > 0 else 1.0)
    level = rms(talk)
    talk = talk / level if level > 0 else talk
    return talk + 0.7 * _clatter(seconds, rate, rng)


def _television(seconds: float, rate: int, rng: np.random.Generator, language: str) -> np.ndarray:
    base = _table_language(language, NEWS_SENTENCES)
    n = int(round(seconds * rate))
    if n == 0:
        return np.zeros(0)
    speech = _talk_track(NEWS_SENTENCES[base], base, NEWS_VOICE, n, rate, rng, (0.3, 1.2))
    # a small TV speaker: nothing much below 180 Hz or above 5 kHz, and a slight room hum
    size = fast_length(n + rate // 10)
    spectrum = np.fft.rfft(speech, size)
    freqs = np.fft.rfftfreq(size, 1 / rate)
    shaped = np.fft.irfft(spectrum * _band(freqs, 180, min(5000, 0.45 * rate), order=4), size)[:n]
    hum = 0.01 * _shaped_noise(rng, n, rate, lambda f: _band(f, 50, 400))
    return shaped + hum * rms(shaped)


def background_audio(
    kind: str, seconds: float, rate: int, rng: np.random.Generator, language: str = "en"
) -> Audio:
    """`seconds` of the background condition `kind` at `rate`, made from `rng` (and, for cafe
    and television, espeak-ng in `language`), at RMS BACKGROUND_RMS (lower if that would clip;
    clean is room noise at -70 dBFS)."""
    if kind not in BACKGROUND_SNR_DB:
        raise ValueError(f"unknown background {kind!r}; known: {', '.join(BACKGROUNDS)}")
    n = int(round(seconds * rate))
    if kind == "clean":
        room = _shaped_noise(rng, n, rate, lambda f: _band(f, 40, 3000))
        return Audio((CLEAN_ROOM_RMS * room).astype(np.float32), rate)
    if kind == "street":
        out = _street(seconds, rate, rng)
    elif kind == "cafe":
        out = _cafe(seconds, rate, rng, language)
    else:
        out = _television(seconds, rate, rng, language)
    out = out[:n] if len(out) >= n else np.concatenate([out, np.zeros(n - len(out))])
    level = rms(out)
    if level > 0:
        out = out * (BACKGROUND_RMS / level)
        peak = float(np.max(np.abs(out)))
        if peak > 1.0:
            out = out / peak
    return Audio(out.astype(np.float32), rate)


def mix_detail(speech: Audio, kind: str, rng: np.random.Generator, language: str = "en") -> Mix:
    """`speech` with background `kind` at BACKGROUND_SNR_DB[kind], keeping both parts (for
    measuring the SNR); clean adds nothing."""
    if kind not in BACKGROUND_SNR_DB:
        raise ValueError(f"unknown background {kind!r}; known: {', '.join(BACKGROUNDS)}")
    snr = BACKGROUND_SNR_DB[kind]
    if snr is None:
        silent = Audio(np.zeros_like(speech.samples), speech.rate)
        return Mix(speech, speech, silent, float("inf"), 1.0)
    noise = background_audio(kind, speech.seconds, speech.rate, rng, language)
    return mix_at_snr(speech, noise, snr)


def mix(speech: Audio, kind: str, rng: np.random.Generator, language: str = "en") -> Audio:
    """`speech` as heard with background `kind` behind it (same length and rate)."""
    return mix_detail(speech, kind, rng, language).audio
