"""The built-in phone-agents bundle at the reference's scale: 30 agents with full operating manuals
in their own languages across nine domains, ten calls each authored in those languages, that the
oracle solves and no script passes."""

from typing import get_args

import pytest

from callbench.audit import audit_suite
from callbench.runs import RunConfig, run_suite
from callbench.spec.agent import Domain
from callbench.spec.composition import composition
from callbench.suite_check import check_suite
from tests.bounds import assert_no_script_earns


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    check = check_suite("phone-agents")
    assert not check.errors, "\n".join(map(str, check.errors))
    return check.suite, run_suite(check.suite, RunConfig(seed=0), tmp_path_factory.mktemp("pa"))


def test_every_agent_has_a_real_manual_and_calls_in_its_language(result):
    suite, _ = result
    assert len(suite.agents) >= 30
    for agent_id, loaded in suite.agents.items():
        assert 20_000 <= len(loaded.instructions) <= 45_000, (agent_id, len(loaded.instructions))
        calls = [sc for sc in suite.scenarios.values() if sc.agent == agent_id]
        assert calls, agent_id
        assert all(sc.language == loaded.definition.language for sc in calls), agent_id
        assert {t.name for t in loaded.definition.end_tools}, agent_id
    languages = {a.definition.language for a in suite.agents.values()}
    assert languages == set(suite.manifest.languages) == {"en", "hi", "gu", "mr", "ta", "bn"}


def test_the_bundle_audits_clean():
    report = audit_suite("phone-agents")
    assert report.errors == [], "\n".join(map(str, report.errors))


def test_oracle_scores_100_and_no_script_earns_anything(result):
    suite, run = result
    assert_no_script_earns(run.report, len(suite.scenarios))


def test_the_composition_matches_the_reference_scale(result):
    suite, _ = result
    made = composition(suite)
    assert made.agents >= 30 and made.calls >= 300
    assert made.calls_per_agent.minimum == made.calls_per_agent.maximum == 10
    assert set(made.agents_by_domain_language) == set(get_args(Domain))
    for language, calls in made.calls_by_language.items():
        assert language == "en" or calls >= 30, (language, calls)
        by_difficulty = made.calls_by_language_difficulty[language]
        assert abs(by_difficulty.get("medium", 0) - by_difficulty.get("hard", 0)) <= 0.1 * calls
    assert made.instruction_chars.median >= 28_000
    assert made.agents_by_direction.get("outbound", 0) >= 5
    for feature in (
        "channel: substitute",
        "channel: drop",
        "channel: split",
        "channel: seeded first-turn damage",
        "failed call-ending tool",
        "injected failure",
        "refusal",
        "verification/disclosure gate",
        "spoken check",
        "transfer or escalation",
        "forbidden action (inaction guard)",
    ):
        assert made.coverage.get(feature, 0) >= 20, feature
