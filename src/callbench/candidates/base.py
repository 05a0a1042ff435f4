"""The Candidate boundary: the system under test.

A candidate sees exactly what a deployed agent would: its rendered
instructions, its tools, the call context the deployment provides, and the
conversation as the channel let it through (with its own tool calls and their
results). It never sees hidden state, expected actions, criteria, the caller's
brief or the caller's intended words. The protocol itself is defined beside the turn loop
(`callbench.call.roles`) and re-exported here.
"""

from __future__ import annotations

import json
from typing import Any

from ..call.roles import Candidate
from ..call.types import CONCLUDING_MESSAGE, CandidateStep, ToolCall
from ..call.views import CandidateView
from ..spec import ToolSpec

__all__ = [
    "CONCLUDING_MESSAGE",
    "Candidate",
    "CandidateView",
    "ScriptedCandidate",
    "call",
    "chat_messages",
    "tool_schemas",
]


def tool_schemas(
    tools: tuple[ToolSpec, ...], concluding_message: bool = False
) -> list[dict[str, Any]]:
    """OpenAI-style function schemas. With `concluding_message`, call-ending tools gain a parameter
    for the goodbye.

    This is the accommodation for models that cannot speak and call a tool in
    one message: the engine speaks the `concluding_message` as the candidate's
    final words and strips it before the backend sees the arguments.
    """
    out = []
    for tool in tools:
        params = json.loads(json.dumps(tool.parameters))
        if concluding_message and tool.ends_call:
            params.setdefault("properties", {})[CONCLUDING_MESSAGE] = {
                "type": "string",
                "description": "What you say to the caller as the call ends.",
            }
        out.append(
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": params,
                },
            }
        )
    return out


def chat_messages(view: CandidateView, user_first: bool = False) -> list[dict[str, Any]]:
    """The view as chat-completions messages (candidate = assistant, caller = user).

    `user_first` is the accommodation for chat templates that require a user
    message before the first assistant turn: an empty one is inserted.
    """
    out: list[dict[str, Any]] = [{"role": "system", "content": view.system_prompt()}]
    if user_first and (not view.messages or view.messages[0].role != "caller"):
        out.append({"role": "user", "content": ""})
    for m in view.messages:
        if m.role == "caller":
            out.append({"role": "user", "content": m.text or ""})
        elif m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.text or ""})
        else:
            msg: dict[str, Any] = {"role": "assistant", "content": m.text}
            if m.tool_calls:
                msg["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    }
                    for c in m.tool_calls
                ]
            out.append(msg)
    return out


class ScriptedCandidate:
    """A fake: plays the given steps in order, then stays silent. For tests of the engine and
    graders."""

    def __init__(self, steps: list[CandidateStep], name: str = "scripted-candidate"):
        self.steps = list(steps)
        self.name = name
        self.views: list[CandidateView] = []

    async def step(self, view: CandidateView) -> CandidateStep:
        self.views.append(view)
        return self.steps.pop(0) if self.steps else CandidateStep()


def call(name: str, **arguments: Any) -> ToolCall:
    """Shorthand for tests and baselines: a well-formed tool call."""
    return ToolCall(name=name, arguments=json.dumps(arguments, ensure_ascii=False))
