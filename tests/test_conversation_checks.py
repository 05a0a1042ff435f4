import asyncio

import pytest

from callbench.call import CandidateStep, EndRecord, Message, SuiteRef, ToolEvent, Trace, read_trace
from callbench.call.trace import ToolCallRecord
from callbench.callers import LineCaller
from callbench.candidates import ScriptedCandidate, call
from callbench.errors import CallbenchError
from callbench.grading import pillar
from callbench.grading.conversation_checks import (
    CHECK_IDS,
    MAX_EVIDENCE,
    ConversationChecks,
    GradingSetupError,
    goodbye_words,
    is_emoji,
    lingua_available,
    script_share,
    unspeakable,
    unspoken_numbers,
)
from callbench.runs import Attempt, run_attempt
from callbench.suite_check import load_suite


@pytest.fixture(scope="module")
def starter():
    return load_suite("starter")


def grade(suite, scenario_id, trace, detector=None):
    return {
        v.id: v
        for v in ConversationChecks(detector=detector).grade(
            trace, suite.scenarios[scenario_id], suite.manifest
        )
    }


def run(suite, scenario_id, steps, lines=(), hang_up_after=None):
    cand = ScriptedCandidate(list(steps))
    caller = LineCaller(list(lines), hang_up_after=hang_up_after)
    return asyncio.run(
        run_attempt(suite, Attempt("scripted", scenario_id, 0), 0, candidate=cand, caller=caller)
    )


def rs(verdicts):
    return {k: v.r for k, v in verdicts.items()}


# --- the oracle on the starter suite
# ---------------------------------------------------------------


def test_oracle_meets_every_check_on_every_starter_scenario(starter, tmp_path):
    failures = []
    for sid, scenario in starter.scenarios.items():
        trace = asyncio.run(run_attempt(starter, Attempt("oracle", sid, 0), 0))
        path = tmp_path / f"{sid}.json"
        path.write_text(trace.to_json(), encoding="utf-8")
        stored = read_trace(path)  # graders read stored traces
        verdicts = ConversationChecks(detector=None).grade(stored, scenario, starter.manifest)
        assert [v.id for v in verdicts] == list(CHECK_IDS)
        for v in verdicts:
            assert (v.kind, v.pillar, v.grader, v.weight) == (
                "check",
                "conversation",
                "conversation_checks",
                1,
            )
            if v.r != 1.0:
                failures.append(f"{sid} {v.id}: {v.label} {v.detail}")
        assert pillar(verdicts).score == 100.0
    assert not failures, "\n".join(failures)


def test_oracle_hand_off_counts_as_a_close(starter):
    trace = asyncio.run(run_attempt(starter, Attempt("oracle", "clinic-chest-pain-triage", 0), 0))
    v = grade(starter, "clinic-chest-pain-triage", trace)["goodbye"]
    assert v.r == 1.0 and "hand-off via transfer_to_nurse" in v.detail


# --- scripted candidates on the mini suite
# -----------------------------------------------------------

LOOKUP = call("lookup_parcel", tracking_id="SP-0412")
MOVE = call("reschedule_delivery", tracking_id="SP-0412", day="thursday")
END = call("end_call", reason="resolved")
LINES = ["Hi, I need to move a delivery.", "It's SP-0412.", "Thursday please."]


def mini_steps(
    greet="Hello, Swift Parcels, how can I help?",
    ask="Sure, what is your tracking number?",
    look="Thanks, let me look that up.",
    found="Found it. Which day would suit you?",
    moving="Moving it to Thursday now.",
    done="Done, it is moved to Thursday. Goodbye!",
):
    return [
        CandidateStep(speech=greet),
        CandidateStep(speech=ask),
        CandidateStep(speech=look, tool_calls=(LOOKUP,)),
        CandidateStep(speech=found),
        CandidateStep(speech=moving, tool_calls=(MOVE,)),
        CandidateStep(speech=done, tool_calls=(END,)),
    ]


def mini(mini_suite, steps, lines=LINES, hang_up_after=None):
    trace = run(mini_suite, "reschedule", steps, lines, hang_up_after)
    return grade(mini_suite, "reschedule", trace)


