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
    assert rating.rating == 4 and rating.r == 0.75
    # the published formula keeps the pillars apart; guards mode earns conversation with the task
    reference = card.other_mode
    assert reference.conversation.score == 75.0
    assert reference.overall == pytest.approx((reference.task.score + 75.0) / 2)
    assert card.conversation.score == pytest.approx(75.0 * card.task.score / 100)
    assert card.overall == pytest.approx((card.task.score + card.conversation.score) / 2)
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


# --- usage: once per judge request, however many items one request decides


@pytest.fixture(scope="module")
def many_items():
    """A starter scenario with several judged criteria and the suite's several rated dimensions,
    played by the oracle."""
    from callbench.suite_check import load_suite

    suite = load_suite("starter")
    scenario = suite.scenarios["bijli-fallen-wire-emergency"]
    assert len(scenario.criteria) >= 3 and len(suite.manifest.conversation_criteria) >= 4
    trace = asyncio.run(run_attempt(suite, Attempt("oracle", scenario.id, 0), 0))
    return suite, scenario, trace


def _answer_every_item(messages, tools):
    rubric = json.loads(messages[1]["content"].split(" to judge\n", 1)[1])
    if '"verdicts"' in messages[0]["content"]:
        items = [{"id": c["id"], "label": "met", "evidence": [0], "rationale": "r"} for c in rubric]
        return json.dumps({"verdicts": items})
    items = [{"id": d["id"], "rating": 4, "evidence": [0], "rationale": "r"} for d in rubric]
    return json.dumps({"ratings": items})


def test_judge_usage_is_counted_once_per_request_not_once_per_item(many_items):
    """Two judge requests deciding seven items were once recorded as seven calls and 70 prompt
    tokens (the usage rode on every verdict, de-duplicated by the id of a dict pydantic copied)."""
    from callbench.models.base import ChatResponse
    from callbench.models.types import Usage

    suite, scenario, trace = many_items
    n_items = len(scenario.criteria) + len(suite.manifest.conversation_criteria)

    def respond(messages, tools):
        text = _answer_every_item(messages, tools)
        return ChatResponse(text=text, usage=Usage(100, 7, cached_tokens=40), attempts=2)

    model = ScriptedModel(respond=respond, name="fake:judge")
    graders = [ActionGrader(), TaskJudge(model), ConversationJudge(model)]
    card = asyncio.run(score_trace_async(trace, scenario, suite.manifest, graders))
    assert len(model.requests) == 2 and card.outcome == "completed"
    assert sum(1 for i in card.items if i.judge) == n_items >= 7
    judge = card.usage["judge"]
    assert (judge.calls, judge.prompt_tokens, judge.completion_tokens) == (2, 200, 14)
    assert (judge.cached_tokens, judge.retries) == (80, 2)  # one provider retry behind each
    assert all("usage" not in i.judge for i in card.items if i.judge)  # not per verdict any more


def test_judge_usage_counts_every_re_ask_and_a_failed_judge(many_items):
    suite, scenario, trace = many_items
    task_model = ScriptedModel(["no JSON here", "still none"], name="fake:judge")
    replies = iter(["I'd say four.", None])  # prose first, then a good answer

    def respond(messages, tools):
        return next(replies) or _answer_every_item(messages, tools)

    conv_model = ScriptedModel(respond=respond, name="fake:judge")
    graders = [TaskJudge(task_model), ConversationJudge(conv_model)]
    card = asyncio.run(score_trace_async(trace, scenario, suite.manifest, graders))
    # the task judge failed after two requests; the conversation judge needed two: four in all
    assert len(task_model.requests) == 2 and len(conv_model.requests) == 2
    assert card.outcome == "excluded" and card.failure.kind == "JudgeFailure"
    judge = card.usage["judge"]
    assert (judge.calls, judge.prompt_tokens) == (4, 40)  # the fake counts 10 prompt tokens each


def test_judges_the_verifier_and_code_graders_are_one_grader_protocol(many_items):
    """LLM judges were found by `hasattr(grader, "agrade")` and the verifier was no grader at all;
    now every grader is a `Grader`, and the deterministic ones say so by their class."""
    from callbench.grading import CodeGrader, Grader
    from callbench.grading.scorecard import default_graders
    from callbench.grading.verifier import LLMVerifier

    suite, scenario, trace = many_items

    def respond(messages, tools):
        checks = json.loads(messages[1]["content"].split("## Checks\n", 1)[1])
        answers = [
            {"id": c["id"], "holds": True, "evidence": [1, 999], "quote": "q"} for c in checks
        ]
        return json.dumps({"checks": answers})

    model = ScriptedModel(respond=respond, name="fake:verifier")
    verifier = LLMVerifier(model)
    judges = [TaskJudge(model), ConversationJudge(model), verifier]
    assert all(isinstance(g, Grader) and not isinstance(g, CodeGrader) for g in judges)
    assert all(isinstance(g, Grader) and isinstance(g, CodeGrader) for g in default_graders())

    card = asyncio.run(score_trace_async(trace, scenario, suite.manifest, [verifier]))
    decided = [i for i in card.items if i.grader == "llm_verifier"]
    asked = json.loads(model.requests[0]["messages"][1]["content"].split("## Checks\n", 1)[1])
    assert len(model.requests) == 1 and [i.id for i in decided] == [c["id"] for c in asked]
    assert decided and all(i.label == "met" and i.r == 1.0 for i in decided)
    assert all(i.evidence == [1] and i.detail == "q" for i in decided)  # 999 is no entry
    assert all(i.judge["model"] == "fake:verifier" for i in decided)
    assert card.usage["judge"].calls == 1 and verifier.usage.calls == 1
