"""Outcome grading by state diff, the write ledger, refusals and verification gates; and their
validation."""

from __future__ import annotations

import asyncio
import shutil
from functools import lru_cache
from pathlib import Path

import pytest

from callbench.call import CandidateStep
from callbench.callers import LineCaller
from callbench.candidates import ScriptedCandidate, call
from callbench.grading.scorecard import default_graders, score_trace
from callbench.grading.state_checks import StateChecks
from callbench.runs import Attempt, run_attempt
from callbench.spec import Gates, ProtectedFact, Refusal
from callbench.suite_check import check_suite
from tests.conftest import FIXTURES

STATE_MINI = FIXTURES / "state-mini"
VERIFY = call("verify_identity", order_id="A-1042", postcode="SW1A 1AA")
VERIFY_SHIPPED = call("verify_identity", order_id="A-0999", postcode="E1 6AN")
CANCEL = call("cancel_order", order_id="A-1042", reason="changed_mind")
CASE = call("create_case", order_id="A-1042", kind="refund")
END = call("end_call", reason="resolved")


@lru_cache(maxsize=1)
def suite():
    from callbench.suite_check import load_suite

    return load_suite(STATE_MINI)


def S(speech: str | None = None, *calls) -> CandidateStep:
    return CandidateStep(speech=speech, tool_calls=tuple(calls))


def trace_of(scenario_id: str, *steps: CandidateStep, lines: list[str] | None = None):
    caller = LineCaller(lines or [], hang_up_after=max(len(lines or []), 1) + 1)
    return asyncio.run(
        run_attempt(
            suite(),
            Attempt("fake", scenario_id, 0),
            0,
            candidate=ScriptedCandidate(list(steps)),
            caller=caller,
        )
    )


def grade(scenario_id: str, *steps: CandidateStep, lines: list[str] | None = None, scenario=None):
    scenario = scenario or suite().scenarios[scenario_id]
    trace = trace_of(scenario_id, *steps, lines=lines)
    return {v.id: v for v in StateChecks().grade(trace, scenario)}, trace


GOOD = (
    S("Hello, let me verify you.", VERIFY),
    S("Cancelling.", CANCEL),
    S("Trying again.", CANCEL),
    S("Opening a refund case.", CASE),
    S("Goodbye!", END),
)


# --- outcome
# ----------------------------------------------------------------------------------------


def test_the_right_changes_meet_every_item():
    v, _ = grade("cancel-order", *GOOD)
    assert {k: x.label for k, x in v.items()} == {
        "expected_state": "met",
        "expected_changes": "met",
        "verification_gate": "met",
        "disclosure_gate": "not_applicable",
    }
    assert (
        v["verification_gate"].guard
        and v["disclosure_gate"].guard
        and not v["expected_state"].guard
    )
    assert all(x.grader == "state_checks" and x.pillar == "task" for x in v.values())
    assert v["expected_state"].diagnostic == v["expected_changes"].diagnostic == "outcome_state"
    assert v["verification_gate"].diagnostic == "rule_compliance"
    assert v["expected_changes"].detail == "exactly the 3 expected write(s), in order"


def test_a_missing_bookkeeping_record_is_named_and_the_state_diff_is_readable():
    v, _ = grade(
        "cancel-order",
        S("Hi.", VERIFY),
        S("Cancelling.", CANCEL),
        S("Again.", CANCEL),
        S("Bye!", END),
    )
    assert v["expected_changes"].r == 0.0
    assert v["expected_changes"].detail == (
        'missing write: append cases matching subset {"kind": "refund", '
        '"order_id": "A-1042"} by create_case'
    )
    assert v["expected_state"].detail == (
        'cases.0: expected subset {"case_id": "CS-0101", "kind": "refund", '
        '"order_id": "A-1042"}, actual <missing>'
    )


def test_wrong_value_reports_path_expected_and_actual():
    v, trace = grade("cancel-order", S("Hi.", VERIFY), S("Cancelling.", CANCEL), S("Bye!", END))
    assert v["expected_state"].detail.startswith(
        'orders.A-1042.status: expected eq "cancelled", actual "placed"'
    )
    assert "sha" not in v["expected_state"].detail


def test_an_extra_write_is_named_with_its_trace_index():
    v, trace = grade("cancel-order", *GOOD[:4], S("One more.", CASE), S("Bye!", END))
    second_case = [e for e in trace.tool_events if e.name == "create_case"][1]
    assert v["expected_changes"].r == 0.0
    assert v["expected_changes"].detail == (
        f'extra write: append cases {{"case_id": "CS-0102", "kind": "refund", '
        f'"order_id": "A-1042"}} by create_case at #{second_case.index}'
    )
    assert second_case.index in v["expected_changes"].evidence


