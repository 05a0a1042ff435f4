"""The built-in customer-service suite: six stateful domains a script cannot pass."""

from collections import defaultdict

import pytest

from callbench.runs import RunConfig, run_suite
from callbench.suite_check import check_suite


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
        assert len(scenarios) >= 8 and {"text_to_action", "robustness", "adversarial"} <= tags, agent
        assert 6 <= len(suite.agents[agent].definition.tools) <= 15


def test_oracle_passes_noop_floor_shortcut_near_noop(result):
    _, run = result
    cands = run.report["candidates"]
    assert all(r["task"] == 100.0 for r in cands["oracle"]["per_scenario"].values())
    assert all(r["task"] < 25 for r in cands["noop"]["per_scenario"].values())
    assert cands["shortcut"]["task"] <= cands["noop"]["task"] + 15
    assert cands["shortcut"]["scenarios_passed"] == 0 and cands["noop"]["scenarios_passed"] == 0
