"""What each side of the call is shown: the engine builds these views, so isolation is structural.

The caller's view holds its brief and the public conversation; the candidate's
holds its agent definition, the call context and what the channel let through.
Neither type has a field for anything else, so nothing else can leak.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import InfrastructureError
from ..spec import CallerBrief, ToolSpec
from ..speech import figure_count, word_count
from .types import CallerUtterance, ObservedMessage, PublicTurn


@dataclass(frozen=True)
class CandidateView:
    instructions: str
    tools: tuple[ToolSpec, ...]
    language: str
    direction: str
    call_context: dict[str, Any]
    messages: tuple[ObservedMessage, ...] = field(default_factory=tuple)

    @property
    def in_tool_chain(self) -> bool:
        """True while the candidate is continuing its own turn after tool results."""
        return bool(self.messages) and self.messages[-1].role == "tool"

    def system_prompt(self) -> str:
        """The instructions first and unchanged (a stable prefix for provider prompt caching), then
        the call context."""
        if not self.call_context:
            return self.instructions
        context = "\n".join(f"- {k}: {v}" for k, v in self.call_context.items())
        return f"{self.instructions}\n\n## Call context\n{context}\n"


@dataclass(frozen=True, slots=True)
class CallerView:
    brief: CallerBrief
    language: str
    conversation: tuple[PublicTurn, ...]
    expressed: tuple[str, ...]
    """plan step ids expressed so far, in order"""
    turn: int
    """the number this turn will have (1-based)"""

    def agent_speech_since_last_turn(self) -> str:
        tail: list[str] = []
        for line in reversed(self.conversation):
            if line.speaker == "caller":
                break
            tail.append(line.text)
        return " ".join(reversed(tail))

    def agent_speech_transcribed(self) -> bool:
        """Whether the agent's speech since the caller last spoke reached it through a
        recogniser."""
        for line in reversed(self.conversation):
            if line.speaker == "caller":
                break
            if line.transcribed:
                return True
        return False

    def agent_turn_size(self) -> tuple[int, int]:
        """(words, figures) of the agent's speech since the caller last spoke, as the agent said
        it (`PublicTurn.said`), or as heard where that is all there is."""
        words = figures = 0
        for line in reversed(self.conversation):
            if line.speaker == "caller":
                break
            size = line.said or (word_count(line.text), figure_count(line.text))
            words, figures = words + size[0], figures + size[1]
        return words, figures


class CallerTurnRejected(InfrastructureError):
    """A caller turn broke the caller contract; the simulator failed, not the candidate."""


BRIEF_FIELDS = ("does_not_know", "expressed_steps", "caller.knows", "${")


def leaked_field(view: CallerView, text: str) -> str | None:
    """An internal name that a person would never say: a plan step id or fact key written with _ or
    -,
    a brief field name, or JSON braces. Returns the offending token, or None."""
    if "{" in text or "}" in text:
        return "{"
    names = [s.id for s in view.brief.plan] + list(view.brief.knows)
    for name in names:
        if ("_" in name or "-" in name) and re.search(
            rf"(?<![\w-]){re.escape(name)}(?![\w-])", text
        ):
            return name
    return next((f for f in BRIEF_FIELDS if f in text), None)


def check_utterance(view: CallerView, utterance: CallerUtterance) -> None:
    """Reject empty turns, leaked internal names, and plan steps expressed out of order, twice, or
    several at once."""
    if not utterance.text.strip():
        raise CallerTurnRejected("caller turn is empty")
    leak = leaked_field(view, utterance.text)
    if leak:
        raise CallerTurnRejected(f"caller speech leaks the internal name '{leak}'")
    steps = list(utterance.expressed_steps)
    if len(steps) > 1:
        raise CallerTurnRejected(
            f"caller expressed {len(steps)} plan steps in one turn; at most one is allowed"
        )
    if steps:
        plan = [s.id for s in view.brief.plan]
        step = steps[0]
        if step in view.expressed:
            raise CallerTurnRejected(f"caller expressed plan step '{step}' twice")
        if step not in plan:
            raise CallerTurnRejected(f"caller expressed unknown plan step '{step}'")
        expected = plan[len(view.expressed)] if len(view.expressed) < len(plan) else None
        if step != expected:
            raise CallerTurnRejected(
                f"caller expressed plan step '{step}' out of order (next is '{expected}')"
            )
