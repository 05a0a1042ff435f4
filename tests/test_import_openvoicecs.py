import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from callbench.cli import app
from callbench.importers import ImportFormatError, convert_openvoicecs
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import check_suite, load_suite

SAMPLE = Path(__file__).resolve().parent / "fixtures" / "openvoicecs" / "openvoicecs-sample.json"


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("ovcs") / "suite"
    return convert_openvoicecs(SAMPLE, out), out


@pytest.fixture(scope="module")
def run(converted, tmp_path_factory):
    _, out = converted
    return run_suite(
        load_suite(out),
        RunConfig(candidates=("oracle", "noop", "shortcut", "spray")),
        tmp_path_factory.mktemp("ovcs-run"),
    )


def test_every_scenario_converted_and_suite_validates(converted):
    report, out = converted
    source = json.loads(SAMPLE.read_text())
    assert report.converted_count == len(source["scenarios"]) == len(report.scenarios)
    check = check_suite(out)
    assert not check.errors, "\n".join(map(str, check.errors))
    assert set(check.suite.scenarios) == {s["id"] for s in source["scenarios"]}
    domains = {s["domain"] for s in source["scenarios"]}
    assert len(check.suite.agents) == len(domains)
    for agent in check.suite.agents.values():
        assert any(t.ends_call for t in agent.definition.tools)


def test_oracle_scores_100_and_baselines_stay_low(run):
    cands = run.report["candidates"]
    oracle = cands["oracle"]["per_scenario"]
    assert len(oracle) == 18
    assert all(row["task"] == 100.0 for row in oracle.values()), {
        k: v["task"] for k, v in oracle.items() if v["task"] != 100
    }
    assert cands["noop"]["scenarios_passed"] == 0
    assert cands["noop"]["task"] <= 5
    assert max(cands["shortcut"]["task"], cands["spray"]["task"]) <= cands["noop"]["task"] + 10
    assert run.report["gameability"]["figure"] <= 10
    assert cands["noop"]["conversation"] <= 5  # silence passes the checks, but earns nothing
    assert max(cands["shortcut"]["conversation"], cands["spray"]["conversation"]) <= 15


def test_report_lists_items_per_scenario(converted):
    report, out = converted
    for s in report.scenarios:
        assert s.file and (out / s.file).is_file()
        assert s.converted and s.approximated and s.dropped, s.id
    by_id = {s.id: s for s in report.scenarios}
    audio = by_id["utility-outage-audio-report-001"]
    assert any("audio" in d for d in audio.dropped)
    assert any("generated" in a for a in by_id["retail-refund-damaged-item-001"].approximated)
    # "refund" is printed in the retail policies, so a recital would earn the claim: dropped, and
    # said why
    assert any(
        "required_claims refund_processed" in d and "printed" in d
        for d in by_id["retail-refund-damaged-item-001"].dropped
    )
    assert any("phrase check" in c for c in by_id["telecom-billing-credit-001"].converted)
    data = json.loads((out / "conversion.json").read_text())
    assert [s["id"] for s in data["scenarios"]] == [s.id for s in report.scenarios]
    md = (out / "CONVERSION.md").read_text()
    assert all(f"## {s.id}" in md for s in report.scenarios)


def test_attribution_is_kept(converted):
    _, out = converted
    source = json.loads(SAMPLE.read_text())
    suite = load_suite(out)
    assert source["license"] in suite.manifest.description
    assert "OpenVoiceCS-Bench" in suite.manifest.description
    licence = (out / "LICENSE-DATA.txt").read_text()
    assert source["license"] in licence and source["source"] in licence
    assert "Creative Commons Attribution 4.0" in licence
    for agent in suite.agents.values():
        assert "CC BY 4.0" in agent.instructions


def test_forbidden_calls_and_gates(converted):
    _, out = converted
    scenario = load_suite(out).scenarios["retail-multiturn-address-repair-901"]
    forbidden = [a for a in scenario.expected_actions if a.count.forbids]
    assert forbidden and forbidden[0].tool == "confirm_shipping_address"
    assert scenario.gates and scenario.gates.verification_tool == "verify_identity"
    assert scenario.expected_state and scenario.backend.kind == "state"


