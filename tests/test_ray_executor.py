"""The Ray executor on a real local Ray cluster: same scores as the local executor, the driver alone
writes
the store (each call once), the budget stop and worker errors behave as with local workers."""

import asyncio
import json
import shutil
import sqlite3

import pytest
from typer.testing import CliRunner

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")

from reports_util import untimed

from callbench.cli import app  # noqa: E402
from callbench.errors import CallbenchError  # noqa: E402
from callbench.runs import RunConfig, run_suite  # noqa: E402
from callbench.runs.executors import AttemptJob, LocalExecutor  # noqa: E402
from callbench.runs.ray_executor import RayExecutor  # noqa: E402
from callbench.suite_check import load_suite  # noqa: E402


def stored(path):
    db = sqlite3.connect(path / "run.sqlite")
    try:
        return db.execute("SELECT trace_id, state FROM attempts ORDER BY position").fetchall()
    finally:
        db.close()


@pytest.fixture(scope="module")
def cluster():
    """One local cluster for the tests that do not check the executor's own start and shutdown."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_starter_suite_on_ray_scores_like_the_local_executor(tmp_path):
    was_running = ray.is_initialized()  # False in file order: the executor starts its own cluster
    suite = load_suite("starter")
    config = RunConfig(candidates=("oracle", "noop", "shortcut"), seed=0)
    local = run_suite(suite, config, tmp_path / "local", executor=LocalExecutor(config.concurrency))
    remote = run_suite(suite, config, tmp_path / "ray", executor=RayExecutor(num_cpus=2))
    assert ray.is_initialized() == was_running  # a cluster it started, it shut down
    assert untimed(remote.report) == untimed(local.report)
    rows = stored(tmp_path / "ray")
    n = len(config.candidates) * len(suite.scenarios)
    assert (
        len(rows) == n and len({t for t, _ in rows}) == n and {s for _, s in rows} == {"completed"}
    )
    assert remote.report["store"]["completed"] == n and remote.report["store"]["running"] == 0
    assert len(list((tmp_path / "ray" / "traces").rglob("*.json"))) == n
    assert len(list((tmp_path / "ray" / "scorecards").rglob("*.json"))) == n


def test_cli_runs_with_the_ray_executor(cluster, mini_path, tmp_path):
    out = tmp_path / "run"
    res = CliRunner().invoke(
        app, ["run", "--suite", str(mini_path), "--executor", "ray", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    report = json.loads((out / "report.json").read_text())
    assert (
        report["store"]["completed"] + report["store"]["excluded"]
        == report["store"]["attempts"]
        > 0
    )
    assert ray.is_initialized()  # it joined the running cluster and left it running


def _job(suite, config, started):
    from callbench.runs import make_cast

    cast = make_cast(config)
    return AttemptJob(suite, config, cast, cast.graders(), on_start=started.append)


def test_stop_ends_submission_and_every_started_call_is_delivered(cluster, mini_suite):
    from callbench.runs import plan

    config = RunConfig(candidates=("oracle",), repeats=6, seed=1)
    attempts = plan(mini_suite, config)
    started, delivered = [], []

    async def deliver(attempt, trace, card):
        delivered.append(attempt)

    asyncio.run(
        RayExecutor(concurrency=2).run(
            attempts, _job(mini_suite, config, started), deliver, lambda: len(delivered) >= 3
        )
    )
    assert 3 <= len(delivered) < len(attempts)
    assert sorted(a.trace_id for a in delivered) == sorted(a.trace_id for a in started)


def test_a_worker_error_reaches_the_driver(cluster, mini_path, tmp_path):
    copy = tmp_path / "suite"
    shutil.copytree(mini_path, copy)
    suite = load_suite(copy)
    instructions = copy / "agents/parcel-desk/instructions.md"
    instructions.write_text(
        "changed " + instructions.read_text()
    )  # the workers now see another suite
    config = RunConfig(candidates=("oracle",), seed=0)
    from callbench.runs import plan

    with pytest.raises(CallbenchError, match="not the driver's"):
        asyncio.run(
            RayExecutor().run(
                plan(suite, config), _job(suite, config, []), lambda *a: None, lambda: False
            )
        )


def test_workers_take_the_limits_they_are_given(mini_suite):
    """The manifest records the run's limits; a worker uses the share it is given (the processes
    executor splits them), each share its own cached run."""
    from callbench.models.limits import ProviderLimits
    from callbench.runs import ray_executor
    from callbench.runs.manifest import RunManifest
    from callbench.runs.worker import worker_run

    config = RunConfig(candidates=("oracle",), seed=0, limits={"openai:*": ProviderLimits(rpm=5)})
    meta = RunManifest.build(mini_suite, config).as_json()
    assert meta["execution"]["limits"] == {"openai:*": {"concurrency": None, "rpm": 5, "tpm": None}}
    limits = {"openai:*": {"concurrency": None, "rpm": 5, "tpm": None}}
    _, rebuilt, cast, _ = worker_run(str(mini_suite.root), meta, limits)
    assert rebuilt.limits == config.limits and cast.limits == config.limits
    assert worker_run(str(mini_suite.root), meta, {})[1].limits == {}  # another cache entry
    trace_json, card_json = ray_executor.play_attempt(
        str(mini_suite.root), meta, limits, "oracle", next(iter(mini_suite.scenarios)), 0
    )
    assert json.loads(card_json)["outcome"] == "completed"


def test_provider_limits_hold_across_the_cluster_not_per_worker(cluster, mini_suite, tmp_path):
    """Two workers play calls side by side; a cap of one request in flight must hold for the
    endpoint
    as a whole. Without limits the same sweep has two requests in flight at once (so the check
    can fail)."""
    import time

    from callbench.models.limits import ProviderLimits
    from callbench.testing import FakeProvider

    with FakeProvider(lambda body: time.sleep(0.08) or "Hello.") as fp:
        name = f"openai-compatible:{fp.base_url}#m"
        free = RayExecutor(concurrency=4)
        run_suite(
            mini_suite,
            RunConfig(candidates=(name,), repeats=8, concurrency=4),
            tmp_path / "free",
            executor=free,
        )
        unlimited_peak, fp.max_in_flight = fp.max_in_flight, 0
        capped = RayExecutor(concurrency=4)
        result = run_suite(
            mini_suite,
            RunConfig(
                candidates=(name,),
                repeats=8,
                concurrency=4,
                limits={"openai-compatible:*": ProviderLimits(concurrency=1)},
            ),
            tmp_path / "capped",
            executor=capped,
        )
    assert unlimited_peak == 2 and free.gate_stats == {}
    assert fp.max_in_flight == 1
    assert list(capped.gate_stats.values())[0]["max_in_flight"] == 1
    assert result.report["store"]["completed"] == 8 * len(mini_suite.scenarios)