def test_clean_scripted_candidate_meets_everything(mini_suite):
    v = mini(mini_suite, mini_steps())
    assert all(x.r == 1.0 for x in v.values()), {k: x.detail for k, x in v.items()}
    assert v["goodbye"].evidence and v["goodbye"].diagnostic == "closing"
    assert pillar(v.values()).score == 100.0


def test_markdown_in_one_reply_costs_exactly_the_partial_point(mini_suite):
    v = mini(mini_suite, mini_steps(found="**Found it.** Which day would suit you?"))
    assert rs(v) == {
        "speakable": 0.5,
        "numbers_spoken": 1.0,
        "script": 1.0,
        "tool_speech": 1.0,
        "goodbye": 1.0,
    }
    assert v["speakable"].label == "partial" and v["speakable"].diagnostic == "speakable_replies"
    assert len(v["speakable"].evidence) == 1 and "markdown bold" in v["speakable"].detail
    assert pillar(v.values()).score == pytest.approx(90.0)  # 4.5 of 5 points


def test_markdown_in_two_replies_loses_the_check(mini_suite):
    v = mini(
        mini_suite,
        mini_steps(
            found="Found it. Which day?\n- Monday\n- Thursday",
            moving="Moving it to *Thursday* now.",
        ),
    )
    assert rs(v) == {
        "speakable": 0.0,
        "numbers_spoken": 1.0,
        "script": 1.0,
        "tool_speech": 1.0,
        "goodbye": 1.0,
    }
    assert v["speakable"].label == "not_met" and len(v["speakable"].evidence) == 2


def test_solid_digit_run_fails_numbers_only(mini_suite):
    v = mini(mini_suite, mini_steps(found="Found it, parcel 20417736. Which day would suit you?"))
    assert rs(v) == {
        "speakable": 1.0,
        "numbers_spoken": 0.5,
        "script": 1.0,
        "tool_speech": 1.0,
        "goodbye": 1.0,
    }
    assert "8 digits written solid" in v["numbers_spoken"].detail


def test_tool_calls_without_speech_fail_tool_speech(mini_suite):
    silent_lookup = mini_steps()
    silent_lookup[2] = CandidateStep(tool_calls=(LOOKUP,))
    silent_lookup[3] = CandidateStep()  # the turn ends with no word to the caller
    v = mini(mini_suite, silent_lookup)
    assert rs(v) == {
        "speakable": 1.0,
        "numbers_spoken": 1.0,
        "script": 1.0,
        "tool_speech": 0.5,
        "goodbye": 1.0,
    }
    assert (
        v["tool_speech"].diagnostic == "speech_around_tools" and "turn 2" in v["tool_speech"].detail
    )

    both_silent = mini_steps()
    both_silent[2] = CandidateStep(tool_calls=(LOOKUP,))
    both_silent[3] = CandidateStep()
    both_silent[4] = CandidateStep(tool_calls=(MOVE,))
    both_silent.insert(5, CandidateStep())
    v = mini(mini_suite, both_silent)
    assert v["tool_speech"].r == 0.0 and v["tool_speech"].label == "not_met"


def test_speech_after_the_chain_is_enough(mini_suite):
    steps = mini_steps()
    steps[2] = CandidateStep(tool_calls=(LOOKUP,))  # silent call, but the same turn then speaks
    v = mini(mini_suite, steps)
    assert v["tool_speech"].r == 1.0


def test_no_goodbye_fails_goodbye(mini_suite):
    v = mini(mini_suite, mini_steps(done="Done, it is moved to Thursday."))
    assert rs(v) == {
        "speakable": 1.0,
        "numbers_spoken": 1.0,
        "script": 1.0,
        "tool_speech": 1.0,
        "goodbye": 0.0,
    }
    assert v["goodbye"].label == "not_met" and "no goodbye" in v["goodbye"].detail


def test_silent_candidate_passes_nothing(mini_suite):
    v = mini(mini_suite, [], hang_up_after=2)
    assert all(x.r == 0.0 and x.label == "not_met" for x in v.values())
    assert all("never spoke" in x.detail for x in v.values())


