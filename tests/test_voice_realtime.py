"""The hosted realtime adapters (OpenAI Realtime, Gemini Live) against loopback fakes that speak
the protocol subset they use (tests/fakes): a whole starter call each through the audio channel
(espeak-ng speech from the fake, Whisper tiny.en hearing it), and the failures a provider can
cause, each mapped to the error class that attributes it. No network: the real services are never
called. A distinctive key is planted in the environment and looked for everywhere it must not be.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from callbench.candidates import CandidateEntry
from callbench.candidates.voice.adapter import VoiceCandidate
from callbench.candidates.voice.gemini_live import GeminiLiveStack
from callbench.candidates.voice.openai_realtime import OpenAIRealtimeStack
from callbench.candidates.voice.protocol import (
    AudioOut,
    ToolCallOut,
    TurnDone,
    VoiceSessionSetup,
)
from callbench.errors import InfrastructureError, ModelError
from callbench.models.errors import ProviderAuthError, ProviderTransportError, RateLimited
from callbench.runs.config import RunConfig
from callbench.runs.runner import run_suite
from callbench.suite_check import load_suite
from tests.audio_args import needs_voices

pytest.importorskip("websockets", reason="pip install 'callbench[voice]'")

from fakes.gemini_fake import GeminiFake  # noqa: E402
from fakes.realtime_fake import RealtimeFake  # noqa: E402

KEY = "sk-planted-7f3c9a1e5b2d4f60-never-show-me"
SCENARIO = "clinic-book-slot-taken"
needs_voice = needs_voices


@pytest.fixture(scope="module")
def starter():
    return load_suite("starter")


def _run(starter, monkeypatch, tmp_path: Path, name: str, stack) -> Path:
    """One call of the scenario by `stack` through callbench's runner (audio channel)."""
    import callbench.runs.episodes as episodes

    real = episodes.candidate_entry

    def entry(candidate: str, **kwargs):
        if candidate == name:
            return CandidateEntry(name, "loopback fake", lambda _s: VoiceCandidate(stack))
        return real(candidate, **kwargs)

    monkeypatch.setattr(episodes, "candidate_entry", entry)
    out = tmp_path / "run"
    run_suite(starter, RunConfig(candidates=(name,), scenarios=(SCENARIO,), channel="audio"), out)
    return out


def _trace(out: Path) -> dict:
    return json.loads(next((out / "traces").rglob("r0.json")).read_text(encoding="utf-8"))


def _no_key_anywhere(out: Path) -> None:
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files
    for path in files:
        assert KEY.encode() not in path.read_bytes(), path


def _whole_call(starter, trace: dict, fake, out: Path, name: str) -> None:
    scenario = starter.scenarios[SCENARIO]
    assert trace["channel"] == "audio"
    assert trace["end"]["reason"] == "end_tool", trace["end"]
    calls = [
        (c["name"], json.loads(c["raw_arguments"]))
        for m in trace["messages"]
        for c in m.get("tool_calls") or []
    ]
    expected = [c.tool for e in scenario.reference for c in e.calls]
    assert [n for n, _ in calls] == expected
    verify = next(a for n, a in calls if n == "verify_patient")
    assert verify == {"patient_id": "20417736", "date_of_birth": "1988-10-02"}
    booked = [a["slot_id"] for n, a in calls if n == "book_appointment"]
    assert booked == ["SL-40312", "SL-40519"]
    # the fake was sent every result it waited for, and a caller turn of real audio each time
    # (all but the end tool's: the call is over once it succeeds)
    assert len(fake.agent.tool_outputs) == len(expected) - 1
    assert fake.agent.received_audio_bytes and all(
        n > 8000 for n in fake.agent.received_audio_bytes
    )
    # audio both ways in the trace: the caller's turns and the stack's speech, recognised
    caller = [r for t in trace["caller_turns"] for r in t["audio"]]
    agent = trace["agent_audio"]
    assert caller and agent
    assert sum(1 for r in agent if r["recognised"]) >= 6
    for record in caller + agent:
        assert (out / record["audio_path"]).read_bytes()[:4] == b"fLaC"
    latencies = trace["timings"]["response_latency_seconds"]
    assert len(latencies) == len(fake.agent.received_audio_bytes)
    assert all(0 <= s < 30 for s in latencies)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    card = report["candidates"][name]
    print(f"{name}: task score {card.get('task_mean', card.get('task'))}, latencies {latencies}")
    _no_key_anywhere(out)


