"""Grading what a hostile candidate says: replies of a megabyte without a space, and author patterns
that
backtrack exponentially, are graded to completion and right, and grading does not hold up the event
loop.

No test here times anything: the speed targets are in benchmarks/bench_grading.py."""

import asyncio
import random
import re
import sys
import threading
from datetime import date
from decimal import Decimal

import pytest

from callbench.call import read_trace
from callbench.call.trace import RoleUsage
from callbench.grading import score_trace, spoken
from callbench.grading.base import CodeGrader, FixedGrader, Graded, ItemVerdict
from callbench.grading.phrase_checks import PhraseChecks
from callbench.grading.scorecard import score_trace_async
from callbench.grading.speakable import (
    _EMAIL,
    _TABLE_RULE,
    _markdown_link,
    _url,
    unspeakable,
)
from callbench.grading.spoken import find_values
from callbench.grading.spoken_stated import spelled_identifier, stated
from callbench.runs import Attempt, RunConfig, make_cast, run_attempt, run_suite
from callbench.runs.executors import AttemptJob, score_off_loop
from callbench.spec import matchers
from callbench.spec.matchers import MatchResult, Regex, UnsafePattern, evaluate, regex_search
from callbench.suite_check import load_suite

MB = 1_000_000
KINDS = {"no_spaces": "abcdefghij", "digits": "9825041736", "email_like": "john.doe+x@mail"}


