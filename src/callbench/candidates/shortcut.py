"""The shortcut baseline: no model, only what a candidate sees, greedy tool calls.

It exists to measure the templates, not the agents: if a script that copies
identifiers and numbers out of the conversation into every tool it can fill
scores near the oracle, the suite rewards pattern matching rather than
understanding. It must stay near the no-op floor.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..call.types import CandidateStep, ToolCall
from ..spec import ToolSpec
from ..text import fold
from .base import CandidateView

ID_LIKE = re.compile(r"\b(?=[A-Za-z0-9\-]*\d)[A-Za-z0-9]+(?:[\-/][A-Za-z0-9]+)*\b")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
TIME = re.compile(r"\b\d{1,2}:\d{2}\b")
ID_HINTS = ("id", "number", "code", "account", "card", "phone", "ref", "policy", "order", "member")
MAX_ATTEMPTS_PER_TOOL = 2


class ShortcutCandidate:
    name = "shortcut"

    def __init__(self) -> None:
        self.tried: dict[str, list[str]] = {}
        self.caller_turns_seen = 0

    async def step(self, view: CandidateView) -> CandidateStep:
        if view.in_tool_chain:
            return CandidateStep()
        caller_text = [m.text or "" for m in view.messages if m.role == "caller"]
        if not caller_text:
            return CandidateStep(speech="Hello, how can I help you today?")
        evidence = " ".join(caller_text + [m.text or "" for m in view.messages if m.role == "tool"])
        evidence += " " + " ".join(f"{k} {v}" for k, v in view.call_context.items())
        calls: list[ToolCall] = []
        for tool in view.tools:
            if tool.ends_call or len(self.tried.get(tool.name, [])) >= MAX_ATTEMPTS_PER_TOOL:
                continue
            args = fill(tool, evidence, caller_text[-1], view.call_context)
            if args is None:
                continue
            raw = json.dumps(args, ensure_ascii=False, sort_keys=True)
            if raw in self.tried.get(tool.name, []):
                continue
            self.tried.setdefault(tool.name, []).append(raw)
            calls.append(ToolCall(name=tool.name, arguments=raw))
        if calls:
            return CandidateStep(speech="Okay, one moment please.", tool_calls=tuple(calls))
        if len(caller_text) >= 3:
            ends = [t for t in view.tools if t.ends_call]
            end_calls = tuple(ToolCall(name=t.name, arguments=json.dumps(fill(t, evidence, caller_text[-1], view.call_context, lenient=True) or {}))
                              for t in ends[:1])
            return CandidateStep(speech="Thank you for calling. Goodbye.", tool_calls=end_calls)
        return CandidateStep(speech="Okay. Please go on.")


def fill(tool: ToolSpec, evidence: str, last: str, context: dict[str, Any], lenient: bool = False) -> dict[str, Any] | None:
    """Arguments for every required parameter from surface patterns, or None if one has no evidence."""
    props = tool.parameters.get("properties", {}) or {}
    required = tool.parameters.get("required", []) or []
    args: dict[str, Any] = {}
    for name in required:
        value = _value(name, props.get(name, {}), evidence, last, context)
        if value is None:
            if not lenient:
                return None
            value = _fallback(props.get(name, {}))
        args[name] = value
    return args


def _value(name: str, schema: dict[str, Any], evidence: str, last: str, context: dict[str, Any]) -> Any:
    if name in context:
        return context[name]
    kind = schema.get("type")
    if "enum" in schema:
        folded = fold(evidence)
        for option in schema["enum"]:
            if fold(str(option).replace("_", " ")) in folded:
                return option
        return None
    if kind in ("integer", "number"):
        found = NUMBER.findall(last) or NUMBER.findall(evidence)
        if not found:
            return None
        return int(float(found[0])) if kind == "integer" else float(found[0])
    if kind == "boolean":
        return True
    if kind == "string":
        lowered = name.lower()
        if "date" in lowered:
            found = DATE.findall(evidence)
            return found[-1] if found else None
        if "time" in lowered:
            found = TIME.findall(evidence)
            return found[-1] if found else None
        if any(h in lowered for h in ID_HINTS):
            found = ID_LIKE.findall(evidence)
            return found[-1] if found else None
        return last.strip() or None
    return None


def _fallback(schema: dict[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    return {"integer": 0, "number": 0, "boolean": True, "array": [], "object": {}}.get(schema.get("type"), "")
