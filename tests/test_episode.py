"""The episode contract (the candidate speaks first, one plan step per caller turn, chained tools,
how a call ends), checked with fakes on both ends of the call."""

import asyncio
import json

from callbench.call import CandidateStep, ToolCall
from callbench.callers import LineCaller
from callbench.candidates import ScriptedCandidate, call
from callbench.runs import Attempt, run_attempt


def run(suite, candidate, caller=None, scenario="reschedule"):
    caller = caller or LineCaller()
    return asyncio.run(
        run_attempt(suite, Attempt("fake", scenario, 0), 7, candidate=candidate, caller=caller)
    )


def test_candidate_speaks_first_and_caller_sees_only_public_speech(mini_suite):
    cand = ScriptedCandidate(
        [
            CandidateStep(speech="Hello!"),
            CandidateStep(
                speech="Looking.", tool_calls=(call("lookup_parcel", tracking_id="SP-0412"),)
            ),
        ]
    )
    trace = run(mini_suite, cand, LineCaller(["Hi"], hang_up_after=2))
    assert trace.messages[0].role == "candidate" and trace.messages[0].text == "Hello!"
    assert cand.views[0].messages == ()
    # the candidate's view never carries hidden state or the caller's brief
    view_fields = set(vars(cand.views[0]))
    assert view_fields == {
        "instructions",
        "tools",
        "language",
        "direction",
        "call_context",
        "messages",
    }
    assert "in_transit" not in json.dumps([m.text for m in cand.views[0].messages])


def test_successful_end_tool_ends_the_call(mini_suite):
    cand = ScriptedCandidate(
        [CandidateStep(speech="Bye", tool_calls=(call("end_call", reason="resolved"),))]
    )
    trace = run(mini_suite, cand)
    assert trace.end.reason == "end_tool"
    assert trace.tool_events[0].ended_call and trace.tool_events[0].success
    assert not trace.caller_turns


def test_failed_end_tool_hands_control_back(mini_suite, tmp_path):
    # the mini queue answers end_call with status ended; a matcher-free fake world answers "error"
    import random

    from callbench.backends import RecordingBackend
    from callbench.call import EpisodeSetup, TextChannel, run_episode
    from callbench.runs import suite_ref

    scenario = mini_suite.scenarios["reschedule"]
    setup = EpisodeSetup(
        trace_id="t",
        suite=suite_ref(mini_suite),
        scenario=scenario,
        agent=mini_suite.agent_for(scenario),
        candidate_name="fake",
        caller_name="lines",
        repeat=0,
        seed=1,
    )
    backend = RecordingBackend({"end_call": {"status": "error"}})
    cand = ScriptedCandidate(
        [
            CandidateStep(speech="Bye", tool_calls=(call("end_call", reason="resolved"),)),
            CandidateStep(speech="Sorry, that did not work; one moment."),
        ]
    )
    trace = asyncio.run(
        run_episode(
            setup,
            cand,
            LineCaller(hang_up_after=1),
            backend,
            TextChannel(scenario.channel, {}, random.Random(0)),
        )
    )
    event = trace.tool_events[0]
    assert event.ends_call_tool and event.success is False and not event.ended_call
    # control came back to the candidate in the same turn: it spoke again before the caller
    assert [m.role for m in trace.messages[:4]] == ["candidate", "tool", "candidate", "caller"]
    assert trace.end.reason == "caller"


def test_tool_chain_limit_per_turn(mini_suite):
    many = tuple(call("lookup_parcel", tracking_id=f"SP-{i:04d}") for i in range(12))
    trace = run(
        mini_suite,
        ScriptedCandidate([CandidateStep(speech="hi", tool_calls=many)]),
        LineCaller(hang_up_after=1),
    )
    sources = [e.response_source for e in trace.tool_events]
    assert sources.count("limit") == 2 and len(sources) == 12
    # after the limit the caller speaks next
    first_caller = next(m.index for m in trace.messages if m.role == "caller")
    assert first_caller > trace.tool_events[-1].index


def test_chained_tool_calls_continue_the_same_turn_until_the_limit(mini_suite):
    steps = [
        CandidateStep(tool_calls=(call("lookup_parcel", tracking_id="SP-0412"),)) for _ in range(11)
    ]
    trace = run(mini_suite, ScriptedCandidate(steps), LineCaller(hang_up_after=1))
    assert all(e.turn == 0 for e in trace.tool_events)
    assert [e.response_source for e in trace.tool_events].count("limit") == 1


