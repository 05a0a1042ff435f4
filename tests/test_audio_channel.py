"""The audio channel: the caller's words become sound, meet the background and the telephone line,
and reach the candidate as what a recogniser heard; the agent's words go the other way. Unit tests
use a fake synthesizer and recogniser around the real background, line and WER; the end-to-end
test plays a starter call through espeak-ng and Whisper tiny.en."""

from __future__ import annotations

import hashlib
import json
import random

import numpy as np
import pytest
from typer.testing import CliRunner

from callbench.call import TextChannel
from callbench.call.audio.channel import AudioChannel, AudioStages
from callbench.call.audio.plan import AudioPlan, FlacSink
from callbench.call.audio.types import Audio, Voice
from callbench.cli import app
from callbench.errors import AudioError
from callbench.spec.scenario import ChannelProgram
from tests.audio_args import audio_run_args, needs_voices


class ToneSynth:
    """A tone per word: distinct sounds for distinct texts, no espeak-ng needed."""

    name = "tones"

    def synthesize(self, text: str, language: str, voice: Voice) -> Audio:
        rate, out = 16000, []
        for word in text.split():
            f = 300 + (int(hashlib.sha256(word.encode()).hexdigest(), 16) % 900)
            t = np.arange(int(0.2 * rate)) / rate
            out.append(0.3 * np.sin(2 * np.pi * f * t))
        samples = np.concatenate(out) if out else np.zeros(rate // 10)
        return Audio(samples.astype(np.float32), rate)


class ScriptedEars:
    """Hears what it is told to, in order, and remembers what it was given."""

    name = "scripted-ears"

    def __init__(self, *heard: str):
        self.heard, self.given = list(heard), []

    def transcribe(self, audio: Audio, language: str) -> str:
        self.given.append(audio)
        return self.heard.pop(0)


def _channel(ears, *, background=None, seed=7, events=()):
    program = ChannelProgram.model_validate({"events": list(events)})
    text = TextChannel(program, {}, random.Random(1), language="en")
    stages = AudioStages(synthesizer=ToneSynth(), recognizer=ears)
    return AudioChannel(
        text,
        stages,
        language="en",
        voice=Voice(),
        background=background,
        rng=np.random.default_rng(seed),
        sink=FlacSink(),
    )


def test_the_candidate_reads_what_the_recogniser_heard_and_the_trace_keeps_both():
    ears = ScriptedEars("my account is four two one")
    channel = _channel(ears)
    fragments, events = channel.render("my account is 4 2 1 9", 1, ())
    assert fragments == ["my account is four two one"]
    (record,) = channel.take_audio()
    assert record.intended == "my account is 4 2 1 9" and record.recognised == fragments[0]
    assert 0 < record.wer < 0.5  # one digit of the account dropped
    assert channel.take_audio() == []  # taken once
    heard = ears.given[0]
    assert heard.rate == 8000  # the telephone line
    assert record.audio_path in channel.sink.files
    digest = hashlib.sha256(channel.sink.files[record.audio_path]).hexdigest()
    assert digest == record.audio_sha256
    assert len(channel.caller_audio) == 1


def test_authored_events_apply_to_the_words_before_they_are_spoken():
    ears = ScriptedEars("whatever was heard")
    channel = _channel(
        ears, events=[{"turn": 1, "kind": "substitute", "span": "fifteen", "with": "fifty"}]
    )
    _, events = channel.render("it is fifteen litres", 1, ())
    assert events[0].applied and events[0].kind == "substitute"
    assert channel.take_audio()[0].intended == "it is fifty litres"


def test_nothing_heard_is_recorded_as_an_inaudible_turn():
    channel = _channel(ScriptedEars("  "))
    fragments, events = channel.render("hello there", 1, ())
    assert fragments == [""]
    assert events[-1].kind == "inaudible"


def test_the_same_seed_makes_the_same_sound_and_backgrounds_change_it():
    def sound(background, seed):
        channel = _channel(ScriptedEars("x"), background=background, seed=seed)
        channel.render("the same words every time", 1, ())
        return channel.take_audio()[0].audio_sha256

    assert sound("street", 3) == sound("street", 3)
    assert sound("street", 3) != sound("street", 4)
    assert sound("street", 3) != sound(None, 3)


def test_the_agent_is_heard_through_the_line_and_voice_audio_is_not_spoken_twice():
    ears = ScriptedEars("your bill is paid", "thanks for calling")
    channel = _channel(ears)
    heard, record = channel.hear_agent("Your bill is paid.")
    # the recogniser's words, with the sentence end the agent's voice made (see prosody)
    assert heard == "your bill is paid." and record.speaker == "agent"
    assert record.recognised == "your bill is paid"
    voiced = ToneSynth().synthesize("thanks for calling", "en", Voice())
    text = channel.agent_audio(voiced, transcript="Thanks for calling.")
    heard, record = channel.hear_agent(text)
    assert heard == "thanks for calling." and record.intended == "Thanks for calling."
    assert len(ears.given) == 2  # the voiced words were recognised once, not synthesized again


def test_a_text_background_is_refused():
    from callbench.spec.casting import Background

    text = TextChannel(
        ChannelProgram(),
        {},
        random.Random(1),
        background=Background(noise=0.1),
        background_rng=random.Random(2),
    )
    with pytest.raises(ValueError, match="as sound"):
        AudioChannel(
            text,
            AudioStages(ToneSynth(), ScriptedEars()),
            language="en",
            voice=Voice(),
            background=None,
            rng=np.random.default_rng(0),
            sink=FlacSink(),
        )


def test_gujarati_has_no_local_recogniser_and_says_what_to_use():
    with pytest.raises(AudioError, match="openai-compatible"):
        AudioPlan().recognizer_for("gu")
    assert AudioPlan().recognizer_for("en") == "whisper:tiny.en"
    assert AudioPlan().recognizer_for("hi") == "whisper:base"
    assert AudioPlan(recognizer="pocketsphinx").recognizer_for("gu") == "pocketsphinx"
    with pytest.raises(AudioError):
        AudioPlan(loss=1.5)


needs_voice = needs_voices


@needs_voice
def test_a_starter_call_through_the_audio_channel_end_to_end(tmp_path):
    pytest.importorskip(
        "faster_whisper", reason="faster-whisper is in the voice extra: bash scripts/install"
    )
    out = tmp_path / "run"
    res = CliRunner().invoke(app, audio_run_args("oracle", "clinic-book-slot-taken", out))
    assert res.exit_code == 0, res.output
    assert "audio channel" in res.output
    trace = json.loads(next((out / "traces").rglob("r0.json")).read_text(encoding="utf-8"))
    assert trace["channel"] == "audio"
    records = [r for t in trace["caller_turns"] for r in t["audio"]] + trace["agent_audio"]
    assert records and all(r["recognised"] is not None for r in records)
    for r in records:
        data = (out / r["audio_path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == r["audio_sha256"]
        assert data[:4] == b"fLaC"
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    cell = report["audio"]["oracle"]["clean"]
    assert cell["calls"] == 1 and cell["caller_wer"] is not None
    assert report["run"]["channel"] == "audio"
    # the caller's words reached the candidate as recognised text, not as written
    caller_messages = [m["text"] for m in trace["messages"] if m["role"] == "caller"]
    intended = [t["intended"] for t in trace["caller_turns"]]
    assert caller_messages != intended


def test_gujarati_calls_through_the_audio_channel_fail_before_running(tmp_path):
    res = CliRunner().invoke(
        app, audio_run_args("oracle", "dairy-zero-supply-mastitis", tmp_path / "r")
    )
    assert res.exit_code != 0
    assert "openai-compatible" in res.output


def test_a_whole_suite_audio_run_leaves_out_what_no_local_recogniser_hears():
    """The starter suite over --channel audio runs its English and Hindi calls and says why its
    Gujarati ones are left out; naming a Gujarati scenario is refused (as above)."""
    from callbench import load_suite
    from callbench.runs import RunConfig, plan, unheard_scenarios

    suite = load_suite("starter")
    config = RunConfig(candidates=("noop",), channel="audio")
    gujarati = {s for s, sc in suite.scenarios.items() if sc.language == "gu"}
    left = unheard_scenarios(suite, config)
    assert set(left) == gujarati and gujarati
    assert all("openai-compatible" in why for why in left.values())
    ran = {a.scenario_id for a in plan(suite, config)}
    assert ran == set(suite.scenarios) - gujarati
    assert unheard_scenarios(suite, RunConfig(candidates=("noop",))) == {}  # text: all heard
