"""Candidates backed by a ChatModel: native tool calling, and a JSON action loop for chat-only
models.

The operating instructions are the first, unchanging part of the system
prompt (call context after them), so providers' prompt caching applies from
the second request of a call on.
"""

from __future__ import annotations

import json
from typing import Any

from ..call.types import CandidateStep, ToolCall
from ..jsontext import find_json_object
from ..models.base import ChatModel
from .base import CandidateView, chat_messages, tool_schemas


class ChatCandidate:
    """Native tool calling over chat completions: speech and tool calls in one message where the
    model can.

    `user_first` inserts an empty user message before the first assistant turn
    (for chat templates that require one); `concluding_message` adds that
    parameter to call-ending tools (for models that cannot speak and call a
    tool in one message).
    """

    def __init__(
        self,
        model: ChatModel,
        name: str | None = None,
        *,
        user_first: bool = False,
        concluding_message: bool = False,
    ):
        self.model = model
        self.name = name or model.name
        self.user_first = user_first
        self.concluding_message = concluding_message
        self._schemas: tuple | None = None

    async def step(self, view: CandidateView) -> CandidateStep:
        if (
            self._schemas is None or self._schemas[0] is not view.tools
        ):  # the tools of a call never change
            self._schemas = (view.tools, tool_schemas(view.tools, self.concluding_message) or None)
        response = await self.model.complete(chat_messages(view, self.user_first), self._schemas[1])
        return CandidateStep(
            speech=(response.text or "").strip() or None,
            tool_calls=response.tool_calls,
            usage=response.usage,
            notes=response.warnings,
        )


ACTION_FORMAT = """\
## How to answer (read carefully)
You are speaking on a live phone call. Every reply you write must be exactly one JSON object and
nothing else,
with two fields: "say" holds the words you speak to the caller now (or an empty string), and
"tool_calls" is a
list of tool calls, each {"name": ..., "arguments": {...}} with argument values (not their schema).
For example:
{"say": "Let me look that up.",
 "tool_calls": [{"name": "find_order", "arguments": {"order_id": "A-1234"}}]}
- Leave "tool_calls" empty ([]) when you only speak.
- Tool results come back to you as messages that start with "TOOL RESULT"; then answer again with
  one JSON object.
- Only use these tools:
"""


def json_action_prompt(view: CandidateView) -> str:
    tools = [
        {"name": t.name, "description": t.description, "parameters": t.parameters}
        for t in view.tools
    ]
    return (
        view.system_prompt()
        + "\n\n"
        + ACTION_FORMAT
        + json.dumps(tools, ensure_ascii=False, indent=1)
    )


def json_action_messages(view: CandidateView) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": json_action_prompt(view)}]
    if not view.messages:
        out.append({"role": "user", "content": "(the call has connected; you speak first)"})
    for m in view.messages:
        if m.role == "caller":
            out.append({"role": "user", "content": m.text or ""})
        elif m.role == "tool":
            out.append(
                {
                    "role": "user",
                    "content": f"TOOL RESULT {m.tool_name} ({m.tool_call_id}): {m.text}",
                }
            )
        else:
            action = {
                "say": m.text or "",
                "tool_calls": [
                    {"name": c.name, "arguments": _loads_or_raw(c.arguments)} for c in m.tool_calls
                ],
            }
            out.append({"role": "assistant", "content": json.dumps(action, ensure_ascii=False)})
    return out


def _loads_or_raw(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text


def parse_action(text: str) -> tuple[str | None, tuple[ToolCall, ...], str | None]:
    """(speech, calls, error). Tolerates code fences and prose around one JSON object; anything else
    is an error."""
    obj = find_json_object(text, ("say", "tool_calls"))
    if obj is None:
        return None, (), "the reply is not a JSON action object"
    return _action(obj)


def _action(obj: dict[str, Any]) -> tuple[str | None, tuple[ToolCall, ...], str | None]:
    say = obj.get("say")
    speech = say.strip() if isinstance(say, str) and say.strip() else None
    raw_calls = obj.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        return speech, (), "'tool_calls' is not a list"
    calls, problems = [], []
    for i, c in enumerate(raw_calls):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            problems.append(f"tool_calls[{i}] has no name")
            continue
        args = c.get("arguments", {})
        calls.append(
            ToolCall(
                name=c["name"],
                arguments=args if isinstance(args, str) else json.dumps(args, ensure_ascii=False),
            )
        )
    return speech, tuple(calls), "; ".join(problems) or None


ACTION_SCHEMA = {
    "type": "object",
    "required": ["say", "tool_calls"],
    "properties": {
        "say": {"type": "string"},
        "tool_calls": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "arguments"],
                "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}},
            },
        },
    },
}
"""The action's shape only: tool names and arguments stay the model's own choice (and its own
mistakes)."""


class JsonActionCandidate:
    """For chat-only models: the action format is in the prompt and each reply is parsed as one JSON
    object.

    Replies that cannot be parsed are recorded in the trace as the model's
    error (the caller hears nothing). At most `max_rounds` model calls are made
    in one candidate turn, so a model that loops on tools cannot run forever.
    """

    def __init__(
        self,
        model: ChatModel,
        name: str | None = None,
        max_rounds: int = 8,
        json_mode: bool = False,
    ):
        self.model = model
        self.name = name or f"json:{model.name}"
        self.max_rounds = max_rounds
        # ask the endpoint for JSON output; off by default, not every server accepts it
        self.json_mode = json_mode
        self.rounds = 0

    async def step(self, view: CandidateView) -> CandidateStep:
        self.rounds = self.rounds + 1 if view.in_tool_chain else 1
        if self.rounds > self.max_rounds:
            return CandidateStep(error=f"stopped after {self.max_rounds} rounds in one turn")
        response = await self.model.complete(
            json_action_messages(view),
            None,
            json_mode=self.json_mode,
            json_schema=ACTION_SCHEMA if self.json_mode else None,
        )
        text = response.text or ""
        speech, calls, error = parse_action(text)
        return CandidateStep(
            speech=speech,
            tool_calls=calls,
            usage=response.usage,
            error=error,
            raw=text if error else None,
            notes=response.warnings,
        )
