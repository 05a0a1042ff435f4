"""ScriptedModel: a ChatModel fake that answers from a list (or a function of the request),
recording every request."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .base import ChatResponse, ClosingModel, ModelSettings
from .types import ToolCall, Usage

Reply = ChatResponse | Exception | str | dict[str, Any]


def _as_response(reply: ChatResponse | str | dict[str, Any]) -> ChatResponse:
    if isinstance(reply, ChatResponse):
        return reply
    if isinstance(reply, str):
        return ChatResponse(text=reply, usage=Usage(10, len(reply.split())))
    calls = tuple(
        ToolCall(
            name=c["name"],
            arguments=c["arguments"]
            if isinstance(c["arguments"], str)
            else json.dumps(c["arguments"]),
            id=c.get("id"),
        )
        for c in reply.get("tool_calls", [])
    )
    return ChatResponse(text=reply.get("text"), tool_calls=calls, usage=Usage(10, 5))


class ScriptedModel(ClosingModel):
    """Replies in order (then repeats the last), or computes each reply from the request with
    `respond`.

    A reply that is an Exception is raised, which is how tests inject provider failures.
    """

    def __init__(
        self,
        replies: list[Reply] | None = None,
        respond: Callable[[list[dict], list[dict] | None], Reply] | None = None,
        name: str = "fake:scripted",
        settings: ModelSettings | None = None,
    ):
        self.replies = list(replies or [])
        self.respond = respond
        self.name = name
        self.settings = settings or ModelSettings()
        self.requests: list[dict[str, Any]] = []
        self.closed = 0
        """how many times `aclose` was called (for tests of shutdown)"""

    async def aclose(self) -> None:
        self.closed += 1

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        json_mode: bool = False,
        json_schema: dict[str, Any] | None = None,
    ) -> ChatResponse:
        self.requests.append(
            {
                "messages": messages,
                "tools": tools,
                "json_mode": json_mode,
                "json_schema": json_schema,
            }
        )
        if self.respond is not None:
            reply = self.respond(messages, tools)
        elif self.replies:
            reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        else:
            reply = ""
        if isinstance(reply, Exception):
            raise reply
        return _as_response(reply)
