"""Who calls, and over what: the persona and background of each (scenario, repeat), from the suite's
casting.

Assignments depend only on the suite's casting seed, the scenario ids and the repeat index — not on
the
run seed, the candidate or the order calls run in — so every candidate of every run gets the same
persona and background for the same scenario and repeat (the utility-billing benchmark's rule). A
scenario keeps one persona across its repeats, and personas are dealt round a shuffled list of the
suite's scenarios, so each persona gets as many scenarios as the others (to within one). Backgrounds
rotate over a scenario's repeats in an order shuffled per scenario, so with as many repeats as
backgrounds every scenario meets each background once.
"""

from __future__ import annotations

import random
from functools import lru_cache

from ..spec import Casting, Scenario, Suite
from .seeds import derive_seed


@lru_cache(maxsize=64)
def _persona_deal(casting_json: str, scenario_ids: tuple[str, ...]) -> dict[str, str]:
    casting = Casting.model_validate_json(casting_json)
    names = sorted(casting.personas)
    order = sorted(scenario_ids)
    random.Random(derive_seed(casting.seed, "persona")).shuffle(order)
    return {sid: names[i % len(names)] for i, sid in enumerate(order)}


def conditions(suite: Suite, scenario_id: str, repeat: int) -> dict[str, str]:
    """{"persona": name, "background": name}, each present only when the suite defines that kind."""
    casting = suite.manifest.casting
    out: dict[str, str] = {}
    if casting.personas:
        out["persona"] = _persona_deal(casting.model_dump_json(), tuple(suite.scenarios))[
            scenario_id
        ]
    if casting.backgrounds:
        names = sorted(casting.backgrounds)
        random.Random(derive_seed(casting.seed, "background", scenario_id)).shuffle(names)
        out["background"] = names[repeat % len(names)]
    return out


def cast_scenario(suite: Suite, scenario: Scenario, assigned: dict[str, str]) -> Scenario:
    """The scenario as this call plays it: the assigned persona in place of the brief's own."""
    if "persona" not in assigned:
        return scenario
    persona = suite.manifest.casting.personas[assigned["persona"]]
    return scenario.model_copy(
        update={"caller": scenario.caller.model_copy(update={"persona": persona})}
    )
