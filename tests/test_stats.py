"""Statistics checked against enumerated distributions, brute force and textbook values."""

import subprocess
import sys
from fractions import Fraction
from itertools import combinations, product
from math import comb, prod, sqrt

import numpy as np  # a declared dependency (the reference computations): missing is an error
import pytest

from callbench.stats import (
    Interval,
    hierarchical_bootstrap,
    paired_comparison,
    pass_at_k,
    pass_hat_k,
    point_estimate,
    seed_for,
    slice_scores,
    wilson_interval,
)
from callbench.stats import bootstrap as bootstrap_module
from callbench.stats.bootstrap import bootstrap_distribution

SQUARE = {"a1": {"s1": [0, 10], "s2": [40, 100]}, "a2": {"s3": [20, 30], "s4": [70, 90]}}
RAGGED = {
    "x": {"s1": [0, 60], "s2": [30]},
    "y": {"s3": [90, 10, 50]},
    "z": {"s4": [100], "s5": [0], "s6": [20, 80]},
}


# --- brute-force reference: every resampling outcome, with its probability -------------------


def _uniform(items):
    """Every ordered draw with replacement of len(items) items, each equally likely."""
    return list(product(items, repeat=len(items))), Fraction(1, len(items) ** len(items))


def _drawn_agent(scenarios):
    """One redrawn agent: (sum of its drawn scenarios' repeat means, scenarios drawn) ->
    probability."""
    out = {}
    combos, p_scen = _uniform(scenarios)
    for scen_combo in combos:
        per_scen = [_uniform(reps) for reps in scen_combo]
        for draws in product(*[combos_r for combos_r, _ in per_scen]):
            key = (sum(Fraction(sum(d), len(d)) for d in draws), len(draws))
            out[key] = out.get(key, 0) + p_scen * prod(p for _, p in per_scen)
    return out


def exact_distribution(data):
    """statistic -> probability over every outcome of agents, then scenarios, then repeats."""
    per_agent = [_drawn_agent([data[a][s] for s in sorted(data[a])]) for a in sorted(data)]
    out = {}
    combos, p_agents = _uniform(per_agent)
    for combo in combos:
        for slots in product(*[agent.items() for agent in combo]):
            stat = sum(k[0] for k, _ in slots) / sum(k[1] for k, _ in slots)
            out[stat] = out.get(stat, 0) + p_agents * prod(p for _, p in slots)
    assert sum(out.values()) == 1
    return out


def _moments(dist):
    mean = sum(v * p for v, p in dist.items())
    return float(mean), float(sum((v - mean) ** 2 * p for v, p in dist.items()))


def _quantile(dist, q):
    total = Fraction(0)
    for v in sorted(dist):
        total += dist[v]
        if total >= q:
            return float(v)
    return float(max(dist))


def _assert_matches_exact(data, draws):
    dist = exact_distribution(data)
    mean, var = _moments(dist)
    n = len(draws)
    assert abs(draws.mean() - mean) < 5 * sqrt(var / n)
    assert draws.var() == pytest.approx(var, rel=0.03)
    values = np.array(sorted(float(v) for v in dist))
    cdf = np.cumsum([float(dist[v]) for v in sorted(dist)])
    empirical = np.searchsorted(np.sort(draws), values + 1e-9, side="right") / n
    assert np.max(np.abs(empirical - cdf)) < 2.0 / sqrt(
        n
    )  # Kolmogorov-Smirnov, about the 0.1% critical value


@pytest.mark.parametrize("data", [SQUARE, RAGGED], ids=["2x2x2", "ragged"])
def test_bootstrap_distribution_matches_exact_enumeration(data):
    _assert_matches_exact(data, bootstrap_distribution(data, samples=200_000, seed=11))


def test_bootstrap_distribution_survives_chunking(monkeypatch):
    monkeypatch.setattr(bootstrap_module, "_CHUNK_CELLS", 7 * 27)  # 7 samples a chunk, 8,572 chunks
    _assert_matches_exact(RAGGED, bootstrap_distribution(RAGGED, samples=60_000, seed=5))


