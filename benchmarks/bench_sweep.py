"""Sweeps at scale: executor efficiency against a provider with a fixed latency, and memory over
10,000 calls.

Levels run with one event loop (the local executor) and with two worker processes (the processes
executor), since the harness's CPU is bound by one interpreter lock per process.
Efficiency = ideal wall time / measured wall time, where ideal = (requests × added latency) /
min(concurrency, calls): 1.0 means the harness adds nothing to the time the model itself takes.
The fake provider runs in its own process so that its threads do not compete with the harness for
the interpreter; its CPU per call is reported beside the harness's (this process's CPU time divided
by the calls; with worker processes, only the driver's), since both share the machine's two cores.
Each level also records the machine's load average before it (other work on a shared machine
lengthens every wall time) and, for one process, the ceiling its CPU alone sets: one event loop
cannot finish sooner than its own CPU time. Memory: resident set size sampled while 10,000 calls
with the built-in baselines run, to show it stays flat.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import tempfile
import time
from pathlib import Path


def _serve(latency: float, queue) -> None:
    from callbench.testing import FakeProvider

    def respond(body):
        time.sleep(latency)
        return "Hello, this is the parcel desk."

    with FakeProvider(respond) as fp:
        queue.put(fp.base_url)
        while True:
            time.sleep(3600)


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a whole process (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def efficiency(levels: list[tuple], latency: float) -> list[dict]:
    from callbench.runs import RunConfig, run_suite
    from callbench.suite_check import load_suite

    suite = load_suite(Path(__file__).parents[1] / "tests" / "fixtures" / "mini")
    # the SDK's import (about a second) happens at the first model a run builds: done here, so
    # that whichever level comes first does not count it as time the harness added per call
    import openai  # noqa: F401

    queue = mp.Queue()
    server = mp.Process(target=_serve, args=(latency, queue), daemon=True)
    server.start()
    base_url = queue.get(timeout=30)
    rows = []
    try:
        for level in levels:
            concurrency, calls = level[0], level[1]
            processes = level[2] if len(level) > 2 else 1
            with tempfile.TemporaryDirectory() as tmp:
                name = f"openai-compatible:{base_url}#fixed-latency"
                config = RunConfig(
                    candidates=(name,), repeats=calls, concurrency=concurrency, infra_reruns=0
                )
                executor = None
                if processes > 1:
                    from callbench.runs.process_executor import ProcessExecutor

                    executor = ProcessExecutor(processes=processes, concurrency=concurrency)
                load = os.getloadavg()[0]  # other work on the machine: a shared one is noisy
                cpu0, wall0, provider0 = (
                    time.process_time(),
                    time.perf_counter(),
                    _cpu_s(server.pid),
                )
                result = run_suite(suite, config, Path(tmp) / "r", executor=executor)
                wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
                provider_cpu = _cpu_s(server.pid) - provider0
                requests = result.report["candidates"][name]["usage"]["candidate"]["calls"]
                ideal = (
                    requests * latency / min(concurrency, calls)
                )  # more workers than calls cannot help
                rows.append(
                    {
                        "concurrency": concurrency,
                        "processes": processes,
                        "calls": calls,
                        "requests": requests,
                        "latency_s": latency,
                        "wall_s": round(wall, 2),
                        "ideal_s": round(ideal, 2),
                        "efficiency": round(ideal / wall, 3),
                        "harness_cpu_ms_per_call": round(1000 * cpu / calls, 2),
                        "provider_cpu_ms_per_call": round(1000 * provider_cpu / calls, 2),
                        "load_average_1m_before": round(load, 2),
                    }
                )
                if processes == 1:
                    # one event loop cannot finish sooner than its own CPU time: the efficiency it
                    # could reach at this CPU per call on an otherwise idle machine
                    rows[-1]["ceiling_one_loop"] = round(ideal / max(ideal, cpu), 3)
                print(json.dumps(rows[-1]), flush=True)
    finally:
        server.terminate()
    return rows


def memory(calls: int) -> dict:
    from callbench.runs import RunConfig, run_suite
    from callbench.suite_check import load_suite

    suite = load_suite(Path(__file__).parents[1] / "tests" / "fixtures" / "mini")
    samples: list[tuple[int, float]] = []
    done = [0]

    def sample(attempt, card) -> None:
        done[0] += 1
        if done[0] % (calls // 20) == 0:
            samples.append((done[0], round(_rss_mb(), 1)))

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        run_suite(suite, RunConfig(repeats=calls // 3, concurrency=16), Path(tmp) / "r", sample)
        wall = time.perf_counter() - t0
    first_half = [m for n, m in samples if n <= calls // 2]
    second_half = [m for n, m in samples if n > calls // 2]
    return {
        "calls": done[0],
        "wall_s": round(wall, 1),
        "rss_mb_samples": samples,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "rss_growth_second_half_mb": round(max(second_half) - max(first_half), 1)
        if first_half and second_half
        else None,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--memory-calls", type=int, default=10_000)
    parser.add_argument(
        "--quick", action="store_true", help="fewer calls at every level (a smoke run)"
    )
    parser.add_argument(
        "--only-processes", action="store_true", help="only the multi-process levels"
    )
    parser.add_argument(
        "--at", type=int, default=None, help="only the levels with this many calls in flight"
    )
    parser.add_argument("--skip-memory", action="store_true", help="no 10,000-call memory run")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results" / "sweep.json"
    )
    args = parser.parse_args(argv)
    levels = (
        [(1, 20), (10, 200), (100, 1000), (500, 1000), (100, 1000, 2), (500, 1000, 2)]
        if not args.quick
        else [(1, 4), (10, 20), (100, 100), (500, 100), (100, 100, 2)]
    )
    if args.only_processes:
        levels = [lv for lv in levels if len(lv) > 2]
    if args.at is not None:
        levels = [lv for lv in levels if lv[0] == args.at]
    result = {
        "efficiency": efficiency(levels, args.latency),
        "memory": None
        if args.skip_memory
        else memory(args.memory_calls if not args.quick else 600),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    if result["memory"] is not None:
        print(json.dumps(result["memory"], indent=1))
    return result


if __name__ == "__main__":
    main()
