"""`callbench generate utility`: recursive construction admitted by the policy model, selection by
predicted difficulty, and a written suite identical to the built-in one."""

import filecmp
import random
from collections import Counter

import pytest

from callbench.generate.utility.build import construct, single_cases
from callbench.generate.utility.catalog import KINDS, may_follow
from callbench.generate.utility.facts import initial_facts
from callbench.generate.utility.pipeline import generate, stored_outcomes
from callbench.generate.utility.render import Task, play
from callbench.generate.utility.select import QUOTA, fit, predicted, proxies, select
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import load_suite
from callbench.suites import BUILTIN_ROOT


@pytest.fixture(scope="module")
def built():
    return construct()


def test_single_cases_are_valid_on_the_seeded_accounts():
    singles = single_cases()
    assert len(singles) >= 100
    facts = initial_facts()
    for task in singles:
        assert KINDS[task.kinds[0]].valid(facts[task.account]), task
    # the refusal kinds only where the policy refuses
    small = {t.account for t in singles if t.kinds == ("plan_small",)}
    for account in small:
        assert not facts[account].eligibility().allowed
    assert {t.account for t in singles if t.kinds == ("transfer",)} == {
        a for a, f in facts.items() if f.must_transfer()
    }


def test_every_admitted_call_keeps_the_construction_rules(built):
    facts = initial_facts()
    assert set(built.admitted) == {2, 3, 4}
    sample = random.Random(0).sample([t for v in built.admitted.values() for t in v], 400)
    for task in sample:
        assert len(set(task.kinds)) == len(task.kinds), task
        assert "transfer" not in task.kinds[:-1], task
        for i, kind in enumerate(task.kinds):
            assert may_follow(list(task.kinds[:i]), kind), task
            if KINDS[kind].refusal:
                assert KINDS[kind].valid(facts[task.account]), task
        # every request is valid on the account as the earlier ones left it
        parts, states = play(task)
        for kind, before in zip(task.kinds, states, strict=False):
            assert KINDS[kind].valid(before), task
    assert built.rejected["refusal not valid on the seeded account"] > 0
    assert built.rejected["follows a transfer"] > 0
    assert built.combinations == sum(len(v) for v in built.admitted.values())


def test_a_request_valid_only_after_an_earlier_one_is_admitted(built):
    """Stretching an arrangement needs it up to date: on an account with an overdue instalment it
    is admitted only after the overdue instalment is paid."""
    facts = initial_facts()
    overdue = [a for a, f in facts.items() if f.loan is not None and f.loan.overdue()]
    assert len(overdue) == 2
    calls = [t for v in built.admitted.values() for t in v if t.account in overdue]
    stretched = [t for t in calls if "plan_change" in t.kinds]
    assert stretched
    assert all(t.kinds.index("pay_overdue") < t.kinds.index("plan_change") for t in stretched)


def test_the_exam_keeps_its_quota_and_limits(built):
    pool = [t for v in built.admitted.values() for t in v]
    p = proxies([*built.singles, *pool])
    exam = select(pool, p)
    assert Counter(len(t.kinds) for t in exam.tasks) == QUOTA
    assert max(Counter(t.account for t in exam.tasks).values()) <= 5
    uses = Counter(k for t in exam.tasks for k in t.kinds)
    assert all(n <= 25 for k, n in uses.items() if k not in {"balance", "paperless_check"})
    assert not any("transfer" in t.kinds for t in exam.tasks)
    assert len({(t.account, frozenset(t.kinds)) for t in exam.tasks}) == 100
    # the hardest: no admitted four-request call outside the exam is predicted harder than every
    # four-request call in it unless a limit kept it out
    chosen = max(predicted(t, p) for t in exam.tasks if len(t.kinds) == 4)
    assert chosen < 0.5


def test_difficulty_is_fitted_to_outcomes_by_maximum_likelihood():
    """Synthetic outcomes drawn from known per-request probabilities are recovered."""
    rng = random.Random(3)
    truth = {("a", "x"): 0.9, ("a", "y"): 0.5, ("a", "z"): 0.2}
    tasks = [Task("a", ks) for ks in (("x",), ("y",), ("z",), ("x", "y"), ("x", "z"), ("y", "z"))]
    outcomes = []
    for _ in range(400):
        for t in tasks:
            ok = all(rng.random() < truth[(t.account, k)] for k in t.kinds)
            outcomes.append((t, ok))
    fitted = fit(outcomes, dict.fromkeys(truth, 0.5))
    for case, p in truth.items():
        assert abs(fitted[case] - p) < 0.06, (case, fitted[case])


def test_generation_writes_the_built_in_suite_byte_for_byte(tmp_path):
    result = generate(tmp_path, prove=False)
    assert len(result.written) == 100
    ours = BUILTIN_ROOT / "utility-billing"
    for rel in ("agents/billing-line/agent.yaml", "generation.json"):
        assert filecmp.cmp(ours / rel, tmp_path / rel, shallow=False), rel
    names = sorted(p.name for p in (tmp_path / "scenarios" / "billing-line").glob("*.yaml"))
    assert names == sorted(p.name for p in (ours / "scenarios" / "billing-line").glob("*.yaml"))
    for name in names:
        rel = f"scenarios/billing-line/{name}"
        assert filecmp.cmp(ours / rel, tmp_path / rel, shallow=False), rel


def test_stored_runs_feed_the_difficulty(tmp_path):
    suite = load_suite("utility-billing")
    picked = sorted(suite.scenarios)[:3]
    run_suite(suite, RunConfig(candidates=["oracle", "noop"], scenarios=picked), tmp_path)
    outcomes = stored_outcomes([tmp_path])
    assert len(outcomes) == 6
    assert sorted(ok for _, ok in outcomes) == [False] * 3 + [True] * 3
    assert {t.id for t, _ in outcomes} == set(picked)


def test_the_built_in_exam_carries_a_manifest_that_matches_it():
    """manifest.json names the suite's hash without itself, each call's file hash and the hashes of
    the sources the exam was computed from: editing the generator or the data without
    regenerating the exam is caught here."""
    import hashlib

    from callbench.generate.utility.pipeline import SOURCES
    from callbench.spec.generation import MANIFEST_FILE, GenerationManifest
    from callbench.spec.loading import suite_hash_without_manifest

    root = BUILTIN_ROOT / "utility-billing"
    manifest = GenerationManifest.model_validate_json((root / MANIFEST_FILE).read_text())
    assert manifest.generator == "callbench generate utility" and manifest.model is None
    assert manifest.suite_sha256 == suite_hash_without_manifest(root)
    assert len(manifest.scenarios) == 100
    package = BUILTIN_ROOT.parent
    for entry in manifest.scenarios:
        assert hashlib.sha256((root / entry.file).read_bytes()).hexdigest() == entry.sha256
        assert entry.audit == "passed"
        for rel in SOURCES:
            assert entry.sources[rel] == hashlib.sha256((package / rel).read_bytes()).hexdigest(), (
                f"{rel} changed since the exam was generated: run `callbench generate utility`"
            )
