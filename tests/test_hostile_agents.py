"""Hostile candidates cannot stop, hang, crash or game a sweep: whatever they send is cleaned and
checked at the
boundary, a malformed answer is their own scored error (never an exclusion), and a deadline ends a
call that
never answers."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from callbench.call import CandidateStep, read_trace
from callbench.call.types import ToolCall, Usage
from callbench.runs import RunConfig, run_suite

RELEASE = threading.Event()
"""Lets a blocked agent thread finish once its test is over (a worker thread cannot be killed)."""


def surrogate_agent(view):
    """Half an emoji, a terminal escape and a bidi override in its speech; then it ends the call."""
    if view.in_tool_chain:
        return {"say": None}
    if not any(m.role == "caller" for m in view.messages):
        return {"say": "hi \ud800 \x1b[2J \u202eevil. How can I help?"}
    end = next(t for t in view.tools if t.ends_call)
    return {
        "say": "Bye \udfff.",
        "tool_calls": [{"name": end.name, "arguments": {"reason": "resolved\ud83d"}}],
    }


class MalformedAgent:
    """Answers that break the contract in every way an in-process agent can, one per message."""

    def __init__(self):
        self.n = 0

    def step(self, view):
        answers = [
            CandidateStep(speech=42),
            CandidateStep(speech="ok", tool_calls=5),  # type: ignore[arg-type]
            {"say": "x", "tool_calls": [{"name": "end_call", "arguments": {"bad": {1, 2}}}]},
            {
                "say": "y",
                "tool_calls": 5,
                "usage": {"prompt_tokens": "many", "completion_tokens": 1e308},
            },
            CandidateStep(
                speech="z", tool_calls=(ToolCall(name="end_call", arguments={"not": "text"}),)
            ),  # type: ignore[arg-type]
            CandidateStep(speech="u", usage=Usage(prompt_tokens=-5, completion_tokens=10**30)),
        ]
        self.n += 1
        return answers[min(self.n - 1, len(answers) - 1)]


async def never_answers(view):
    import asyncio

    await asyncio.sleep(3600)


def blocks_its_thread(view):
    RELEASE.wait(
        60
    )  # a synchronous agent stuck in a blocking call: it must not stall the event loop
    return {"say": "too late"}


@pytest.fixture(autouse=True)
def as_module(monkeypatch):
    monkeypatch.setitem(sys.modules, "hostile_agents", sys.modules[__name__])
    RELEASE.clear()
    yield
    RELEASE.set()


def test_a_lone_surrogate_control_or_bidi_character_is_cleaned_and_recorded(mini_suite, tmp_path):
    name = "python:hostile_agents:surrogate_agent"
    result = run_suite(mini_suite, RunConfig(candidates=(name,)), tmp_path / "r")
    assert (
        result.report["candidates"][name]["coverage"] == 1.0
    )  # the sweep went through; report.json was written
    trace = read_trace(tmp_path / f"r/traces/{name}/reschedule/r0.json")
    first = trace.messages[0]
    assert first.sanitised and first.text == "hi \ufffd \ufffd[2J \ufffdevil. How can I help?"
    last = [m for m in trace.messages if m.role == "candidate" and m.tool_calls][-1]
    assert last.sanitised and "\ufffd" in last.tool_calls[0].raw_arguments
    assert (
        (tmp_path / f"r/traces/{name}/reschedule/r0.json").read_bytes().decode("utf-8")
    )  # valid UTF-8 on disk
    resumed = run_suite(mini_suite, RunConfig(candidates=(name,)), tmp_path / "r", resume=True)
    assert resumed.report["candidates"][name]["coverage"] == 1.0


def test_a_malformed_answer_is_the_candidates_scored_error_never_an_exclusion(mini_suite, tmp_path):
    name = "python:hostile_agents:MalformedAgent"
    result = run_suite(mini_suite, RunConfig(candidates=(name,), repeats=2), tmp_path / "r")
    row = result.report["candidates"][name]
    assert row["coverage"] == 1.0 and row["excluded"] == {}
    trace = read_trace(tmp_path / f"r/traces/{name}/reschedule/r0.json")
    errors = [m.error for m in trace.messages if m.role == "candidate" and m.error]
    assert any("speech is a int" in e for e in errors) and any(
        "tool_calls is a int" in e for e in errors
    )
    assert any("cannot be written as JSON" in e for e in errors)
    assert any("usage" in n for n in trace.notes)  # out-of-contract usage: recorded, not counted
    assert all(
        u.prompt_tokens <= 10**9 and u.completion_tokens <= 10**9 for u in trace.usage.values()
    )


@pytest.mark.parametrize(
    "agent, timeouts",
    [
        ("never_answers", {"step_timeout_s": 0.3}),
        ("never_answers", {"step_timeout_s": None, "call_timeout_s": 0.3}),
        ("blocks_its_thread", {"step_timeout_s": 0.3}),
    ],
)
def test_a_candidate_that_never_answers_fails_its_deadline_scored(
    mini_suite, tmp_path, agent, timeouts
):
    name = f"python:hostile_agents:{agent}"
    result = run_suite(mini_suite, RunConfig(candidates=(name,), **timeouts), tmp_path / "r")
    RELEASE.set()
    trace = read_trace(tmp_path / f"r/traces/{name}/reschedule/r0.json")
    assert trace.outcome == "completed" and trace.end.reason == "model_error"
    assert trace.failure.failure_class == "model" and "deadline" in trace.failure.detail
    assert (
        result.report["candidates"][name]["coverage"] == 1.0
        and result.report["candidates"][name]["task"] == 0.0
    )


class _Drip(BaseHTTPRequestHandler):
    """An agent server that answers with headers, then one byte every 0.2 s, never finishing in
    time."""

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", "100000")
        self.end_headers()
        for _ in range(40):
            if RELEASE.is_set():
                return
            try:
                self.wfile.write(b" ")
                self.wfile.flush()
            except OSError:
                return
            RELEASE.wait(0.2)

    def log_message(self, *args):
        pass


def test_a_slow_drip_http_agent_is_cut_off_by_the_deadline(mini_suite, tmp_path):
    RELEASE.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Drip)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/agent"
    try:
        run_suite(mini_suite, RunConfig(candidates=(url,), step_timeout_s=0.5), tmp_path / "r")
    finally:
        RELEASE.set()
        server.shutdown()
        server.server_close()
    from callbench.layout import RunLayout
    from callbench.runs.episodes import Attempt

    trace = read_trace(RunLayout(tmp_path / "r").trace(Attempt(url, "reschedule", 0)))
    assert trace.end.reason == "model_error" and "deadline" in trace.failure.detail


def test_the_wire_never_raises_on_what_an_agent_sends():
    from callbench.candidates.wire import step_from_wire

    for answer in (
        {"say": "a", "tool_calls": 5},
        {"say": "a", "tool_calls": [{"name": "x", "arguments": float("nan")}]},
        {"say": "a", "usage": {"prompt_tokens": "many"}},
        {"say": "a", "usage": [1]},
        {"say": "a", "usage": {"prompt_tokens": 1e308, "completion_tokens": -1}},
    ):
        step = step_from_wire(
            json.loads(json.dumps(answer)) if "nan" not in repr(answer) else answer
        )
        assert isinstance(step, CandidateStep)
        assert step.usage is None or (
            step.usage.prompt_tokens >= 0 and step.usage.completion_tokens >= 0
        )


def test_deadlines_are_set_from_the_command_line_and_the_run_file(tmp_path):
    from typer.testing import CliRunner

    from callbench.cli import app

    name = "python:hostile_agents:never_answers"
    res = CliRunner().invoke(
        app,
        [
            "run",
            "--suite",
            "tests/fixtures/mini",
            "-c",
            name,
            "--step-timeout",
            "0.3",
            "--out",
            str(tmp_path / "flag"),
        ],
    )
    assert res.exit_code == 0, res.output
    (tmp_path / "run.toml").write_text(
        f'suite = "tests/fixtures/mini"\ncandidates = ["{name}"]\n'
        "step_timeout_s = 0\ncall_timeout_s = 0.3\n"
    )
    res = CliRunner().invoke(
        app, ["run", "--config", str(tmp_path / "run.toml"), "--out", str(tmp_path / "file")]
    )
    assert res.exit_code == 0, res.output
    RELEASE.set()
    for folder, detail in (
        ("flag", "deadline for one message (0.3 s)"),
        ("file", "deadline for the whole call (0.3 s of candidate time"),
    ):
        run = json.loads((tmp_path / folder / "run.json").read_text())
        trace = read_trace(tmp_path / folder / f"traces/{name}/reschedule/r0.json")
        assert trace.end.reason == "model_error", folder
        assert detail in trace.failure.detail, trace.failure.detail
    assert (run["config"]["step_timeout_s"], run["config"]["call_timeout_s"]) == (None, 0.3)
    (tmp_path / "bad.toml").write_text('candidates = ["oracle"]\nstep_timeout_s = "soon"\n')
    res = CliRunner().invoke(app, ["run", "--config", str(tmp_path / "bad.toml")])
    assert (
        res.exit_code == 2 and "bad.toml: step_timeout_s must be a number of seconds" in res.output
    )


def megabyte_agent(view):
    """A megabyte without a space, then another of digits, then it ends the call."""
    said = sum(1 for m in view.messages if m.role == "candidate")
    if said < 2:
        return {"say": ("abcdefghij" if said == 0 else "9825041736") * 100_000}
    end = next(t for t in view.tools if t.ends_call)
    return {
        "say": "Goodbye.",
        "tool_calls": [{"name": end.name, "arguments": {"reason": "resolved"}}],
    }


def _hostile_provider(body):
    """A model server whose answers carry a lone surrogate, a terminal escape and usage out of
    contract."""
    return {
        "text": "Hello \ud800\x1b[31m, how can I help?",
        "usage": {"prompt_tokens": "many", "completion_tokens": 1e308},
    }


def test_a_sweep_of_every_hostile_candidate_completes_with_every_call_in_its_class(tmp_path):
    """One `callbench run` with every hostile candidate at once, two repeats each: the sweep
    finishes, every
    call is recorded (none excluded: whatever went wrong was the candidate's), the report and the
    HTML are written
    and read back, and each candidate's trace shows the failure it caused, in the model class."""
    import sqlite3

    from typer.testing import CliRunner

    from callbench.cli import app
    from callbench.testing import FakeProvider

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Drip)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    drip = f"http://127.0.0.1:{server.server_address[1]}/agent"
    python = {
        f"python:hostile_agents:{n}"
        for n in (
            "surrogate_agent",
            "MalformedAgent",
            "never_answers",
            "blocks_its_thread",
            "megabyte_agent",
        )
    }
    try:
        with FakeProvider(_hostile_provider) as fp:
            provider = f"openai-compatible:{fp.base_url}#m"
            candidates = sorted(python) + [drip, provider, "oracle"]
            res = CliRunner().invoke(
                app,
                [
                    "run",
                    "--suite",
                    "tests/fixtures/mini",
                    *[a for c in candidates for a in ("-c", c)],
                    "--repeats",
                    "2",
                    "--step-timeout",
                    "2",  # long enough for the fake provider on a loaded machine
                    "--concurrency",
                    "8",
                    "--out",
                    str(tmp_path / "r"),
                ],
            )
    finally:
        RELEASE.set()
        server.shutdown()
        server.server_close()
    assert res.exit_code == 0, res.output
    with sqlite3.connect(tmp_path / "r" / "run.sqlite") as db:
        states = db.execute("SELECT state, COUNT(*) FROM attempts GROUP BY state").fetchall()
    assert states == [("completed", len(candidates) * 2)]
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    for c in candidates:
        assert (
            report["candidates"][c]["coverage"] == 1.0 and report["candidates"][c]["excluded"] == {}
        ), c
    from callbench.layout import RunLayout
    from callbench.runs.episodes import Attempt

    layout = RunLayout(tmp_path / "r")
    traces = {
        c: [read_trace(layout.trace(Attempt(c, "reschedule", k))) for k in (0, 1)]
        for c in candidates
    }
    for c in (
        "python:hostile_agents:never_answers",
        "python:hostile_agents:blocks_its_thread",
        drip,
    ):
        assert all(
            t.end.reason == "model_error" and t.failure.kind == "CandidateTimeout"
            for t in traces[c]
        ), c
    for c in ("python:hostile_agents:surrogate_agent", provider):
        said = [m for t in traces[c] for m in t.messages if m.role == "candidate" and m.text]
        assert (
            said
            and any(m.sanitised for m in said)
            and not any("\ud800" in m.text or "\x1b" in m.text for m in said)
        ), c
    assert all(t.usage["candidate"].prompt_tokens == 0 and t.notes for t in traces[provider])
    assert all(
        any(m.error for m in t.messages) for t in traces["python:hostile_agents:MalformedAgent"]
    )
    assert all(
        max(len(m.text or "") for m in t.messages) == 1_000_000
        for t in traces["python:hostile_agents:megabyte_agent"]
    )
    assert report["candidates"]["oracle"]["task"] == 100.0
    res = CliRunner().invoke(
        app, ["report", str(tmp_path / "r"), "--html", str(tmp_path / "report.html")]
    )
    assert res.exit_code == 0, res.output
    html = (tmp_path / "report.html").read_text(
        encoding="utf-8"
    )  # strict UTF-8: no surrogate got through
    assert html.startswith("<!DOCTYPE html>") and "\x1b" not in html
