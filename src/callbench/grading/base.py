"""The Grader boundary and the verdict it produces.

Graders read a stored trace and the scenario; they never touch live objects,
so a run can be re-scored without replaying a call.
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..call.trace import Trace
from ..spec import Scenario, SuiteManifest

Label = Literal["met", "partial", "not_met", "not_measured"]
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
    diagnostic: str = Field(description="the one diagnostic this item feeds (see grading/diagnostics.py)")
    evidence: list[int] = Field(default_factory=list, description="trace message indices")
    detail: str = ""
    rating: int | None = Field(default=None, description="1-5 for conversation ratings (r = (rating-1)/4)")
    judge: dict | None = Field(default=None, description="for LLM verdicts: model, prompt and rubric hashes, settings")


@runtime_checkable
class Grader(Protocol):
    name: str

    def grade(self, trace: Trace, scenario: Scenario, suite: SuiteManifest) -> list[ItemVerdict]: ...


class FixedGrader:
    """A fake: returns the verdicts it was given, whatever the trace (for tests of scorecards and reports)."""

    name = "fixed"

    def __init__(self, verdicts: list[ItemVerdict]):
        self.verdicts = verdicts

    def grade(self, trace: Trace, scenario: Scenario, suite: SuiteManifest) -> list[ItemVerdict]:
        return list(self.verdicts)