@needs_voice
def test_openai_realtime_plays_a_whole_starter_call(starter, monkeypatch, tmp_path):
    pytest.importorskip("faster_whisper", reason="pip install 'callbench[voice]'")
    monkeypatch.setenv("CB_TEST_REALTIME_KEY", KEY)
    with RealtimeFake(starter.scenarios[SCENARIO]) as fake:
        stack = OpenAIRealtimeStack(
            "gpt-fake", base_url=fake.url, api_key_env="CB_TEST_REALTIME_KEY"
        )
        out = _run(starter, monkeypatch, tmp_path, stack.name, stack)
    _whole_call(starter, _trace(out), fake, out, stack.name)
    assert fake.headers[0]["authorization"] == f"Bearer {KEY}"
    assert fake.paths[0].endswith("?model=gpt-fake")
    (config,) = fake.agent.config
    assert config["audio"]["input"]["turn_detection"] is None
    assert config["audio"]["input"]["format"] == {"type": "audio/pcm", "rate": 24000}
    assert "end_call" in {t["name"] for t in config["tools"]}
    assert not fake.unknown


@needs_voice
def test_gemini_live_plays_a_whole_starter_call(starter, monkeypatch, tmp_path):
    pytest.importorskip("faster_whisper", reason="pip install 'callbench[voice]'")
    monkeypatch.setenv("CB_TEST_GEMINI_KEY", KEY)
    with GeminiFake(starter.scenarios[SCENARIO]) as fake:
        stack = GeminiLiveStack("gemini-fake", base_url=fake.url, api_key_env="CB_TEST_GEMINI_KEY")
        out = _run(starter, monkeypatch, tmp_path, stack.name, stack)
    _whole_call(starter, _trace(out), fake, out, stack.name)
    assert fake.keys == [KEY]  # the key travelled in the URL, as the Live API takes it
    (setup,) = fake.agent.config
    assert setup["model"] == "models/gemini-fake"
    assert setup["generationConfig"]["responseModalities"] == ["AUDIO"]
    assert setup["realtimeInputConfig"]["automaticActivityDetection"]["disabled"] is True
    names = {f["name"] for f in setup["tools"][0]["functionDeclarations"]}
    assert "end_call" in names
    assert len(fake.opening_cues) == 1  # the agent greets first: one text cue, then only audio


def _setup(starter) -> VoiceSessionSetup:
    scenario = starter.scenarios[SCENARIO]
    tools = starter.agent_for(scenario).definition.tools
    return VoiceSessionSetup("be helpful", tuple(tools), "en", "inbound")


async def _drain(session) -> list:
    events = []
    async for event in session.events():
        events.append(event)
        if isinstance(event, TurnDone):
            break
    return events


def _silence():
    from callbench.call.audio.types import Audio

    return Audio.silence(1.0, 8000)


@needs_voice
@pytest.mark.parametrize("kind", ["openai", "gemini"])
def test_a_connection_dropped_mid_response_is_infrastructure(starter, monkeypatch, kind):
    monkeypatch.setenv("CB_TEST_KEY", KEY)
    fake_class, stack_class = (
        (RealtimeFake, OpenAIRealtimeStack) if kind == "openai" else (GeminiFake, GeminiLiveStack)
    )

    async def call(url):
        session = await stack_class("m", base_url=url, api_key_env="CB_TEST_KEY").open(
            _setup(starter)
        )
        await session.respond()
        first = await _drain(session)  # the greeting plays whole
        assert any(isinstance(e, AudioOut) for e in first) and isinstance(first[-1], TurnDone)
        await session.send_audio(_silence())
        await session.respond()
        try:
            await _drain(session)
        finally:
            await session.close()

    with fake_class(starter.scenarios[SCENARIO], mode="close_mid_response") as fake:
        with pytest.raises(InfrastructureError) as caught:
            asyncio.run(call(fake.url))
    assert isinstance(caught.value, ProviderTransportError) and caught.value.retryable
    assert "mid-call" in str(caught.value)
    assert KEY not in str(caught.value) and KEY not in repr(caught.value.__context__)
    assert caught.value.__suppress_context__ and caught.value.__cause__ is None


