"""The candidate's view and answer as plain JSON: the contract for agents outside this process.

Used by the HTTP "bring your own agent" adapter and by Python-callable agents
that prefer dicts. The view holds only what a deployed agent would have; the
answer is speech and tool calls.

Request (one per candidate message):
    {"protocol": "callbench-agent/1", "session": "<opaque id, one per call>",
     "instructions": "...", "tools": [<OpenAI function schemas>], "language": "en", "direction":
     "inbound",
     "call_context": {...},
     "messages": [{"role": "caller", "text": "..."},
                  {"role": "agent", "text": "...", "tool_calls": [{"id": "call_1", "name": "...",
                  "arguments": "{...}"}]},
                  {"role": "tool", "tool_call_id": "call_1", "name": "...", "text": "<JSON
                  result>"}]}
Answer:
    {"say": "<speech or null>", "tool_calls": [{"name": "...", "arguments": {...} or "<JSON
    text>"}],
     "usage": {"prompt_tokens": 0, "completion_tokens": 0}}      (usage optional)
An answer with tool calls gets another request with their results appended;
an answer without tool calls ends the agent's turn.
"""

from __future__ import annotations

import json
from typing import Any

from ..call.admission import MAX_TOKENS
from ..call.types import CandidateStep, ToolCall, Usage
from .base import CandidateView, tool_schemas

PROTOCOL = "callbench-agent/1"


def view_to_wire(view: CandidateView, session: str) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for m in view.messages:
        if m.role == "caller":
            messages.append({"role": "caller", "text": m.text or ""})
        elif m.role == "tool":
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": m.tool_call_id,
                    "name": m.tool_name,
                    "text": m.text or "",
                }
            )
        else:
            messages.append(
                {
                    "role": "agent",
                    "text": m.text,
                    "tool_calls": [
                        {"id": c.id, "name": c.name, "arguments": c.arguments} for c in m.tool_calls
                    ],
                }
            )
    return {
        "protocol": PROTOCOL,
        "session": session,
        "instructions": view.instructions,
        "tools": tool_schemas(view.tools),
        "language": view.language,
        "direction": view.direction,
        "call_context": view.call_context,
        "messages": messages,
    }


def step_from_wire(answer: Any) -> CandidateStep:
    """An agent's JSON answer as a step; a malformed answer is the agent's error, recorded, never
    raised."""
    if isinstance(answer, CandidateStep):
        return answer
    if not isinstance(answer, dict):
        return CandidateStep(
            error=f"answer is not a JSON object ({type(answer).__name__})", raw=_raw(answer)
        )
    say = answer.get("say")
    if say is not None and not isinstance(say, str):
        return CandidateStep(error="'say' is not a string", raw=_raw(answer))
    calls, problems = [], []
    raw_calls = answer.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        problems.append(f"'tool_calls' is a {type(raw_calls).__name__}, not a list")
        raw_calls = []
    for i, c in enumerate(raw_calls):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            problems.append(f"tool_calls[{i}] has no name")
            continue
        args = c.get("arguments", {})
        try:
            text = (
                args
                if isinstance(args, str)
                else json.dumps(args, ensure_ascii=False, allow_nan=False)
            )
        except (TypeError, ValueError) as exc:
            problems.append(
                f"tool_calls[{i}].arguments cannot be written as JSON ({type(exc).__name__})"
            )
            continue
        calls.append(
            ToolCall(
                name=c["name"],
                arguments=text,
                id=c.get("id") if isinstance(c.get("id"), str) else None,
            )
        )
    usage, note = _usage(answer.get("usage"))
    return CandidateStep(
        speech=say.strip() if say and say.strip() else None,
        tool_calls=tuple(calls),
        usage=usage,
        error="; ".join(problems) or None,
        raw=_raw(answer) if problems else None,
        notes=(note,) if note else (),
    )


def _usage(value: Any) -> tuple[Usage | None, str | None]:
    """Token counts if they are what the contract says (non-negative whole numbers within reason),
    else none."""
    if value is None:
        return None, None
    if not isinstance(value, dict):
        return None, f"'usage' is a {type(value).__name__}, not an object: ignored"
    counts = [value.get(k, 0) for k in ("prompt_tokens", "completion_tokens")]
    if all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_TOKENS for n in counts):
        return Usage(*counts), None
    return None, f"'usage' out of contract ({str(value)[:80]}): ignored"


def _raw(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)[:2000]
    except (TypeError, ValueError):
        return repr(value)[:2000]
