"""The Caller boundary: the simulated person on the other end of the line.

A caller is built from its brief and sees only the public conversation: what
the agent said and what it itself meant to say. It never sees tool calls,
backend state, expected actions or criteria. The protocol is defined beside the turn loop
(`callbench.call.roles`) and re-exported here.
"""

from __future__ import annotations

from ..call.roles import Caller
from ..call.types import CallerUtterance
from ..call.views import CallerTurnRejected, CallerView, check_utterance


class LineCaller:
    """A fake: says the given lines in order (then idles), expressing nothing. For tests and
    reference checks."""

    name = "lines"

    def __init__(
        self, lines: list[str] | None = None, idle: str = "Mm-hm.", hang_up_after: int | None = None
    ):
        self.lines = list(lines or [])
        self.idle = idle
        self.hang_up_after = hang_up_after
        self.turns = 0

    async def respond(self, view: CallerView) -> CallerUtterance:
        self.turns += 1
        text = self.lines[self.turns - 1] if self.turns <= len(self.lines) else self.idle
        done = self.hang_up_after is not None and self.turns >= self.hang_up_after
        return CallerUtterance(text=text, done=done)


__all__ = ["Caller", "CallerTurnRejected", "CallerView", "LineCaller", "check_utterance"]
