"""A real kill test: a sweep of a few hundred calls against the fake provider is SIGKILLed at random
points
and resumed each time; the store ends with every call exactly once and the scores of an
uninterrupted run."""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

from reports_util import untimed

from callbench.runs import RunConfig, run_suite
from callbench.testing import FakeProvider

REPEATS = 60
TOTAL = 4 * REPEATS  # four candidates


def finished(out):
    if not (out / "run.sqlite").exists():
        return 0
    db = sqlite3.connect(out / "run.sqlite")
    try:
        return db.execute(
            "SELECT COUNT(*) FROM attempts WHERE state IN ('completed', 'excluded')"
        ).fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


def test_sigkill_at_random_points_then_resume(mini_path, mini_suite, tmp_path):
    rng = random.Random(20261130)
    with FakeProvider(lambda body: "Hello, this is the parcel desk. How can I help?") as fp:
        model = f"openai-compatible:{fp.base_url}#steady"
        candidates = (model, "oracle", "noop", "shortcut")
        out = tmp_path / "killed"
        args = [
            sys.executable,
            "-m",
            "callbench.cli",
            "run",
            "--suite",
            str(mini_path),
            "--repeats",
            str(REPEATS),
            "--concurrency",
            "4",
            "--out",
            str(out),
        ]
        for c in candidates:
            args += ["--candidate", c]
        kills = 0
        first = True
        while kills < 4:
            cmd = (
                args
                if first
                else [sys.executable, "-m", "callbench.cli", "run", "--resume", str(out)]
            )
            before = finished(out)
            proc = subprocess.Popen(
                cmd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "COLUMNS": "120"},
            )
            # kill at a random point of the remaining work (measured in finished calls, not seconds,
            # so the
            # test does not depend on how fast the machine is)
            target = before + rng.randint(5, max(6, (TOTAL - before) // 3))
            deadline = time.monotonic() + 120
            while proc.poll() is None and finished(out) < target and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 0.05))
            if proc.poll() is not None:
                break  # it finished before we could kill it
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            first = False
            kills += 1
            assert finished(out) >= before  # nothing finished is ever lost
        final = subprocess.run(
            [sys.executable, "-m", "callbench.cli", "run", "--resume", str(out)],
            capture_output=True,
            text=True,
        )
        assert final.returncode == 0, final.stderr[-2000:]
        clean = run_suite(
            mini_suite,
            RunConfig(candidates=candidates, repeats=REPEATS, concurrency=4),
            tmp_path / "clean",
        )
    assert kills >= 2, "the sweep finished too fast to be killed; raise REPEATS"
    db = sqlite3.connect(out / "run.sqlite")
    rows = db.execute("SELECT trace_id, state FROM attempts").fetchall()
    assert len(rows) == len(candidates) * REPEATS == len({r[0] for r in rows})
    assert {r[1] for r in rows} == {"completed"}
    resumed = json.loads((out / "report.json").read_text())
    assert untimed(resumed) == untimed(clean.report)
    assert len(list((out / "traces").rglob("*.json"))) == len(rows)
    assert not list(out.rglob("*.tmp"))  # half-written files left by a kill are cleared on resume