def hostile(kind: str, size: int = MB) -> str:
    unit = KINDS[kind]
    return (unit * (size // len(unit) + 1))[:size]


def with_reply(trace, text):
    messages = list(trace.messages)
    i = next(k for k, m in enumerate(messages) if m.role == "candidate" and m.text)
    messages[i] = messages[i].model_copy(update={"text": text})
    return trace.model_copy(update={"messages": messages}), messages[i].index


@pytest.fixture(scope="module")
def starter():
    return load_suite("starter")


@pytest.fixture(scope="module")
def clinic(starter):
    sid = "clinic-book-slot-taken"  # English, no spoken-value checks
    return (
        starter,
        starter.scenarios[sid],
        asyncio.run(run_attempt(starter, Attempt("oracle", sid, 0), 0)),
    )


# --- a megabyte reply is graded, and graded right
# ---------------------------------------------------


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_megabyte_reply_is_graded_to_completion(clinic, kind):
    suite, scenario, oracle = clinic
    trace, index = with_reply(oracle, hostile(kind))
    card = score_trace(trace, scenario, suite.manifest)
    checks = {i.id: i for i in card.items if i.grader == "conversation_checks"}
    speakable, numbers = checks["speakable"], checks["numbers_spoken"]
    assert speakable.label == "partial" and speakable.evidence == [
        index
    ]  # the oracle's other replies are clean
    expected = {
        "no_spaces": "1000000 characters without a space",
        "digits": "1000000 characters without a space",
        "email_like": "email address: 'john.doe+x@mail",
    }[kind]
    assert expected in speakable.detail
    if kind == "digits":
        assert numbers.label == "partial" and numbers.evidence == [index]
        assert "1000000 digits written solid" in numbers.detail
    else:
        assert numbers.label == "met"
    assert checks["script"].label == "met" and checks["goodbye"].label == "met"
    assert all(len(i.detail) < 2_000 for i in card.items), (
        "a verdict's detail stays short whatever the reply"
    )


# --- spoken values in a megabyte: read in linear time, no crash on a numeral past Python's int()
# limit ----------


@pytest.mark.parametrize("kind", list(KINDS) + ["random"])
def test_spoken_values_in_a_megabyte_are_read_with_true_offsets(kind):
    rng = random.Random(7)
    text = (
        "".join(rng.choice("ab12 .,@-:£$") for _ in range(MB))
        if kind == "random"
        else hostile(kind)
    )
    found = find_values(text + " and the balance is £65.52 today")
    assert found, "a megabyte of this kind carries values"
    assert all(text[v.start : v.end] == v.text for v in found if v.end <= len(text))
    assert [v.start for v in found] == sorted(v.start for v in found)
    last = found[-1]
    assert (last.kind, last.value, last.currency) == ("amount", Decimal("65.52"), "GBP")


def test_a_long_text_read_in_pieces_reads_as_it_does_whole(monkeypatch):
    rng = random.Random(3)
    phrases = [
        "your balance is sixty-five pounds fifty-two",
        "the reference is TX-4471",
        "on the 3rd of March",
        "that is 1,250 units",
        "call back at 4:30 pm",
        "account DP 3301",
        "nineteen ninety",
        "a payment of $1,200.50 on 2024-05-01",
        "three payments",
        "ok",
        "we can do that for you",
    ]
    text = " ".join(rng.choice(phrases) for _ in range(3000))  # about 70,000 characters
    pieces = find_values(text, today=date(2026, 12, 1))
    monkeypatch.setattr(spoken, "CHUNK", 10**9)
    spoken._find_values.cache_clear()
    assert pieces == find_values(text, today=date(2026, 12, 1))
    assert len(pieces) > 2000


def test_the_currency_in_one_piece_makes_the_money_reading_in_another():
    text = "sixty-five fifty-two " + "and so on " * 400 + "in pounds"
    assert len(text) > spoken.CHUNK
    assert find_values(text)[0].value == Decimal("65.52")
    assert find_values(text.replace("in pounds", "in all"))[0].value == Decimal("6552")


def test_a_spoken_amount_after_a_megabyte_of_digits_is_found(clinic):
    _suite, _scenario, oracle = clinic
    trace, index = with_reply(oracle, hostile("digits") + " so that is sixty-five pounds fifty-two")
    finding = stated(trace, "65.52", "amount")
    assert finding.found and finding.message_index == index
    assert not stated(trace, "65.53", "amount").found
    assert spelled_identifier(hostile("digits") + " D P three three zero one", "DP-3301")


def _retry_scenario(suite) -> str:
    """A utility-billing call whose caller first gives a wrong detail (it carries the guard that no
    failed verification names the wrong detail)."""
    return next(sid for sid, sc in suite.scenarios.items() if "verification-retry" in sc.tags)


def test_a_guard_pattern_reads_the_whole_message():
    """The phrase-check guard used to read the first 20,000 characters: a forbidden phrase after a
    long
    preamble went unseen. The patterns now run on the whole message (linear-time RE2 on ASCII
    text)."""
    if matchers._re2_module() is None:
        pytest.skip(
            "google-re2 is not installed (a core dependency of callbench: pip install -e .), and "
            "without it a pattern reads the first MAX_REGEX_TEXT characters of a message"
        )
    suite = load_suite("utility-billing")
    sid = _retry_scenario(suite)
    oracle = asyncio.run(run_attempt(suite, Attempt("oracle", sid, 0), 0))
    trace, index = with_reply(oracle, hostile("no_spaces") + " and the zip code you gave is wrong")
    guard = next(
        v
        for v in PhraseChecks().grade(trace, suite.scenarios[sid], suite.manifest)
        if v.id == "no_detail_named"
    )
    assert guard.label == "not_met" and guard.evidence == [index]
    assert guard.detail.startswith(("said '\\\\b(the|your", 'said "\\\\b(the|your'))


# --- author patterns on candidate text
# ----------------------------------------------------------------


def test_a_nested_quantifier_on_an_adversarial_argument_is_decided():
    matcher = Regex.model_construct(regex=r"^(\d+)+$")
    result = evaluate(matcher, "1" * 50 + "x")  # 2^50 paths for a backtracking engine
    assert isinstance(result, MatchResult) and result.ok is False
    if matchers._re2_module() is not None:
        assert result.reason == "pattern not found"
        assert evaluate(matcher, "1" * 50).ok is True
        assert (
            Regex.model_validate({"regex": r"^(\d+)+$"}).regex == r"^(\d+)+$"
        )  # RE2 runs it: no need to refuse
    else:
        assert "nests quantifiers" in result.reason


@pytest.fixture
def without_re2(monkeypatch):
    monkeypatch.setattr(matchers, "_re2_module", lambda: None)
    matchers._compiled.cache_clear()
    yield
    matchers._compiled.cache_clear()


def test_without_re2_a_nested_pattern_is_refused_and_the_rest_still_run(without_re2):
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="nests quantifiers"):
        Regex.model_validate({"regex": r"^(\d+)+$"})
    result = evaluate(Regex.model_construct(regex=r"^(\d+)+$"), "1" * 50 + "x")
    assert result.ok is False and "google-re2 is not installed" in result.reason
    with pytest.raises(UnsafePattern):
        regex_search(r"(a|b*)*c", "ab" * 30)
    assert evaluate(Regex.model_validate({"regex": r"617\D*555\D*0193"}), "617-555-0193").ok
    assert not evaluate(Regex.model_validate({"regex": r"(?i)^\s*27\b"}), "37 Larch Avenue").ok
    # a pattern's time on Python's engine is bounded by MAX_REGEX_TEXT characters of the text
    assert not regex_search(r"x$", "a" * (matchers.MAX_REGEX_TEXT + 10) + "x")


def test_a_phrase_check_with_a_pattern_nothing_can_run_safely_is_not_measured(without_re2):
    suite = load_suite("utility-billing")
    sid = _retry_scenario(suite)
    scenario = suite.scenarios[sid]
    check = next(c for c in scenario.phrase_checks if c.id == "no_detail_named")
    risky = scenario.model_copy(
        update={"phrase_checks": [check.model_copy(update={"patterns": [r"(wrong\s*)+zip"]})]}
    )
    trace = asyncio.run(run_attempt(suite, Attempt("oracle", sid, 0), 0))
    (verdict,) = PhraseChecks().grade(trace, risky, suite.manifest)
    assert (
        verdict.label == "not_measured"
        and verdict.r is None
        and "nests quantifiers" in verdict.detail
    )


def _suite_patterns() -> set[tuple[str, bool]]:
    """Every regex matcher (case as written) and phrase-check pattern (ignoring case) of the
    built-in suites."""
    found: set[tuple[str, bool]] = set()

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "regex" and isinstance(v, str):
                    found.add((v, False))
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for name in ("starter", "customer-service", "utility-billing", "phone-agents"):
        for scenario in load_suite(name).scenarios.values():
            walk(scenario.model_dump())
            found |= {(p, True) for c in scenario.phrase_checks for p in c.patterns}
    return found


OPENVOICECS_PATTERNS = [
    r"instant(ly)? (bank )?refund",
    r"\b\d{4}[- ]\d{4}[- ]\d{4}[- ]\d{4}\b",
    r"\b\d{3}-\d{2}-\d{4}\b",
    r"guaranteed.*win",
    r"definitely get.*money back",
    r"\b\d{10,17}\b",
    r"already in your bank",
]
TEXTS = [
    "Your card is 4111 1111 1111 1111.",
    "card 4111-1111-1111-1111\n",
    "४१११ ४१११ ४१११ ४१११",
    "an instant refund",
    "INSTANTLY BANK REFUND",
    "the zip code you gave is wrong",
    "Wrong ZIP",
    "RG1 5PQ",
    " rg15pq \n",
    "27 Larch Ave",
    "37 Larch",
    "617-555-0193",
    "six one seven",
    "chest pain",
    "It is ₹400 only",
    "four hundred",
    "Shivaji Nagar",
    "शिवाजी नगर",
    "4,268 units",
    "४,२६८",
    "Harold Mehta",
    "size 8 please",
    "eight",
    "ıstanbul İzmir",
    "",
    "guaranteed to win",
    "123-45-6789",
    "account 12345678901",
    "reading",
    "1420 Larimer St",
]


def test_the_built_in_and_imported_patterns_read_as_python_reads_them():
    patterns = _suite_patterns() | {(p, True) for p in OPENVOICECS_PATTERNS}
    assert len(patterns) > 15
    for pattern, ignorecase in sorted(patterns):
        assert not matchers._compiled(pattern, ignorecase).nested, (
            f"{pattern!r} would be refused without RE2"
        )
        if matchers._re2_module() is not None:
            assert matchers._compiled(pattern, ignorecase).re2 is not None, (
                f"RE2 cannot run {pattern!r}"
            )
        python = re.compile(pattern, re.IGNORECASE if ignorecase else 0)
        for text in TEXTS:
            assert regex_search(pattern, text, ignorecase=ignorecase) == (
                python.search(text) is not None
            ), (pattern, text)


def test_re2_reads_random_patterns_as_python_does():
    """Random patterns over the constructs RE2 is given (classes, anchors, \\b, flags, groups,
    counts) agree with
    Python's engine on random short texts, non-ASCII ones included; patterns RE2 cannot read go
    to Python."""
    if matchers._re2_module() is None:
        pytest.skip(
            "google-re2 is not installed (a core dependency of callbench: pip install -e .)"
        )
    rnd = random.Random(7)
    atoms = [
        "a",
        "A",
        "1",
        " ",
        r"\d",
        r"\w",
        r"\s",
        r"\D",
        r"\W",
        r"\S",
        ".",
        "[a-c]",
        "[^a]",
        r"[\d\s]",
        r"[^\W]",
        r"\b",
        r"\B",
        "^",
        "$",
        r"\A",
        r"\Z",
        "é",
        "क",
        r"\.",
        r"\n",
        "ſ",
        "K",
        "ß",
        r"[^\s]",
        "-",
        "(?=a)",
    ]
    counts = ["", "", "*", "+", "?", "{2}", "{1,3}", "*?", "{,2}"]
    chars = list("aAbB1 2\n\t.-_éÉकि१ßſKkıİi\x0b\x1c\u00a0\u2009")

    def pattern(depth=0):
        out = ""
        for _ in range(rnd.randint(1, 4)):
            if rnd.random() < 0.15 and depth < 2:
                out += (
                    rnd.choice(["(", "(?:", "(?i:", "(?m:", "(?s:"])
                    + "|".join(pattern(depth + 1) for _ in range(rnd.randint(1, 2)))
                    + ")"
                    + rnd.choice(counts)
                )
            else:
                out += rnd.choice(atoms) + rnd.choice(counts)
        return out

    checked = 0
    while checked < 3000:
        p = rnd.choice(["", "(?i)", "(?m)", "(?s)"]) + pattern()
        try:
            compiled = re.compile(p)
        except re.error:
            continue
        if matchers._compiled(p, False).nested:
            continue  # Python's engine may take exponential time on these: they are what RE2 is for
        for _ in range(3):
            text = "".join(rnd.choice(chars) for _ in range(rnd.randint(0, 10)))
            assert regex_search(p, text) == (compiled.search(text) is not None), (p, text)
            checked += 1


# --- the linear conversation checks find what the old patterns found
# -------------------------------------

OLD_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
OLD_URL = re.compile(
    r"(?i)\bhttps?://\S+|\bwww\.\S+"
    r"|\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|org|net|in|co|io|gov|edu|uk|info|biz|app|ai)\b(?:/\S*)?"
)
OLD_LINK = re.compile(r"\[[^\]\n]+\]\([^)\s]+\)")
OLD_TABLE_RULE = re.compile(
    r"(?m)^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$"
)


def test_the_linear_patterns_find_what_the_quadratic_ones_found():
    rnd = random.Random(3)
    pieces = list("a1.-@_[]() /\n\t|:x+K") + [
        "ſ",
        "com",
        "in",
        "info",
        "co",
        "www.",
        "http://",
        "](",
        "---",
        "é",
        "क",
    ]
    for _ in range(20_000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 30)))
        old, new = OLD_URL.search(text), _url(text)
        assert (old and (old.span(), old.group())) == (new and (new.span(), new.group())), text
        old = OLD_LINK.search(text)
        assert (old.group() if old else None) == _markdown_link(text), text
        for before, now in ((OLD_EMAIL, _EMAIL), (OLD_TABLE_RULE, _TABLE_RULE)):
            old, new = before.search(text), now.search(text)
            assert (old and old.span()) == (new and new.span()), text