def test_silent_candidate_with_tools_still_fails_tool_speech(mini_suite):
    v = mini(mini_suite, [CandidateStep(tool_calls=(LOOKUP,)), CandidateStep()], hang_up_after=1)
    assert v["tool_speech"].r == 0.0 and v["tool_speech"].evidence == [0]


# --- language and script on the starter's Hindi agent --------------------------------------------

HI_GREET = "नमस्ते, नवज्योति बिजली हेल्पलाइन में आपका स्वागत है। बताइए, मैं आपकी क्या मदद कर सकती हूँ?"
HI_SMS = "ठीक है, मैंने SMS भेज दिया है, OTP भी आ जाएगा।"
HI_BYE = "कॉल करने के लिए धन्यवाद, नमस्ते।"
EN_REPLY = "Sure, please tell me your consumer number from the bill."


def hindi(starter, *speech, detector=None, suite=None):
    steps = [CandidateStep(speech=s) for s in speech]
    trace = run(
        starter, "bijli-known-area-fault", steps, ["हेलो"] * len(speech), hang_up_after=len(speech)
    )
    suite_manifest = suite or starter.manifest
    return {
        v.id: v
        for v in ConversationChecks(detector=detector).grade(
            trace, starter.scenarios["bijli-known-area-fault"], suite_manifest
        )
    }


def test_hindi_with_acronyms_passes_script(starter):
    v = hindi(starter, HI_GREET, HI_SMS, HI_BYE)
    assert all(x.r == 1.0 for x in v.values()), {k: x.detail for k, x in v.items()}


def test_english_on_a_hindi_agent_fails_script(starter):
    v = hindi(starter, HI_GREET, EN_REPLY, HI_BYE)
    assert rs(v) == {
        "speakable": 1.0,
        "numbers_spoken": 1.0,
        "script": 0.5,
        "tool_speech": 1.0,
        "goodbye": 1.0,
    }
    assert v["script"].diagnostic == "language_and_script" and "LATIN" in v["script"].detail
    v = hindi(starter, EN_REPLY, EN_REPLY, HI_BYE)
    assert v["script"].r == 0.0 and len(v["script"].evidence) == 2


def test_thanks_without_a_farewell_is_not_a_goodbye(starter):
    """The noop used to earn the closing on a Gujarati call whose caller hung up after its filler
    "આભાર, મેં આ નોંધી લીધું છે" ("thanks, I've noted it"); the Hindi thanks-word left the lists
    with it."""
    v = hindi(starter, HI_GREET, HI_SMS, "धन्यवाद, मैंने आपकी शिकायत दर्ज कर ली है।")
    assert v["goodbye"].r == 0.0 and "no goodbye" in v["goodbye"].detail


def test_all_english_on_a_hindi_agent_loses_script_and_goodbye(starter):
    v = hindi(starter, "Hello, how can I help?", EN_REPLY, "Thank you for calling, goodbye.")
    assert v["script"].r == 0.0 and v["goodbye"].r == 0.0  # an English goodbye is not a Hindi one


def test_hindi_vs_marathi_with_a_detector(starter):
    marathi = "तुमची मीटर तपासणी मंगळवारी दुपारी बुक झाली आहे, काळजी करू नका."
    calls = []

    def fake(text, codes):
        calls.append(tuple(codes))
        return ("mr", 0.95) if "आहे" in text else ("hi", 0.9)

    both = starter.manifest.model_copy(update={"languages": ["en", "gu", "hi", "mr"]})
    v = hindi(starter, HI_GREET, marathi, HI_BYE, detector=fake, suite=both)
    assert v["script"].r == 0.5 and "reads as 'mr'" in v["script"].detail
    assert calls and all(
        c == ("hi", "mr") for c in calls
    )  # restricted to the suite's Devanagari languages
    # without a detector the sub-check is skipped, and the detail says so
    v = hindi(starter, HI_GREET, marathi, HI_BYE, detector=None, suite=both)
    assert v["script"].r == 1.0 and "no language detector" in v["script"].detail
    assert "language_detector 'script'" in v["script"].detail
    # a suite with a single Devanagari language has nothing to tell apart: the detector is not asked
    calls.clear()
    v = hindi(starter, HI_GREET, marathi, HI_BYE, detector=fake)
    assert v["script"].r == 1.0 and not calls


