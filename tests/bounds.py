"""The bounds every built-in suite must hold on the task pillar (guards scoring, scripted caller,
seed 0)."""

NOOP_CEILING = 5.0
GAMING_ALLOWANCE = 10.0


def assert_no_script_earns(report: dict, scenarios: int) -> None:
    """oracle 100 on every scenario; noop <= 5; max(shortcut, spray) <= noop + 10; no script passes
    a call."""
    cands = report["candidates"]
    oracle = cands["oracle"]["per_scenario"]
    assert len(oracle) == scenarios
    assert all(row["task"] == 100.0 for row in oracle.values()), {
        k: v["task"] for k, v in oracle.items() if v["task"] != 100
    }
    assert cands["oracle"]["scenarios_passed"] == scenarios
    assert cands["oracle"]["completion_at_cutoff"]["passed"] == cands["oracle"]["completed"]
    noop = cands["noop"]["task"]
    assert noop <= NOOP_CEILING, noop
    for script in ("shortcut", "spray"):
        assert cands[script]["task"] <= noop + GAMING_ALLOWANCE, (script, cands[script]["task"])
        assert (
            cands[script]["scenarios_passed"] == 0
            and cands[script]["completion_at_cutoff"]["passed"] == 0
        ), script
    assert report["gameability"]["figure"] <= GAMING_ALLOWANCE
    assert report["scoring"]["mode"] == "guards"
