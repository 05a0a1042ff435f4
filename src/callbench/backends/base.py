"""The Backend boundary: the world a candidate's tool calls act on.

The protocol is defined beside the turn loop (`callbench.call.roles`) and re-exported here. A
backend is callbench's own code: whatever it raises crashes the run with its traceback.
"""

from __future__ import annotations

from typing import Any

from ..call.roles import Backend
from ..call.types import ToolOutcome

__all__ = ["Backend", "RecordingBackend"]


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