needs_lingua = pytest.mark.skipif(
    not lingua_available(),
    reason="lingua-language-detector is not installed (pip install 'callbench[lingua]'): the "
    "language_detector 'lingua' setting cannot be exercised",
)
MARATHI = "तुमची मीटर तपासणी मंगळवारी सतरा नोव्हेंबरला दुपारी दोन ते पाच दरम्यान बुक झाली आहे."


def hindi_with(starter, language_detector, *speech, suite=None):
    steps = [CandidateStep(speech=s) for s in speech]
    trace = run(
        starter, "bijli-known-area-fault", steps, ["हेलो"] * len(speech), hang_up_after=len(speech)
    )
    checks = ConversationChecks(language_detector=language_detector)
    return checks, {
        v.id: v for v in checks.grade(trace, starter.scenarios["bijli-known-area-fault"], suite)
    }


def test_the_script_detector_is_the_default_and_is_recorded(starter, monkeypatch):
    """Scores must not depend on whether lingua happens to be installed: the default needs nothing
    extra, never looks for lingua, and the verdict names the setting that graded it."""
    import callbench.grading.scripts as cc

    monkeypatch.setattr(cc, "lingua_available", lambda: True)  # as if lingua were installed
    both = starter.manifest.model_copy(update={"languages": ["hi", "mr"]})
    checks, v = hindi_with(starter, "script", HI_GREET, MARATHI, HI_BYE, suite=both)
    assert ConversationChecks().language_detector == "script"
    assert checks.detector is None and checks.language_detector == "script"
    assert v["script"].r == 1.0
    assert "hi/mr not told apart" in v["script"].detail
    assert "language_detector 'script'" in v["script"].detail


def test_the_lingua_detector_without_lingua_fails_loudly(monkeypatch):
    import callbench.grading.scripts as cc

    monkeypatch.setattr(cc, "lingua_available", lambda: False)
    with pytest.raises(GradingSetupError, match=r"pip install 'callbench\[lingua\]'") as err:
        ConversationChecks(language_detector="lingua")
    assert isinstance(err.value, CallbenchError)
    with pytest.raises(GradingSetupError, match="unknown language_detector 'auto'"):
        ConversationChecks(language_detector="auto")  # type: ignore[arg-type]


@needs_lingua
def test_hindi_vs_marathi_with_lingua(starter):
    from callbench.grading.conversation_checks import lingua_detect

    both = starter.manifest.model_copy(update={"languages": ["hi", "mr"]})
    v = hindi(starter, HI_GREET, MARATHI, HI_BYE, detector=lingua_detect, suite=both)
    assert v["script"].r == 0.5 and v["script"].evidence == [2]


@needs_lingua
def test_the_lingua_setting_tells_marathi_apart_and_is_recorded(starter):
    both = starter.manifest.model_copy(update={"languages": ["hi", "mr"]})
    checks, v = hindi_with(starter, "lingua", HI_GREET, MARATHI, HI_BYE, suite=both)
    assert checks.language_detector == "lingua"
    assert v["script"].r == 0.5 and v["script"].evidence == [2]
    assert "language_detector 'lingua'" in v["script"].detail


