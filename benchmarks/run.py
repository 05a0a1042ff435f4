"""Run every benchmark: `python benchmarks/run.py`. Figures go to benchmarks/results/*.json."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_episode  # noqa: E402
import bench_leaderboard  # noqa: E402


def main() -> None:
    bench_episode.main([])
    try:
        import bench_stats  # noqa: E402
    except ImportError:
        bench_stats = None
    if bench_stats is not None:
        bench_stats.main([])
    bench_leaderboard.main([])


if __name__ == "__main__":
    main()
