import asyncio

import pytest

from callbench.call import CallerView, PublicTurn
from callbench.call.types import CallerUtterance
from callbench.callers import (
    CallerTurnRejected,
    ScriptedCaller,
    ScriptedCallerUnavailable,
    check_utterance,
)
from callbench.spec import CallerPhrases, Scenario
from callbench.text import find_cue

PHRASES = CallerPhrases(goodbye=["bye", "આવજો"], idle=["Sorry?", "Okay."], closing="Bye then.")


def scenario(patience="low", steps=None):
    steps = steps or [
        {
            "id": "a",
            "trigger": "greeted",
            "meaning": "m",
            "say": "I want ${caller.knows.thing}.",
            "cue": ["help"],
        },
        {
            "id": "b",
            "trigger": "asked",
            "meaning": "m",
            "say": "It is 12.",
            "cue": ["અંદાજ", "how many"],
        },
    ]
    return Scenario.model_validate(
        {
            "id": "s",
            "agent": "x",
            "language": "en",
            "caller": {
                "context": "c",
                "reason": "r",
                "knows": {"thing": "milk"},
                "datetime": "2026-01-01T10:00:00Z",
                "persona": {"patience": patience},
                "plan": steps,
            },
            "backend": {"kind": "queue"},
            "reference": [{"say": "hi"}],
        }
    )


def say(caller, heard, expressed=(), turn=1):
    convo = tuple(PublicTurn("agent", h) for h in heard)
    view = CallerView(
        brief=caller_brief, language="en", conversation=convo, expressed=tuple(expressed), turn=turn
    )
    return asyncio.run(caller.respond(view))


caller_brief = scenario().caller


def test_cue_matching_is_case_and_script_aware():
    assert find_cue("help", "How can I HELP you?")
    assert find_cue("help", "is this helpful")  # inflected endings count
    assert not find_cue("help", "whelp")  # but the cue must start a word
    assert find_cue("અંદાજ", "આજ સાંજનો અંદાજે કેટલો?")  # Gujarati with a vowel-sign ending
    assert not find_cue("અંદાજ", "કેટલું દૂધ?")


def test_a_cue_with_digits_matches_them_however_a_recogniser_wrote_them():
    for heard in ("at 10:40 in the morning", "at 10.40", "at 1040 then", "at 10 40"):
        assert find_cue("10:40", heard), heard
    assert not find_cue("10:40", "at 11:40")
    assert not find_cue("10:40", "room 21040")  # still the start of a word


def test_advances_only_on_cue_and_speaks_the_line_with_facts_filled():
    c = ScriptedCaller(scenario(), PHRASES)
    u = say(c, ["Hello, how can I help?"])
    assert (u.text, u.expressed_steps, u.done) == ("I want milk.", ("a",), False)
    u = say(c, ["Which day?"], expressed=["a"])
    assert u.expressed_steps == () and u.text == "Sorry?"
    u = say(c, ["સાંજનો અંદાજ કેટલો?"], expressed=["a"])
    assert u.expressed_steps == ("b",)


THREE_STEPS = [
    {
        "id": "a",
        "trigger": "greeted",
        "meaning": "m",
        "say": "I want ${caller.knows.thing}.",
        "cue": ["help"],
    },
    {"id": "b", "trigger": "asked", "meaning": "m", "say": "It is 12.", "cue": ["how many"]},
    {
        "id": "c",
        "trigger": "asked",
        "meaning": "m",
        "say": "No, that's all.",
        "cue": ["anything else"],
    },
]


