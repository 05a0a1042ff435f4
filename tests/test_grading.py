import asyncio

import pytest

from callbench.call import CandidateStep
from callbench.callers import LineCaller
from callbench.candidates import ScriptedCandidate, call
from callbench.grading import ActionGrader, FixedGrader, ItemVerdict, pillar, score_trace
from callbench.runs import Attempt, run_attempt


def trace_of(suite, *steps):
    cand = ScriptedCandidate(list(steps))
    return asyncio.run(
        run_attempt(
            suite,
            Attempt("fake", "reschedule", 0),
            0,
            candidate=cand,
            caller=LineCaller(hang_up_after=1),
        )
    )


def verdicts(suite, *steps):
    scenario = suite.scenarios["reschedule"]
    return {v.id: v for v in ActionGrader().grade(trace_of(suite, *steps), scenario)}


LOOKUP = call("lookup_parcel", tracking_id="SP-0412")
MOVE = call("reschedule_delivery", tracking_id="SP-0412", day="thursday")
END = call("end_call", reason="resolved")


def test_all_actions_met_in_order(mini_suite):
    v = verdicts(mini_suite, CandidateStep(tool_calls=(LOOKUP, MOVE, END)))
    assert all(x.label == "met" and x.r == 1.0 for x in v.values())
    assert v["move"].evidence == [2]  # message 0 holds the three calls; 1-3 their results


def test_ordering_violation_is_named(mini_suite):
    v = verdicts(mini_suite, CandidateStep(tool_calls=(MOVE, LOOKUP, END)))
    assert v["move"].r == 0.0 and "before 'lookup'" in v["move"].detail
    assert v["lookup"].r == 1.0


def test_missing_dependency_fails_ordering(mini_suite):
    v = verdicts(mini_suite, CandidateStep(tool_calls=(MOVE, END)))
    assert v["move"].r == 0.0 and "never happened" in v["move"].detail


def test_exact_count_and_near_miss_detail(mini_suite):
    v = verdicts(mini_suite, CandidateStep(tool_calls=(LOOKUP, LOOKUP, END)))
    assert v["lookup"].r == 0.0 and "found 2" in v["lookup"].detail
    v = verdicts(
        mini_suite, CandidateStep(tool_calls=(call("lookup_parcel", tracking_id="SP-0413"), END))
    )
    assert v["lookup"].r == 0.0 and "args.tracking_id not equal" in v["lookup"].detail


def test_wrong_enum_argument_does_not_count(mini_suite):
    v = verdicts(
        mini_suite,
        CandidateStep(
            tool_calls=(
                LOOKUP,
                call("reschedule_delivery", tracking_id="SP-0412", day="friday"),
                END,
            )
        ),
    )
    assert v["move"].r == 0.0 and "expected 'thursday', got 'friday'" in v["move"].detail


def test_task_pillar_is_weighted_and_conversation_not_measured(mini_suite):
    scenario = mini_suite.scenarios["reschedule"]
    trace = trace_of(mini_suite, CandidateStep(tool_calls=(LOOKUP, END)))
    card = score_trace(trace, scenario, mini_suite.manifest, [ActionGrader()])
    # lookup (w2) met, move (w3) not met, end (w1) met  ->  100 * 3 / 6
    assert card.task.score == pytest.approx(50.0)
    assert (card.task.points, card.task.max_points) == (3.0, 6.0)
    # the judged criterion is listed but enters no sum
    assert card.task.unmeasured_items == 1 and card.task.unmeasured_weight == 2
    assert card.conversation.score is None and card.conversation.unmeasured_items == 1
    assert card.overall is None and not card.deterministic_passed


def test_overall_is_the_mean_of_both_pillars_when_both_exist(mini_suite):
    scenario = mini_suite.scenarios["reschedule"]
    trace = trace_of(mini_suite, CandidateStep(tool_calls=(LOOKUP, MOVE, END)))
    judged = [
        ItemVerdict(
            id="closing",
            kind="conversation",
            pillar="conversation",
            weight=1,
            label="partial",
            r=0.5,
            grader="fake",
            diagnostic="closing",
        ),
        ItemVerdict(
            id="looked_up_first",
            kind="criterion",
            pillar="task",
            weight=2,
            label="met",
            r=1.0,
            grader="fake",
            diagnostic="rule_compliance",
        ),
    ]
    card = score_trace(trace, scenario, mini_suite.manifest, [ActionGrader(), FixedGrader(judged)])
    assert card.task.score == 100.0 and card.conversation.score == 50.0 and card.overall == 75.0


def test_pillar_math_with_rating_mapping():
    items = [
        ItemVerdict(
            id=str(g),
            kind="conversation",
            pillar="conversation",
            weight=w,
            label="met",
            r=(g - 1) / 4,
            grader="x",
            diagnostic="memory",
        )
        for g, w in ((5, 1), (3, 2), (1, 1))
    ]
    p = pillar(items)
    assert p.score == pytest.approx(100 * (1 * 1 + 2 * 0.5 + 0) / 4)


def test_excluded_trace_never_passes(mini_suite):
    scenario = mini_suite.scenarios["reschedule"]
    trace = trace_of(mini_suite, CandidateStep(tool_calls=(LOOKUP, MOVE, END)))
    trace.outcome = "excluded"
    assert not score_trace(trace, scenario, mini_suite.manifest).deterministic_passed


def test_result_matchers_count_only_calls_whose_result_matches(mini_suite):
    from callbench.spec import ExpectedAction

    scenario = mini_suite.scenarios["reschedule"]
    ended = ExpectedAction.model_validate(
        {
            "id": "really_ended",
            "tool": "end_call",
            "result": {"status": {"eq": "ended"}},
            "count": {"exactly": 1},
        }
    )
    found = ExpectedAction.model_validate(
        {"id": "found", "tool": "lookup_parcel", "result": {"found": {"eq": True}}}
    )
    sc = scenario.model_copy(update={"expected_actions": [ended, found]})
    trace = trace_of(
        mini_suite, CandidateStep(tool_calls=(call("lookup_parcel", tracking_id="SP-1"), END))
    )
    v = {x.id: x for x in ActionGrader().grade(trace, sc)}
    assert v["really_ended"].r == 1.0
    assert v["found"].r == 0.0 and "result.found not equal" in v["found"].detail
