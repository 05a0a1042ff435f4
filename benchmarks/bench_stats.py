"""Time of the statistics layer at the size of the reference study, with synthetic scores.

7 candidates x 490 scenarios (49 agents x 10) x 3 repeats, with a few repeats
and scenarios dropped as skipped calls would be, so the ragged paths run.
Measures, in one process:
  - the hierarchical bootstrap (2,000 samples) per candidate and in total,
  - paired comparisons of the 6 adjacent candidates (2,000 samples each),
  - the vectorised bootstrap against a naive pure-Python loop on the same data
    and a smaller sample count, as a ratio (ratios measured in one run are what
    can be compared across machines),
  - peak memory traced during one candidate's bootstrap.
"""

from __future__ import annotations

import argparse
import platform
import random
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

from callbench.stats import hierarchical_bootstrap, paired_comparison, point_estimate, seed_for
from callbench.stats.bootstrap import Nested, percentile_interval

sys.path.insert(0, str(Path(__file__).parent))
from _results import RESULTS, save  # noqa: E402

CANDIDATES = 7
AGENTS = 49
SCENARIOS_PER_AGENT = 10
REPEATS = 3
RUN_ID = "bench-stats"


def synthetic(seed: int = 0) -> dict[str, Nested]:
    """Scores with agent and scenario effects shared across candidates, as in a real suite."""
    rng = np.random.default_rng(seed)
    agent_effect = rng.normal(0, 10, AGENTS)
    scenario_effect = rng.normal(0, 12, (AGENTS, SCENARIOS_PER_AGENT))
    out = {}
    for c in range(CANDIDATES):
        skill = 40 + 35 * c / (CANDIDATES - 1)
        data: Nested = {}
        for a in range(AGENTS):
            scenarios = {}
            for s in range(SCENARIOS_PER_AGENT):
                if rng.random() < 0.01:  # a skipped scenario: no repeat completed
                    continue
                base = skill + agent_effect[a] + scenario_effect[a, s]
                reps = np.clip(base + rng.normal(0, 8, REPEATS), 0, 100)
                keep = rng.random(REPEATS) >= 0.02  # a skipped repeat
                scenarios[f"s{s:02d}"] = [float(x) for x in reps[keep]] or [float(reps[0])]
            data[f"agent{a:02d}"] = scenarios
        out[f"cand{c}"] = data
    return out


def naive_bootstrap(
    data: Nested, samples: int, seed: int, level: float = 0.95
) -> tuple[float, float]:
    """The same resampling as hierarchical_bootstrap, one sample at a time in plain Python."""
    rng = random.Random(seed)
    agents = [[list(data[a][s]) for s in sorted(data[a]) if data[a][s]] for a in sorted(data)]
    agents = [a for a in agents if a]
    stats = []
    for _ in range(samples):
        total, count = 0.0, 0
        for _ in range(len(agents)):
            scenarios = agents[rng.randrange(len(agents))]
            for _ in range(len(scenarios)):
                reps = scenarios[rng.randrange(len(scenarios))]
                total += sum(reps[rng.randrange(len(reps))] for _ in range(len(reps))) / len(reps)
                count += 1
        stats.append(total / count)
    return percentile_interval(stats, level)


def flat(data: Nested) -> dict[str, list[float]]:
    return {f"{a}/{s}": reps for a, scenarios in data.items() for s, reps in scenarios.items()}


def _clock():
    return time.perf_counter(), time.process_time()


def _since(start) -> dict[str, float]:
    wall, cpu = _clock()
    return {"wall_s": round(wall - start[0], 4), "cpu_s": round(cpu - start[1], 4)}


def measure(samples: int, naive_samples: int) -> dict:
    data = synthetic()
    names = sorted(data)
    calls = sum(len(r) for d in data.values() for s in d.values() for r in s.values())
    scenarios = sum(len(s) for d in data.values() for s in d.values())

    hierarchical_bootstrap(
        data[names[0]], samples=10, seed=0
    )  # numpy import and first-call warm-up
    per_candidate, intervals = {}, {}
    total = _clock()
    for name in names:
        start = _clock()
        iv = hierarchical_bootstrap(data[name], samples=samples, seed=seed_for(RUN_ID, name))
        per_candidate[name] = _since(start)
        intervals[name] = iv.as_dict()
    bootstrap_total = _since(total)

    pairs = {}
    total = _clock()
    for a, b in zip(names[1:], names[:-1]):
        start = _clock()
        p = paired_comparison(
            flat(data[a]), flat(data[b]), samples=samples, seed=seed_for(RUN_ID, a, b)
        )
        pairs[f"{a} vs {b}"] = {**_since(start), **p.as_dict()}
    paired_total = _since(total)

    # Side by side on the same candidate and sample count; best of three for each, to damp noise.
    probe = data[names[-1]]
    vec_times, naive_times = [], []
    for _ in range(3):
        start = _clock()
        vec = hierarchical_bootstrap(probe, samples=naive_samples, seed=1)
        vec_times.append(_since(start)["cpu_s"])
        start = _clock()
        naive = naive_bootstrap(probe, naive_samples, seed=1)
        naive_times.append(_since(start)["cpu_s"])
    vec_best, naive_best = min(vec_times), min(naive_times)

    tracemalloc.start()
    hierarchical_bootstrap(probe, samples=samples, seed=2)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    cpu_per_candidate = [v["cpu_s"] for v in per_candidate.values()]
    return {
        "shape": {
            "candidates": CANDIDATES,
            "agents": AGENTS,
            "scenarios_per_agent": SCENARIOS_PER_AGENT,
            "repeats": REPEATS,
            "scenarios_kept": scenarios,
            "calls_kept": calls,
        },
        "samples": samples,
        "bootstrap": {
            "total": bootstrap_total,
            "cpu_s_per_candidate_mean": round(sum(cpu_per_candidate) / len(cpu_per_candidate), 4),
            "cpu_s_per_candidate_max": round(max(cpu_per_candidate), 4),
            "per_candidate": {
                n: {
                    **per_candidate[n],
                    "point": round(point_estimate(data[n]), 3),
                    "interval": intervals[n],
                }
                for n in names
            },
        },
        "paired": {"total": paired_total, "pairs": pairs},
        "vectorised_vs_naive": {
            "samples": naive_samples,
            "vectorised_cpu_s": vec_best,
            "naive_python_cpu_s": naive_best,
            "ratio_vectorised_to_naive": round(vec_best / naive_best, 4) if naive_best else None,
            "vectorised_interval": [round(vec.low, 3), round(vec.high, 3)],
            "naive_interval": [round(naive[0], 3), round(naive[1], 3)],
        },
        "memory": {
            "traced_peak_mb_one_bootstrap": round(peak / 2**20, 2),
            "process_max_rss_mb": round(
                resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
            ),
        },
        "environment": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "machine": platform.machine(),
        },
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--naive-samples", type=int, default=100)
    parser.add_argument("--out", type=Path, default=RESULTS / "stats.json")
    args = parser.parse_args(argv)
    result = measure(args.samples, args.naive_samples)
    return save(result, args.out)


if __name__ == "__main__":
    main()
