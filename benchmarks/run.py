"""Run every benchmark: `python benchmarks/run.py`. Figures go to benchmarks/results/*.json.

The sweep benchmark takes about five minutes (fixed provider latency at several concurrency levels,
then
10,000 calls for memory); pass `--quick` for a short smoke run of it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_client  # noqa: E402
import bench_deadlines  # noqa: E402
import bench_episode  # noqa: E402
import bench_grading  # noqa: E402
import bench_leaderboard  # noqa: E402
import bench_stats  # noqa: E402
import bench_sweep  # noqa: E402


def main() -> None:
    quick = "--quick" in sys.argv[1:]
    bench_episode.main([])
    bench_client.main([])
    bench_deadlines.main([])
    bench_grading.main(
        ["--quick", "--out", str(Path("/tmp") / "callbench-grading-quick.json")] if quick else []
    )
    bench_stats.main([])
    bench_leaderboard.main([])
    bench_sweep.main(
        ["--quick", "--out", str(Path("/tmp") / "callbench-sweep-quick.json")] if quick else []
    )


if __name__ == "__main__":
    main()