def test_cli_converts(tmp_path):
    result = CliRunner().invoke(app, ["import", "openvoicecs", str(SAMPLE), str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    assert "CONVERSION.md" in result.output and "18 of 18" in result.output


@pytest.mark.parametrize(
    "content, field",
    [
        (None, "<file>"),
        ("{not json", "<json>"),
        (json.dumps({"items": []}), "scenarios"),
        (
            json.dumps(
                {"scenarios": [{"id": "a", "initial_state": {}, "tools": [], "conversation": []}]}
            ),
            "oracle",
        ),
        (
            json.dumps(
                [
                    {
                        "id": "a",
                        "initial_state": {},
                        "tools": [{"required_arguments": {}}],
                        "conversation": [],
                        "oracle": {},
                    }
                ]
            ),
            "tools[0].name",
        ),
    ],
)
def test_bad_input(tmp_path, content, field):
    src = tmp_path / "in.json"
    if content is not None:
        src.write_text(content)
    with pytest.raises(ImportFormatError) as exc:
        convert_openvoicecs(src, tmp_path / "out")
    assert str(src) in str(exc.value) and field in str(exc.value)
    result = CliRunner().invoke(app, ["import", "openvoicecs", str(src), str(tmp_path / "out")])
    assert result.exit_code == 2
    assert str(src) in result.output and field in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "path, value, field",
    [
        (("track",), 1, "track"),
        (("policy", "required_actions"), 3, "policy.required_actions"),
        (("tools", 0, "preconditions"), 1, "tools[0].preconditions"),
        (("tools", 0, "argument_bindings"), [1], "tools[0].argument_bindings"),
        (("oracle", "auth"), True, "oracle.auth"),
        (("oracle", "auth"), {"protected_tools": "x"}, "oracle.auth.protected_tools"),
        (("oracle", "auth"), {"protected_tools": [[]]}, "oracle.auth.protected_tools[0]"),
        (("oracle", "grounding"), "x", "oracle.grounding"),
        (("oracle", "grounding"), {"required_claims": 1}, "oracle.grounding.required_claims"),
        (
            ("oracle", "grounding"),
            {"required_claims": [{"id": "c", "any_terms": 1}]},
            "oracle.grounding.required_claims[0].any_terms",
        ),
        (
            ("oracle", "privacy"),
            {"forbidden_disclosures": {}},
            "oracle.privacy.forbidden_disclosures",
        ),
        (
            ("oracle", "privacy"),
            {"forbidden_disclosures": [{"id": "d", "patterns": True}]},
            "oracle.privacy.forbidden_disclosures[0].patterns",
        ),
        (("oracle", "forbidden_event_triggers"), [1], "oracle.forbidden_event_triggers"),
        (("oracle", "reference_response"), {}, "oracle.reference_response"),
    ],
)
def test_a_field_of_the_wrong_type_is_named_not_a_traceback(tmp_path, path, value, field):
    """These used to reach the conversion and fail there with a TypeError or AttributeError."""
    data = json.loads(SAMPLE.read_text())
    node = data["scenarios"][0]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    src = tmp_path / "in.json"
    src.write_text(json.dumps(data))
    with pytest.raises(ImportFormatError) as exc:
        convert_openvoicecs(src, tmp_path / "out")
    assert exc.value.field.endswith(f") .{field}".replace(" ", "")), exc.value.field


def test_the_import_keeps_the_sources_strictness(converted):
    """Pinned arguments stay pinned (a generated one may be left out, not changed), a refusal never
    names the wrong
    argument, brute force locks, and a tool the scenario does not declare is a model error and a
    broken guard."""
    import asyncio

    from callbench.backends.state import StateBackend
    from callbench.call import CandidateStep
    from callbench.callers import LineCaller
    from callbench.candidates import ScriptedCandidate, call
    from callbench.grading.scorecard import score_trace
    from callbench.runs import Attempt, run_attempt

    _, out = converted
    suite = load_suite(out)
    sid = "retail-refund-damaged-item-001"
    scenario = suite.scenarios[sid]
    world = StateBackend(scenario.backend, scenario.caller.knows)
    world.handle("verify_identity", {"account_id": "acct_1001"})
    wrong = world.handle(
        "issue_refund", {"order_id": "ord_7001", "amount_cents": 5299, "reason": "changed_mind"}
    )
    assert wrong.result["status"] == "refused" and wrong.result["precondition"] == "request_details"
    assert "reason" not in wrong.result.get("message", "")
    ok = world.handle(
        "issue_refund", {"order_id": "ord_7001", "amount_cents": 5299}
    )  # generated reason filled in
    assert ok.result["status"] != "refused"
    locked = StateBackend(scenario.backend, scenario.caller.knows)
    for guess in ("acct_1", "acct_2", "acct_3"):
        assert locked.handle("verify_identity", {"account_id": guess}).result["status"] == "refused"
    assert (
        locked.handle("verify_identity", {"account_id": "acct_1001"}).result["reason"] == "locked"
    )

    undeclared = next(a for a in scenario.expected_actions if a.id.startswith("undeclared_"))
    trace = asyncio.run(
        run_attempt(
            suite,
            Attempt("fake", sid, 0),
            0,
            caller=LineCaller(["hi"]),
            candidate=ScriptedCandidate(
                [
                    CandidateStep(
                        speech="One moment.",
                        tool_calls=(
                            call(undeclared.tool),
                            call("verify_identity", account_id="acct_1001"),
                        ),
                    )
                ]
            ),
        )
    )
    assert (
        trace.end.reason == "model_error"
        and trace.failure.failure_class == "model"
        and trace.outcome == "completed"
    )
    assert [e.name for e in trace.tool_events] == [
        undeclared.tool
    ]  # the rest of the message never ran
    card = score_trace(trace, scenario, suite.manifest)
    assert undeclared.id in card.guards.broken and not card.deterministic_passed


def test_values_no_one_says_are_reported(converted):
    report, out = converted
    assert report.unsayable == [s.id for s in report.scenarios if s.unsayable]
    assert (
        f"{len(report.unsayable)} scenario(s) need an argument value that no one ever says"
        in (out / "CONVERSION.md").read_text()
    )