# --- detectors
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,kind",
    [
        ("Your card is **blocked** now.", "markdown bold"),
        ("Your card is __blocked__ now.", "markdown bold"),
        ("That is *really* important.", "markdown italic"),
        ("That is _really_ important.", "markdown italic"),
        ("The fee is ~~fifty~~ forty dollars.", "markdown strikethrough"),
        ("Type `unfreeze` in the app.", "markdown code"),
        ("```\ncode\n```", "markdown code"),
        ("## Your options\nStandard or express.", "markdown heading"),
        ("See [our site](https://example.com) for more.", "markdown link"),
        ("> quoted text", "markdown quote"),
        ("Options:\n---\nStandard", "markdown rule"),
        ("Your options:\n- standard\n- express", "bullet"),
        ("* standard delivery", "bullet"),
        ("Choose • standard or • express", "bullet"),
        ("Options:\n1. standard\n2. express", "numbered list"),
        ("| day | time |\n|---|---|\n| Mon | 10 |", "table"),
        ("Visit https://northbridge.example/help today.", "URL"),
        ("Go to www.northbridge.co.uk for details.", "URL"),
        ("Go to northbridge.com for details.", "URL"),
        ("Write to help@northbridge.co.uk please.", "email address"),
        ("All done! 🎉", "emoji"),
        ("Done ✅", "emoji"),
        ("Thanks ☺️", "emoji"),
    ],
)
def test_unspeakable_finds(text, kind):
    found = unspeakable(text)
    assert any(f.startswith(kind) for f in found), found


@pytest.mark.parametrize(
    "text",
    [
        "Thank you for calling, this is Robin. How can I help you today?",
        "It would go to Flat 4, 19 Weaver Street, Kendal, L A 9, 4 Q T.",
        "I'm transferring you to Dr. Okafor now - please stay on the line.",
        "Five times three is fifteen, so 5 * 3 = 15.",
        "The tool end_call and snake_case words are not italics.",
        "3. That is the third point.",
        "The fee is twelve pounds — or free for fraud.",
        "नमस्ते, मैं प्रिया बोल रही हूँ। SMS भेज दिया गया है।",
        "નમસ્તે, હું મીરા બોલું છું. આવજો.",
        "It's 9:30 a.m. on the 14th, e.g. after breakfast.",
    ],
)
def test_speakable_text_passes(text):
    assert unspeakable(text) == []


@pytest.mark.parametrize(
    "text,kind",
    [
        ("Your new number is 9825041736.", "10 digits written solid"),
        ("Your patient number is 20417736.", "8 digits written solid"),
        ("Reference EMG-40517 is open.", "5 digits written solid"),
        ("The bill is 10000 rupees.", "5 digits written solid"),
        ("Call 982504 1736 please.", "a group of 6 digits"),
        ("Your visit is on 14/11/2026.", "numeric date"),
        ("Your visit is on 2026-11-14.", "numeric date"),
        ("Your visit is on 14.11.26.", "numeric date"),
        ("The fee is Rs. 300 on the next bill.", "currency code"),
        ("The fee is INR 300.", "currency code"),
        ("That is 50 USD.", "currency code"),
        ("નવો નંબર ૯૮૨૫૦૪૧૭૩૬ છે.", "10 digits written solid"),
    ],
)
def test_unspoken_numbers_find(text, kind):
    found = unspoken_numbers(
        text, frozenset({"LATIN"}) if text.isascii() else frozenset({"GUJARATI"})
    )
    assert any(f.startswith(kind) for f in found), found


@pytest.mark.parametrize(
    "text",
    [
        "Your new number is 98250 41736.",  # the Indian 5+5 grouping of a mobile number
        "The consumer number is 2207 4451 9036.",
        "My cell is 617-555-0193.",
        "Call 911 or 1912.",
        "The bill is 8,460 rupees, or 1,00,000 at most, or $10,000.",
        "It arrives in 5-7 working days, open 24/7, at 17:30.",
        "The fee is £12.50 or ₹300.",
        "Born in 1986, flat 4.",
        "The code is SR-0412.",
    ],
)
def test_spoken_numbers_pass(text):
    assert unspoken_numbers(text, frozenset({"LATIN"})) == []


def test_digits_of_another_script():
    assert any(
        f.startswith("digits of another script")
        for f in unspoken_numbers("कोड ૪૭૧૯ है", frozenset({"DEVANAGARI"}))
    )
    assert unspoken_numbers("કોડ ૪૭૧૯ છે", frozenset({"GUJARATI"})) == []
    assert unspoken_numbers("कोड 4719 है", frozenset({"DEVANAGARI"})) == []
    assert any(
        f.startswith("digits of another script")
        for f in unspoken_numbers("code ४७१९", frozenset({"LATIN"}))
    )


