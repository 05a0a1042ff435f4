"""Ask a model for JSON, and re-ask with the reason when the answer is unusable.

The LLM judges, the LLM verifier and the LLM caller all need one JSON object of
a known shape from a model that may answer with prose, a broken object or the
wrong ids. Each used to write this loop itself; this is the one loop. The
reader (`read`) decides what is usable: it returns the value, or raises one of
`rejects` with a reason the model is shown before it is asked again. Anything
else the reader raises is a bug and propagates as it is.

What the asking cost is summed over every answer, the rejected ones included:
the answers asked for (`requests`), tokens, and the provider retries behind
them (`usage.retries`), so that cost and `--max-cost` see every request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .base import ChatModel
from .types import Usage

T = TypeVar("T")

REASK = "That reply was rejected: {reason}. Reply again with one valid JSON object."
"""What the model is told after an unusable answer (`{reason}`: what the reader objected to)."""


@dataclass(frozen=True)
class AskCost:
    """What asking took: answers asked for (re-asks included), their tokens and provider retries,
    and the model layer's warnings about them."""

    requests: int = 0
    usage: Usage = Usage()
    warnings: tuple[str, ...] = ()

    def plus(self, usage: Usage, warnings: tuple[str, ...]) -> AskCost:
        return AskCost(self.requests + 1, self.usage + usage, self.warnings + warnings)


@dataclass(frozen=True)
class JsonAnswer(Generic[T]):
    """The reader's value for the accepted answer, and what asking for it cost."""

    value: T
    text: str
    """the accepted answer as the model wrote it"""
    cost: AskCost


class JsonRejected(Exception):
    """Every answer was rejected. `reason` is the reader's last objection; `cost` what the asking
    cost, for the caller to record before it raises its own error."""

    def __init__(self, reason: str, cost: AskCost):
        super().__init__(reason)
        self.reason = reason
        self.cost = cost

    def __reduce__(self) -> tuple[type[JsonRejected], tuple[str, AskCost]]:
        return type(self), (self.reason, self.cost)  # survives a trip to another process


async def ask_json(
    model: ChatModel,
    messages: list[dict[str, Any]],
    read: Callable[[str], T],
    *,
    attempts: int = 2,
    rejects: type[Exception] | tuple[type[Exception], ...] = ValueError,
    json_mode: bool = True,
    json_schema: dict[str, Any] | None = None,
    reask: str = REASK,
) -> JsonAnswer[T]:
    """Ask `model` up to `attempts` times; after an answer `read` rejects, the conversation goes on
    with that answer and `reask` (its reason filled in). Raises `JsonRejected` when every answer
    was rejected; provider failures propagate from the model as they are."""
    cost = AskCost()
    reason = ""
    for _ in range(max(1, attempts)):
        response = await model.complete(
            messages, None, json_mode=json_mode, json_schema=json_schema
        )
        cost = cost.plus(response.usage, response.warnings)
        text = response.text or ""
        try:
            return JsonAnswer(read(text), text, cost)
        except rejects as exc:
            reason = str(exc)
            messages = [
                *messages,
                {"role": "assistant", "content": text},
                {"role": "user", "content": reask.format(reason=reason)},
            ]
    raise JsonRejected(reason, cost)


__all__ = ["REASK", "AskCost", "JsonAnswer", "JsonRejected", "ask_json"]