def test_a_word_bag_never_advances_the_caller():
    """Cue words recited outside a closing question, several pending steps asked at once, or a turn
    too long to
    follow: none of these walks the plan, and each costs the caller's patience."""
    bag = (
        "help how many account number date of birth which day how much shall I go ahead "
        "anything else"
    )
    for heard in (
        bag + ".",  # no question at all
        "How many litres? " + bag + ".",  # the question is not what ends the turn
        "How many litres, and anything else?",  # two pending steps in one ask
        "Tell me how many. " * 30 + "How many?",
    ):  # far too long to follow
        c = ScriptedCaller(scenario("high", THREE_STEPS), PHRASES)
        u = say(c, [heard], expressed=["a"])
        assert u.expressed_steps == () and not u.done, heard
        assert c.idle_turns == 1
    c = ScriptedCaller(scenario("high", THREE_STEPS), PHRASES)
    assert say(c, ["Thanks. How many litres today?"], expressed=["a"]).expressed_steps == ("b",)
    assert say(
        c, ["Got it, twelve. Is there anything else? Take care."], expressed=["a", "b"]
    ).expressed_steps == ("c",)


def test_two_pending_cues_confuse_and_cost_patience():
    phrases = CallerPhrases(
        goodbye=["bye"], idle=["Sorry?"], closing="Bye then.", confused=["One thing at a time."]
    )
    c = ScriptedCaller(scenario("low"), phrases)
    assert say(c, ["Can I help, and how many?"]).text == "One thing at a time."
    assert say(c, ["Can I help, and how many?"]).text == "One thing at a time."
    assert say(c, ["Can I help, and how many?"]).done


def test_the_opening_step_may_fire_on_any_greeting_question():
    steps = [
        {"id": "a", "trigger": "greeted", "meaning": "m", "say": "Hi, it's about my bill."},
        {"id": "b", "trigger": "asked", "meaning": "m", "say": "It is 12.", "cue": ["account"]},
    ]
    c = ScriptedCaller(scenario(steps=steps), PHRASES)
    assert (
        say(c, ["Good morning, city power."]).expressed_steps == ()
    )  # no question: nothing to answer
    assert say(c, ["Good morning, city power. What can I do for you?"]).expressed_steps == ("a",)
    assert say(c, ["Please read me your account number."], expressed=["a"]).expressed_steps == (
        "b",
    )


def test_runs_out_of_patience_and_hangs_up():
    c = ScriptedCaller(scenario("low"), PHRASES)
    texts = [say(c, ["Mm."]) for _ in range(3)]
    assert [t.done for t in texts] == [False, False, True] and texts[-1].text == "Bye then."


def test_closes_on_goodbye_only_after_the_plan():
    c = ScriptedCaller(scenario(), PHRASES)
    assert not say(c, ["bye"], expressed=[]).done
    u = say(c, ["All done, bye!"], expressed=["a", "b"])
    assert u.done and u.text == "Bye then."


def test_refuses_scenarios_without_lines_or_phrases():
    no_lines = scenario(
        steps=[
            {"id": "a", "trigger": "t", "meaning": "m", "say": "s"},
            {"id": "b", "trigger": "t", "meaning": "m", "say": "s"},
        ]
    )
    with pytest.raises(ScriptedCallerUnavailable, match="lack a 'say' line or cues"):
        ScriptedCaller(no_lines, PHRASES)
    with pytest.raises(ScriptedCallerUnavailable, match="no caller phrases"):
        ScriptedCaller(scenario(), None)


def test_leak_of_step_ids_and_fact_keys():
    from callbench.call.views import leaked_field

    sc = scenario(
        steps=[{"id": "give_id", "trigger": "t", "meaning": "m", "say": "s", "cue": ["c"]}]
    )
    view = CallerView(brief=sc.caller, language="en", conversation=(), expressed=(), turn=1)
    assert leaked_field(view, "ok give_id now") == "give_id"
    assert leaked_field(view, "I will give my id") is None


