import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from callbench.cli import app
from callbench.importers import ImportFormatError, convert_openvoicecs
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import check_suite, load_suite

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "data" / "openvoicecs-sample.json"
if not SAMPLE.is_file():
    SAMPLE = Path("/work/shared/data/openvoicecs-sample.json")
pytestmark = pytest.mark.skipif(not SAMPLE.is_file(), reason="OpenVoiceCS sample data not available")


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("ovcs") / "suite"
    return convert_openvoicecs(SAMPLE, out), out


@pytest.fixture(scope="module")
def run(converted, tmp_path_factory):
    _, out = converted
    return run_suite(load_suite(out), RunConfig(candidates=("oracle", "noop", "shortcut")), tmp_path_factory.mktemp("ovcs-run"))


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
    assert all(row["task"] == 100.0 for row in oracle.values()), {k: v["task"] for k, v in oracle.items() if v["task"] != 100}
    assert cands["noop"]["scenarios_passed"] == 0
    assert cands["shortcut"]["task"] <= cands["oracle"]["task"] - 50


def test_report_lists_items_per_scenario(converted):
    report, out = converted
    for s in report.scenarios:
        assert s.file and (out / s.file).is_file()
        assert s.converted and s.approximated and s.dropped, s.id
    by_id = {s.id: s for s in report.scenarios}
    audio = by_id["utility-outage-audio-report-001"]
    assert any("audio" in d for d in audio.dropped)
    assert any("generated" in a for a in by_id["retail-refund-damaged-item-001"].approximated)
    assert any("grounding" in d for d in by_id["retail-refund-damaged-item-001"].dropped)
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


@pytest.mark.parametrize("content, field", [
    (None, "<file>"),
    ("{not json", "<json>"),
    (json.dumps({"items": []}), "scenarios"),
    (json.dumps({"scenarios": [{"id": "a", "initial_state": {}, "tools": [], "conversation": []}]}), "oracle"),
    (json.dumps([{"id": "a", "initial_state": {}, "tools": [{"required_arguments": {}}], "conversation": [],
                  "oracle": {}}]), "tools[0].name"),
])
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
