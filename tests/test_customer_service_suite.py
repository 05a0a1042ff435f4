"""The built-in customer-service suite: six stateful domains a script cannot pass."""

from collections import defaultdict

import pytest

from callbench.runs import RunConfig, run_suite
from callbench.suite_check import check_suite
from tests.bounds import assert_no_script_earns


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    check = check_suite("customer-service")
    assert not check.errors and not check.warnings, "\n".join(map(str, check.problems))
    return check.suite, run_suite(check.suite, RunConfig(seed=0), tmp_path_factory.mktemp("cs"))


def test_shape(result):
    suite, _ = result
    assert len(suite.agents) == 6 and len(suite.scenarios) >= 48
    by_agent = defaultdict(list)
    for sc in suite.scenarios.values():
        by_agent[sc.agent].append(sc)
        assert sc.backend.kind == "state"
    for agent, scenarios in by_agent.items():
        tags = {t for sc in scenarios for t in sc.tags}
        assert len(scenarios) >= 8 and {"text_to_action", "robustness", "adversarial"} <= tags, (
            agent
        )
        assert 6 <= len(suite.agents[agent].definition.tools) <= 15


def test_oracle_scores_100_and_no_script_earns_anything(result):
    suite, run = result
    assert_no_script_earns(run.report, len(suite.scenarios))


def test_verification_locks_where_the_instructions_set_a_limit(result):
    suite, _ = result
    locks = {
        a.definition.id: t.lock_after
        for a in suite.agents.values()
        for name, t in a.definition.state_tools.items()
        if t.lock_after
    }
    assert locks == {
        "fintech-support": 2,
        "healthcare-admin": 3,
        "retail-orders": 2,
        "saas-support": 2,
        "telecom-care": 3,
        "travel-bookings": 2,
    }
    assert any("lockout" in sc.tags for sc in suite.scenarios.values())
