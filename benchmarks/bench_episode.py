"""Harness overhead per episode and per turn with the built-in baselines (no model time at all).

Measures, side by side in one process, the CPU seconds spent:
  - running episodes (turn loop, caller, channel, backend, trace building),
  - scoring the traces,
  - serialising them to JSON,
for each baseline over every scenario of the suite, repeated. Reports CPU per
call, per caller turn, and the ratios between phases, because on a shared
machine ratios measured in one run are what can be compared across runs.

The episodes run in one event loop, as the runner plays them: `asyncio.run` per episode would add
a loop's start-up and, on Python 3.11, the repr of the finished task (its whole trace, formatted by
`signal.getsignal` on the way out) to every call. Each trace is scored with the spoken-value cache
emptied first, so a repeat of the same scenario reads its messages again instead of looking them up.

A run's fixed cost is measured in fresh interpreters: importing callbench and loading the suite,
with the YAML read by libyaml (the default when PyYAML has it) and by the pure-Python loader.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from pathlib import Path

from callbench.grading import score_trace
from callbench.grading.spoken import clear_cache
from callbench.runs import Attempt, run_attempt
from callbench.suite_check import load_suite

sys.path.insert(0, str(Path(__file__).parent))
from _results import RESULTS, save  # noqa: E402


async def play(suite, attempts: list) -> list:
    return [await run_attempt(suite, a, 0) for a in attempts]


FIXED = """
import time
t0 = time.perf_counter()
import callbench.spec.yamlio as yamlio
from callbench.suite_check import load_suite
t1 = time.perf_counter()
if {pure}:
    yamlio._FastLoader = None
load_suite({suite!r})
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def fixed_cost(suite_id: str, repeats: int = 3) -> dict:
    """Seconds to import callbench and to load the suite, in fresh interpreters (best of
    `repeats`), with libyaml and with the pure-Python YAML loader."""
    out = {}
    for name, pure in (("libyaml", False), ("pure_python_yaml", True)):
        runs = []
        for _ in range(repeats):
            done = subprocess.run(
                [sys.executable, "-c", FIXED.format(pure=pure, suite=suite_id)],
                capture_output=True,
                text=True,
                check=True,
            )
            runs.append(tuple(float(x) for x in done.stdout.split()))
        imp, load = min(runs, key=sum)
        out[name] = {
            "import_s": round(imp, 3),
            "load_suite_s": round(load, 3),
            "total_s": round(imp + load, 3),
        }
    out["load_ratio_pure_to_libyaml"] = round(
        out["pure_python_yaml"]["load_suite_s"] / out["libyaml"]["load_suite_s"], 2
    )
    return out


def measure(suite_id: str, repeats: int) -> dict:
    suite = load_suite(suite_id)
    rows = {}
    for candidate in ("oracle", "noop", "shortcut", "spray"):
        attempts = [Attempt(candidate, s, r) for s in suite.scenarios for r in range(repeats)]
        c0 = time.process_time()
        traces = asyncio.run(play(suite, attempts))
        c1 = time.process_time()
        for t in traces:
            clear_cache()
            score_trace(t, suite.scenarios[t.scenario_id], suite.manifest)
        c2 = time.process_time()
        for t in traces:
            t.to_json()
        c3 = time.process_time()
        turns = sum(len(t.caller_turns) for t in traces) or 1
        messages = sum(len(t.messages) for t in traces)
        rows[candidate] = {
            "calls": len(traces),
            "caller_turns": turns,
            "messages": messages,
            "cpu_ms_per_call_episode": round(1000 * (c1 - c0) / len(traces), 3),
            "cpu_ms_per_turn_episode": round(1000 * (c1 - c0) / turns, 3),
            "cpu_ms_per_call_scoring": round(1000 * (c2 - c1) / len(traces), 3),
            "cpu_ms_per_call_serialise": round(1000 * (c3 - c2) / len(traces), 3),
            "cpu_ms_per_call_total": round(1000 * (c3 - c0) / len(traces), 3),
            "ratio_scoring_to_episode": round((c2 - c1) / (c1 - c0), 3),
            "ratio_serialise_to_episode": round((c3 - c2) / (c1 - c0), 3),
        }
    base = rows["oracle"]["cpu_ms_per_turn_episode"]
    for row in rows.values():
        row["ratio_per_turn_to_oracle"] = (
            round(row["cpu_ms_per_turn_episode"] / base, 3) if base else None
        )
    return {
        "suite": suite.id,
        "suite_sha256": suite.sha256,
        "repeats": repeats,
        "baselines": rows,
        "fixed_cost": fixed_cost(suite_id),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", default="starter")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS / "episode_overhead.json")
    args = parser.parse_args(argv)
    result = measure(args.suite, args.repeats)
    return save(result, args.out)


if __name__ == "__main__":
    main()
