"""Reports rebuilt from the store, the offline leaderboard, paired comparisons and measurement
honesty."""

import json
import shutil

import pytest
from typer.testing import CliRunner

from callbench.cli import app
from callbench.errors import CallbenchError
from callbench.reports.compare import compare
from callbench.reports.leaderboard import build_leaderboard
from callbench.reports.report import REPORT_SCHEMA_VERSION
from callbench.runs import RunConfig, run_suite
from callbench.runs.rebuild import rebuild_report
from callbench.suite_check import load_suite


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    suite = load_suite("starter")
    run_suite(suite, RunConfig(candidates=("oracle", "noop"), repeats=2, seed=1), root / "a")
    run_suite(suite, RunConfig(candidates=("shortcut",), repeats=2, seed=1), root / "b")
    return root


def test_report_carries_intervals_completion_and_honesty_figures(runs):
    report = json.loads((runs / "a" / "report.json").read_text())
    oracle = report["candidates"]["oracle"]
    assert (
        oracle["intervals"]["task"]["low"] == oracle["intervals"]["task"]["high"] == 100.0
    )  # no variance at all
    noop = report["candidates"]["noop"]
    assert noop["intervals"]["task"]["low"] <= noop["task"] <= noop["intervals"]["task"]["high"]
    assert oracle["completion"] == {
        "passed": 32,
        "of": 32,
        "rate": 1.0,
        "wilson": oracle["completion"]["wilson"],
    }
    assert oracle["completion"]["wilson"][0] > 0.89
    assert oracle["pass_k"]["pass^2"] == 1.0 and noop["pass_k"]["pass^1"] == 0.0
    assert oracle["flake_rate"] == 0.0 and report["ranking"] == ["oracle", "noop"]
    assert report["comparisons"][0]["a"] == "oracle" and report["comparisons"][0]["wins"] == 16
    assert set(report["slices"]["language"]["oracle"]) == {"en", "gu", "hi"}
    assert (
        oracle["operational"]["tool_calls_per_call"] > 0
        and noop["operational"]["tool_calls_per_call"] == 0
    )
    assert report["schema_version"] == REPORT_SCHEMA_VERSION
    assert report["bootstrap"]["samples"] == 2000
    assert report["scoring"]["mode"] == "guards" and "guard" in report["scoring"]["rule"]
    assert (
        oracle["completion_at_cutoff"]["passed"] == 32
        and noop["completion_at_cutoff"]["passed"] == 0
    )


def test_rebuild_from_the_store_reproduces_the_report(runs, tmp_path):
    copy = tmp_path / "a"
    shutil.copytree(runs / "a", copy)
    before = json.loads((copy / "report.json").read_text())
    _, after = rebuild_report(copy)
    for key in ("candidates", "ranking", "comparisons", "slices", "manifest", "run_id"):
        assert after[key] == before[key], key


def test_leaderboard_is_reproducible_byte_for_byte(runs, tmp_path):
    board = build_leaderboard([runs / "a", runs / "b"], tmp_path / "one")
    build_leaderboard([runs / "b" / "report.json", runs / "a"], tmp_path / "two")
    for name in ("leaderboard.json", "leaderboard.csv", "leaderboard.md"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    # the shortcut earns nothing above the noop on the starter suite: a tie at 0, broken by name
    assert [r["candidate"] for r in board["ranked"]] == ["oracle", "noop", "shortcut"]
    assert (
        board["reports"][0]["manifest"]["missing"] == 0
        and board["reports"][0]["manifest"]["checked"] > 30
    )
    md = (tmp_path / "one" / "leaderboard.md").read_text()
    assert "| 1 | oracle |" in md and "[" in md


def test_leaderboard_refuses_tampered_or_unlike_reports(runs, tmp_path, mini_suite):
    copy = tmp_path / "a"
    shutil.copytree(runs / "a", copy)
    trace = next((copy / "traces").rglob("r0.json"))
    trace.write_text(trace.read_text().replace('"caller"', '"caller" ', 1))
    with pytest.raises(CallbenchError, match="has changed since the report was written"):
        build_leaderboard([copy], tmp_path / "x")
    run_suite(mini_suite, RunConfig(candidates=("oracle",)), tmp_path / "mini")
    with pytest.raises(CallbenchError, match="suite differs"):
        build_leaderboard([runs / "a", tmp_path / "mini"], tmp_path / "y")
    run_suite(
        load_suite("starter"),
        RunConfig(candidates=("noop",), seed=1, scoring="reference"),
        tmp_path / "ref",
    )
    with pytest.raises(CallbenchError, match="scoring differs: guards, reference"):
        build_leaderboard([runs / "a", tmp_path / "ref"], tmp_path / "w")
    board = build_leaderboard([runs / "a", tmp_path / "mini"], tmp_path / "z", force=True)
    assert (
        board["mixed"]
        and "Mixed comparison (forced)" in (tmp_path / "z" / "leaderboard.md").read_text()
    )
    assert (tmp_path / "z" / "leaderboard.csv").read_text().startswith("# MIXED")


def test_compare_from_a_run_and_from_two_reports(runs):
    r = compare(str(runs / "a"), "oracle", "noop")
    assert r["n"] == 16 and r["wins"] == 16 and r["losses"] == 0 and r["low"] > 0
    r = compare(str(runs / "a" / "report.json") + "::oracle", str(runs / "b" / "report.json"))
    assert r["a"] == "oracle" and r["b"] == "shortcut" and r["wins"] == 16
    res = CliRunner().invoke(app, ["compare", str(runs / "a"), "oracle", "noop"])
    assert res.exit_code == 0 and "wins 16, losses 0, ties 0" in res.output


def test_unmeasured_candidate_is_listed_with_its_cause_not_ranked(tmp_path):
    from callbench.models.base import ModelSettings
    from callbench.testing import FakeProvider

    suite = load_suite("tests/fixtures/mini")
    fast = ModelSettings(max_retries=0, timeout_s=2)
    with FakeProvider(lambda body: {"fault": "unavailable"}) as fp:
        name = f"openai-compatible:{fp.base_url}#down"
        run_suite(
            suite,
            RunConfig(
                candidates=("oracle", name),
                repeats=3,
                infra_reruns=0,
                candidate_options={"settings": fast},
            ),
            tmp_path / "r",
        )
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    down = report["candidates"][name]
    assert not down["measured"] and "below the 90% floor" in down["unmeasured_cause"]
    assert down["exclusions"] == {"infrastructure": {"count": 3, "passes": 0}}
    assert report["ranking"] == ["oracle"] and report["unmeasured"] == [name]
    board = build_leaderboard([tmp_path / "r"], tmp_path / "lb")
    assert [r["candidate"] for r in board["ranked"]] == ["oracle"] and board["unmeasured"][0][
        "candidate"
    ] == name