@pytest.mark.parametrize("kind", ["openai", "gemini"])
def test_a_rate_limit_is_infrastructure_and_the_key_stays_hidden(
    starter, monkeypatch, tmp_path, kind, caplog
):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("CB_TEST_KEY", KEY)
    fake_class, stack_class = (
        (RealtimeFake, OpenAIRealtimeStack) if kind == "openai" else (GeminiFake, GeminiLiveStack)
    )
    with fake_class(starter.scenarios[SCENARIO], mode="rate_limit") as fake:
        stack = stack_class("m", base_url=fake.url, api_key_env="CB_TEST_KEY")

        async def call():
            session = await stack.open(_setup(starter))
            await session.respond()
            try:
                await _drain(session)
            finally:
                await session.close()

        with pytest.raises(RateLimited) as caught:
            asyncio.run(call())
        assert caught.value.retryable and caught.value.status_code == 429
        assert KEY not in str(caught.value)
        # and through the runner: the call is excluded as infrastructure, the key nowhere
        out = _run(starter, monkeypatch, tmp_path, stack.name, stack)
    trace = _trace(out)
    assert trace["outcome"] == "excluded"
    assert trace["failure"]["failure_class"] == "infrastructure"
    assert trace["failure"]["kind"] == "RateLimited"
    _no_key_anywhere(out)
    # the client logs nothing that quotes the key (the Gemini URL carries it): only the fake
    # server's own records, which are the test's, may
    ours = [r for r in caplog.records if not r.name.startswith("websockets.server")]
    assert ours and all(KEY not in r.getMessage() for r in ours)


def test_a_refused_connection_and_a_missing_key_are_infrastructure(starter, monkeypatch):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("CB_TEST_KEY", KEY)
    for stack_class in (OpenAIRealtimeStack, GeminiLiveStack):
        stack = stack_class("m", base_url=f"ws://127.0.0.1:{port}/x", api_key_env="CB_TEST_KEY")
        with pytest.raises(ProviderTransportError) as caught:
            asyncio.run(stack.open(_setup(starter)))
        assert KEY not in str(caught.value) and "/x" not in str(caught.value)
        missing = stack_class("m", base_url=f"ws://127.0.0.1:{port}/x", api_key_env="CB_NO_SUCH")
        with pytest.raises(InfrastructureError, match="CB_NO_SUCH"):
            asyncio.run(missing.open(_setup(starter)))


def test_protocol_violations_are_the_stacks_error():
    from callbench.candidates.voice.openai_realtime import function_call
    from callbench.candidates.voice.realtime_ws import audio_from_base64

    with pytest.raises(ModelError):
        audio_from_base64("not base64!!", 24000, "svc")
    with pytest.raises(ModelError):
        function_call({"name": "end_call", "arguments": "{}"})  # no call_id
    assert function_call({"call_id": "c", "name": "n", "arguments": "{}"}) == ToolCallOut(
        "c", "n", "{}"
    )


