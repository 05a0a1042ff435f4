"""Spend control: stop scheduling new calls before a budget would be exceeded (the run stays
resumable),
and estimate tokens and cost from the suite before anything is spent."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..pricing import card_cost, tokens_cost


@dataclass
class Budget:
    max_cost: float | None = None
    prices: dict[str, dict[str, float]] = field(default_factory=dict)
    spent: float = 0.0
    calls: int = 0
    tokens: int = 0

    def add(self, card: Any) -> None:
        self.calls += 1
        self.spent += card_cost(card, self.prices)
        self.tokens += sum(u.prompt_tokens + u.completion_tokens for u in card.usage.values())

    def exhausted(self) -> bool:
        """True when one more call of the average cost so far would go over the budget."""
        if self.max_cost is None:
            return False
        average = self.spent / self.calls if self.calls else 0.0
        return self.spent + average > self.max_cost


def estimate(suite, config, cast) -> dict[str, Any]:
    """A dry run: tokens per call from the suite's own sizes, before any request.

    Per candidate request the prompt holds the instructions, the tool schemas
    and the conversation so far; a call makes about one request per reference
    entry. Characters/4 stands in for tokens. It is an estimate, said as such.
    """
    scenario_ids = list(config.scenarios) if config.scenarios else list(suite.scenarios)
    per_candidate: dict[str, Any] = {}
    for name in config.candidates:
        entry = cast.entry(name)
        if not entry.model:
            per_candidate[name] = {
                "model": None,
                "prompt_tokens": 0,
                "completion_tokens": 0,
                "cost_usd": 0.0,
            }
            continue
        prompt = completion = 0
        for sid in scenario_ids:
            sc = suite.scenarios[sid]
            agent = suite.agent_for(sc)
            fixed = (
                len(agent.instructions)
                + len(json.dumps([t.parameters for t in agent.definition.tools]))
            ) / 4
            lines = [len(t.say or "") + 40 * len(t.calls) for t in sc.reference] + [
                len(s.say or s.meaning) for s in sc.caller.plan
            ]
            requests = max(len(sc.reference), 1)
            conversation = sum(lines) / 4
            prompt += int(requests * fixed + requests * conversation / 2)
            completion += int(sum(len(t.say or "") + 60 * len(t.calls) for t in sc.reference) / 4)
        prompt *= config.repeats
        completion *= config.repeats
        cost = tokens_cost(config.prices.get(entry.model["spec"]), prompt, 0, completion)
        per_candidate[name] = {
            "model": entry.model["spec"],
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "cost_usd": None if cost is None else round(cost, 4),
        }
    return {
        "calls": len(scenario_ids) * config.repeats * len(config.candidates),
        "candidates": per_candidate,
        "note": "estimate from suite sizes (characters/4); caller and judge tokens not included",
    }