def test_markup_is_still_found_in_a_long_reply():
    filler = hostile("no_spaces")
    found = unspeakable(
        f"{filler} see [the form](https://example.com/f) or mail help@example.com\n| a | b |"
    )
    kinds = [f.split(":")[0] for f in found]
    assert kinds == ["markdown link", "table", "email address"]


# --- a sweep with a hostile candidate
# -------------------------------------------------------------------


class HostileAgent:
    """Three replies of a megabyte each without a space, then a goodbye and the end-call tool."""

    def __init__(self):
        self.turns = 0

    def step(self, view):
        self.turns += 1
        if self.turns <= len(KINDS):
            return {"say": hostile(list(KINDS)[self.turns - 1])}
        end = next(t for t in view.tools if t.ends_call)
        return {
            "say": "Goodbye.",
            "tool_calls": [{"name": end.name, "arguments": {"reason": "resolved"}}],
        }


def test_a_sweep_with_a_hostile_candidate_completes(mini_suite, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "hostile_agents", sys.modules[__name__])
    result = run_suite(
        mini_suite, RunConfig(candidates=("python:hostile_agents:HostileAgent",)), tmp_path / "r"
    )
    assert result.report["candidates"]["python:hostile_agents:HostileAgent"]["coverage"] == 1.0
    trace = read_trace(tmp_path / "r/traces/python:hostile_agents:HostileAgent/reschedule/r0.json")
    replies = [m for m in trace.messages if m.role == "candidate" and m.text]
    assert [len(m.text) for m in replies[:3]] == [MB, MB, MB]
    import json

    card = json.loads(
        (
            tmp_path / "r/scorecards/python:hostile_agents:HostileAgent/reschedule/r0.json"
        ).read_text()
    )
    checks = {i["id"]: i for i in card["items"]}
    assert checks["speakable"]["label"] == "not_met" and checks["speakable"]["evidence"] == [
        m.index for m in replies[:3]
    ]
    assert checks["numbers_spoken"]["label"] == "partial" and checks["goodbye"]["label"] == "met"