def test_error_codes_and_close_frames_are_classified_by_code_not_text():
    from types import SimpleNamespace

    from callbench.candidates.voice.openai_realtime import failed
    from callbench.candidates.voice.realtime_ws import closed, error_for_code
    from callbench.models.errors import (
        ProviderAuthError,
        ProviderRequestError,
        ProviderServerError,
    )

    assert isinstance(error_for_code("s", "rate_limit_exceeded", "", "slow down"), RateLimited)
    assert isinstance(error_for_code("s", "", "server_error", "oops"), ProviderServerError)
    assert isinstance(error_for_code("s", "invalid_api_key", "", ""), ProviderAuthError)
    # a message that mentions a rate limit does not make one: only the code counts
    bad = error_for_code("s", "invalid_value", "invalid_request_error", "rate_limit_exceeded")
    assert type(bad) is ProviderRequestError and not bad.retryable
    with pytest.raises(ProviderServerError):
        failed({"status": "failed", "status_details": {"error": {"type": "server_error"}}})
    failed({"status": "completed"})  # nothing to raise

    def frame(code, reason=""):
        return SimpleNamespace(rcvd=SimpleNamespace(code=code, reason=reason))

    assert isinstance(closed(frame(1011, "RESOURCE_EXHAUSTED: quota"), "s"), RateLimited)
    assert isinstance(closed(frame(1011, "Internal error"), "s"), ProviderServerError)
    assert isinstance(closed(frame(1008, "bad key"), "s"), ProviderAuthError)
    assert isinstance(closed(SimpleNamespace(rcvd=None), "s"), ProviderTransportError)


@pytest.mark.parametrize("status", [401, 429])
@pytest.mark.parametrize("kind", ["openai", "gemini"])
def test_a_refused_handshake_is_classified_and_the_key_stays_hidden(
    starter, monkeypatch, kind, status, caplog
):
    """The handshake is where the key travels (a header, or the Gemini URL's query): a refusal
    there is classified by its status and quotes neither the key nor the URL, in the error, its
    context or any log record of ours."""
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("CB_TEST_KEY", KEY)
    fake_class, stack_class = (
        (RealtimeFake, OpenAIRealtimeStack) if kind == "openai" else (GeminiFake, GeminiLiveStack)
    )
    with fake_class(starter.scenarios[SCENARIO]) as fake:
        fake.refuse_with = status
        stack = stack_class("m", base_url=fake.url, api_key_env="CB_TEST_KEY")
        with pytest.raises(InfrastructureError) as caught:
            asyncio.run(stack.open(_setup(starter)))
    expected = ProviderAuthError if status == 401 else RateLimited
    assert isinstance(caught.value, expected), repr(caught.value)
    assert f"HTTP {status}" in str(caught.value)
    shown = str(caught.value) + repr(caught.value) + repr(caught.value.__context__)
    assert KEY not in shown and fake.path not in shown
    assert caught.value.__suppress_context__ and caught.value.__cause__ is None
    ours = [r for r in caplog.records if not r.name.startswith("websockets.server")]
    assert all(KEY not in r.getMessage() for r in ours)


@pytest.mark.parametrize("kind", ["openai", "gemini"])
def test_the_stacks_share_their_settings_and_never_keep_the_key(starter, monkeypatch, kind):
    from callbench.candidates import candidate_entry

    monkeypatch.setenv("CB_TEST_KEY", KEY)
    fake_class, stack_class, prefix, env = (
        (RealtimeFake, OpenAIRealtimeStack, "openai-realtime", "OPENAI_API_KEY")
        if kind == "openai"
        else (GeminiFake, GeminiLiveStack, "gemini-live", "GEMINI_API_KEY")
    )
    # the registry leaves the key's variable to the stack: the service's usual one by default
    made = candidate_entry(f"{prefix}:m").make(None)  # type: ignore[arg-type]
    assert isinstance(made, VoiceCandidate) and isinstance(made.stack, stack_class)
    assert (made.stack.name, made.stack.api_key_env) == (f"{prefix}:m", env)
    assert made.stack.base_url == stack_class.default_url
    entry = candidate_entry(f"{prefix}:m", api_key_env="CB_TEST_KEY")
    named = entry.make(None)  # type: ignore[arg-type]
    assert named.stack.api_key_env == "CB_TEST_KEY"

    async def call(url):
        stack = stack_class("m", base_url=url, api_key_env="CB_TEST_KEY", voice="v", timeout_s=5)
        session = await stack.open(_setup(starter))
        await session.close()
        return stack

    with fake_class(starter.scenarios[SCENARIO]) as fake:
        stack = asyncio.run(call(fake.url))
    assert (stack.voice, stack.timeout_s) == ("v", 5)
    assert KEY not in repr(vars(stack))  # read at open, handed to the endpoint, not kept
