"""The LLM caller's contract: typed JSON turns, one more attempt after a rejection, reruns, then
exclusion."""

import asyncio
import json

from callbench.call import CallerView, PublicTurn
from callbench.callers.llm import LLMCaller, caller_messages, caller_system_prompt
from callbench.candidates import OracleCandidate
from callbench.models import ScriptedModel
from callbench.runs import Attempt, Cast, run_attempt


def view(suite, expressed=(), heard="Hello, Swift Parcels, how can I help?"):
    sc = suite.scenarios["reschedule"]
    return CallerView(
        brief=sc.caller,
        language="en",
        conversation=(PublicTurn("agent", heard),),
        expressed=expressed,
        turn=1,
    )


def turn(say, step=None, done=False):
    return json.dumps({"say": say, "step": step, "done": done})


def test_prompt_holds_the_brief_and_nothing_else(mini_suite):
    v = view(mini_suite)
    prompt = caller_system_prompt(v)
    sc = mini_suite.scenarios["reschedule"]
    assert sc.caller.context in prompt and sc.caller.reason in prompt and "SP-0412" in prompt
    assert "[give_id]" in prompt and "The next step you may express: ask." in prompt
    assert "in_transit" not in prompt and "reschedule_delivery" not in prompt  # hidden state, tools
    messages = caller_messages(v, [])
    assert messages[-1] == {"role": "user", "content": "Hello, Swift Parcels, how can I help?"}


def test_rejected_turn_gets_one_more_attempt(mini_suite):
    model = ScriptedModel(
        [
            turn("I need to move a delivery", step="give_id"),
            turn("I need to move a delivery", step="ask"),
        ]
    )
    u = asyncio.run(LLMCaller(model).respond(view(mini_suite)))
    assert u.expressed_steps == ("ask",) and len(model.requests) == 2
    assert "out of order" in model.requests[1]["messages"][-1]["content"]
    assert u.usage.prompt_tokens == 20  # usage of both attempts is counted


def test_two_rejections_fail_the_turn(mini_suite):
    import pytest

    from callbench.call import CallerTurnRejected

    model = ScriptedModel(["not json at all"])
    with pytest.raises(CallerTurnRejected, match="rejected twice"):
        asyncio.run(LLMCaller(model).respond(view(mini_suite)))


def test_persistent_caller_failure_is_rerun_then_excluded(mini_suite):
    model = ScriptedModel([turn("")])  # always empty speech
    cast = Cast(caller="fake")
    calls = []

    async def go():
        def caller():
            calls.append(1)
            return LLMCaller(model, name="fake:caller")

        # run_attempt reruns only when it builds the caller itself, so route the fake through the
        # cast
        cast.make_caller = lambda scenario, suite: caller()
        return await run_attempt(
            mini_suite, Attempt("oracle", "reschedule", 0), 0, cast=cast, infra_reruns=3
        )

    trace = asyncio.run(go())
    assert trace.outcome == "excluded" and trace.failure.failure_class == "infrastructure"
    assert trace.failure.kind == "CallerTurnRejected" and len(trace.reruns) == 3 and len(calls) == 4
    # the oracle spoke first in every run; nothing from a failed run leaks into the final trace
    assert [m.role for m in trace.messages] == ["candidate"]


def test_llm_caller_drives_a_whole_call(mini_suite):
    lines = iter(
        [
            turn("Hi, I need to move a delivery.", "ask"),
            turn("It's SP-0412.", "give_id"),
            turn("Thursday please.", "day"),
            turn("Great."),
        ]
    )
    model = ScriptedModel(respond=lambda messages, tools: next(lines, turn("Bye!", done=True)))
    sc = mini_suite.scenarios["reschedule"]
    trace = asyncio.run(
        run_attempt(
            mini_suite,
            Attempt("oracle", "reschedule", 0),
            0,
            candidate=OracleCandidate(sc),
            caller=LLMCaller(model, name="fake:caller"),
        )
    )
    assert trace.end.reason == "end_tool"
    assert [s for t in trace.caller_turns for s in t.expressed_steps] == ["ask", "give_id", "day"]
    assert trace.usage["caller"].calls == len(trace.caller_turns)
