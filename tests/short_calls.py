"""A suite whose calls are cut short, for the tests that run a real local model: fewer caller
turns and a shorter tool chain than a suite's own, so a call takes minutes, not a quarter hour."""

from __future__ import annotations

from typing import Any


def short_calls(suite: Any, caller_turns: int, tool_calls: int) -> Any:
    """`suite` (a loaded suite) with at most `caller_turns` caller turns and `tool_calls` tool
    calls per agent turn."""
    defaults = suite.manifest.defaults.model_copy(
        update={"max_caller_turns": caller_turns, "max_tool_calls_per_turn": tool_calls}
    )
    manifest = suite.manifest.model_copy(update={"defaults": defaults})
    return suite.model_copy(update={"manifest": manifest})
