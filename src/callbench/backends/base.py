"""The Backend boundary: the world a candidate's tool calls act on."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ..call.types import ToolOutcome


@runtime_checkable
class Backend(Protocol):
    """Answers one tool call. `arguments` is None when the candidate's raw arguments did not parse.

    A backend is created fresh for each episode and must be deterministic given
    its spec and the sequence of calls, so a trace can be replayed.
    """

    async def call(self, name: str, arguments: dict[str, Any] | None) -> ToolOutcome: ...


class RecordingBackend:
    """A fake: answers every call from a fixed mapping and records what it was asked (for tests)."""

    def __init__(self, results: dict[str, Any] | None = None, default: Any = None):
        self.results = dict(results or {})
        self.default = {"status": "ok"} if default is None else default
        self.calls: list[tuple[str, dict[str, Any] | None]] = []

    async def call(self, name: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        self.calls.append((name, arguments))
        if name in self.results:
            return ToolOutcome(result=self.results[name], source="fixed")
        return ToolOutcome(result=self.default, source="default")