def test_script_share_and_mixing():
    dev, lat = frozenset({"DEVANAGARI"}), frozenset({"LATIN"})
    assert script_share("नमस्ते, आपका स्वागत है।", dev)[0] == 1.0
    assert (
        script_share("SMS भेज दिया गया है।", dev)[0] == 1.0
    )  # acronyms are not counted in Indic speech
    assert script_share("OK, SMS भेजा।", dev)[0] == 1.0
    share, counts = script_share("Sure, please tell me your consumer number.", dev)
    assert share == 0.0 and counts == {"LATIN": 34}
    mixed, _ = script_share("आपका bill आ गया है, please pay करें।", dev)
    assert 0.5 < mixed < 1.0
    assert (
        script_share("Aapka bill aa gaya hai.", dev)[0] == 0.0
    )  # Hindi in Latin letters is not Devanagari
    assert script_share("1912", dev) == (None, {})
    assert script_share("Hello, this is Robin.", lat)[0] == 1.0
    assert script_share("નમસ્તે, હું મીરા બોલું છું.", frozenset({"GUJARATI"}))[0] == 1.0
    assert script_share("வணக்கம்", frozenset({"TAMIL"}))[0] == 1.0
    assert script_share("নমস্কার", frozenset({"BENGALI"}))[0] == 1.0
    assert script_share("ਸਤ ਸ੍ਰੀ ਅਕਾਲ", frozenset({"GURMUKHI"}))[0] == 1.0
    assert script_share("ನಮಸ್ಕಾರ", frozenset({"KANNADA"}))[0] == 1.0


def test_emoji_detector():
    assert is_emoji("😀") and is_emoji("✅") and is_emoji("\ufe0f") and is_emoji("☎")
    assert not any(is_emoji(c) for c in "a€₹©®™—•।")


def test_goodbye_words_union_suite_and_built_in(starter, mini_suite):
    hi = goodbye_words("hi", starter.manifest)
    assert hi == ["नमस्ते", "अलविदा", "बाय", "शुभ दिन"]
    assert "આવજો" in goodbye_words("gu", starter.manifest)
    assert "धन्यवाद" not in hi and "આભાર" not in goodbye_words(
        "gu", starter.manifest
    )  # thanks are not farewells
    assert set(goodbye_words("en-GB", mini_suite.manifest)) >= {
        "goodbye",
        "bye",
        "take care",
        "have a good day",
    }
    assert goodbye_words("ta", mini_suite.manifest) == []


# --- grader edge cases on hand-built traces -------------------------------------------------------


def make_trace(messages, end=None, tool_events=()):
    return Trace(
        id="t",
        suite=SuiteRef(id="s", version="1", sha256="x"),
        scenario_id="reschedule",
        agent_id="a",
        candidate="c",
        caller="l",
        repeat=0,
        seed=0,
        instructions_sha256="x",
        messages=[Message(index=i, **m) for i, m in enumerate(messages)],
        end=end,
        tool_events=list(tool_events),
    )


def agent(text=None, turn=0, calls=()):
    return {
        "role": "candidate",
        "turn": turn,
        "text": text,
        "tool_calls": [
            ToolCallRecord(id=f"c{i}", name=n, raw_arguments="{}") for i, n in enumerate(calls)
        ],
    }


def caller(text, turn):
    return {"role": "caller", "turn": turn, "text": text}


def test_goodbye_is_the_last_speech_before_the_end(mini_suite):
    scenario = mini_suite.scenarios["reschedule"]
    msgs = [
        agent("Hello, how can I help?"),
        caller("Bye", 1),
        agent("Goodbye!", 1),
        agent("(after the end)", 1),
    ]
    trace = make_trace(msgs, end=EndRecord(reason="caller", after_message=2))
    v = {
        x.id: x
        for x in ConversationChecks(detector=None).grade(trace, scenario, mini_suite.manifest)
    }
    assert v["goodbye"].r == 1.0 and v["goodbye"].evidence == [2]


