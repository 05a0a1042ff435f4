"""Worker processes give the same scores as one event loop, and the store holds each call once."""

import sqlite3

from callbench.runs import RunConfig, run_suite
from callbench.runs.process_executor import ProcessExecutor
from reports_util import untimed




def test_processes_match_the_local_executor(mini_suite, tmp_path):
    config = RunConfig(repeats=6, seed=2, concurrency=4)
    local = run_suite(mini_suite, config, tmp_path / "local")
    procs = run_suite(mini_suite, config, tmp_path / "procs", executor=ProcessExecutor(processes=2, concurrency=4))
    assert untimed(procs.report) == untimed(local.report)
    rows = sqlite3.connect(tmp_path / "procs" / "run.sqlite").execute("SELECT state FROM attempts").fetchall()
    assert len(rows) == 18 and {r[0] for r in rows} == {"completed"}


def test_limits_are_split_so_the_processes_together_stay_within_them(mini_suite, tmp_path):
    import time

    from callbench.models.limits import ProviderLimits
    from callbench.runs.process_executor import split_limits
    from callbench.testing import FakeProvider

    assert split_limits({"a:*": {"concurrency": 5, "rpm": 61, "tpm": None}}, 2) == {"a:*": {"concurrency": 2, "rpm": 30, "tpm": None}}
    peaks = {}
    with FakeProvider(lambda body: time.sleep(0.05) or "Hello.") as fp:
        name = f"openai-compatible:{fp.base_url}#m"
        for cap in (None, 3, 1):
            fp.max_in_flight = 0
            limits = {"openai-compatible:*": ProviderLimits(concurrency=cap)} if cap else {}
            result = run_suite(mini_suite, RunConfig(candidates=(name,), repeats=4, concurrency=8, limits=limits),
                               tmp_path / f"cap{cap}", executor=ProcessExecutor(processes=2, concurrency=8))
            assert result.report["store"]["completed"] == 4 * len(mini_suite.scenarios)
            peaks[cap] = fp.max_in_flight
    assert peaks[None] > 3  # without a cap, both processes' calls overlap freely
    assert peaks[3] == 2  # one each: 3 // 2, rounded down so the two together stay within 3
    assert peaks[1] == 1  # a cap of one leaves one process
