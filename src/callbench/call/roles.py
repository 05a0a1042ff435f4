"""The three roles an episode plays with: what the turn loop needs of each, and nothing more.

They live here, beside the loop that calls them, so `call` depends on no package above it;
`candidates`, `callers` and `backends` re-export them with their implementations.

Errors across these boundaries: an implementation that wraps third-party code (a user's
agent, an HTTP agent, a model provider) converts that code's failures into the typed errors
of `callbench.errors` (`InfrastructureError` when a provider or simulator failed, `ModelError`
or a recorded `CandidateStep.error` when the candidate did). Anything else an implementation
raises is a bug in callbench and crashes the run with its traceback.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from .types import CallerUtterance, CandidateStep, ToolOutcome
from .views import CallerView, CandidateView


@runtime_checkable
class Candidate(Protocol):
    """The system under test: one message (speech and/or tool calls) per call of `step`."""

    name: str

    async def step(self, view: CandidateView) -> CandidateStep: ...


@runtime_checkable
class Caller(Protocol):
    """The simulated person on the other end of the line: one turn per call of `respond`."""

    name: str

    async def respond(self, view: CallerView) -> CallerUtterance: ...


@runtime_checkable
class Backend(Protocol):
    """Answers one tool call. `arguments` is None when the candidate's raw arguments did not parse.

    A backend is created fresh for each episode and must be deterministic given
    its spec and the sequence of calls, so a trace can be replayed.
    """

    async def call(self, name: str, arguments: dict[str, Any] | None) -> ToolOutcome: ...


__all__ = ["Backend", "Caller", "Candidate"]
