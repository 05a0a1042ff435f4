"""Harness overhead per episode and per turn with the built-in baselines (no model time at all).

Measures, side by side in one process, the CPU seconds spent:
  - running episodes (turn loop, caller, channel, backend, trace building),
  - scoring the traces,
  - serialising them to JSON,
for each baseline over every scenario of the suite, repeated. Reports CPU per
call, per caller turn, and the ratios between phases, because on a shared
machine ratios measured in one run are what can be compared across runs.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from callbench.grading import score_trace
from callbench.runs import Attempt, run_attempt
from callbench.suite_check import load_suite

sys.path.insert(0, str(Path(__file__).parent))
from _results import RESULTS, save  # noqa: E402


def measure(suite_id: str, repeats: int) -> dict:
    suite = load_suite(suite_id)
    rows = {}
    for candidate in ("oracle", "noop", "shortcut", "spray"):
        attempts = [Attempt(candidate, s, r) for s in suite.scenarios for r in range(repeats)]
        traces = []
        c0 = time.process_time()
        for a in attempts:
            traces.append(asyncio.run(run_attempt(suite, a, 0)))
        c1 = time.process_time()
        for t in traces:
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
    return {"suite": suite.id, "suite_sha256": suite.sha256, "repeats": repeats, "baselines": rows}


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
