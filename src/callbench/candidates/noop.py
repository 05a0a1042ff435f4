"""The no-op floor: polite, in the agent's language, and never calls a tool."""

from __future__ import annotations

from ..call.types import CandidateStep
from .base import CandidateView
from .phrases import phrases


class NoopCandidate:
    name = "noop"

    def __init__(self) -> None:
        self.turn = 0

    async def step(self, view: CandidateView) -> CandidateStep:
        p = phrases(view.language)
        line = (
            p["greeting"] if self.turn == 0 else p["fillers"][(self.turn - 1) % len(p["fillers"])]
        )
        self.turn += 1
        return CandidateStep(speech=line)
