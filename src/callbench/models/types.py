"""The values a model answers with: tool calls and token usage.

They live here, at the bottom of the stack, so that importing the model layer
loads nothing above it; `callbench.call.types` re-exports them for the turn
loop, which passes them on unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call as a candidate emitted it: arguments stay raw text until the engine parses
    them."""

    name: str
    arguments: str
    id: str | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    retries: int = 0
    """provider requests the model layer repeated after a retryable failure (tokens count the answer
    kept)"""

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        """The usage of two answers together (a re-asked question costs both)."""
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
            self.retries + other.retries,
        )


__all__ = ["ToolCall", "Usage"]
