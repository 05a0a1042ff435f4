"""Intervals for proportions and unbiased pass@k / pass^k.

Completion rates are proportions of a few hundred calls, often near 0 or 1,
where the textbook normal (Wald) interval undercovers and can leave [0, 1];
Wilson's score interval does neither. pass@k and pass^k are estimated from n
recorded repeats with the unbiased combinatorial formulas rather than p**k,
which is biased for small n.
"""

from __future__ import annotations

from math import comb, sqrt
from statistics import NormalDist


def wilson_interval(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for successes/n as proportions; n == 0 says nothing, so (0, 1)."""
    if n < 0 or not 0 <= successes <= max(n, 0):
        raise ValueError("need 0 <= successes <= n")
    if not 0.0 < level < 1.0:
        raise ValueError("level must lie strictly between 0 and 1")
    if n == 0:
        return (0.0, 1.0)
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * sqrt(p * (1.0 - p) / n + z * z / (4 * n * n))
    # At 0 or n successes the bound is exactly 0 or 1; the closed form leaves rounding dust there.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def _check(n: int, c: int, k: int) -> None:
    if n < 1 or not 0 <= c <= n:
        raise ValueError("need n >= 1 and 0 <= c <= n")
    if not 1 <= k <= n:
        raise ValueError("need 1 <= k <= n: k repeats cannot be drawn from n recorded ones")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chance that at least one of k repeats, drawn without replacement from n with c passes,
    passes."""
    _check(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: chance that all k drawn repeats pass, the number a deployed agent lives by."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)
