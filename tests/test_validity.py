"""Scores no script can earn: guards, windows, speech a person could follow, refusals in one
sentence, orderings
after the caller's request, locks, recital validation and the gameability figure."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from callbench.backends.state import StateBackend
from callbench.call import CandidateStep
from callbench.callers import LineCaller
from callbench.candidates import ScriptedCandidate, call
from callbench.grading.scorecard import score_trace
from callbench.runs import Attempt, run_attempt
from callbench.spec import ExpectedAction, PhraseCheck
from callbench.spec.scenario import SpokenCheck
from callbench.suite_check import check_suite
from tests.conftest import FIXTURES
from tests.test_state_grading import ASKED, CANCEL, CASE, END, VERIFY, VERIFY_SHIPPED, S, suite

STATE_MINI = FIXTURES / "state-mini"


def card_of(
    scenario_id: str,
    *steps: CandidateStep,
    lines: list[str] | None = None,
    scenario=None,
    caller=None,
):
    scenario = scenario or suite().scenarios[scenario_id]
    quiet = suite().model_copy(update={"scenarios": {**suite().scenarios, scenario_id: scenario}})
    caller = caller or LineCaller(lines or [], hang_up_after=max(len(lines or []), 1) + 1)
    trace = asyncio.run(
        run_attempt(
            quiet,
            Attempt("fake", scenario_id, 0),
            0,
            candidate=ScriptedCandidate(list(steps)),
            caller=caller,
        )
    )
    return score_trace(trace, scenario, suite().manifest), trace


def items(card) -> dict:
    return {i.id: i for i in card.items}


GOOD = (
    S("Hello, let me verify you.", VERIFY),
    S("Cancelling.", CANCEL),
    S("Trying again.", CANCEL),
    S("Opening a refund case.", CASE),
    S("Goodbye!", END),
)


# --- guards
# ----------------------------------------------------------------------------------------


def test_a_kept_guard_moves_no_score_and_a_broken_one_costs_its_weight():
    scenario = suite().scenarios["cancel-order"]
    no_freeze = ExpectedAction(
        id="no_address_change", tool="update_delivery", count={"exactly": 0}, weight=3
    )
    guarded = scenario.model_copy(
        update={"expected_actions": [*scenario.expected_actions, no_freeze]}
    )
    plain, _ = card_of("cancel-order", *GOOD)
    kept, _ = card_of("cancel-order", *GOOD, scenario=guarded)
    assert items(kept)["no_address_change"].guard and items(kept)["no_address_change"].r == 1.0
    assert (kept.task.points, kept.task.max_points, kept.task.score) == (
        plain.task.points,
        plain.task.max_points,
        plain.task.score,
    )
    assert kept.guards.kept and "no_address_change" in kept.guards.kept and not kept.guards.broken
    broken_steps = (
        *GOOD[:4],
        S(
            "And a new address.",
            call("update_delivery", order_id="A-1042", address_line="x", postcode="N1 9GU"),
        ),
        GOOD[4],
    )
    broken, _ = card_of("cancel-order", *broken_steps, scenario=guarded)
    assert broken.guards.broken == ["no_address_change"] and not broken.deterministic_passed
    assert broken.task.max_points == plain.task.max_points + 3
    # the reference formula counts the kept guard on both sides
    reference = kept.in_mode("reference")
    assert reference.scoring == "reference" and reference.task.max_points > kept.task.max_points
    assert reference.in_mode("guards").task == kept.task


def test_doing_nothing_earns_nothing_in_guards_mode_but_something_in_the_reference_formula():
    card, _ = card_of("cancel-shipped", S("Hello, how can I help?"), S("I see."), lines=ASKED)
    assert card.task.score == 0.0
    assert (
        card.in_mode("reference").task.score > 0
    )  # the kept no-write rules, as published benchmarks count them


# --- refusals
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "speech, why",
    [
        ("I can't. Cancel. Sorry about that.", "cue and topic in different sentences"),
        ("Sorry, I cannot help with that.", "no topic word"),
        (
            (
                "I can't cancel it. "
                + "Let me tell you about our store and our many wonderful products. " * 12
            ).strip(),
            "a turn too long to follow",
        ),
    ],
)
def test_a_refusal_in_a_word_bag_or_an_unfollowable_turn_does_not_count(speech, why):
    card, _ = card_of(
        "cancel-shipped", S("Hello."), S("Let me check.", VERIFY_SHIPPED), S(speech), lines=ASKED
    )
    assert items(card)["refusal"].r == 0.0, why


def test_a_refusal_before_its_window_does_not_count():
    early = S(
        "I can't cancel orders here.", VERIFY_SHIPPED
    )  # said in the message that makes the anchoring call
    card, _ = card_of("cancel-shipped", S("Hello."), early, S("All done."), lines=ASKED)
    assert items(card)["refusal"].r == 0.0
    card, _ = card_of(
        "cancel-shipped",
        S("Hello."),
        S("Checking.", VERIFY_SHIPPED),
        S("It has shipped, so I can't cancel it."),
        lines=ASKED,
    )
    assert items(card)["refusal"].r == 1.0 and items(card)["refusal_no_write"].r == 1.0


# --- windows and followable speech
# -------------------------------------------------------------------


def _with_check(check) -> object:
    scenario = suite().scenarios["cancel-order"]
    field = "spoken_checks" if isinstance(check, SpokenCheck) else "phrase_checks"
    return scenario.model_copy(update={field: [check]})


def test_a_spoken_value_counts_only_inside_its_window_and_in_followable_speech():
    total = SpokenCheck(id="total_after_verify", kind="amount", value=84.5, after="verify")
    scenario = _with_check(total)
    said_early, _ = card_of("cancel-order", S("Your total is £84.50."), *GOOD, scenario=scenario)
    assert items(said_early)["total_after_verify"].r == 0.0
    in_time, _ = card_of(
        "cancel-order",
        GOOD[0],
        S("Your total is £84.50, cancelling now.", CANCEL),
        *GOOD[2:],
        scenario=scenario,
    )
    assert items(in_time)["total_after_verify"].r == 1.0
    buried = S(
        "Your total is £84.50. "
        + "Here is everything I know about your order and our policies. " * 12,
        CANCEL,
    )
    dumped, _ = card_of("cancel-order", GOOD[0], buried, *GOOD[2:], scenario=scenario)
    assert (
        items(dumped)["total_after_verify"].r == 0.0
        and "too long" in items(dumped)["total_after_verify"].detail
    )


def test_a_window_whose_anchor_never_happened_is_closed():
    scenario = _with_check(
        SpokenCheck(id="total_after_verify", kind="amount", value=84.5, after="verify")
    )
    card, _ = card_of("cancel-order", S("Your total is £84.50. Goodbye!"), scenario=scenario)
    verdict = items(card)["total_after_verify"]
    assert verdict.r == 0.0 and "never happened" in verdict.detail
    never = _with_check(
        SpokenCheck(id="no_total", kind="amount", value=84.5, after="verify", must="not_state")
    )
    card, _ = card_of("cancel-order", S("Your total is £84.50. Goodbye!"), scenario=never)
    assert items(card)["no_total"].label == "not_applicable" and items(card)["no_total"].guard


def test_a_not_state_guard_reads_even_a_long_turn():
    never = _with_check(
        SpokenCheck(id="no_total", kind="amount", value=84.5, before="verify", must="not_state")
    )
    long = (
        "Your total is £84.50. "
        + "Let me read you every policy we have, word for word, right now. " * 12
    )
    card, _ = card_of("cancel-order", S(long), *GOOD, scenario=never)
    assert items(card)["no_total"].broken


def test_phrase_checks_say_in_a_window_and_never_say_anywhere():
    say = PhraseCheck(id="refund_promised", terms=["refund case"], after="verify")
    scenario = _with_check(say)
    card, _ = card_of("cancel-order", *GOOD, scenario=scenario)
    assert items(card)["refund_promised"].r == 1.0
    never = _with_check(
        PhraseCheck(
            id="no_card_number", patterns=[r"\b\d{4}[- ]\d{4}[- ]\d{4}[- ]\d{4}\b"], must="not_say"
        )
    )
    card, _ = card_of("cancel-order", S("Is your card 4111 1111 1111 1111?"), *GOOD, scenario=never)
    assert items(card)["no_card_number"].broken and card.guards.broken == ["no_card_number"]


# --- achievements count only after the caller asked
# ----------------------------------------------------


def test_an_action_before_the_caller_asked_for_it_does_not_count(tmp_path):
    from callbench.callers import ScriptedCaller

    scenario = suite().scenarios["change-address"]
    action = ExpectedAction(
        id="readdress",
        tool="update_delivery",
        args={"postcode": {"eq": "N1 9GU"}},
        after=["address"],
        weight=3,
    )
    gated = scenario.model_copy(update={"expected_actions": [*scenario.expected_actions, action]})
    readdress = call(
        "update_delivery", order_id="A-1042", address_line="4 Elm Street", postcode="N1 9GU"
    )
    verify = call("verify_identity", order_id="A-1042", postcode="SW1A 1AA")

    def caller():
        return ScriptedCaller(gated, suite().manifest.defaults.caller_phrases["en"])

    blind, _ = card_of(
        "change-address",
        S("Hello, how can I help?"),
        S("Order number and postcode?"),
        S("Checking.", verify),
        S("Updating.", readdress),
        S("Where should it go instead?"),
        scenario=gated,
        caller=caller(),
    )
    assert (
        items(blind)["readdress"].r == 0.0
        and "before the caller asked" in items(blind)["readdress"].detail
    )
    asked, _ = card_of(
        "change-address",
        S("Hello, how can I help?"),
        S("What is your order number and your postcode?"),
        S("Checking.", verify),
        S("Where should the kettle go instead?"),
        S("Updating.", readdress),
        scenario=gated,
        caller=caller(),
    )
    assert items(asked)["readdress"].r == 1.0


# --- attempt limits
# ------------------------------------------------------------------------------------


def test_a_locked_tool_stays_locked_even_for_the_right_details():
    scenario = suite().scenarios["cancel-order"]
    backend_spec = scenario.backend.model_copy(
        update={
            "tools": {
                **scenario.backend.tools,
                "verify_identity": scenario.backend.tools["verify_identity"].model_copy(
                    update={"lock_after": 3}
                ),
            }
        }
    )
    world = StateBackend(backend_spec, scenario.caller.knows)
    for postcode in ("E1 6AN", "N1 9GU", "SW1A 1AB"):
        assert (
            world.handle("verify_identity", {"order_id": "A-1042", "postcode": postcode}).result[
                "status"
            ]
            == "refused"
        )
    right = world.handle("verify_identity", {"order_id": "A-1042", "postcode": "SW1A 1AA"})
    assert right.result == {
        "status": "refused",
        "reason": "locked",
        "message": "locked after 3 failed attempts; no more attempts are possible on this call",
    }
    assert world.state["session"]["verified"] is None
    fresh = StateBackend(
        backend_spec, scenario.caller.knows
    )  # two failures, then the right details: still open
    for postcode in ("E1 6AN", "N1 9GU"):
        fresh.handle("verify_identity", {"order_id": "A-1042", "postcode": postcode})
    assert (
        fresh.handle("verify_identity", {"order_id": "A-1042", "postcode": "SW1A 1AA"}).result[
            "status"
        ]
        == "verified"
    )


# --- validation against recital
# -----------------------------------------------------------------------


@pytest.fixture
def copy_of_state_mini(tmp_path: Path) -> Path:
    root = tmp_path / "state-mini"
    shutil.copytree(STATE_MINI, root)
    return root


def _append(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_a_spoken_value_printed_in_the_instructions_is_refused(copy_of_state_mini):
    _append(
        copy_of_state_mini,
        "agents/order-desk/instructions.md",
        "For example, an order of £84.50 is refunded in full.\n",
    )
    _append(
        copy_of_state_mini,
        "scenarios/order-desk/cancel-order.yaml",
        "spoken_checks:\n  - { id: total_stated, kind: amount, value: 84.5, after: verify }\n",
    )
    result = check_suite(copy_of_state_mini)
    assert any(
        p.path == "spoken_checks[0].value" and "printed in the agent's instructions" in p.message
        for p in result.errors
    ), result.problems


def test_a_spoken_check_without_a_window_is_refused(copy_of_state_mini):
    _append(
        copy_of_state_mini,
        "scenarios/order-desk/cancel-order.yaml",
        "spoken_checks:\n  - { id: total_stated, kind: amount, value: 84.5 }\n",
    )
    result = check_suite(copy_of_state_mini)
    assert any(
        p.path == "spoken_checks[0]" and "names no window" in p.message for p in result.errors
    )


def test_cues_a_recital_would_say_are_warned(copy_of_state_mini):
    rel = "scenarios/order-desk/change-address.yaml"
    assert not any("can be walked" in p.message for p in check_suite(copy_of_state_mini).problems)
    _append(
        copy_of_state_mini,
        "agents/order-desk/instructions.md",
        "Ask for the order number and the postcode.\n",
    )
    path = copy_of_state_mini / rel
    path.write_text(
        path.read_text(encoding="utf-8").replace("cue: [where]", "cue: [address]"), encoding="utf-8"
    )
    result = check_suite(copy_of_state_mini)
    assert any(
        p.file == rel
        and p.level == "warning"
        and "['details', 'address'] can be walked" in p.message
        for p in result.problems
    ), result.problems


# --- the figure
# ---------------------------------------------------------------------------------------


def test_gameability_is_measured_and_reported(tmp_path):
    from callbench.gameability import measure

    found = measure(suite(), out_dir=tmp_path / "run")
    assert set(found["task"]) == {"noop", "shortcut", "spray"}
    assert found["figure"] == pytest.approx(
        max(found["task"]["shortcut"], found["task"]["spray"]) - found["task"]["noop"], abs=0.01
    )
    import json

    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert (
        report["scoring"]["mode"] == "guards" and report["gameability"]["figure"] == found["figure"]
    )
    assert "completion_at_cutoff" in report["candidates"]["noop"]


def test_a_dump_of_figures_is_not_speech_a_caller_follows():
    from callbench.speech import figure_count, followable

    dump = "Could you confirm: " + ", ".join(f"{n}.50" for n in range(13)) + "?"
    assert figure_count(dump) == 13 and not followable(dump, 80, 12) and followable(dump, 80, None)
    readout = (
        "Last night, £89.00 at GameVault at 02:07 and £249.99 at ElectroHub at 01:52. Which "
        "don't you recognise?"
    )
    assert figure_count(readout) == 4 and followable(readout, 80, 12)
    scenario = _with_check(
        SpokenCheck(id="total_after_verify", kind="amount", value=84.5, after="verify")
    )
    dumped = S(
        "Your figures: £84.50, " + ", ".join(f"{n} pounds" for n in range(1, 13)) + ".", CANCEL
    )
    card, _ = card_of("cancel-order", GOOD[0], dumped, *GOOD[2:], scenario=scenario)
    assert items(card)["total_after_verify"].r == 0.0