def test_percentile_interval_matches_exact_quantiles():
    dist = exact_distribution(SQUARE)
    iv = hierarchical_bootstrap(SQUARE, samples=200_000, seed=3)
    assert _quantile(dist, Fraction(2, 100)) <= iv.low <= _quantile(dist, Fraction(3, 100))
    assert _quantile(dist, Fraction(97, 100)) <= iv.high <= _quantile(dist, Fraction(98, 100))
    assert iv.estimate == pytest.approx(
        float(sum(v * p for v, p in dist.items()))
    )  # mean-preserving here


def test_point_estimate_weighs_every_scenario_the_same():
    assert point_estimate({"a": {"s1": [0, 100], "s2": [30]}, "b": {"s3": [90]}}) == pytest.approx(
        170 / 3
    )
    assert point_estimate(SQUARE) == pytest.approx((5 + 70 + 25 + 80) / 4)


@pytest.mark.parametrize(
    "data",
    [
        {"low": {f"s{i}": [0.0] for i in range(10)}, "high": {f"s{i}": [100.0] for i in range(10)}},
        {"a": {"s": [0.0, 100.0]}},
    ],
    ids=["agents", "repeats"],
)
def test_each_level_is_redrawn(data):
    """All variance at one level; exact law {0: 1/4, 50: 1/2, 100: 1/4}. A flat bootstrap over
    the 20 scenarios of the first case would give a narrow interval."""
    iv = hierarchical_bootstrap(data, samples=4000, seed=1)
    assert (iv.estimate, iv.low, iv.high) == (50.0, 0.0, 100.0)


def test_same_seed_same_interval_other_seed_differs_and_dict_order_is_irrelevant():
    first = hierarchical_bootstrap(RAGGED, samples=500, seed=42)
    assert hierarchical_bootstrap(RAGGED, samples=500, seed=42) == first
    reordered = {a: dict(reversed(list(RAGGED[a].items()))) for a in reversed(list(RAGGED))}
    assert hierarchical_bootstrap(reordered, samples=500, seed=42) == first
    a = bootstrap_distribution(RAGGED, samples=500, seed=42)
    b = bootstrap_distribution(RAGGED, samples=500, seed=43)
    assert not np.array_equal(a, b)


def test_constant_data_gives_zero_width():
    data = {f"a{i}": {f"s{j}": [70.0] * (1 + j % 3) for j in range(i + 1)} for i in range(4)}
    iv = hierarchical_bootstrap(data, samples=300, seed=9)
    assert iv.estimate == iv.low == iv.high == 70.0


@pytest.mark.parametrize("data", [{"a": {"s": [64.0]}}, {"a": {"s": [64.0], "t": [64.0, 64.0]}}])
def test_single_agent_or_scenario(data):
    iv = hierarchical_bootstrap(data, samples=100, seed=0)
    assert iv == Interval(64.0, 64.0, 64.0, 100, 0.95)


@pytest.mark.parametrize("data", [{}, {"a": {}}, {"a": {"s": []}}])
def test_empty_data(data):
    assert point_estimate(data) is None
    assert hierarchical_bootstrap(data).as_dict() == {
        "estimate": None,
        "low": None,
        "high": None,
        "samples": 2000,
        "level": 0.95,
    }


def test_empty_scenarios_and_agents_are_excluded_not_zero():
    with_gaps = {"a": {"s": [50.0], "skipped": []}, "gone": {"t": []}, "b": {"u": [70.0]}}
    assert point_estimate(with_gaps) == 60.0
    assert hierarchical_bootstrap(with_gaps, seed=2) == hierarchical_bootstrap(
        {"a": {"s": [50.0]}, "b": {"u": [70.0]}}, seed=2
    )


def test_bad_arguments_and_levels():
    for kwargs in ({"samples": 0}, {"level": 1.0}):
        with pytest.raises(ValueError):
            hierarchical_bootstrap(SQUARE, **kwargs)
    narrow = hierarchical_bootstrap(RAGGED, samples=3000, seed=4, level=0.8)
    wide = hierarchical_bootstrap(RAGGED, samples=3000, seed=4, level=0.99)
    assert wide.low <= narrow.low < narrow.high <= wide.high


def test_seed_for_is_stable_and_separates_parts():
    s = seed_for("run-1", "gpt", "task")
    assert s == seed_for("run-1", "gpt", "task")
    assert 0 <= s < 2**63
    assert (
        len(
            {
                s,
                seed_for("run-1", "gpt", "conversation"),
                seed_for("run-2", "gpt", "task"),
                seed_for("run-1", "gptt", "ask"),
            }
        )
        == 4
    )
    assert seed_for("ab", "c") != seed_for("a", "bc")