@pytest.mark.parametrize(
    "utterance,expressed,message",
    [
        (CallerUtterance(text="  "), (), "empty"),
        (CallerUtterance(text="x", expressed_steps=("a", "b")), (), "at most one"),
        (CallerUtterance(text="x", expressed_steps=("b",)), (), "out of order"),
        (CallerUtterance(text="x", expressed_steps=("a",)), ("a",), "twice"),
        (CallerUtterance(text="x", expressed_steps=("zz",)), (), "unknown plan step"),
        (CallerUtterance(text='{"say": "hi"}'), (), "leaks the internal name '{'"),
        (CallerUtterance(text="I don't know, it's in does_not_know"), (), "does_not_know"),
    ],
)
def test_caller_turn_rejections(utterance, expressed, message):
    view = CallerView(
        brief=caller_brief, language="en", conversation=(), expressed=expressed, turn=1
    )
    with pytest.raises(CallerTurnRejected, match=message):
        check_utterance(view, utterance)


def heard_view(lines, expressed=(), said=None):
    """A view whose agent lines came through a recogniser (the audio channel's way back)."""
    convo = tuple(PublicTurn("agent", h, said, transcribed=True) for h in lines)
    return CallerView(
        brief=caller_brief, language="en", conversation=convo, expressed=tuple(expressed), turn=2
    )


TIMES = [
    {"id": "a", "trigger": "greeted", "meaning": "m", "say": "Hi.", "cue": []},
    {"id": "b", "trigger": "asked", "meaning": "m", "say": "Ten forty.", "cue": ["ten forty"]},
]


def test_numbers_are_heard_alike_however_they_are_written():
    """Said "ten forty", written 10:40 or 10.40 (by a text candidate or a recogniser): one time to
    the caller. A different time is not heard as it."""
    for line in ("Would ten forty suit you?", "Would 10:40 suit you?", "Would 10.40 suit you?"):
        c = ScriptedCaller(scenario("high", TIMES), PHRASES)
        assert say(c, [line], expressed=["a"]).expressed_steps == ("b",), line
    c = ScriptedCaller(scenario("high", TIMES), PHRASES)
    assert say(c, ["Would 11:40 suit you?"], expressed=["a"]).expressed_steps == ()


def test_patience_is_measured_on_what_was_said_not_on_the_digits_a_recogniser_wrote():
    """A recogniser writes every number it hears as digits; the figure limit is for an agent that
    reads out a dump of values, so through the audio channel it counts what the agent said."""
    digits = "Would 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 or 10:40 suit you?"
    c = ScriptedCaller(scenario("high", TIMES), PHRASES, followable_figures=3)
    view = heard_view([digits], expressed=["a"], said=(16, 0))  # said in words: no figures
    assert asyncio.run(c.respond(view)).expressed_steps == ("b",)
    c = ScriptedCaller(scenario("high", TIMES), PHRASES, followable_figures=3)
    view = heard_view([digits], expressed=["a"], said=(16, 13))  # said as a dump of figures
    assert asyncio.run(c.respond(view)).expressed_steps == ()
    assert c.idle_turns == 1


def test_through_a_recogniser_a_cue_is_also_heard_by_its_sound():
    """A recogniser writing "pass code" for "passcode" chose where the word breaks. Only through a
    recogniser, and never for a cue too short to have a distinctive sound."""
    steps = [
        {"id": "a", "trigger": "greeted", "meaning": "m", "say": "Hi.", "cue": []},
        {"id": "b", "trigger": "asked", "meaning": "m", "say": "It's 4417.", "cue": ["passcode"]},
    ]
    line = "Could you read me the pass code when it arrives?"
    c = ScriptedCaller(scenario("high", steps), PHRASES)
    assert asyncio.run(c.respond(heard_view([line], ["a"]))).expressed_steps == ("b",)
    c = ScriptedCaller(scenario("high", steps), PHRASES)
    assert say(c, [line], expressed=["a"]).expressed_steps == ()  # written text is as written
    from callbench.callers.hearing import hears

    assert hears("Sainsbury", "twenty pounds at Sainsburys?", "en", transcribed=True)
    assert not hears("Shah", "see Doctor Show about it?", "en", transcribed=True)  # code X only
    assert not hears("express", "would you like it I am pressed?", "en", transcribed=True)
