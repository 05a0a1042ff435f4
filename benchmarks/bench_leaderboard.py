"""Leaderboard build time over 60 reports, with and without the artifacts to verify, side by side.

Sixty copies of one real run (the starter suite, three baselines, one repeat), each with its own run
id,
are ranked together; the same reports are then ranked with their artifacts removed (so only the JSON
is
read), which isolates the cost of manifest verification as a ratio measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from callbench.reports.leaderboard import build_leaderboard
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import load_suite

sys.path.insert(0, str(Path(__file__).parent))
from _results import RESULTS, save  # noqa: E402


def measure(reports: int = 60, rounds: int = 3) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run_suite(load_suite("starter"), RunConfig(seed=0), root / "base")
        base_report = json.loads((root / "base" / "report.json").read_text())
        for folder in ("full", "bare"):
            for i in range(reports):
                target = root / folder / f"run{i:02d}"
                if folder == "full":
                    shutil.copytree(root / "base", target)
                else:
                    target.mkdir(parents=True)
                report = dict(base_report, run_id=f"bench-{i:02d}")
                (target / "report.json").write_text(json.dumps(report))
        files = sum(
            len(json.loads((root / "full" / f"run{i:02d}" / "report.json").read_text())["manifest"])
            for i in range(reports)
        )
        timings = {}
        for folder in ("full", "bare"):
            best = float("inf")
            for _ in range(rounds):
                t0 = time.perf_counter()
                board = build_leaderboard([root / folder], root / f"out-{folder}")
                best = min(best, time.perf_counter() - t0)
            timings[folder] = best
        return {
            "reports": reports,
            "ranked_rows": len(board["ranked"]),
            "artifacts_verified": files,
            "seconds_with_verification": round(timings["full"], 4),
            "seconds_reports_only": round(timings["bare"], 4),
            "ratio_verification_to_reports_only": round(timings["full"] / timings["bare"], 2),
        }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reports", type=int, default=60)
    parser.add_argument("--out", type=Path, default=RESULTS / "leaderboard.json")
    args = parser.parse_args(argv)
    result = measure(args.reports)
    return save(result, args.out)


if __name__ == "__main__":
    main()