def test_numpy_is_not_imported_by_the_package_or_the_cli():
    code = "import sys, callbench.stats, callbench.cli; assert 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# --- paired comparison ------------------------------------------------------------------------

A = {"x/1": [80, 90], "x/2": [50], "y/1": [60], "only_a": [100], "empty_b": [40]}
B = {"x/1": [70], "x/2": [50, 50], "y/1": [65, 75], "only_b": [0], "empty_b": []}


def test_paired_counts_by_hand_on_shared_keys_only():
    p = paired_comparison(A, B, samples=1000, seed=1)  # diffs: +15, 0, -10
    assert (p.n, p.wins, p.losses, p.ties) == (3, 1, 1, 1)
    assert p.mean_diff == pytest.approx(5 / 3)
    assert paired_comparison(A, B, samples=1000, seed=1, tie_tolerance=10).as_dict()["ties"] == 2
    q = paired_comparison(B, A, samples=1000, seed=1)
    assert (q.wins, q.losses, q.mean_diff) == (1, 1, pytest.approx(-5 / 3))
    nothing = paired_comparison({"a": [1.0]}, {"b": [1.0], "a": []})
    assert nothing.as_dict() == {
        "n": 0,
        "mean_diff": None,
        "low": None,
        "high": None,
        "wins": 0,
        "losses": 0,
        "ties": 0,
        "level": 0.95,
    }


def test_paired_interval_against_exact_enumeration():
    """Mean of three resampled differences {+15, 0, -10}: enumerate all 27 outcomes."""
    diffs = [15, 0, -10]
    dist = {}
    for combo in product(diffs, repeat=3):
        dist[Fraction(sum(combo), 3)] = dist.get(Fraction(sum(combo), 3), 0) + Fraction(1, 27)
    p = paired_comparison(A, B, samples=100_000, seed=2, level=0.9)
    assert _quantile(dist, Fraction(4, 100)) <= p.low <= _quantile(dist, Fraction(6, 100))
    assert _quantile(dist, Fraction(94, 100)) <= p.high <= _quantile(dist, Fraction(96, 100))


def test_paired_interval_contains_true_difference():
    rng = np.random.default_rng(0)
    effect = rng.normal(0, 15, 150)  # scenario difficulty, shared by both candidates
    jitter = rng.normal(0, 4, 150)
    jitter -= jitter.mean()  # so the true mean difference is exactly 3
    a = {
        f"s{i}": [60 + e + 3 + j - 1, 60 + e + 3 + j + 1]
        for i, (e, j) in enumerate(zip(effect, jitter))
    }
    b = {f"s{i}": [60 + e] for i, e in enumerate(effect)}
    p = paired_comparison(a, b, seed=seed_for("run", "a", "b"))
    assert p.mean_diff == pytest.approx(3.0)
    assert p.low < 3.0 < p.high
    assert p.high - p.low < 2.0
    const = paired_comparison({"s": [5.0], "t": [7.0]}, {"s": [2.0], "t": [4.0]})
    assert (const.low, const.high, const.mean_diff) == (3.0, 3.0, 3.0)


# --- Wilson, pass@k, pass^k -------------------------------------------------------------------


def test_wilson_textbook_values():
    low, high = wilson_interval(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    # 5 of 10 by hand: z = 1.959964; centre 0.5; half = z/(1 + z^2/10) * sqrt(0.025 + z^2/400) =
    # 0.26336
    low, high = wilson_interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    # 0 of 10: low 0; high = (z^2/10) / (1 + z^2/10) = 0.38415 / 1.38415 = 0.27753
    assert wilson_interval(0, 10) == (0.0, pytest.approx(0.27753, abs=1e-5))
    assert wilson_interval(10, 10) == (pytest.approx(1 - 0.27753, abs=1e-5), 1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for args in [(5, 3), (-1, 3), (0, -1)]:
        with pytest.raises(ValueError):
            wilson_interval(*args)


@pytest.mark.parametrize("k,n", [(1, 7), (13, 40), (99, 100), (250, 1000)])
def test_wilson_bounds_solve_the_score_equation(k, n):
    """Each bound p satisfies (phat - p)^2 = z^2 p (1 - p) / n: the definition, not the closed
    form."""
    z = 1.959963984540054
    for p in wilson_interval(k, n):
        assert (k / n - p) ** 2 == pytest.approx(z * z * p * (1 - p) / n, rel=1e-9, abs=1e-15)
    assert wilson_interval(k, n, 0.99)[0] < wilson_interval(k, n)[0]


def test_pass_at_k_known_cases():
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - comb(3, 2) / comb(5, 2)) == pytest.approx(0.7)
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    assert pass_at_k(5, 2, 1) == pass_hat_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 4, 2) == 1.0 and pass_hat_k(5, 1, 2) == 0.0
    assert pass_at_k(3, 0, 3) == 0.0 and pass_hat_k(3, 3, 3) == 1.0


