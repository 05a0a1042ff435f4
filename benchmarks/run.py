"""Run every benchmark: `python benchmarks/run.py`. Figures go to benchmarks/results/."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_episode  # noqa: E402

if __name__ == "__main__":
    bench_episode.main(sys.argv[1:])
