"""The Grader boundary and the verdict it produces.

Graders read a stored trace and the scenario; they never touch live objects,
so a run can be re-scored without replaying a call.
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..call.trace import Trace
from ..spec import Scenario, SuiteManifest

Label = Literal["met", "partial", "not_met", "not_measured", "not_applicable"]
"""`not_applicable`: a guard never put to the test (no protected tool was called, no protected fact
came up).
It enters no sum and, unlike `not_measured`, leaves nothing missing from a pillar."""
R_OF = {"met": 1.0, "partial": 0.5, "not_met": 0.0}


class ItemVerdict(BaseModel):
    """One graded item. `r` is None when the item was not measured (it then enters no sum)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    kind: Literal["action", "criterion", "conversation", "check", "spoken"]
    pillar: Literal["task", "conversation"]
    weight: int
    label: Label
    r: float | None
    grader: str
    diagnostic: str = Field(
        description="the one diagnostic this item feeds (see grading/diagnostics.py)"
    )
    evidence: list[int] = Field(default_factory=list, description="trace message indices")
    detail: str = ""
    rating: int | None = Field(
        default=None, description="1-5 for conversation ratings (r = (rating-1)/4)"
    )
    judge: dict | None = Field(
        default=None, description="for LLM verdicts: model, prompt and rubric hashes, settings"
    )
    guard: bool = Field(
        default=False,
        description="a rule rather than an achievement: in the guards scoring mode a kept "
        "guard enters neither side of its pillar, a broken one enters with "
        "r = 0 and fails the call",
    )

    @property
    def broken(self) -> bool:
        return self.guard and self.r is not None and self.r < 1.0


@runtime_checkable
class Grader(Protocol):
    name: str

    def grade(
        self, trace: Trace, scenario: Scenario, suite: SuiteManifest
    ) -> list[ItemVerdict]: ...


class FixedGrader:
    """A fake: returns the verdicts it was given, whatever the trace (for tests of scorecards and
    reports)."""

    name = "fixed"

    def __init__(self, verdicts: list[ItemVerdict]):
        self.verdicts = verdicts

    def grade(self, trace: Trace, scenario: Scenario, suite: SuiteManifest) -> list[ItemVerdict]:
        return list(self.verdicts)
