"""The oracle: plays a scenario's reference solution. Any oracle failure means the harness or the
scenario broke."""

from __future__ import annotations

import json

from ..call.types import CandidateStep, ToolCall
from ..spec import Scenario, make_scope, resolve
from .base import CandidateView


class OracleCandidate:
    """Privileged by design: it reads `scenario.reference`, which no real candidate may see."""

    name = "oracle"

    def __init__(self, scenario: Scenario):
        self.entries = list(scenario.reference)
        self.scope = make_scope(scenario.caller.knows, scenario.backend.hidden)
        self.position = 0

    async def step(self, view: CandidateView) -> CandidateStep:
        if self.position >= len(self.entries):
            return CandidateStep()
        entry = self.entries[self.position]
        if view.in_tool_chain != entry.same_turn:
            return CandidateStep()
        self.position += 1
        calls = tuple(
            ToolCall(
                name=c.tool, arguments=json.dumps(resolve(c.args, self.scope), ensure_ascii=False)
            )
            for c in entry.calls
        )
        say = str(resolve(entry.say, self.scope)) if entry.say else None
        return CandidateStep(speech=say, tool_calls=calls)
