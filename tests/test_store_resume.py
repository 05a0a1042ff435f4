"""The run store and resume: whole calls only, nothing lost, nothing duplicated, refusals with
reasons."""

import json
import sqlite3
from dataclasses import replace

import pytest
from reports_util import untimed
from typer.testing import CliRunner

from callbench.cli import app
from callbench.runs import RunConfig, run_suite
from callbench.runs.executors import InlineExecutor, SimulatedCrash
from callbench.runs.store import RunStore, StoreError

CONFIG = RunConfig(candidates=("oracle", "noop", "shortcut"), repeats=4, seed=9)


def rows(path):
    db = sqlite3.connect(path / "run.sqlite")
    return db.execute("SELECT trace_id, state FROM attempts ORDER BY position").fetchall()


def test_crash_then_resume_gives_every_call_once_and_the_same_scores(mini_suite, tmp_path):
    clean = run_suite(mini_suite, CONFIG, tmp_path / "clean")
    for crash_after in (3, 5):
        try:
            run_suite(
                mini_suite,
                CONFIG,
                tmp_path / "crashy",
                executor=InlineExecutor(crash_after=crash_after),
                resume=(tmp_path / "crashy").exists(),
            )
        except SimulatedCrash:
            pass
        states = dict(rows(tmp_path / "crashy"))
        assert list(states.values()).count("running") == 1  # the call in flight when it "died"
    resumed = run_suite(mini_suite, CONFIG, tmp_path / "crashy", resume=True)
    final = rows(tmp_path / "crashy")
    assert (
        len(final) == 12
        and len({t for t, _ in final}) == 12
        and {s for _, s in final} == {"completed"}
    )
    assert untimed(resumed.report) == untimed(clean.report)
    assert resumed.report["store"]["completed"] == 12 and resumed.report["store"]["pending"] == 0
    assert len(list((tmp_path / "crashy" / "traces").rglob("*.json"))) == 12


def test_resume_refuses_a_changed_configuration_or_suite(mini_suite, mini_path, tmp_path):
    import shutil

    run_suite(mini_suite, CONFIG, tmp_path / "r")
    with pytest.raises(StoreError, match=r"configuration changed \(repeats\)"):
        run_suite(mini_suite, replace(CONFIG, repeats=5), tmp_path / "r", resume=True)
    copy = tmp_path / "suite"
    shutil.copytree(mini_path, copy)
    (copy / "agents/parcel-desk/instructions.md").write_text(
        "changed " + (copy / "agents/parcel-desk/instructions.md").read_text()
    )
    from callbench.suite_check import load_suite

    with pytest.raises(StoreError, match="the suite changed"):
        run_suite(load_suite(copy), CONFIG, tmp_path / "r", resume=True)
    with pytest.raises(StoreError, match="no run store"):
        (tmp_path / "empty").mkdir()
        run_suite(mini_suite, CONFIG, tmp_path / "empty", resume=True)


def test_cli_resume_uses_the_stored_configuration(mini_path, tmp_path):
    runner = CliRunner()
    res = runner.invoke(
        app,
        [
            "run",
            "--suite",
            str(mini_path),
            "--candidate",
            "oracle",
            "--repeats",
            "3",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["run", "--resume", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert len(rows(tmp_path / "r")) == 3
    res = runner.invoke(app, ["run", "--resume", str(tmp_path / "r"), "--repeats", "4"])
    assert res.exit_code == 2 and "drop --repeats" in res.output
    res = runner.invoke(app, ["export", str(tmp_path / "r"), "--jsonl", str(tmp_path / "t.jsonl")])
    assert res.exit_code == 0 and "3 traces" in res.output
    lines = (tmp_path / "t.jsonl").read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["candidate"] == "oracle"


def test_max_cost_stops_scheduling_and_leaves_the_run_resumable(mini_suite, tmp_path):
    from callbench.models.base import ModelSettings
    from callbench.testing import FakeProvider

    with FakeProvider(lambda body: "Hello, how can I help?") as fp:
        name = f"openai-compatible:{fp.base_url}#m"
        prices = {
            name: {"input": 1000.0, "output": 1000.0}
        }  # absurd prices: each call costs about a dollar
        config = RunConfig(
            candidates=(name,),
            repeats=6,
            concurrency=1,
            prices=prices,
            candidate_options={"settings": ModelSettings(max_retries=0)},
        )
        first = run_suite(mini_suite, config, tmp_path / "r", max_cost=2.5)
        store = first.report["store"]
        assert store["stopped_by_budget"] and store["pending"] > 0 and store["spent_usd"] <= 2.5
        done_before = store["completed"]
        second = run_suite(mini_suite, config, tmp_path / "r", resume=True)
    assert second.report["store"]["completed"] == 6 and done_before < 6


def test_dry_run_spends_nothing(mini_path, tmp_path):
    res = CliRunner().invoke(
        app,
        [
            "run",
            "--suite",
            str(mini_path),
            "--candidate",
            "openai-compatible:http://127.0.0.1:9/v1#m",
            "--dry-run",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert res.exit_code == 0, res.output
    estimate = json.loads(res.output)
    assert (
        estimate["calls"] == 1
        and estimate["candidates"]["openai-compatible:http://127.0.0.1:9/v1#m"]["prompt_tokens"] > 0
    )
    assert not (tmp_path / "r").exists()


def test_store_finish_is_all_or_nothing(tmp_path):
    from callbench.runs import Attempt

    store = RunStore(tmp_path / "s.sqlite")
    store.add_attempts([Attempt("c", "s", 0)])
    assert store.add_attempts([Attempt("c", "s", 0)]) == 0  # no duplicates on re-plan
    with pytest.raises(StoreError):
        store.finish("c/s/r0", "running", "{}", "{}", None)
    assert store.counts() == {"pending": 1}
