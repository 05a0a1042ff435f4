"""Worker processes give the same scores as one event loop, and the store holds each call once."""

import sqlite3

from reports_util import untimed

from callbench.runs import RunConfig, run_suite
from callbench.runs.process_executor import ProcessExecutor


def test_processes_match_the_local_executor(mini_suite, tmp_path):
    config = RunConfig(repeats=6, seed=2, concurrency=4)
    local = run_suite(mini_suite, config, tmp_path / "local")
    procs = run_suite(
        mini_suite, config, tmp_path / "procs", executor=ProcessExecutor(processes=2, concurrency=4)
    )
    assert untimed(procs.report) == untimed(local.report)
    rows = (
        sqlite3.connect(tmp_path / "procs" / "run.sqlite")
        .execute("SELECT state FROM attempts")
        .fetchall()
    )
    assert len(rows) == 24 and {r[0] for r in rows} == {"completed"}


def test_limits_are_split_so_the_processes_together_stay_within_them(mini_suite, tmp_path):
    import time

    from callbench.models.limits import ProviderLimits
    from callbench.runs.process_executor import split_limits
    from callbench.testing import FakeProvider

    assert split_limits({"a:*": {"concurrency": 5, "rpm": 61, "tpm": None}}, 2) == {
        "a:*": {"concurrency": 2, "rpm": 30, "tpm": None}
    }
    peaks = {}
    with FakeProvider(lambda body: time.sleep(0.05) or "Hello.") as fp:
        name = f"openai-compatible:{fp.base_url}#m"
        for cap in (None, 3, 1):
            fp.max_in_flight = 0
            limits = {"openai-compatible:*": ProviderLimits(concurrency=cap)} if cap else {}
            result = run_suite(
                mini_suite,
                RunConfig(candidates=(name,), repeats=16, concurrency=8, limits=limits),
                tmp_path / f"cap{cap}",
                executor=ProcessExecutor(processes=2, concurrency=8),
            )
            assert result.report["store"]["completed"] == 16 * len(mini_suite.scenarios)
            peaks[cap] = fp.max_in_flight
    assert peaks[None] >= 4  # without a cap, each process alone runs 4 calls at once (8 // 2)
    assert (
        peaks[3] <= 2
    )  # one each: 3 // 2, rounded down so the two together stay within 3 (unsplit: 3 per process)
    assert peaks[1] == 1  # a cap of one leaves one process


def test_a_rate_limit_seen_by_one_process_cools_down_the_other(mini_suite, tmp_path):
    """Once both processes are busy (a second after the first request), one request gets a 429
    asking for a
    second's pause. Requests already on their way land right after it; then nothing may arrive, from
    either
    process, until the second has passed (with a cool-down per process, the other one kept
    sending)."""
    import threading
    import time

    from callbench.models.base import ModelSettings
    from callbench.models.limits import ProviderLimits
    from callbench.testing import FakeProvider

    arrivals, hit, lock = [], [], threading.Lock()

    def plan(n):
        with lock:
            now = time.monotonic()
            arrivals.append(now)
            if not hit and now - arrivals[0] > 1.0:
                hit.append(now)
                return {"fault": "rate_limit", "retry_after": 1.0}
        return None

    # each answer takes 0.1 s so that the sweep outlasts the first second however fast the harness
    # gets (at 0.05 s a quicker client finished all 40 repeats before the 429 was due)
    with FakeProvider(lambda body: time.sleep(0.1) or "Hello.", fault_plan=plan) as fp:
        name = f"openai-compatible:{fp.base_url}#m"
        config = RunConfig(
            candidates=(name,),
            repeats=40,
            concurrency=8,
            limits={"openai-compatible:*": ProviderLimits(concurrency=8)},
            candidate_options={
                "settings": ModelSettings(max_retries=3, backoff_base_s=0.01, backoff_max_s=0.05)
            },
        )
        result = run_suite(
            mini_suite,
            config,
            tmp_path / "run",
            executor=ProcessExecutor(processes=2, concurrency=8),
        )
    assert result.report["store"]["completed"] == 40 * len(mini_suite.scenarios)
    assert hit, "the sweep ended before the rate limit was served"
    busy = [t for t in arrivals if hit[0] - 0.3 < t < hit[0]]
    assert len(busy) >= 4  # both processes were sending when the 429 came
    quiet = [round(t - hit[0], 3) for t in arrivals if 0.25 < t - hit[0] < 0.9]
    assert not quiet, f"{len(quiet)} requests arrived during the cool-down: {quiet[:5]}"
    assert any(t - hit[0] >= 0.9 for t in arrivals)