def test_order_matters_only_where_the_scenario_says_so():
    steps = (
        S("Hi.", VERIFY),
        S("Case first.", CASE),
        S("Now cancel.", CANCEL),
        S("Again.", CANCEL),
        S("Bye!", END),
    )
    v, _ = grade("cancel-order", *steps)
    assert v["expected_changes"].r == 0.0 and "out of order" in v["expected_changes"].detail
    scenario = suite().scenarios["cancel-order"]
    unordered = scenario.model_copy(
        update={"expected_changes": scenario.expected_changes.model_copy(update={"ordered": False})}
    )
    v, _ = grade("cancel-order", *steps, scenario=unordered)
    assert v["expected_changes"].label == "met"


def test_ignored_paths_are_not_graded():
    scenario = suite().scenarios["cancel-order"]
    strict = scenario.model_copy(
        update={"expected_changes": scenario.expected_changes.model_copy(update={"ignore": []})}
    )
    v, _ = grade("cancel-order", *GOOD, scenario=strict)
    assert (
        v["expected_changes"].r == 0.0
        and 'extra write: set session.verified "A-1042" by verify_identity'
        in v["expected_changes"].detail
    )


def test_a_trace_without_a_world_is_not_measured_rather_than_failed():
    trace = trace_of("cancel-order", *GOOD)
    trace.world = None
    v = {x.id: x for x in StateChecks().grade(trace, suite().scenarios["cancel-order"])}
    assert v["expected_state"].label == "not_measured" and v["expected_state"].r is None


# --- refusal
# ---------------------------------------------------------------------------------------

ASKED = ["I want to cancel order A-0999, postcode E1 6AN."]


def test_inaction_never_passes_a_refusal_scenario():
    """Changing nothing keeps the no-write rules (guards, worth nothing) but earns no refusal: the
    task pillar is 0."""
    v, trace = grade("cancel-shipped", S("Hello, how can I help?"), S("I see."), lines=ASKED)
    assert v["refusal"].r == 0.0 and "nothing to refuse after" in v["refusal"].detail
    assert v["expected_changes"].guard and v["expected_changes"].r == 1.0
    assert v["refusal_no_write"].guard and v["refusal_no_write"].r == 1.0
    card = score_trace(trace, suite().scenarios["cancel-shipped"], suite().manifest)
    assert card.task.score == 0.0 and card.in_mode("reference").task.score > 0


def test_an_explicit_refusal_after_the_lookup_passes():
    v, trace = grade(
        "cancel-shipped",
        S("Hello."),
        S("Let me check.", VERIFY_SHIPPED),
        S("I\u2019m sorry, it has shipped, so I can\u2019t cancel it."),
        lines=ASKED,
    )
    assert v["refusal"].label == "met" and v["expected_changes"].label == "met"
    assert v["refusal"].evidence == [4] and "so I can't cancel it.\" at #4" in v["refusal"].detail


def test_a_refusal_before_the_check_or_off_topic_does_not_count():
    v, _ = grade(
        "cancel-shipped",
        S("Hello."),
        S("I cannot cancel orders, but let me check.", VERIFY_SHIPPED),
        S("All done."),
        lines=ASKED,
    )
    assert v["refusal"].r == 0.0 and "after #3 not found" in v["refusal"].detail
    v, _ = grade(
        "cancel-shipped",
        S("Hello."),
        S("Checking.", VERIFY_SHIPPED),
        S("Sorry, I cannot help."),
        lines=ASKED,
    )
    assert v["refusal"].r == 0.0 and "topic word (cancel)" in v["refusal"].detail


def test_refusing_but_writing_anyway_fails():
    steps = (
        S("Hello."),
        S("Checking.", VERIFY_SHIPPED),
        S(
            "I cannot cancel it; I will open a case.",
            call("create_case", order_id="A-0999", kind="refund"),
        ),
    )
    v, trace = grade("cancel-shipped", *steps, lines=ASKED)
    assert v["refusal"].r == 1.0  # it said so...
    assert (
        v["refusal_no_write"].broken
        and "carried out anyway: append cases" in v["refusal_no_write"].detail
    )
    assert trace.tool_events[-1].index in v["refusal_no_write"].evidence
    assert v["expected_changes"].broken and "extra write" in v["expected_changes"].detail
    card = score_trace(trace, suite().scenarios["cancel-shipped"], suite().manifest)
    assert (
        not card.deterministic_passed and not card.cutoff_passed
    )  # ...but a broken guard fails the call
    assert set(card.guards.broken) == {"refusal_no_write", "expected_changes"}


