"""The OpenVoiceCS tool declarations as callbench tools: one schema per domain tool, state updates
as effects, and a tool's answer on success."""

from __future__ import annotations

import copy
import json
from typing import Any

from .openvoicecs_source import _json_type, _ToolInfo, _words


def _set_effects(updates: list[dict], state: dict, notes: list[str], tool: str) -> list[dict]:
    """`set` effects for the updates, applied to `state` as they go. OpenVoiceCS creates missing
    parents; callbench's `set` never does, so a missing parent becomes one `set` of a nested object
    at the first missing segment (the deepest existing object is its parent)."""
    effects = []
    for u in updates:
        segments = u["path"].split(".")
        node, i = state, 0
        while i < len(segments) - 1 and isinstance(node.get(segments[i]), dict):
            node = node[segments[i]]
            i += 1
        if i == len(segments) - 1:
            effects.append({"op": "set", "path": u["path"], "value": copy.deepcopy(u["value"])})
            node[segments[-1]] = copy.deepcopy(u["value"])
            continue
        value: Any = copy.deepcopy(u["value"])
        for seg in reversed(segments[i + 1 :]):
            value = {seg: value}
        at = ".".join(segments[: i + 1])
        replaced = segments[i] in node
        effects.append({"op": "set", "path": at, "value": value})
        node[segments[i]] = copy.deepcopy(value)
        notes.append(
            f"{tool}: state update `{u['path']}` has no parent object yet "
            f"({'a non-object value is replaced' if replaced else 'it is created'}): written as "
            "one `set` "
            f"of `{at}` to {json.dumps(value)} (callbench's set never invents parents)"
        )
    return effects


def _domain_tools(scenarios: list[dict]) -> dict[str, _ToolInfo]:
    tools: dict[str, _ToolInfo] = {}
    total = len(scenarios)

    def note(name: str, args: dict) -> _ToolInfo:
        info = tools.setdefault(name, _ToolInfo())
        for k, v in args.items():
            kinds = info.params.setdefault(k, set())
            kind = _json_type(v)
            if kind:
                kinds.add(kind)
        return info

    for s in scenarios:
        for t in s["tools"]:
            info = note(t["name"], t.get("required_arguments") or {})
            info.declared = True
            info.declared_in += 1
            info.descriptions.add(str(t.get("description") or "").strip())
            generated = set(t.get("generated_arguments") or {})
            info.generated |= generated
            info.required_votes.append(set(t.get("required_arguments") or {}) - generated)
        for c in s["oracle"].get("expected_tool_calls", []) + s["oracle"].get(
            "forbidden_tool_calls", []
        ):
            note(c["name"], c.get("arguments") or {})
    for info in tools.values():
        info.everywhere = info.declared_in == total
    return tools


def _tool_spec(name: str, info: _ToolInfo, notes: list[str]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for arg, kinds in sorted(info.params.items()):
        kinds = set(kinds)
        if kinds == {"integer", "number"}:
            kinds = {"number"}
        if len(kinds) != 1:
            chosen = sorted(kinds)[0] if kinds else "string"
            notes.append(
                f"tool {name}: argument {arg} has values of types {sorted(kinds) or ['null']}; "
                f"declared as {chosen}"
            )
            kinds = {chosen}
        prop: dict[str, Any] = {"type": kinds.pop()}
        if arg in info.generated:
            prop["description"] = "assigned by the system; may be omitted"
        props[arg] = prop
    required = sorted(set.intersection(*info.required_votes)) if info.required_votes else []
    # a description is kept only when every declaration in the domain agrees: one scenario's hint
    # ("Distractor: ...") must not mislead the candidate in another scenario where the tool is right
    description = next(iter(info.descriptions)) if len(info.descriptions) == 1 else ""
    description = description or (_words(name).capitalize() + ".")
    if not info.everywhere:
        description += " (Not available on every call: calling it when it is not ends the call.)"
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": props, "required": required},
    }


def _respond(tool: dict[str, Any]) -> dict[str, Any]:
    """The tool's answer on success: the source's `result`, with a status so a result matcher and
    the verification gate have something to test."""
    result = tool.get("result")
    if isinstance(result, dict) and result:
        return (
            {"status": "ok", **copy.deepcopy(result)}
            if "status" not in result
            else copy.deepcopy(result)
        )
    return {"status": "ok"}
