"""The bounds every built-in suite must hold on both pillars (guards scoring, scripted caller,
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
    # silence passes most conversation checks (no markdown, no digits...): the conversation pillar
    # is earned with the task, so doing nothing earns nothing there either
    assert all(row["conversation"] == 100.0 for row in oracle.values())
    noop_talk = cands["noop"]["conversation"]
    assert noop_talk <= NOOP_CEILING, noop_talk
    for script in ("shortcut", "spray"):
        assert cands[script]["task"] <= noop + GAMING_ALLOWANCE, (script, cands[script]["task"])
        talk = cands[script]["conversation"]
        assert talk <= noop_talk + GAMING_ALLOWANCE, (script, talk)
        assert (
            cands[script]["scenarios_passed"] == 0
            and cands[script]["completion_at_cutoff"]["passed"] == 0
        ), script
    assert report["gameability"]["figure"] <= GAMING_ALLOWANCE
    assert report["scoring"]["mode"] == "guards"
