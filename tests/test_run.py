"""Whole runs through the library and the CLI: determinism, artifacts, and the baselines'
figures."""

import json
import subprocess
import sys

from typer.testing import CliRunner

from callbench.call import read_trace
from callbench.cli import app
from callbench.runs import RunConfig, run_suite


def test_same_seed_same_traces_apart_from_timings(mini_suite, tmp_path):
    config = RunConfig(repeats=2, seed=5)
    a = run_suite(mini_suite, config, tmp_path / "a")
    b = run_suite(mini_suite, config, tmp_path / "b")
    files = sorted(
        p.relative_to(tmp_path / "a") for p in (tmp_path / "a" / "traces").rglob("*.json")
    )
    assert len(files) == 8  # oracle, noop, shortcut, spray x 2 repeats
    for rel in files:
        ta, tb = read_trace(tmp_path / "a" / rel), read_trace(tmp_path / "b" / rel)
        assert ta.without_timings() == tb.without_timings()
        assert (
            ta.timings.started_at
        )  # timing fields are filled, and are the only ones allowed to differ

    def untimed(
        report,
    ):  # latency percentiles are wall-clock: the only report figures allowed to differ
        out = json.loads(json.dumps(report["candidates"]))
        for row in out.values():
            for key in ("latency_p50_s", "latency_p90_s", "latency_p99_s"):
                row["operational"].pop(key)
        return out

    assert untimed(a.report) == untimed(b.report)
    assert (
        a.report["run_id"] == b.report["run_id"]
    )  # derived from suite and configuration, not from the folder


def test_different_seed_changes_seeded_damage(mini_path, tmp_path):
    from callbench.spec import ChannelProgram
    from callbench.suite_check import load_suite

    suite = load_suite(mini_path)
    sc = suite.scenarios["reschedule"]
    noisy = sc.model_copy(update={"channel": ChannelProgram(seeded_first_turn=True)})
    suite = suite.model_copy(update={"scenarios": {"reschedule": noisy}})
    seen = set()
    for seed in range(6):
        result = run_suite(
            suite, RunConfig(candidates=("oracle",), seed=seed), tmp_path / f"s{seed}"
        )
        trace = read_trace(tmp_path / f"s{seed}" / "traces/oracle/reschedule/r0.json")
        seen.add(trace.caller_turns[0].observed[0])
        assert result.report["candidates"]["oracle"]["task"] == 100.0
    assert len(seen) > 1


def test_report_has_manifest_and_baseline_figures(mini_suite, tmp_path):
    result = run_suite(mini_suite, RunConfig(), tmp_path / "r")
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["suite"]["sha256"] == mini_suite.sha256
    assert set(report["candidates"]) == {"oracle", "noop", "shortcut", "spray"}
    assert report["gameability"]["figure"] <= 10 and report["scoring"]["mode"] == "guards"
    assert report["candidates"]["oracle"]["task"] == 100.0
    assert report["candidates"]["noop"]["task"] == 0.0
    assert report["candidates"]["oracle"]["coverage"] == 1.0
    import hashlib

    for rel, digest in report["manifest"].items():
        assert hashlib.sha256((tmp_path / "r" / rel).read_bytes()).hexdigest() == digest
    assert len(result.scorecards) == 4


def test_cli_run_and_show(mini_path, tmp_path):
    runner = CliRunner()
    out = tmp_path / "run"
    page = tmp_path / "site" / "report.html"
    res = runner.invoke(
        app,
        ["run", "--suite", str(mini_path), "--out", str(out), "--seed", "3", "--html", str(page)],
    )
    assert res.exit_code == 0, res.output
    assert "oracle" in res.output and "100.0" in res.output
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    res = runner.invoke(app, ["show", str(out / "traces/oracle/reschedule/r0.json")])
    assert res.exit_code == 0
    assert (
        "channel split" in res.output
        and "lookup_parcel" in res.output
        and "ENDED CALL" in res.output
    )
    # refusing to overwrite a finished run
    res = runner.invoke(app, ["run", "--suite", str(mini_path), "--out", str(out)])
    assert res.exit_code == 2 and "already exists" in res.output


def test_cli_bad_inputs_get_one_line_errors(mini_path, tmp_path):
    runner = CliRunner()
    res = runner.invoke(
        app,
        ["run", "--suite", str(mini_path), "--candidate", "gpt-9", "--out", str(tmp_path / "x")],
    )
    assert (
        res.exit_code == 2
        and "unknown candidate 'gpt-9'" in res.output
        and "Traceback" not in res.output
    )
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    res = runner.invoke(app, ["show", str(bad)])
    assert res.exit_code == 2 and "not a readable JSON trace" in res.output
    res = runner.invoke(app, ["run", "--suite", str(tmp_path / "nowhere")])
    assert res.exit_code == 2 and "no suite folder" in res.output


def test_cli_schema_writes_files_for_editors(tmp_path):
    res = CliRunner().invoke(app, ["schema", "--out", str(tmp_path)])
    assert res.exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "agent.schema.json",
        "report.schema.json",
        "scenario.schema.json",
        "suite.schema.json",
        "trace.schema.json",
    ]


def test_cli_schema_prints_json_schema():
    res = CliRunner().invoke(app, ["schema", "scenario"])
    schema = json.loads(res.output)
    assert "caller" in schema["properties"] and "expected_actions" in schema["properties"]
    assert CliRunner().invoke(app, ["schema", "nope"]).exit_code == 2
    every = json.loads(CliRunner().invoke(app, ["schema"]).output)
    assert set(every) == {"suite", "agent", "scenario", "trace", "report"}


def test_help_does_not_import_heavy_modules():
    code = (
        "import sys, runpy; sys.argv=['callbench','--help'];\n"
        "try:\n  runpy.run_module('callbench.cli', run_name='__main__')\nexcept SystemExit: pass\n"
        "heavy=[m for m in ('pydantic','numpy','jsonschema','yaml','callbench.spec') if m in "
        "sys.modules]\n"
        "print('HEAVY', heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    assert "HEAVY []" in out


def test_run_refuses_up_front_scenarios_the_scripted_caller_cannot_play(mini_suite, tmp_path):
    import pytest

    sc = mini_suite.scenarios["reschedule"]
    step = sc.caller.plan[1].model_copy(
        update={"cue": []}
    )  # only the opening step may go without cues
    broken = sc.model_copy(
        update={
            "caller": sc.caller.model_copy(
                update={"plan": [sc.caller.plan[0], step, *sc.caller.plan[2:]]}
            )
        }
    )
    suite = mini_suite.model_copy(update={"scenarios": {"reschedule": broken}})
    from callbench.errors import CallbenchError

    with pytest.raises(
        CallbenchError, match="'scripted' caller cannot run: .*lack a 'say' line or cues"
    ):
        run_suite(suite, RunConfig(), tmp_path / "r")
    assert not (tmp_path / "r").exists()
