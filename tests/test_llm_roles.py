"""LLM candidate and LLM caller end to end, both served by loopback fake providers through the real
client."""

import json

import pytest
from wire_actors import caller_responder, oracle_responder

from callbench.call import read_trace
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import load_suite
from callbench.testing import FakeProvider


@pytest.fixture(scope="module")
def starter():
    return load_suite("starter")


def test_starter_suite_with_llm_candidate_and_llm_caller(starter, tmp_path):
    for sid, scenario in starter.scenarios.items():
        phrases = starter.manifest.defaults.caller_phrases[scenario.language]
        with (
            FakeProvider(oracle_responder(scenario)) as cand,
            FakeProvider(caller_responder(scenario, phrases)) as call,
        ):
            name = f"openai-compatible:{cand.base_url}#agent-model"
            config = RunConfig(
                candidates=(name,),
                caller=f"openai-compatible:{call.base_url}#caller-model",
                scenarios=(sid,),
                infra_reruns=0,
            )
            result = run_suite(starter, config, tmp_path / sid)
            row = result.report["candidates"][name]
            assert row["per_scenario"][sid]["task"] == 100.0, sid
            assert row["coverage"] == 1.0
            trace = read_trace(next((tmp_path / sid / "traces").rglob("r0.json")))
            assert trace.end.reason == "end_tool"
            assert [s for t in trace.caller_turns for s in t.expressed_steps] == [
                s.id for s in scenario.caller.plan
            ], sid
            assert trace.usage["candidate"].prompt_tokens > 0 and trace.usage[
                "caller"
            ].calls == len(trace.caller_turns)
            assert result.report["caller"]["model"].endswith("#caller-model")
            # the candidate's system prompt starts with the unchanged instructions (stable cache
            # prefix)
            first = cand.requests[0]["messages"][0]["content"]
            assert first.startswith(starter.agent_for(scenario).instructions)
            assert all(r["messages"][0]["content"] == first for r in cand.requests)


def test_llm_caller_sees_only_its_brief_and_the_public_conversation(starter, tmp_path):
    sid = "card-fraud-two-payments"
    scenario = starter.scenarios[sid]
    phrases = starter.manifest.defaults.caller_phrases["en"]
    with (
        FakeProvider(oracle_responder(scenario)) as cand,
        FakeProvider(caller_responder(scenario, phrases)) as call,
    ):
        run_suite(
            starter,
            RunConfig(
                candidates=(f"openai-compatible:{cand.base_url}#a",),
                caller=f"openai-compatible:{call.base_url}#c",
                scenarios=(sid,),
            ),
            tmp_path / "r",
        )
    sent = json.dumps(call.requests, ensure_ascii=False)
    assert call.requests
    known = json.dumps(scenario.caller.knows, ensure_ascii=False)
    secret = [
        v
        for v in scenario.backend.hidden.values()
        if isinstance(v, str) and len(v) > 3 and v not in known
    ]
    assert secret
    for value in secret:
        assert value not in sent, value
    for action in scenario.expected_actions:
        assert (
            action.tool not in sent
        )  # no tool names: the caller never sees tools or expected actions
    for crit in scenario.criteria:
        assert crit.statement not in sent
    # tool results never reach the caller either
    tool_texts = [
        m.text
        for m in read_trace(next((tmp_path / "r" / "traces").rglob("r0.json"))).messages
        if m.role == "tool"
    ]
    assert tool_texts and not any(t in sent for t in tool_texts)


def test_candidate_never_receives_hidden_state_or_the_brief(starter, tmp_path):
    sid = "clinic-late-cancel-fee"
    scenario = starter.scenarios[sid]
    phrases = starter.manifest.defaults.caller_phrases["en"]
    with (
        FakeProvider(oracle_responder(scenario)) as cand,
        FakeProvider(caller_responder(scenario, phrases)) as call,
    ):
        run_suite(
            starter,
            RunConfig(
                candidates=(f"openai-compatible:{cand.base_url}#a",),
                caller=f"openai-compatible:{call.base_url}#c",
                scenarios=(sid,),
            ),
            tmp_path / "r",
        )
    sent = json.dumps(cand.requests, ensure_ascii=False)
    assert scenario.caller.context not in sent and scenario.caller.reason not in sent
    for step in scenario.caller.plan:
        assert step.meaning not in sent
    for crit in scenario.criteria:
        assert crit.statement not in sent and crit.anchors.met not in sent
    trace = read_trace(next((tmp_path / "r" / "traces").rglob("r0.json")))
    for turn in trace.caller_turns:
        if turn.observed != [turn.intended]:
            assert (
                turn.intended not in sent
            )  # the intended text of a damaged or split turn stays in the trace only


def test_the_llm_callers_retries_and_usage_warnings_reach_the_trace(starter, tmp_path):
    from callbench.models import ModelSettings

    sid = next(iter(starter.scenarios))
    scenario = starter.scenarios[sid]
    phrases = starter.manifest.defaults.caller_phrases[scenario.language]
    base, seen = caller_responder(scenario, phrases), []

    def caller(body):
        reply = base(body)
        reply = {"text": reply} if isinstance(reply, str) else dict(reply)
        if not seen:
            reply["usage"] = {"prompt_tokens": "many", "completion_tokens": 3}
        seen.append(1)
        return reply

    fast = ModelSettings(max_retries=2, backoff_base_s=0.001, backoff_max_s=0.002, timeout_s=5)
    with (
        FakeProvider(oracle_responder(scenario)) as cand,
        FakeProvider(
            caller, fault_plan=lambda n: {"fault": "server_error"} if n == 0 else None
        ) as call,
    ):
        config = RunConfig(
            candidates=(f"openai-compatible:{cand.base_url}#a",),
            caller=f"openai-compatible:{call.base_url}#c",
            caller_options={"settings": fast},
            scenarios=(sid,),
            infra_reruns=0,
        )
        run_suite(starter, config, tmp_path / "r")
    trace = read_trace(next((tmp_path / "r" / "traces").rglob("r0.json")))
    assert trace.usage["caller"].retries == 1 and trace.usage["candidate"].retries == 0
    assert [n for n in trace.notes if n.startswith("caller: ") and "prompt_tokens" in n], (
        trace.notes
    )
