"""The scripted caller: deterministic, no model, and honest about what it cannot do.

It advances its plan one step at a time, and only when the agent's turn ends by asking for that
step: a
cue word inside the question or request that closes the turn (the first step may fire on any
question
that ends the agent's opening turn, such as "how can I help?"). It then speaks that step's authored
line.

It listens as a person on the phone does. A turn longer than the suite's `followable_words` (or
holding more
figures than `followable_figures`), or one whose
closing ask names two or more of its pending steps at once (steps with the same cues, such as
repeated "anything
else?" turns, are one kind of question and are answered in order), confuses it: it says a confusion
line, and
that costs patience like an idle turn. When nothing fires it says a neutral idle line; after as many
idle
or confused turns in a row as its patience allows it hangs up. So a script that recites cue words,
its
instructions or a list of questions does not walk the plan: only a real question, one at a time,
does.
A scenario without lines and cues cannot use it.
"""

from __future__ import annotations

from ..call.types import CallerUtterance
from ..errors import CallbenchError
from ..spec import CallerPhrases, Scenario, TemplateError, make_scope, resolve
from ..speech import closing_ask, followable_size
from .base import CallerView
from .hearing import Heard, cue_finder, hears

PATIENCE = {"low": 2, "medium": 3, "high": 4}
"""Consecutive turns without progress before the scripted caller gives up."""
DEFAULT_FOLLOWABLE_WORDS = 80


class ScriptedCallerUnavailable(CallbenchError):
    """The scenario lacks what the scripted caller needs (a line and cues per step, phrases for its
    language)."""


class ScriptedCaller:
    name = "scripted"

    def __init__(
        self,
        scenario: Scenario,
        phrases: CallerPhrases | None,
        followable_words: int = DEFAULT_FOLLOWABLE_WORDS,
        followable_figures: int | None = None,
    ):
        missing = [
            s.id for i, s in enumerate(scenario.caller.plan) if not s.say or (not s.cue and i > 0)
        ]
        if missing:
            raise ScriptedCallerUnavailable(
                f"scenario '{scenario.id}': plan steps {missing} lack a 'say' line or cues"
            )
        if phrases is None:
            raise ScriptedCallerUnavailable(
                f"scenario '{scenario.id}': no caller phrases for language '{scenario.language}'"
            )
        self.plan = scenario.caller.plan
        self.language = scenario.language
        self.phrases = phrases
        self.limit, self.figures = followable_words, followable_figures
        self.patience = PATIENCE[scenario.caller.persona.patience]
        self.scope = make_scope(scenario.caller.knows, {})
        self.idle_turns = 0
        self.cued = {s.id: cue_finder(s.cue, self.language) for s in self.plan}

    def _line(self, text: str) -> str:
        try:
            return str(resolve(text, self.scope))
        except TemplateError:
            return text

    async def respond(self, view: CallerView) -> CallerUtterance:
        heard = view.agent_speech_since_last_turn()
        position = len(view.expressed)
        if not followable_size(view.agent_turn_size(), self.limit, self.figures):
            return self._lost(confused=True)
        ask = closing_ask(heard, self.language)
        if position < len(self.plan):
            pending = self.plan[position:]
            said = Heard.of(ask or "", self.language, view.agent_speech_transcribed())
            asked = [
                s
                for s in pending
                if ask is not None and (self.cued[s.id](said) if s.cue else s is self.plan[0])
            ]
            # two different things asked at once confuse; a cue-less opening step is not one of them
            # (a caller
            # asked "could I have your account number?" first says why they are calling)
            named = [s for s in asked if s.cue]
            if len({tuple(sorted(s.cue)) for s in named}) > 1:
                return self._lost(confused=True)
            if asked and asked[0] is pending[0]:
                self.idle_turns = 0
                step = pending[0]
                return CallerUtterance(text=self._line(step.say or ""), expressed_steps=(step.id,))
        elif any(
            hears(c, heard, self.language, view.agent_speech_transcribed())
            for c in self.phrases.goodbye
        ):
            return CallerUtterance(text=self.phrases.closing, done=True)
        return self._lost(confused=False)

    def _lost(self, confused: bool) -> CallerUtterance:
        """An idle or confused turn: the caller repeats itself and loses patience, then hangs up."""
        self.idle_turns += 1
        if self.idle_turns > self.patience:
            return CallerUtterance(text=self.phrases.closing, done=True)
        lines = (self.phrases.confused or self.phrases.idle) if confused else self.phrases.idle
        return CallerUtterance(text=lines[(self.idle_turns - 1) % len(lines)])
