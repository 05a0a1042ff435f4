"""LLM judges with a scripted fake model: labels, ratings, evidence checks, retries, and judge
failures."""

import asyncio
import json

import pytest

from callbench.call import CandidateStep
from callbench.callers import LineCaller
from callbench.candidates import ScriptedCandidate, call
from callbench.grading import ActionGrader
from callbench.grading.judges import ConversationJudge, TaskJudge
from callbench.grading.scorecard import score_trace_async
from callbench.models import ScriptedModel
from callbench.runs import Attempt, run_attempt


@pytest.fixture
def trace(mini_suite):
    cand = ScriptedCandidate(
        [
            CandidateStep(speech="Hello, Swift Parcels."),
            CandidateStep(
                speech="Looking it up.", tool_calls=(call("lookup_parcel", tracking_id="SP-0412"),)
            ),
            CandidateStep(speech="Bye!", tool_calls=(call("end_call", reason="resolved"),)),
        ]
    )
    return asyncio.run(
        run_attempt(
            mini_suite,
            Attempt("fake", "reschedule", 0),
            0,
            candidate=cand,
            caller=LineCaller(["Hi", "It's SP-0412"]),
        )
    )


def verdict(label, evidence=(2,)):
    return json.dumps(
        {
            "verdicts": [
                {
                    "id": "looked_up_first",
                    "label": label,
                    "evidence": list(evidence),
                    "rationale": "r",
                }
            ]
        }
    )


def ratings(g, evidence=(0,)):
    return json.dumps(
        {"ratings": [{"id": "closing", "rating": g, "evidence": list(evidence), "rationale": "r"}]}
    )


def score(mini_suite, trace, task_replies, conv_replies):
    sc = mini_suite.scenarios["reschedule"]
    task_model = ScriptedModel(task_replies, name="fake:judge")
    conv_model = ScriptedModel(conv_replies, name="fake:judge")
    graders = [ActionGrader(), TaskJudge(task_model), ConversationJudge(conv_model)]
    card = asyncio.run(score_trace_async(trace, sc, mini_suite.manifest, graders))
    return card, task_model, conv_model


@pytest.mark.parametrize("label,r", [("met", 1.0), ("partial", 0.5), ("not_met", 0.0)])
def test_criterion_labels_and_a_rating(mini_suite, trace, label, r):
    card, task_model, _ = score(mini_suite, trace, [verdict(label)], [ratings(4)])
    crit = next(i for i in card.items if i.id == "looked_up_first")
    assert (crit.label, crit.r, crit.evidence, crit.grader) == (label, r, [2], "task_judge")
    rating = next(i for i in card.items if i.id == "closing")
    assert rating.rating == 4 and rating.r == 0.75 and card.conversation.score == 75.0
    assert card.overall == pytest.approx((card.task.score + 75.0) / 2)
    # accountable: model, prompt and rubric hashes, settings
    assert set(crit.judge) >= {"model", "prompt_sha256", "rubric_sha256", "temperature", "seed"}
    assert crit.judge["model"] == "fake:judge" and card.models["judge"] == "fake:judge"
    # the task judge never sees the answer key
    sent = json.dumps(task_model.requests, ensure_ascii=False)
    sc = mini_suite.scenarios["reschedule"]
    # "thursday" exists only in the expected actions and the reference of this scenario, never in
    # this call
    assert "expected_actions" not in sent and "thursday" not in sent.lower() and '"eq"' not in sent
    assert all(t.say not in sent for t in sc.reference if t.say and t.say not in ("Goodbye!",))


def test_nonexistent_evidence_index_is_retried_then_a_judge_failure(mini_suite, trace):
    card, task_model, _ = score(mini_suite, trace, [verdict("met", evidence=(999,))], [ratings(5)])
    assert len(task_model.requests) == 2
    assert "not entries of the transcript" in task_model.requests[1]["messages"][-1]["content"]
    assert card.outcome == "excluded" and card.failure.kind == "JudgeFailure"
    assert all(i.r is None for i in card.items if i.kind in ("criterion", "conversation"))
    assert not card.deterministic_passed


def test_empty_reply_never_passes(mini_suite, trace):
    card, task_model, _ = score(mini_suite, trace, [""], [ratings(5)])
    assert len(task_model.requests) == 2 and card.outcome == "excluded"
    crit = next(i for i in card.items if i.id == "looked_up_first")
    assert crit.r is None and crit.label == "not_measured"


def test_malformed_reply_then_good_retry(mini_suite, trace):
    card, task_model, conv_model = score(
        mini_suite,
        trace,
        ["I think it was met.", verdict("met")],
        ['{"ratings": [{"id": "closing", "rating": 9, "evidence": [0]}]}', ratings(2)],
    )
    assert card.outcome == "completed"
    assert next(i for i in card.items if i.id == "looked_up_first").label == "met"
    assert next(i for i in card.items if i.id == "closing").rating == 2
    assert (
        "rating must be an integer from 1 to 5" in conv_model.requests[1]["messages"][-1]["content"]
    )


def test_missing_criterion_is_rejected(mini_suite, trace):
    card, task_model, _ = score(
        mini_suite, trace, [json.dumps({"verdicts": []}), verdict("partial")], [ratings(3)]
    )
    assert "no verdict for ['looked_up_first']" in task_model.requests[1]["messages"][-1]["content"]
    assert next(i for i in card.items if i.id == "looked_up_first").label == "partial"


def test_judges_skip_excluded_calls(mini_suite, trace):
    trace.outcome = "excluded"
    card, task_model, conv_model = score(mini_suite, trace, [verdict("met")], [ratings(5)])
    assert task_model.requests == [] and conv_model.requests == []


def test_a_judge_reply_with_a_lone_surrogate_is_cleaned_and_the_scorecard_saves(mini_suite, trace):
    reply = json.dumps(
        {
            "verdicts": [
                {
                    "id": "looked_up_first",
                    "label": "met",
                    "evidence": [2],
                    "rationale": "half an emoji \ud83d and \x1b[2J",
                }
            ]
        }
    )
    card, _, _ = score(mini_suite, trace, [reply], [ratings(5)])
    verdict_ = next(i for i in card.items if i.id == "looked_up_first")
    assert verdict_.label == "met" and "\ufffd" in verdict_.detail and "\x1b" not in verdict_.detail
    assert (
        json.loads(card.model_dump_json())["trace_id"] == card.trace_id
    )  # serialises as UTF-8 JSON
