"""The built-in phone-agents bundle (in progress toward issue 16's 30 agents): agents with full
operating manuals in their own languages, calls authored in those languages, that the oracle solves
and no script passes."""

import pytest

from callbench.audit import audit_suite
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import check_suite
from tests.bounds import assert_no_script_earns


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    check = check_suite("phone-agents")
    assert not check.errors, "\n".join(map(str, check.errors))
    return check.suite, run_suite(check.suite, RunConfig(seed=0), tmp_path_factory.mktemp("pa"))


def test_every_agent_has_a_real_manual_and_calls_in_its_language(result):
    suite, _ = result
    assert len(suite.agents) >= 15
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
