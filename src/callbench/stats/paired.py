"""Paired comparison of two candidates on the scenarios both completed.

Two candidates' marginal intervals mostly reflect how hard the scenarios are,
and that variance is shared: both ran the same ones. Differencing within each
scenario removes it, so a pair can be ordered even where the marginal
intervals overlap. Scenarios only one candidate completed are left out rather
than counted against the other, since a skipped call is not a measurement.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .bootstrap import _check, percentile_interval

_CHUNK_CELLS = 200_000


@dataclass(frozen=True)
class Paired:
    n: int
    mean_diff: float | None
    low: float | None
    high: float | None
    wins: int
    losses: int
    ties: int
    level: float

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("mean_diff", "low", "high"):
            if out[key] is not None:
                out[key] = round(out[key], 4)
        return out


def paired_comparison(
    a: dict[str, list[float]],
    b: dict[str, list[float]],
    *,
    samples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    tie_tolerance: float = 0.0,
) -> Paired:
    """a minus b, per scenario key ('agent/scenario'), on keys where both have at least one repeat.

    The interval resamples the per-scenario differences (each scenario's repeats
    averaged first) and takes percentiles of their mean. Wins, losses and ties
    count scenarios, with |difference| <= tie_tolerance as a tie.
    """
    import numpy as np

    _check(samples, level)
    if tie_tolerance < 0:
        raise ValueError("tie_tolerance must not be negative")
    shared = sorted(k for k in a.keys() & b.keys() if len(a[k]) and len(b[k]))
    diffs = np.array([sum(a[k]) / len(a[k]) - sum(b[k]) / len(b[k]) for k in shared], dtype=float)
    n = len(shared)
    wins = int((diffs > tie_tolerance).sum())
    losses = int((diffs < -tie_tolerance).sum())
    if n == 0:
        return Paired(0, None, None, None, 0, 0, 0, level)
    rng = np.random.default_rng(seed)
    means = np.empty(samples)
    chunk = max(1, _CHUNK_CELLS // n)
    for start in range(0, samples, chunk):
        m = min(chunk, samples - start)
        means[start : start + m] = diffs[rng.integers(0, n, size=(m, n))].mean(axis=1)
    low, high = percentile_interval(means, level)
    return Paired(n, float(diffs.mean()), low, high, wins, losses, n - wins - losses, level)
