"""The Grader boundary and the verdict it produces.

Graders read a stored trace and the scenario; they never touch live objects,
so a run can be re-scored without replaying a call.

Every grader is one protocol, as Inspect AI's `Scorer` is: a `name` and an
async `agrade` that returns its verdicts and, apart from them, the model usage
it cost (`Graded`). The LLM judges are Graders as they are. The deterministic
checks are `CodeGrader`s: CPU only, with a synchronous `grade` that `agrade`
wraps, so an executor can tell them apart by their class and run them in a
worker thread, off the event loop the judges and the calls in flight share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..call.trace import RoleUsage, Trace
from ..errors import InfrastructureError
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


@dataclass
class Graded:
    """What one grader said about one call: its verdicts, and what its model requests cost, counted
    once per request (never per verdict: one judge request decides several items)."""

    verdicts: list[ItemVerdict]
    usage: RoleUsage | None = None
    """None: the grader asked no model"""


class GraderFailure(InfrastructureError):
    """A grader could not grade the call (a judge rejected twice): the call is excluded and
    counted, never passed. `usage` is what its model requests cost all the same."""

    retryable = False

    def __init__(self, message: str, usage: RoleUsage | None = None):
        super().__init__(message)
        self.usage = usage


@runtime_checkable
class Grader(Protocol):
    """Every grader: LLM judges, the deterministic checks (through `CodeGrader`), fakes."""

    name: str

    async def agrade(self, trace: Trace, scenario: Scenario, suite: SuiteManifest) -> Graded: ...


class CodeGrader:
    """The base of the deterministic graders: CPU only and synchronous, their time growing with what
    the candidate said. Executors call `grade` in a worker thread (an isinstance check, not a guess
    from attributes); `agrade` is the same verdicts for everyone else."""

    name: str = "code"

    def grade(self, trace: Trace, scenario: Scenario, suite: SuiteManifest) -> list[ItemVerdict]:
        raise NotImplementedError

    async def agrade(self, trace: Trace, scenario: Scenario, suite: SuiteManifest) -> Graded:
        return Graded(self.grade(trace, scenario, suite))


class FixedGrader(CodeGrader):
    """A fake: returns the verdicts it was given, whatever the trace (for tests of scorecards and
    reports)."""

    name = "fixed"

    def __init__(self, verdicts: list[ItemVerdict]):
        self.verdicts = verdicts

    def grade(self, trace: Trace, scenario: Scenario, suite: SuiteManifest) -> list[ItemVerdict]:
        return list(self.verdicts)
