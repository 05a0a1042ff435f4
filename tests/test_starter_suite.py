"""The built-in starter suite: its shape, and the figures the baselines must reach on it."""

import unicodedata

import pytest

from callbench.call import read_trace
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import check_suite
from tests.bounds import assert_no_script_earns


@pytest.fixture(scope="module")
def starter():
    result = check_suite("starter")
    assert not result.errors, "\n".join(map(str, result.errors))
    return result.suite


@pytest.fixture(scope="module")
def run(starter, tmp_path_factory):
    out = tmp_path_factory.mktemp("starter-run")
    return run_suite(starter, RunConfig(seed=0), out), out


def _script(text):
    return {
        unicodedata.name(ch).split(" ")[0]
        for ch in text
        if unicodedata.category(ch).startswith("L")
    }


def test_shape(starter):
    assert len(starter.agents) >= 4 and len(starter.scenarios) >= 16
    languages = {a.definition.language for a in starter.agents.values()}
    assert len(languages) >= 3
    for agent in starter.agents.values():
        assert len(agent.instructions) >= 4000, agent.definition.id
        assert 4 <= len(agent.definition.tools) <= 10, agent.definition.id
        assert agent.definition.end_tools
    # native scripts, not transliteration
    by_lang = {a.definition.language: a.instructions for a in starter.agents.values()}
    assert "GUJARATI" in _script(by_lang["gu"]) and "DEVANAGARI" in _script(by_lang["hi"])
    dairy = [a for a in starter.agents.values() if a.definition.language == "gu"]
    assert any(a.definition.direction == "outbound" for a in dairy)


def test_no_warnings_so_the_scripted_caller_can_run_everything():
    assert check_suite("starter").warnings == []


def test_oracle_scores_100_and_no_script_earns_anything(run, starter):
    result, _ = run
    assert_no_script_earns(result.report, len(starter.scenarios))


def test_coverage_of_the_hard_cases(run, starter):
    """Each required kind of difficulty occurs, and with the oracle every authored channel event
    lands."""
    result, out = run
    seen = {
        "mismatch": 0,
        "failed_end_tool": 0,
        "substitute_hits_fact": 0,
        "split_in_identifier": 0,
        "forbidden": 0,
        "ordering": 0,
    }
    for sid, scenario in starter.scenarios.items():
        trace = read_trace(out / "traces" / "oracle" / sid / "r0.json")
        assert trace.end.reason == "end_tool", sid
        assert not trace.unapplied_channel_events, (sid, trace.unapplied_channel_events)
        facts = [str(v) for v in scenario.caller.knows.values()]
        for turn in trace.caller_turns:
            for ev in turn.channel_events:
                assert ev.applied, (sid, ev)
                if (
                    ev.kind == "substitute"
                    and ev.origin == "authored"
                    and any(ev.before in f or f in turn.intended for f in facts)
                ):
                    seen["substitute_hits_fact"] += 1
                if ev.kind == "split" and any(
                    any(ch.isdigit() for ch in frag[-3:]) for frag in turn.observed[:-1]
                ):
                    seen["split_in_identifier"] += 1
        seen["mismatch"] += any(e.response_source == "mismatch" for e in trace.tool_events)
        seen["failed_end_tool"] += any(
            e.ends_call_tool and e.success is False for e in trace.tool_events
        )
        seen["forbidden"] += any(a.count.forbids for a in scenario.expected_actions)
        seen["ordering"] += any(a.after for a in scenario.expected_actions)
    assert all(n >= 2 for n in seen.values()), seen