# --- grading off the event loop
# ------------------------------------------------------------------------


class _WaitsForTheLoop(CodeGrader):
    """A synchronous grader that finishes only once a coroutine on the event loop has run while it
    grades: on the
    loop itself it would wait in vain (the loop waits for it), in a worker thread the loop goes
    on and frees it."""

    name = "waits_for_the_loop"

    def __init__(self):
        self.grading = threading.Event()
        self.released = threading.Event()
        self.saw_the_loop = None

    def grade(self, trace, scenario, suite):
        self.grading.set()
        self.saw_the_loop = self.released.wait(timeout=20)
        return []


def test_synchronous_grading_does_not_block_the_event_loop(mini_suite):
    grader = _WaitsForTheLoop()
    config = RunConfig(candidates=("oracle",))
    job = AttemptJob(mini_suite, config, make_cast(config), [grader])

    async def main():
        async def release_while_grading():
            while not grader.grading.is_set():
                await asyncio.sleep(0.01)
            grader.released.set()

        releaser = asyncio.create_task(release_while_grading())
        _, card = await job(Attempt("oracle", "reschedule", 0))
        releaser.cancel()
        return card

    card = asyncio.run(main())
    assert grader.saw_the_loop is True
    assert card.graders == ["waits_for_the_loop"]


