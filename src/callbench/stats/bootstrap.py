"""Hierarchical bootstrap over agents, scenarios within agents, and repeats within scenarios.

Ten scenarios that share one long operating prompt are not ten independent
samples: they fail together when the model misreads that prompt. A flat
bootstrap over calls would pretend they are independent and report intervals
that are too narrow. Redrawing agents first, then scenarios inside each drawn
agent, then repeats inside each drawn scenario keeps every level of sharing in
the interval.

The interval covers benchmark sampling only. Caller randomness, judge
randomness and the authors' importance weights all sit outside it.

numpy is imported inside the functions so that importing this package (for
example from the CLI) never pays for it.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Any

Nested = dict[str, dict[str, list[float]]]
"""agent -> scenario -> repeat scores (0-100). Repeat counts may differ."""

# Cells (samples x agents x scenarios x repeats) handled at once. Chunking over samples bounds
# memory (under 5 MB traced) whatever the suite size, and chunks that stay in cache measured
# faster than big ones (2,000 x 49 x 10 x 3: 0.03 s here against 0.05 s at 1,000,000 cells).
_CHUNK_CELLS = 200_000


@dataclass(frozen=True)
class Interval:
    estimate: float | None
    low: float | None
    high: float | None
    samples: int
    level: float

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("estimate", "low", "high"):
            if out[key] is not None:
                out[key] = round(out[key], 4)
        return out


def _clean(data: Nested) -> list[tuple[str, list[tuple[str, list[float]]]]]:
    """Sorted and stripped of empty levels, so the draws depend on the data, not on dict order.

    A scenario with no repeats was never completed (skipped or infrastructure
    failure); it is excluded rather than scored zero, and an agent left with no
    scenarios goes with it.
    """
    out = []
    for agent in sorted(data):
        scenarios = [
            (s, [float(x) for x in data[agent][s]])
            for s in sorted(data[agent])
            if len(data[agent][s])
        ]
        if scenarios:
            out.append((agent, scenarios))
    return out


def point_estimate(data: Nested) -> float | None:
    """Each scenario weighs the same, however many repeats it kept and however many siblings it
    has."""
    means = [sum(r) / len(r) for _, scenarios in _clean(data) for _, r in scenarios]
    return sum(means) / len(means) if means else None


def seed_for(run_id: str, *parts: str) -> int:
    """Same run id and parts, same seed, on every machine and Python version (unlike hash())."""
    digest = hashlib.sha256("\x1f".join((run_id, *parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _check(samples: int, level: float) -> None:
    if samples < 1:
        raise ValueError("samples must be at least 1")
    if not 0.0 < level < 1.0:
        raise ValueError("level must lie strictly between 0 and 1")


def percentile_interval(values: Any, level: float) -> tuple[float, float]:
    """Equal tails, numpy's default (linear) interpolation between order statistics."""
    import numpy as np

    tail = (1.0 - level) / 2.0
    low, high = np.quantile(np.asarray(values, dtype=float), [tail, 1.0 - tail])
    return float(low), float(high)


def _draw(rng, bounds):
    """Uniform integers in [0, bound) for an array of bounds.

    floor(u * bound) on 53-bit uniforms is biased by at most bound / 2**53 and
    measured three times faster than rng.integers with an array of bounds; the
    clamp only guards the last representable u.
    """
    import numpy as np

    return np.minimum((rng.random(bounds.shape) * bounds).astype(np.int64), bounds - 1)


def bootstrap_distribution(data: Nested, *, samples: int = 2000, seed: int = 0):
    """The `samples` bootstrap statistics themselves (a numpy array), for tests and plots.

    Ragged data is padded to agents x max scenarios x max repeats; every draw is
    an index below the real count, so padding is never read, and masks drop the
    padded slots from the sums. Repeat slots are summed one slot at a time over
    whole (sample, agent, scenario) blocks: that Python loop runs max-repeats
    times, and summing a length-3 last axis in numpy is several times slower.
    """
    import numpy as np

    if samples < 1:
        raise ValueError("samples must be at least 1")
    clean = _clean(data)
    if not clean:
        return np.empty(0)
    n_agents = len(clean)
    n_scen = np.array([len(s) for _, s in clean], dtype=np.int64)
    s_max = int(n_scen.max())
    n_rep = np.ones((n_agents, s_max), dtype=np.int64)  # 1 in padding keeps every bound positive
    r_max = max(len(r) for _, s in clean for _, r in s)
    scores = np.zeros((n_agents, s_max, r_max))
    for a, (_, scenarios) in enumerate(clean):
        for s, (_, reps) in enumerate(scenarios):
            n_rep[a, s] = len(reps)
            scores[a, s, : len(reps)] = reps
    flat = scores.reshape(-1)
    scen_slot = np.arange(s_max)

    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_CELLS // (n_agents * s_max * r_max))
    out = np.empty(samples)
    for start in range(0, samples, chunk):
        b = min(chunk, samples - start)
        agents = rng.integers(0, n_agents, size=(b, n_agents))  # (b, A)
        agent_scen = n_scen[agents][..., None]  # (b, A, 1)
        scen = _draw(rng, np.broadcast_to(agent_scen, (b, n_agents, s_max)))  # (b, A, S)
        reps_n = n_rep[agents[..., None], scen]  # (b, A, S)
        first_cell = (agents[..., None] * s_max + scen) * r_max
        rep_sum = np.zeros((b, n_agents, s_max))
        for slot in range(r_max):
            drawn = flat[first_cell + _draw(rng, reps_n)]
            rep_sum += drawn if slot == 0 else np.where(slot < reps_n, drawn, 0.0)
        scen_mean = np.where(scen_slot < agent_scen, rep_sum / reps_n, 0.0)
        out[start : start + b] = scen_mean.sum(axis=(1, 2)) / agent_scen[..., 0].sum(axis=1)
    return out


def hierarchical_bootstrap(
    data: Nested, *, samples: int = 2000, seed: int = 0, level: float = 0.95
) -> Interval:
    """Percentile interval around the point estimate of `data`.

    Each sample draws agents with replacement, then for every drawn agent as
    many scenarios as it has, then for every drawn scenario as many repeats as
    it has; its statistic is the point estimate of what was drawn. Agents with
    more scenarios therefore weigh more, exactly as in the point estimate.
    Deterministic for a given seed and data (keys are sorted first, and the
    chunk size is a constant); pass `seed_for(run_id, ...)` to make intervals
    reproducible per run.
    """
    _check(samples, level)
    estimate = point_estimate(data)
    if estimate is None:
        return Interval(None, None, None, samples, level)
    low, high = percentile_interval(bootstrap_distribution(data, samples=samples, seed=seed), level)
    return Interval(estimate, low, high, samples, level)
