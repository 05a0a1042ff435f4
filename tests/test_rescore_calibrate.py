"""Re-scoring stored runs without replaying calls, and calibrating LLM graders against code and
themselves."""

import json
import re

from typer.testing import CliRunner

from callbench.cli import app
from callbench.runs import RunConfig, run_suite
from callbench.runs.rescore import rescore
from callbench.testing import FakeProvider


def judge_responder(label="met", rating=4, holds=True):
    def respond(body):
        system = body["messages"][0]["content"]
        user = body["messages"][1]["content"]
        ids = re.findall(r'"id": "([^"]+)"', user)
        if "verify explicit claims" in system:
            return json.dumps(
                {
                    "checks": [
                        {
                            "id": i,
                            "holds": holds if i == "speakable" else True,
                            "evidence": [0],
                            "quote": "x",
                        }
                        for i in ids
                    ]
                }
            )
        if "rate one recorded phone call" in system:
            return json.dumps(
                {
                    "ratings": [
                        {"id": i, "rating": rating, "evidence": [0], "rationale": "r"} for i in ids
                    ]
                }
            )
        return json.dumps(
            {
                "verdicts": [
                    {"id": i, "label": label, "evidence": [0], "rationale": "r"} for i in ids
                ]
            }
        )

    return respond


def test_rescoring_with_the_same_graders_reproduces_the_report(mini_suite, tmp_path):
    run_suite(mini_suite, RunConfig(repeats=2, seed=3), tmp_path / "r")
    original = json.loads((tmp_path / "r" / "report.json").read_text())
    result = rescore(tmp_path / "r", tag="same")
    assert result.report_path.name == "report-same.json"
    assert result.report["candidates"] == original["candidates"]
    assert result.report["judge"] is None and result.report["rescored_from"] == "report.json"
    # the old report and scorecards are untouched; new scorecards sit beside them
    assert json.loads((tmp_path / "r" / "report.json").read_text()) == original
    assert (tmp_path / "r" / "scorecards-same").is_dir() and (
        tmp_path / "r" / "scorecards"
    ).is_dir()


def test_rescoring_with_a_judge_fills_the_conversation_pillar_and_is_labelled(mini_suite, tmp_path):
    run_suite(mini_suite, RunConfig(candidates=("oracle",)), tmp_path / "r")
    with FakeProvider(judge_responder(label="partial", rating=5)) as judge:
        spec = f"openai-compatible:{judge.base_url}#judge-a"
        result = rescore(tmp_path / "r", judge=spec, tag="judged")
    row = result.report["candidates"]["oracle"]
    assert result.report["judge"]["model"] == spec and "task_judge" in result.report["graders"]
    assert row["conversation"] is not None and row["overall"] is not None
    card = result.scorecards[0]
    crit = next(i for i in card.items if i.id == "looked_up_first")
    assert crit.label == "partial" and crit.judge["model"] == spec
    assert card.usage["judge"].calls == 2 and card.models["judge"] == spec
    # a different judge model is labelled as such
    with FakeProvider(judge_responder()) as judge:
        other = f"openai-compatible:{judge.base_url}#judge-b"
        second = rescore(tmp_path / "r", judge=other, tag="judge-b")
    assert second.report["judge"]["model"] == other != result.report["judge"]["model"]


def test_rescore_refuses_a_changed_suite_and_unknown_graders(mini_path, tmp_path):
    import shutil

    import pytest

    from callbench.errors import CallbenchError
    from callbench.suite_check import load_suite

    suite_copy = tmp_path / "suite"
    shutil.copytree(mini_path, suite_copy)
    run_suite(load_suite(suite_copy), RunConfig(candidates=("noop",)), tmp_path / "r")
    with pytest.raises(CallbenchError, match="unknown grader"):
        rescore(tmp_path / "r", graders=["vibes"])
    text = (suite_copy / "agents/parcel-desk/instructions.md").read_text()
    (suite_copy / "agents/parcel-desk/instructions.md").write_text(text + "\nBe brief.\n")
    with pytest.raises(CallbenchError, match="suite has changed"):
        rescore(tmp_path / "r")
    only = rescore(tmp_path / "r", graders=["actions"], force=True, tag="actions-only")
    assert {i.grader for i in only.scorecards[0].items} <= {"actions", "none"}


def test_cli_score_and_calibrate(mini_suite, tmp_path):
    run_suite(mini_suite, RunConfig(candidates=("oracle", "noop")), tmp_path / "r")
    runner = CliRunner()
    res = runner.invoke(app, ["score", str(tmp_path / "r"), "--tag", "again"])
    assert res.exit_code == 0 and "report-again.json" in res.output
    with FakeProvider(judge_responder(holds=False)) as judge:
        res = runner.invoke(
            app,
            ["calibrate", str(tmp_path / "r"), "--judge", f"openai-compatible:{judge.base_url}#j"],
        )
    assert res.exit_code == 0, res.output
    path = next((tmp_path / "r").glob("calibration-*.json"))
    result = json.loads(path.read_text())
    # the fake verifier calls every reply unspeakable and says yes to everything else: code and LLM
    # disagree on
    # speakable in both traces, and on the noop's goodbye (it never says one; the fake says it did)
    code = result["code_vs_llm"]
    disagreements = sorted((d["trace"], d["check"]) for d in code["disagreements"])
    assert disagreements == [
        ("noop/reschedule/r0", "goodbye"),
        ("noop/reschedule/r0", "speakable"),
        ("oracle/reschedule/r0", "speakable"),
    ]
    assert code["items"] == 8 and code["agree"] == 5
    # a deterministic fake agrees with itself and ignores order
    assert (
        result["self_agreement"]["task"]["rate"] == 1.0
        and result["order_sensitivity"]["conversation"]["rate"] == 1.0
    )
    assert "kappa" in code and result["judge_failures"] == 0
    res = runner.invoke(app, ["score", str(tmp_path / "nowhere")])
    assert res.exit_code == 2 and "not a run folder" in res.output


def test_kappa():
    from callbench.stats import cohens_kappa

    assert cohens_kappa(["a", "b", "a", "b"], ["a", "b", "a", "b"]) == 1.0
    assert cohens_kappa(["a", "a", "b", "b"], ["a", "b", "a", "b"]) == 0.0
    assert cohens_kappa(["a", "a"], ["a", "a"]) is None
    assert round(cohens_kappa(list("aaabbb"), list("aababb")), 4) == 0.3333
