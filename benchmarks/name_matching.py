"""False accepts and false rejects of name matching for verify_caller: the reference's Soundex
baseline against callbench's matcher, on the labelled pairs (`backends/utility/name_pairs.csv`).

`python benchmarks/name_matching.py` prints a table (all pairs, then the held-out pairs written
after the matcher was frozen, then the categories where either matcher errs) and writes
benchmarks/results/name_matching.json with the figures, our matcher's wrong pairs and the time
per comparison.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import jellyfish
import rapidfuzz

from callbench.backends.utility.names import HELD_OUT_FROM, MATCHERS, evaluate, load_pairs

sys.path.insert(0, str(Path(__file__).parent))
from _results import RESULTS, save  # noqa: E402


def table(title: str, result: dict) -> str:
    lines = [
        title,
        f"{'matcher':<10} {'false accepts':>18} {'FA rate':>8} {'false rejects':>18} "
        f"{'FR rate':>8} {'errors':>7}",
    ]
    for name, r in result.items():
        fa = f"{r['false_accepts']}/{r['different']} different"
        fr = f"{r['false_rejects']}/{r['same']} same"
        lines.append(
            f"{name:<10} {fa:>18} {r['false_accept_rate']:>8.1%} {fr:>18} "
            f"{r['false_reject_rate']:>8.1%} {r['errors']:>7}"
        )
    return "\n".join(lines)


def per_category(result: dict) -> str:
    cats = sorted(result["soundex"]["by_category"])
    lines = ["errors by category (pairs): " + "  ".join(f"{n:>9}" for n in result)]
    for cat in cats:
        counts = [result[n]["by_category"][cat]["errors"] for n in result]
        pairs = result["soundex"]["by_category"][cat]["pairs"]
        lines.append(f"  {cat + f' ({pairs})':<26}" + "  ".join(f"{c:>9}" for c in counts))
    return "\n".join(lines)


def timing(pairs, repeats: int) -> dict:
    """Microseconds per comparison, best of `repeats` passes over the pairs (caches warm)."""
    out = {}
    for name, matcher in MATCHERS.items():
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            for p in pairs:
                matcher(p.given, p.on_file)
            best = min(best, time.perf_counter() - start)
        out[name] = round(best / len(pairs) * 1e6, 2)
    return out


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=Path, default=None, help="a CSV of labelled pairs")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS / "name_matching.json")
    args = parser.parse_args(argv)
    pairs = load_pairs(args.pairs)
    everything = evaluate(pairs)
    held_out = evaluate(pairs[HELD_OUT_FROM:]) if args.pairs is None else None
    print(table(f"all {len(pairs)} pairs", everything))
    if held_out:
        print(table(f"\nheld-out pairs (rows {HELD_OUT_FROM + 1}-{len(pairs)})", held_out))
    print("\n" + per_category(everything) + "\n")
    for r in (everything, held_out):  # Soundex's wrong pairs are most of them: counts suffice
        if r:
            del r["soundex"]["wrong"]
    result = {
        "pairs": len(pairs),
        "all": everything,
        "held_out": held_out,
        "microseconds_per_comparison": timing(pairs, args.repeats),
        "environment": {
            "python": platform.python_version(),
            "jellyfish": getattr(jellyfish, "__version__", None) or _version("jellyfish"),
            "rapidfuzz": rapidfuzz.__version__,
        },
    }
    return save(result, args.out)


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


if __name__ == "__main__":
    main()