class _FakeJudge:
    name = "fake_judge"

    async def agrade(self, trace, scenario, suite):
        return Graded(
            [
                ItemVerdict(
                    id="closing",
                    kind="conversation",
                    pillar="conversation",
                    weight=1,
                    label="met",
                    r=1.0,
                    grader=self.name,
                    diagnostic="closing",
                    judge={"model": "fake"},
                )
            ],
            RoleUsage(calls=1, prompt_tokens=7),
        )


def test_scores_off_the_loop_are_the_scores_on_it(starter):
    from callbench.grading.scorecard import default_graders

    fixed = FixedGrader(
        [
            ItemVerdict(
                id="fixed",
                kind="check",
                pillar="task",
                weight=2,
                label="partial",
                r=0.5,
                grader="fixed",
                diagnostic="rule_compliance",
            )
        ]
    )
    for sid in ("clinic-book-slot-taken", "clinic-late-cancel-fee", "bijli-known-area-fault"):
        for candidate in ("oracle", "noop", "spray"):
            trace = asyncio.run(run_attempt(starter, Attempt(candidate, sid, 0), 0))
            for graders in (None, [*default_graders(), _FakeJudge(), fixed], [_FakeJudge(), fixed]):
                off = asyncio.run(
                    score_off_loop(trace, starter.scenarios[sid], starter.manifest, graders)
                )
                on = asyncio.run(
                    score_trace_async(trace, starter.scenarios[sid], starter.manifest, graders)
                )
                assert off.model_dump() == on.model_dump()


def test_pieces_smaller_than_their_overlap_are_refused_not_read_forever(monkeypatch):
    """With CHUNK at or below OVERLAP the next piece never starts further on: a loop, not a read."""
    monkeypatch.setattr(spoken, "CHUNK", spoken.OVERLAP)
    spoken.clear_cache()
    with pytest.raises(ValueError, match="must exceed OVERLAP"):
        find_values("one two three " * 200, "en")
