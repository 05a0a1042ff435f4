"""The built-in utility-billing suite: multi-request billing calls on a state world, cast calm or
angry
and heard through four background conditions, that a script cannot pass."""

import re
from collections import defaultdict

import pytest

from callbench.runs import RunConfig, run_suite
from callbench.suite_check import check_suite
from tests.bounds import assert_no_script_earns

REQUESTS = re.compile(r"^requests-([0-9]+)$")


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    check = check_suite("utility-billing")
    assert not check.errors and not check.warnings, "\n".join(map(str, check.problems))
    return check.suite, run_suite(
        check.suite, RunConfig(seed=0, repeats=2), tmp_path_factory.mktemp("ub")
    )


def test_shape(result):
    suite, _ = result
    assert suite.manifest.languages == ["en"]
    assert len(suite.agents) == 1 and len(suite.scenarios) >= 10
    agent = next(iter(suite.agents.values()))
    assert 8 <= len(agent.definition.tools) <= 12 and len(agent.instructions) >= 8000
    assert {t.name for t in agent.definition.end_tools} == {"end_call", "transfer_to_agent"}
    counts = defaultdict(int)
    for sc in suite.scenarios.values():
        assert sc.backend.kind == "state" and sc.gates is not None, sc.id
        tags = [m for t in sc.tags if (m := REQUESTS.match(t))]
        assert len(tags) == 1 and 2 <= int(tags[0].group(1)) <= 4, sc.id
        counts[int(tags[0].group(1))] += 1
        assert all(step.say and (step.cue or i == 0) for i, step in enumerate(sc.caller.plan)), (
            sc.id
        )
        assert sc.expected_state is not None or sc.expected_changes is not None, sc.id
    assert set(counts) == {2, 3, 4}
    assert sum(sc.refusal is not None for sc in suite.scenarios.values()) >= 2
    failures = [
        f
        for sc in suite.scenarios.values()
        for tool in sc.backend.tools.values()
        for f in tool.failures
    ]
    assert any(f.applied for f in failures) and any(f.retryable and not f.applied for f in failures)
    assert sum(bool(sc.spoken_checks) for sc in suite.scenarios.values()) >= 8


def test_casting(result):
    suite, _ = result
    casting = suite.manifest.casting
    assert set(casting.personas) == {"calm", "angry"}
    angry = casting.personas["angry"]
    assert angry.mood == "angry" and angry.patience == "low" and "supervisor" in angry.notes
    assert set(casting.backgrounds) == {"clean", "street", "cafe", "tv"}
    assert (
        casting.backgrounds["clean"].noise == 0 and casting.backgrounds["clean"].intrusion_rate == 0
    )
    for name in ("street", "cafe", "tv"):
        assert 0.02 <= casting.backgrounds[name].noise <= 0.06, name
    for name in ("cafe", "tv"):
        bg = casting.backgrounds[name]
        assert bg.intrusion_rate > 0 and bg.lines_for("en"), name
    goodbye = suite.manifest.defaults.caller_phrases["en"].goodbye
    assert not any(word.lower().startswith("thank") for word in goodbye)


def test_oracle_scores_100_and_no_script_earns_anything(result):
    suite, run = result
    assert_no_script_earns(run.report, len(suite.scenarios))


def test_the_verification_locks_after_three_attempts(result):
    suite, _ = result
    agent = next(iter(suite.agents.values())).definition
    assert agent.state_tools["verify_customer"].lock_after == 3
    assert any("lockout" in sc.tags and sc.refusal is not None for sc in suite.scenarios.values())


def test_every_call_is_cast_the_same_for_every_candidate(result):
    _, run = result
    by_call = defaultdict(dict)
    for card in run.scorecards:
        assert card.conditions.get("persona") in {"calm", "angry"}, card.trace_id
        assert card.conditions.get("background") in {"clean", "street", "cafe", "tv"}, card.trace_id
        by_call[(card.scenario_id, card.repeat)][card.candidate] = card.conditions
    for call, conditions in by_call.items():
        assert set(conditions) == {"oracle", "noop", "shortcut", "spray"}, call
        assert len({tuple(sorted(c.items())) for c in conditions.values()}) == 1, call
    slices = run.report["slices"]
    for cand in ("oracle", "noop", "shortcut", "spray"):
        assert set(slices["persona"][cand]) == {"calm", "angry"}
        assert len(slices["background"][cand]) >= 2
