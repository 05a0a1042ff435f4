"""report.json is the typed `Report` (issue 13, finding 8): what the harness writes validates, the
JSON Schema `callbench schema report` prints accepts a real report and refuses a broken one, an
older report still loads, and the readers (HTML, leaderboard, compare, table) go through the
model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from callbench.cli import app
from callbench.errors import CallbenchError
from callbench.reports.compare import compare
from callbench.reports.html import render_html
from callbench.reports.leaderboard import build_leaderboard
from callbench.reports.model import Report, load_report, report_schema
from callbench.reports.report import write_report
from callbench.reports.table import summary_table
from callbench.runs import RunConfig, run_suite
from callbench.runs.rebuild import rebuild_report
from callbench.runs.rescore import rescore

MINI = Path(__file__).parent / "fixtures" / "mini"

V1_CANDIDATE_KEYS = (
    "attempted",
    "completed",
    "excluded",
    "coverage",
    "measured",
    "task",
    "conversation",
    "overall",
    "task_points",
    "task_max_points",
    "unmeasured_items",
    "calls_passed",
    "scenarios",
    "scenarios_passed",
    "per_scenario",
)
"""A candidate row as the first report (schema 1) wrote it."""
V1_TOP_KEYS = (
    "schema_version",
    "suite",
    "run",
    "caller",
    "judge",
    "code",
    "coverage_floor",
    "candidates",
    "manifest",
)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    from callbench.suite_check import load_suite

    out = tmp_path_factory.mktemp("typed") / "run"
    run_suite(load_suite(MINI), RunConfig(candidates=("oracle", "noop", "shortcut")), out)
    return out


@pytest.fixture(scope="module")
def printed_schema() -> dict:
    res = CliRunner().invoke(app, ["schema", "report"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def older(report: dict) -> dict:
    """The report cut down to the keys a schema-1 report had."""
    old = {k: v for k, v in report.items() if k in V1_TOP_KEYS}
    old["schema_version"] = 1
    old["candidates"] = {
        name: {k: v for k, v in row.items() if k in V1_CANDIDATE_KEYS}
        for name, row in report["candidates"].items()
    }
    return old


def test_every_report_the_harness_writes_validates(run_dir, printed_schema):
    """A run's report, a rescored one and a rebuilt one: each loads as the model and passes the
    printed JSON Schema."""
    written = {"run": (run_dir / "report.json").read_text()}
    written["rescore"] = rescore(run_dir, tag="typed").report_path.read_text()
    rebuilt, _ = rebuild_report(run_dir)  # over the run's own report.json
    written["rebuild"] = rebuilt.read_text()
    for how, text in written.items():
        data = json.loads(text)
        report = Report.model_validate(data)
        jsonschema.validate(data, printed_schema)
        # the model reproduces the file: no field is lost or invented on the way through
        assert report.as_json() == data, how
    assert Report.model_validate_json(written["run"]).store is not None  # the runner's counts
    assert Report.model_validate_json(written["rescore"]).rescored_from == "report.json"


def test_the_printed_schema_refuses_a_broken_report(run_dir, printed_schema):
    data = json.loads((run_dir / "report.json").read_text())
    assert printed_schema == report_schema()
    for broken in (
        {**data, "candidates": {"x": {**data["candidates"]["oracle"], "coverage": "high"}}},
        {**data, "candidates": {"x": {**data["candidates"]["oracle"], "covrage": 1.0}}},
        {k: v for k, v in data.items() if k != "suite"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, printed_schema)
        with pytest.raises(ValidationError):
            Report.model_validate(broken)


def test_schema_command_lists_report_with_the_other_kinds(tmp_path):
    res = CliRunner().invoke(app, ["schema", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "report.schema.json").exists() and (tmp_path / "trace.schema.json").exists()


def test_an_older_report_loads_and_every_reader_says_what_is_missing(run_dir, tmp_path):
    old = older(json.loads((run_dir / "report.json").read_text()))
    report = Report.model_validate(old)
    oracle = report.candidates["oracle"]
    assert oracle.intervals is None and oracle.completion is None and oracle.operational is None
    assert not oracle.has("flake_rate") and report.slices is None and report.scoring is None
    folder = tmp_path / "old"
    shutil.copytree(run_dir, folder)
    (folder / "report.json").write_text(json.dumps(old))
    page = render_html(folder, folder / "report.html").read_text()
    assert "not available in this report" in page and "no interval" in page
    board = build_leaderboard([folder], tmp_path / "board")
    assert [e["candidate"] for e in board["ranked"]][0] == "oracle"
    assert board["ranked"][0]["completion_rate"] is None
    assert board["identity"][0]["scoring"] == "reference"  # before the modes: the reference
    summary_table(report)


def test_readers_refuse_a_mistyped_report_naming_the_field(run_dir, tmp_path):
    """A field of the wrong type used to pass the readers' dict lookups and fail later, or draw a
    wrong table; the model names it."""
    data = json.loads((run_dir / "report.json").read_text())
    data["candidates"]["noop"]["completion"]["rate"] = "most"
    folder = tmp_path / "bad"
    shutil.copytree(run_dir, folder)
    (folder / "run.json").unlink()  # not a run any more: conftest checks every run's report
    (folder / "report.json").write_text(json.dumps(data))
    where = "candidates.noop.completion.rate"
    with pytest.raises(CallbenchError, match=f"not a callbench report .*{where}"):
        build_leaderboard([folder], tmp_path / "board")
    with pytest.raises(CallbenchError, match=where):
        compare(str(folder / "report.json") + "::oracle", str(run_dir / "report.json") + "::noop")
    with pytest.raises(CallbenchError, match=where):
        render_html(folder, tmp_path / "bad.html")


def test_write_report_validates_before_writing(run_dir, tmp_path):
    data = json.loads((run_dir / "report.json").read_text())
    written = write_report(tmp_path / "ok.json", data)
    assert load_report(tmp_path / "ok.json") == written
    for bad in (
        {**data, "gameability": {"figure": float("nan"), "noop": 0, "by": "x", "baselines": {}}},
        {**data, "surprise": 1},
    ):
        with pytest.raises(ValidationError):
            write_report(tmp_path / "bad.json", bad)
    assert not (tmp_path / "bad.json").exists()


def test_cost_is_absent_not_null_when_no_price_is_known():
    from callbench.reports.model import UsageRow

    row = {"model": "m", "calls": 1, "prompt_tokens": 2, "completion_tokens": 3}
    assert "cost_usd" not in UsageRow.model_validate(row).model_dump(mode="json")
    priced = UsageRow.model_validate({**row, "cost_usd": 0.5}).model_dump(mode="json")
    assert priced["cost_usd"] == 0.5