@pytest.mark.parametrize("n", range(1, 8))
def test_pass_k_against_every_k_subset(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            subsets = list(combinations([True] * c + [False] * (n - c), k))
            assert pass_at_k(n, c, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))
            assert pass_hat_k(n, c, k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))


def test_pass_k_rejects_impossible_k():
    for fn in (pass_at_k, pass_hat_k):
        for args in [(3, 1, 4), (3, 1, 0), (3, 4, 1), (0, 0, 1)]:
            with pytest.raises(ValueError):
                fn(*args)


# --- slices -----------------------------------------------------------------------------------


def _row(candidate, agent, scenario, score, passed, **kw):
    return {
        "candidate": candidate,
        "agent": agent,
        "scenario": scenario,
        "score": score,
        "passed": passed,
        **kw,
    }


HARD = {
    "language": "en",
    "tags": ["auth", "numbers"],
    "persona": {"mood": "angry"},
    "requests": 2,
    "difficulty": "hard",
    "background": "street",
}
ROWS = [
    _row("m1", "bank", "s1", 80.0, True, **HARD),
    _row("m1", "bank", "s1", 60.0, False, **HARD),
    _row("m1", "bank", "s2", 40.0, False, language="hi", tags=["auth"], persona="calm", requests=1),
    _row(
        "m1", "farm", "s1", None, False, language="hi", tags=[], persona={"age": 70}, requests=None
    ),
    _row(
        "m2", "bank", "s1", 100.0, True, language="en", tags=["numbers"], persona=None, requests=2
    ),
]


def test_slice_counts_and_means():
    by_lang = slice_scores(ROWS, "language")
    assert by_lang["m1"]["en"] == {
        "calls": 2,
        "scored": 2,
        "scenarios": 1,
        "mean": 70.0,
        "pass_rate": 0.5,
    }
    assert by_lang["m1"]["hi"] == {
        "calls": 2,
        "scored": 1,
        "scenarios": 2,
        "mean": 40.0,
        "pass_rate": 0.0,
    }
    assert by_lang["m2"] == {
        "en": {"calls": 1, "scored": 1, "scenarios": 1, "mean": 100.0, "pass_rate": 1.0}
    }


def test_tags_overlap_missing_values_are_unknown_and_no_causal_claim():
    tags = slice_scores(ROWS, "tags")["m1"]
    assert {k: v["calls"] for k, v in tags.items()} == {"auth": 3, "numbers": 2, "unknown": 1}
    assert tags["unknown"]["mean"] is None and tags["unknown"]["pass_rate"] is None
    assert tags["auth"]["mean"] == pytest.approx(60.0)
    persona = slice_scores(ROWS, "persona")
    assert {k: v["calls"] for k, v in persona["m1"].items()} == {
        "angry": 2,
        "calm": 1,
        "unknown": 1,
    }
    assert list(persona["m2"]) == ["unknown"]
    requests = slice_scores(ROWS, "requests")["m1"]
    assert {k: v["calls"] for k, v in requests.items()} == {"1": 1, "2": 2, "unknown": 1}
    assert {k: v["calls"] for k, v in slice_scores(ROWS, "background")["m1"].items()} == {
        "street": 2,
        "unknown": 2,
    }
    assert {k: v["calls"] for k, v in slice_scores(ROWS, "difficulty")["m1"].items()} == {
        "hard": 2,
        "unknown": 2,
    }
    assert slice_scores([], "language") == {}
    assert "not causal" in slice_scores.__doc__
