"""The scripted caller: deterministic, no model, and honest about what it cannot do.

It advances its plan one step at a time, only when a step's cue appears in what
the agent just said, and then speaks that step's authored line. It cannot
answer questions its author did not anticipate: when nothing fires it uses a
neutral idle line, and after as many idle turns as its patience allows it hangs
up, as a person would. A scenario without lines and cues cannot use it.
"""

from __future__ import annotations

from ..call.types import CallerUtterance
from ..spec import CallerPhrases, Scenario, TemplateError, make_scope, resolve
from ..text import find_cue
from .base import CallerView

PATIENCE = {"low": 2, "medium": 3, "high": 4}
"""Consecutive turns without progress before the scripted caller gives up."""


class ScriptedCallerUnavailable(ValueError):
    """The scenario lacks what the scripted caller needs (a line and cues per step, phrases for its language)."""


class ScriptedCaller:
    name = "scripted"

    def __init__(self, scenario: Scenario, phrases: CallerPhrases | None):
        missing = [s.id for s in scenario.caller.plan if not s.say or not s.cue]
        if missing:
            raise ScriptedCallerUnavailable(f"scenario '{scenario.id}': plan steps {missing} lack a 'say' line or cues")
        if phrases is None:
            raise ScriptedCallerUnavailable(f"scenario '{scenario.id}': no caller phrases for language '{scenario.language}'")
        self.plan = scenario.caller.plan
        self.phrases = phrases
        self.patience = PATIENCE[scenario.caller.persona.patience]
        self.scope = make_scope(scenario.caller.knows, {})
        self.idle_turns = 0

    def _line(self, text: str) -> str:
        try:
            return str(resolve(text, self.scope))
        except TemplateError:
            return text

    async def respond(self, view: CallerView) -> CallerUtterance:
        heard = view.agent_speech_since_last_turn()
        position = len(view.expressed)
        if position < len(self.plan):
            step = self.plan[position]
            if any(find_cue(c, heard) for c in step.cue):
                self.idle_turns = 0
                return CallerUtterance(text=self._line(step.say or ""), expressed_steps=(step.id,))
        elif any(find_cue(c, heard) for c in self.phrases.goodbye):
            return CallerUtterance(text=self.phrases.closing, done=True)
        self.idle_turns += 1
        if self.idle_turns > self.patience:
            return CallerUtterance(text=self.phrases.closing, done=True)
        idle = self.phrases.idle
        return CallerUtterance(text=idle[(self.idle_turns - 1) % len(idle)])
