"""Agents outside the model layer: over HTTP (the example server) and as Python callables; and the
JSON loop."""

import importlib.util
import json
import sys
import threading
from pathlib import Path

import pytest
from wire_actors import oracle_responder

from callbench.call import CandidateStep, read_trace
from callbench.candidates.llm import JsonActionCandidate, parse_action
from callbench.candidates.wire import step_from_wire
from callbench.models import ScriptedModel
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import load_suite
from callbench.testing import FakeProvider

EXAMPLE = Path(__file__).parents[1] / "examples" / "agent_server.py"


@pytest.fixture(scope="module")
def starter():
    return load_suite("starter")


def load_example():
    spec = importlib.util.spec_from_file_location("agent_server_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "sid",
    [
        "clinic-book-slot-taken",
        "card-stolen-bag-snatched",
        "dairy-contact-update-split",
        "bijli-fallen-wire-emergency",
    ],
)
def test_example_http_agent_passes_over_real_http(starter, tmp_path, sid):
    example = load_example()
    scenario = starter.scenarios[sid]
    with FakeProvider(oracle_responder(scenario)) as model:
        server = example.make_server(0, model.base_url, "agent-model", None)
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        thread.start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}/agent"
            result = run_suite(
                starter, RunConfig(candidates=(url,), scenarios=(sid,)), tmp_path / "r"
            )
        finally:
            server.shutdown()
            server.server_close()
        sent = json.dumps(model.requests, ensure_ascii=False)
    row = result.report["candidates"][url]
    assert row["per_scenario"][sid]["task"] == 100.0 and row["coverage"] == 1.0
    # the agent stack got only what a deployed agent gets
    assert scenario.caller.reason not in sent and "expected_actions" not in sent
    for crit in scenario.criteria:
        assert crit.statement not in sent


def test_http_agent_down_is_infrastructure(starter, tmp_path):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    url = f"http://127.0.0.1:{port}/agent"
    from callbench.candidates import candidate_entry

    assert candidate_entry(url).name == url
    result = run_suite(
        starter,
        RunConfig(
            candidates=(url,),
            scenarios=("clinic-book-slot-taken",),
            infra_reruns=0,
            candidate_options={"http": {"max_retries": 0}},
        ),
        tmp_path / "r",
    )
    card = result.scorecards[0]
    assert card.outcome == "excluded" and card.failure.kind == "ProviderTransportError"


class EchoAgent:
    """A per-call Python agent: greets, then ends the call on the second turn."""

    def __init__(self):
        self.turns = 0

    def step(self, view):
        if view.in_tool_chain:
            return {"say": None}
        self.turns += 1
        if self.turns == 1:
            return {"say": "Hello, how can I help?"}
        end = next(t for t in view.tools if t.ends_call)
        return {
            "say": "Goodbye.",
            "tool_calls": [{"name": end.name, "arguments": {"reason": "resolved"}}],
        }


def broken_agent(view):
    raise RuntimeError("bug in the agent")


def test_python_agents_class_and_function(mini_suite, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "my_agents", sys.modules[__name__])
    result = run_suite(
        mini_suite,
        RunConfig(candidates=("python:my_agents:EchoAgent", "python:my_agents:broken_agent")),
        tmp_path / "r",
    )
    echo = read_trace(tmp_path / "r/traces/python:my_agents:EchoAgent/reschedule/r0.json")
    assert echo.end.reason == "end_tool" and echo.messages[0].text == "Hello, how can I help?"
    broken = read_trace(tmp_path / "r/traces/python:my_agents:broken_agent/reschedule/r0.json")
    assert broken.outcome == "completed" and "agent raised RuntimeError" in broken.messages[0].error
    assert result.report["candidates"]["python:my_agents:broken_agent"]["coverage"] == 1.0


def test_unknown_python_agent_is_a_clear_error():
    from callbench.candidates import UnknownCandidate, candidate_entry

    with pytest.raises(UnknownCandidate, match="cannot import module"):
        candidate_entry("python:no_such_module_xyz:f")
    with pytest.raises(UnknownCandidate, match="has no attribute"):
        candidate_entry("python:json:nope")


@pytest.mark.parametrize(
    "text,speech,calls,error",
    [
        ('{"say": "Hi", "tool_calls": []}', "Hi", 0, None),
        (
            'Sure! ```json\n{"say": "One moment", "tool_calls": [{"name": "lookup", "arguments": '
            '{"id": "1"}}]}\n```',
            "One moment",
            1,
            None,
        ),
        ("I will call the tool now.", None, 0, "not a JSON action object"),
        ('{"say": "x", "tool_calls": [{"arguments": {}}]}', "x", 0, "has no name"),
        ('{"say": "x", "tool_calls": "lookup"}', "x", 0, "not a list"),
    ],
)
def test_json_action_parsing(text, speech, calls, error):
    s, c, e = parse_action(text)
    assert s == speech and len(c) == calls and (e is None if error is None else error in e)


def test_json_loop_records_parse_errors_and_bounds_rounds(mini_suite, tmp_path):
    import asyncio

    from callbench.callers import LineCaller
    from callbench.runs import Attempt, run_attempt

    looping = ScriptedModel(
        [
            '{"say": "", "tool_calls": [{"name": "lookup_parcel", "arguments": {"tracking_id": '
            '"SP-1"}}]}'
        ]
    )
    trace = asyncio.run(
        run_attempt(
            mini_suite,
            Attempt("json", "reschedule", 0),
            0,
            candidate=JsonActionCandidate(looping, max_rounds=3),
            caller=LineCaller(hang_up_after=1),
        )
    )
    first_turn = [e for e in trace.tool_events if e.turn == 0]
    assert len(first_turn) == 3  # three rounds, then the loop stops the turn
    assert any("stopped after 3 rounds" in (m.error or "") for m in trace.messages)

    prose = ScriptedModel(["Hello! I am happy to help you today."])
    trace = asyncio.run(
        run_attempt(
            mini_suite,
            Attempt("json", "reschedule", 0),
            0,
            candidate=JsonActionCandidate(prose),
            caller=LineCaller(hang_up_after=1),
        )
    )
    first = trace.messages[0]
    assert first.role == "candidate" and first.text is None and "not a JSON action" in first.error
    assert first.raw == "Hello! I am happy to help you today."
    assert trace.outcome == "completed"


def test_wire_answers_that_break_the_contract_are_the_agents_error():
    assert "not a JSON object" in step_from_wire([1, 2]).error
    assert "'say' is not a string" in step_from_wire({"say": 3}).error
    step = step_from_wire(
        {"say": "ok", "tool_calls": [{"name": "a", "arguments": {"x": 1}}, {"oops": 1}]}
    )
    assert (
        step.speech == "ok"
        and len(step.tool_calls) == 1
        and "tool_calls[1] has no name" in step.error
    )
    assert isinstance(step_from_wire(CandidateStep(speech="x")), CandidateStep)