def test_infrastructure_end_leaves_goodbye_unmeasured(mini_suite):
    scenario = mini_suite.scenarios["reschedule"]
    trace = make_trace(
        [agent("Hello, how can I help?")], end=EndRecord(reason="infrastructure", after_message=0)
    )
    v = {
        x.id: x
        for x in ConversationChecks(detector=None).grade(trace, scenario, mini_suite.manifest)
    }
    assert v["goodbye"].r is None and v["goodbye"].label == "not_measured"
    assert pillar(v.values()).unmeasured_items == 1


def test_unknown_language_leaves_script_unmeasured(mini_suite):
    scenario = mini_suite.scenarios["reschedule"].model_copy(update={"language": "xx"})
    trace = make_trace(
        [agent("Hello"), caller("hi", 1), agent("Bye", 1)],
        end=EndRecord(reason="caller", after_message=2),
    )
    v = {
        x.id: x
        for x in ConversationChecks(detector=None).grade(trace, scenario, mini_suite.manifest)
    }
    assert (
        v["script"].r is None and v["goodbye"].r is None
    )  # no script and no goodbye words known for 'xx'
    assert v["speakable"].r == 1.0


def test_whitespace_is_not_speech_and_turns_are_by_caller_turn(mini_suite):
    scenario = mini_suite.scenarios["reschedule"]
    msgs = [
        agent("Hello, how can I help?"),
        caller("Find SP-0412", 1),
        agent("  ", 1, ["lookup_parcel"]),
        {"role": "tool", "turn": 1, "text": "{}"},
        caller("Hello?", 2),
        agent("Found it. Goodbye!", 2),
    ]
    trace = make_trace(msgs, end=EndRecord(reason="caller", after_message=5))
    v = {
        x.id: x
        for x in ConversationChecks(detector=None).grade(trace, scenario, mini_suite.manifest)
    }
    assert v["tool_speech"].r == 0.5 and v["tool_speech"].evidence == [
        2
    ]  # speech in turn 2 does not cover turn 1


def test_met_evidence_is_capped(mini_suite):
    scenario = mini_suite.scenarios["reschedule"]
    msgs = []
    for t in range(15):
        msgs += [agent(f"Reply number {t}. Goodbye.", t), caller("ok", t + 1)]
    trace = make_trace(msgs[:-1], end=EndRecord(reason="caller", after_message=len(msgs) - 2))
    v = {
        x.id: x
        for x in ConversationChecks(detector=None).grade(trace, scenario, mini_suite.manifest)
    }
    assert (
        len(v["speakable"].evidence) == MAX_EVIDENCE
        and "15 replies checked" in v["speakable"].detail
    )


def test_hand_off_needs_an_announcement(mini_suite):
    scenario = mini_suite.scenarios["reschedule"]
    end_event = ToolEvent(
        index=2,
        call_message_index=1,
        turn=0,
        call_id="c0",
        name="transfer_to_agent",
        raw_arguments="{}",
        arguments={},
        response_source="queue",
        ended_call=True,
    )
    silent = make_trace(
        [
            agent("Let me check."),
            agent(None, 0, ["transfer_to_agent"]),
            {"role": "tool", "turn": 0, "text": "{}"},
        ],
        end=EndRecord(reason="end_tool", after_message=2),
        tool_events=[end_event],
    )
    announced = make_trace(
        [
            agent("I'm transferring you to a colleague now."),
            agent(None, 0, ["transfer_to_agent"]),
            {"role": "tool", "turn": 0, "text": "{}"},
        ],
        end=EndRecord(reason="end_tool", after_message=2),
        tool_events=[end_event],
    )
    g = ConversationChecks(detector=None)
    assert {x.id: x for x in g.grade(silent, scenario, mini_suite.manifest)}["goodbye"].r == 0.0
    assert {x.id: x for x in g.grade(announced, scenario, mini_suite.manifest)}["goodbye"].r == 1.0


def test_reserved_ids_match_the_checks():
    from callbench.grading.conversation_checks import CHECK_IDS
    from callbench.spec import CONVERSATION_CHECK_IDS
    from callbench.spec.validation import RESERVED_IDS

    assert CHECK_IDS is CONVERSATION_CHECK_IDS and set(RESERVED_IDS) == set(CHECK_IDS)