def test_a_refusal_tool_counts_and_may_write():
    scenario = suite().scenarios["cancel-shipped"]
    by_tool = scenario.model_copy(update={"refusal": Refusal(tool="create_case", after="verify")})
    steps = (
        S("Hello."),
        S("Checking.", VERIFY_SHIPPED),
        S("Logging it.", call("create_case", order_id="A-0999", kind="complaint")),
    )
    v, _ = grade("cancel-shipped", *steps, lines=ASKED, scenario=by_tool)
    assert v["refusal"].label == "met" and "called create_case" in v["refusal"].detail


# --- gates
# -----------------------------------------------------------------------------------------


def test_a_protected_call_before_verification_fails_with_its_index():
    v, trace = grade(
        "cancel-order", S("Cancelling.", CANCEL), S("Now verifying.", VERIFY), S("Bye!", END)
    )
    assert v["verification_gate"].r == 0.0
    assert v["verification_gate"].evidence == [trace.tool_events[0].index]
    assert v["verification_gate"].detail.startswith(
        "cancel_order called at #0 before the verification result was seen"
    )


def test_a_protected_call_in_the_same_message_as_the_verification_is_early():
    v, trace = grade("cancel-order", S("Doing both.", VERIFY, CANCEL), S("Bye!", END))
    assert trace.tool_events[1].result == {
        "status": "error",
        "reason": "timeout",
        "retryable": True,
        "message": "the request timed out",
    }
    assert (
        v["verification_gate"].r == 0.0
        and "verification succeeded at #1" in v["verification_gate"].detail
    )


def test_gates_never_tested_are_not_graded():
    v, _ = grade("cancel-order", S("Hello, how can I help?"))
    for gate in ("verification_gate", "disclosure_gate"):
        assert v[gate].label == "not_applicable" and v[gate].r is None and v[gate].guard


def test_protected_fact_spoken_before_verification_is_a_leak():
    v, _ = grade(
        "cancel-order",
        S("Hello! Your order of eighty-four pounds fifty, right?"),
        S("Checking.", VERIFY),
    )
    assert v["disclosure_gate"].r == 0.0 and v["disclosure_gate"].evidence == [0]
    assert (
        "'order_total' (amount 84.5) spoken at #0 before verification succeeded at #"
        in v["disclosure_gate"].detail
    )


def test_protected_fact_after_verification_is_fine():
    v, _ = grade(
        "cancel-order",
        S("Hello."),
        S("Checking.", VERIFY),
        S("Verified: the total is £84.50."),
        lines=["hi"],
    )
    assert (
        v["disclosure_gate"].label == "met" and "after verification" in v["disclosure_gate"].detail
    )


def test_a_fact_the_caller_said_first_is_not_a_disclosure():
    v, _ = grade(
        "cancel-order",
        S("Hello."),
        S("Yes, 84.50 pounds is the total."),
        lines=["I paid eighty four pounds fifty for it."],
    )
    assert v["disclosure_gate"].label == "not_applicable"


@pytest.mark.parametrize(
    ("kind", "value", "said"),
    [
        ("identifier", "SW1A 1AA", "Your postcode is s w 1 a, 1 a a."),
        ("identifier", "4417", "Your PIN is four four one seven."),
        ("identifier", "A-1042", "Is that order A 1 0 4 2?"),
        ("text", "Mill Lane", "It goes to 1 MILL   lane, yes?"),
    ],
)
def test_disclosure_normalises_numbers_identifiers_and_text(kind, value, said):
    scenario = suite().scenarios["cancel-order"]
    gates = Gates(
        verification_tool="verify_identity",
        verification_success={"path": "status", "equals": "verified"},
        protected_facts=[ProtectedFact(id="fact", kind=kind, value=value)],
    )
    v, _ = grade("cancel-order", S(said), scenario=scenario.model_copy(update={"gates": gates}))
    assert v["disclosure_gate"].r == 0.0, v["disclosure_gate"].detail


def test_spelled_identifiers_need_whole_tokens():
    from callbench.grading.spoken_stated import spelled_identifier as _spelled

    assert _spelled("s w one a, one a a", "SW1A 1AA") and not _spelled("swift one a", "SW1A")
    assert not _spelled("a 1", "A1")  # too short to tell from ordinary speech


# --- wiring and validation
# ----------------------------------------------------------------------------


def test_state_checks_are_default_graders_and_the_oracle_passes_them():
    assert "state_checks" in [g.name for g in default_graders()]
    from callbench.candidates import OracleCandidate

    for scenario_id, scenario in suite().scenarios.items():
        trace = asyncio.run(
            run_attempt(
                suite(),
                Attempt("oracle", scenario_id, 0),
                0,
                candidate=OracleCandidate(scenario),
                caller=LineCaller(),
            )
        )
        card = score_trace(trace, scenario, suite().manifest)
        state_items = [i for i in card.items if i.grader == "state_checks"]
        assert state_items and all(
            i.r == 1.0 or i.label == "not_applicable" for i in state_items
        ), [(i.id, i.detail) for i in state_items]


