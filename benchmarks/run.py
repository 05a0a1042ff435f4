"""Run every benchmark: `python benchmarks/run.py`. Figures go to benchmarks/results/*.json.

Name benchmarks to run only those, e.g. `python benchmarks/run.py services name_matching`
(names: episode, client, deadlines, grading, stats, leaderboard, sweep, services, name_matching,
audio).
The sweep benchmark takes about five minutes (fixed provider latency at several concurrency levels,
then 10,000 calls for memory); pass `--quick` for a short smoke run of it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_audio  # noqa: E402
import bench_client  # noqa: E402
import bench_deadlines  # noqa: E402
import bench_episode  # noqa: E402
import bench_grading  # noqa: E402
import bench_leaderboard  # noqa: E402
import bench_services  # noqa: E402
import bench_stats  # noqa: E402
import bench_sweep  # noqa: E402
import name_matching  # noqa: E402


def benchmarks(quick: bool) -> dict[str, Callable[[], object]]:
    tmp = Path("/tmp")
    return {
        "episode": lambda: bench_episode.main([]),
        "client": lambda: bench_client.main([]),
        "deadlines": lambda: bench_deadlines.main([]),
        "grading": lambda: bench_grading.main(
            ["--quick", "--out", str(tmp / "callbench-grading-quick.json")] if quick else []
        ),
        "stats": lambda: bench_stats.main([]),
        "leaderboard": lambda: bench_leaderboard.main([]),
        "sweep": lambda: bench_sweep.main(
            ["--quick", "--out", str(tmp / "callbench-sweep-quick.json")] if quick else []
        ),
        "services": lambda: bench_services.main([]),
        "name_matching": lambda: name_matching.main([]),
        "audio": lambda: bench_audio.main(["--limit", "8"] if quick else []),
    }


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    quick = "--quick" in args
    names = [a for a in args if not a.startswith("--")]
    every = benchmarks(quick)
    unknown = [n for n in names if n not in every]
    if unknown:
        raise SystemExit(f"no benchmark {', '.join(unknown)} (known: {', '.join(every)})")
    for name in names or list(every):
        every[name]()


if __name__ == "__main__":
    main()