def test_turn_limit_ends_the_call(mini_suite):
    trace = run(mini_suite, ScriptedCandidate([CandidateStep(speech="Hello")] * 40), LineCaller())
    assert trace.end.reason == "turn_limit"
    assert len(trace.caller_turns) == mini_suite.manifest.defaults.max_caller_turns


def test_parse_errors_and_unknown_tools_are_recorded_not_raised(mini_suite):
    cand = ScriptedCandidate(
        [
            CandidateStep(
                tool_calls=(
                    ToolCall("lookup_parcel", "{not json"),
                    ToolCall("lookup_parcel", "[1, 2]"),
                    ToolCall("teleport", "{}"),
                )
            )
        ]
    )
    trace = run(mini_suite, cand, LineCaller(hang_up_after=1))
    a, b, c = trace.tool_events
    assert (
        a.arguments is None
        and "not valid JSON" in a.parse_error
        and a.response_source == "mismatch"
    )
    assert b.arguments is None and "JSON object" in b.parse_error
    assert not c.known_tool and c.response_source == "unknown_tool"


def test_concluding_message_is_spoken_and_stripped(mini_suite):
    cand = ScriptedCandidate(
        [
            CandidateStep(
                tool_calls=(call("end_call", reason="resolved", concluding_message="Goodbye now!"),)
            )
        ]
    )
    trace = run(mini_suite, cand)
    event = trace.tool_events[0]
    assert event.arguments == {"reason": "resolved"} and event.concluding_message == "Goodbye now!"
    assert trace.messages[-1].role == "candidate" and trace.messages[-1].text == "Goodbye now!"


def test_queue_positions_and_mismatch_responses(mini_suite):
    cand = ScriptedCandidate(
        [
            CandidateStep(
                tool_calls=(
                    call("lookup_parcel", tracking_id="SP-9999"),
                    call("lookup_parcel", tracking_id="SP-0412"),
                )
            )
        ]
    )
    trace = run(mini_suite, cand, LineCaller(hang_up_after=1))
    first, second = trace.tool_events
    assert (first.queue_position, first.response_source, first.result) == (
        0,
        "mismatch",
        {"found": False},
    )
    assert first.matcher_results[0].ok is False and first.matcher_results[0].expected == "SP-0412"
    # the second call is past the one-entry queue: the tool's default (none authored -> generic
    # error)
    assert (second.queue_position, second.response_source) == (1, "default")


def test_caller_advances_one_step_per_turn_only_on_its_cue(mini_suite):
    """One step per turn, and only for the question that ends the agent's turn: asking for two
    pending steps at
    once confuses the caller, and a cue outside the closing question does nothing."""
    from callbench.runs import make_caller

    scenario = mini_suite.scenarios["reschedule"]
    cand = ScriptedCandidate(
        [
            CandidateStep(speech="Hello, how can I help?"),
            CandidateStep(speech="What is your tracking number, and which day would suit you?"),
            CandidateStep(speech="Tracking, day, suit. Right."),
            CandidateStep(speech="What is your tracking number?"),
            CandidateStep(speech="Which day would suit you?"),
        ]
    )
    trace = run(mini_suite, cand, make_caller("scripted", scenario, mini_suite))
    steps = [t.expressed_steps for t in trace.caller_turns]
    assert steps[:5] == [["ask"], [], [], ["give_id"], ["day"]]


def test_caller_model_failure_is_an_infrastructure_exclusion(mini_suite):
    from callbench.models.errors import ProviderServerError

    class Down:
        name = "down"

        async def respond(self, view):
            raise ProviderServerError("simulator's provider answered HTTP 503", status_code=503)

    trace = run(mini_suite, ScriptedCandidate([CandidateStep(speech="Hi")]), Down())
    assert trace.outcome == "excluded" and trace.failure.failure_class == "infrastructure"
    assert trace.failure.kind == "ProviderServerError" and trace.end.reason == "infrastructure"


def test_a_bug_in_a_caller_propagates(mini_suite):
    """A caller is callbench's code (or wraps a model whose failures are typed): anything else it
    raises is a bug and must not be excluded as if a provider had failed."""
    import pytest

    class Broken:
        name = "broken"

        async def respond(self, view):
            raise RuntimeError("simulator bug")

    with pytest.raises(RuntimeError, match="simulator bug"):
        run(mini_suite, ScriptedCandidate([CandidateStep(speech="Hi")]), Broken())
