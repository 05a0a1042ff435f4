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