def test_the_fixture_suite_is_clean():
    result = check_suite(STATE_MINI)
    assert not result.problems, "\n".join(map(str, result.problems))


SC = "scenarios/order-desk/cancel-order.yaml"
SHIPPED = "scenarios/order-desk/cancel-shipped.yaml"


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    root = tmp_path / "state-mini"
    shutil.copytree(STATE_MINI, root)
    return root


def swap(root: Path, rel: str, old: str, new: str) -> None:
    text = (root / rel).read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    (root / rel).write_text(text.replace(old, new), encoding="utf-8")


@pytest.mark.parametrize(
    ("rel", "old", "new", "path", "words"),
    [
        (
            SC,
            "    end_call:\n      respond: { status: ended }",
            "    end_call:\n      respond: { status: ended }\n    teleport: {}",
            "backend.tools.teleport",
            "not defined by agent",
        ),
        (
            SC,
            'path: "orders.{order_id}.cancel_reason", value: "{reason}"',
            'path: "orders.{order_id}.cancel_reason", value: "{why}"',
            "backend.tools.cancel_order.effects[1].value",
            "'{why}' is not a parameter",
        ),
        (
            SC,
            "match: { eq: placed }, message: the order has already shipped }\n      effects:\n     "
            "   - { op: set",
            'match: { eq: "{id:x}" }, message: the order has already shipped }\n      effects:\n   '
            "     - { op: set",
            "backend.tools.cancel_order.preconditions[1].match",
            "ids are generated by effects",
        ),
        (
            SC,
            "{ tool: create_case, op: append, path: cases,",
            "{ tool: create_case, op: set, path: cases,",
            "expected_changes.writes[2].tool",
            "has no 'set' effect",
        ),
        (
            SC,
            "protected_tools: [lookup_order, cancel_order, create_case]",
            "protected_tools: [lookup_order, refund]",
            "gates.protected_tools[1]",
            "tool 'refund' is not defined",
        ),
        (
            SC,
            '"orders.${hidden.order_id}.status": { eq: cancelled }',
            '"orders.${hidden.nope}.status": { eq: cancelled }',
            "expected_state.paths.orders.${hidden.nope}.status",
            "does not resolve",
        ),
        (SHIPPED, "refusal:\n  cues:", "refusal_gone:\n  cues:", "refusal_gone", "unknown key"),
        (
            SHIPPED,
            "  - id: end\n",
            "  - id: refusal\n",
            "expected_actions[1].id",
            "verdict id of a state check",
        ),
        (
            SHIPPED,
            "  after: verify",
            "  after: lookup",
            "refusal.after",
            "'lookup' is neither an expected action nor a plan step",
        ),
        (
            SHIPPED,
            '  cues: ["can\'t", cannot, unable, "not able"]\n',
            "",
            "refusal",
            "inaction alone must never pass",
        ),
        (
            SC,
            'path: "orders.{order_id}", match: { present: true }, message: no order has that '
            "number",
            'path: "orders..{order_id}", match: { present: true }, message: no order has that '
            "number",
            "backend.tools.verify_identity.preconditions[0].path",
            "empty segment",
        ),
    ],
)
def test_validation_names_the_field(broken, rel, old, new, path, words):
    swap(broken, rel, old, new)
    result = check_suite(broken)
    listing = "\n".join(map(str, result.problems))
    assert any(
        p.file == rel and p.path == path and words.lower() in p.message.lower()
        for p in result.errors
    ), listing


def test_expecting_no_writes_requires_a_refusal(broken):
    text = (broken / SHIPPED).read_text(encoding="utf-8")
    (broken / SHIPPED).write_text(
        text[: text.index("refusal:")] + text[text.index("reference:") :], encoding="utf-8"
    )
    result = check_suite(broken)
    assert any(
        p.path == "expected_changes.writes" and "inaction alone" in p.message for p in result.errors
    ), result.problems


def test_state_grading_needs_a_state_backend_and_optional_parameters_warn(
    broken, mini_path, tmp_path
):
    mini = tmp_path / "mini"
    shutil.copytree(mini_path, mini)
    rel = "scenarios/parcel-desk/reschedule.yaml"
    swap(
        mini,
        rel,
        "criteria:\n",
        "expected_state:\n  paths: { parcel.status: { eq: moved } }\ncriteria:\n",
    )
    result = check_suite(mini)
    assert any(
        p.path == "expected_state" and "needs backend kind 'state'" in p.message
        for p in result.errors
    )

    swap(
        broken,
        "agents/order-desk/agent.yaml",
        "required: [order_id, reason]",
        "required: [order_id]",
    )
    result = check_suite(broken)
    assert not result.errors
    assert any(
        p.level == "warning" and "'{reason}' is an optional parameter" in p.message
        for p in result.problems
    )
