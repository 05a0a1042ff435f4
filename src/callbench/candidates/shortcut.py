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
from .phrases import phrases

ID_LIKE = re.compile(r"\b(?=[A-Za-z0-9\-]*\d)[A-Za-z0-9]+(?:[\-/][A-Za-z0-9]+)*\b")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
TIME = re.compile(r"\b\d{1,2}:\d{2}\b")
ID_HINTS = ("id", "number", "code", "account", "card", "phone", "ref", "policy", "order", "member")
MAX_ATTEMPTS_PER_TOOL = 2


class ShortcutCandidate:
    """Greedy and literal: asks for every parameter it still lacks, then calls every tool it can
    fill.

    It is meant to be a strong script, not a strawman: its questions are built
    from the tools' parameter descriptions (so a caller listening for words
    like "date of birth" hears them), it reuses values returned by earlier
    tools under the same key (slot ids, case ids), and it prefers an end tool
    named like one.
    """

    name = "shortcut"

    def __init__(self) -> None:
        self.tried: dict[str, list[str]] = {}

    async def step(self, view: CandidateView) -> CandidateStep:
        if view.in_tool_chain:
            return CandidateStep()
        say = phrases(view.language)
        caller_text = [m.text or "" for m in view.messages if m.role == "caller"]
        if not caller_text:
            return CandidateStep(speech=say["greeting"] + " " + self._ask(say, view.tools, set()))
        evidence = Evidence.of(view)
        calls: list[ToolCall] = []
        missing: set[str] = set()
        for tool in view.tools:
            if tool.ends_call or len(self.tried.get(tool.name, [])) >= MAX_ATTEMPTS_PER_TOOL:
                continue
            args = fill(tool, evidence, missing=missing)
            if args is None:
                continue
            raw = json.dumps(args, ensure_ascii=False, sort_keys=True)
            if raw in self.tried.get(tool.name, []):
                continue
            self.tried.setdefault(tool.name, []).append(raw)
            calls.append(ToolCall(name=tool.name, arguments=raw))
        if calls:
            return CandidateStep(speech=say["wait"], tool_calls=tuple(calls))
        if len(caller_text) >= 3 and not missing or len(caller_text) >= 6:
            ends = sorted((t for t in view.tools if t.ends_call), key=lambda t: "end" not in t.name)
            end_calls = tuple(
                ToolCall(
                    name=t.name,
                    arguments=json.dumps(fill(t, evidence, lenient=True) or {}, ensure_ascii=False),
                )
                for t in ends[:1]
            )
            return CandidateStep(speech=say["goodbye"], tool_calls=end_calls)
        return CandidateStep(speech=self._ask(say, view.tools, missing))

    @staticmethod
    def _ask(say: dict, tools, missing: set[str]) -> str:
        wanted: list[str] = []
        for tool in tools:
            props = tool.parameters.get("properties", {}) or {}
            for name in tool.parameters.get("required", []) or []:
                if missing and name not in missing:
                    continue
                label = str(props.get(name, {}).get("description") or name.replace("_", " "))
                if label not in wanted:
                    wanted.append(label)
        return say["ask"].format("; ".join(wanted[:6])) if wanted else say["fillers"][0]


class Evidence:
    """What a script can mine from the conversation: caller words, call context and tool-result
    fields."""

    def __init__(self, caller: list[str], context: dict[str, Any], result_fields: dict[str, Any]):
        self.caller = caller
        self.context = context
        self.result_fields = result_fields
        self.text = " ".join(caller)

    @classmethod
    def of(cls, view: CandidateView) -> Evidence:
        fields: dict[str, Any] = {}
        for m in view.messages:
            if m.role == "tool" and m.text:
                try:
                    _collect(json.loads(m.text), fields)
                except json.JSONDecodeError:
                    pass
        return cls(
            [m.text or "" for m in view.messages if m.role == "caller"],
            dict(view.call_context),
            fields,
        )

    @property
    def last(self) -> str:
        return self.caller[-1] if self.caller else ""


def _collect(value: Any, into: dict[str, Any]) -> None:
    """Remember the latest scalar seen under each key of a tool result (first item of lists)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (str, int, float, bool)):
                into[k] = v
            else:
                _collect(v, into)
    elif isinstance(value, list) and value:
        _collect(value[0], into)


def fill(
    tool: ToolSpec, evidence: Evidence, lenient: bool = False, missing: set[str] | None = None
) -> dict[str, Any] | None:
    """Arguments for every required parameter from surface patterns, or None if one has no
    evidence."""
    props = tool.parameters.get("properties", {}) or {}
    required = tool.parameters.get("required", []) or []
    args: dict[str, Any] = {}
    for name in required:
        value = _value(name, props.get(name, {}), evidence)
        if value is None:
            if missing is not None:
                missing.add(name)
            if not lenient:
                return None
            value = _fallback(props.get(name, {}))
        args[name] = value
    return args


def _value(name: str, schema: dict[str, Any], ev: Evidence) -> Any:
    if name in ev.context:
        return ev.context[name]
    if name in ev.result_fields:
        return ev.result_fields[name]
    kind = schema.get("type")
    if "enum" in schema:
        folded = fold(ev.text)
        for option in schema["enum"]:
            if fold(str(option).replace("_", " ")) in folded:
                return option
        return None
    if kind in ("integer", "number"):
        found = NUMBER.findall(ev.last) or NUMBER.findall(ev.text)
        if not found:
            return None
        return int(float(found[0])) if kind == "integer" else float(found[0])
    if kind == "boolean":
        return True
    if kind == "string":
        lowered = name.lower()
        if "date" in lowered:
            found = DATE.findall(ev.text)
            return found[-1] if found else None
        if "time" in lowered:
            found = TIME.findall(ev.text)
            return found[-1] if found else None
        if any(h in lowered for h in ID_HINTS):
            found = [t for t in ID_LIKE.findall(ev.text) if len(t) >= 4]
            return found[-1] if found else None
        return ev.last.strip() or None
    return None


def _fallback(schema: dict[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")  # JSON Schema also allows a list of types: no default then
    return {"integer": 0, "number": 0, "boolean": True, "array": [], "object": {}}.get(
        kind if isinstance(kind, str) else "", ""
    )
