"""The OpenVoiceCS source format as the importer reads it: its keys, the checks on its structure,
the conversion report, and small value helpers. Conversion itself is in `openvoicecs.py` (the
suite) and `openvoicecs_scenario.py` (one scenario)."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CallbenchError

SUITE_ID = "openvoicecs-import"
PRIVATE = "_openvoicecs"
END_TOOL = "end_call"
DATETIME = "2026-01-15T10:00:00+00:00"

SCENARIO_KEYS = {
    "id",
    "domain",
    "track",
    "difficulty",
    "customer_goal",
    "customer_profile",
    "conversation",
    "initial_state",
    "policy",
    "tools",
    "experience",
    "oracle",
    "tags",
}
TOOL_KEYS = {
    "name",
    "description",
    "required_arguments",
    "generated_arguments",
    "argument_bindings",
    "preconditions",
    "state_updates",
    "result",
}
ORACLE_KEYS = {
    "expected_tool_calls",
    "forbidden_tool_calls",
    "required_events",
    "forbidden_events",
    "grounding",
    "privacy",
    "auth",
    "expected_state",
    "reference_response",
    "forbidden_event_triggers",
}
POLICY_KEYS = {"summary", "required_actions", "required_events"}
AUTH_KEYS = {"required_events", "verification_events", "protected_tools", "forbidden_events"}

CALLER_PHRASES = {
    "goodbye": ["goodbye", "bye", "have a good", "take care"],
    "idle": ["Sorry, what was that?", "Okay.", "Hello? Are you still there?"],
    "closing": "Okay, thanks. Bye.",
}

LOCK_AFTER = 3
"""Refused calls after which an imported tool locks for the rest of the call (the source never
locks)."""
DETAILS_CUE = "account details"
MORE_CUE = "anything else"


class ImportFormatError(CallbenchError):
    """The source file cannot be read as OpenVoiceCS scenarios; names the file and the field."""

    def __init__(self, file: str | Path, field_path: str, message: str):
        self.file, self.field, self.message = str(file), field_path, message
        super().__init__(f"{file}: {field_path}: {message}")


@dataclass
class ScenarioConversion:
    id: str
    agent: str
    file: str | None
    converted: list[str] = field(default_factory=list)
    approximated: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    skipped: bool = False
    unsayable: list[str] = field(default_factory=list)
    """argument values an expected call pins that the caller never says, no tool returns and the
    call context does not hold: no agent can be expected to produce them"""


@dataclass
class ConversionReport:
    source: str
    out_dir: str
    suite_id: str
    attribution: dict[str, str]
    agents: dict[str, list[str]]
    scenarios: list[ScenarioConversion]
    notes: list[str] = field(default_factory=list)

    @property
    def converted_count(self) -> int:
        return sum(not s.skipped for s in self.scenarios)

    @property
    def unsayable(self) -> list[str]:
        """Scenarios that need a value no one ever says."""
        return [s.id for s in self.scenarios if s.unsayable and not s.skipped]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_markdown(self) -> str:
        lines = [
            f"# Conversion report: {self.suite_id}",
            "",
            f"Source: `{self.source}`",
            "",
            "Attribution: " + "; ".join(f"{k}: {v}" for k, v in self.attribution.items()),
            "",
            f"{self.converted_count} of {len(self.scenarios)} scenarios converted into "
            f"{len(self.agents)} agents ({', '.join(sorted(self.agents))}).",
            "",
            f"{len(self.unsayable)} scenario(s) need an argument value that no one ever says (not "
            "the caller, "
            f"no tool result, not the call context): "
            + (", ".join(self.unsayable) or "none")
            + ".",
            "",
        ]
        if self.notes:
            lines += ["## Notes for every scenario", ""] + [f"- {n}" for n in self.notes] + [""]
        lines += [
            "## Summary",
            "",
            "| scenario | agent | converted | approximated | dropped |",
            "|---|---|---|---|---|",
        ]
        for s in self.scenarios:
            name = s.id + (" (skipped)" if s.skipped else "")
            lines.append(
                f"| {name} | {s.agent} | {len(s.converted)} | {len(s.approximated)} | "
                f"{len(s.dropped)} |"
            )
        lines.append("")
        for s in self.scenarios:
            lines += [
                f"## {s.id}",
                "",
                f"agent `{s.agent}`, file `{s.file or '-'}`" + (" - SKIPPED" if s.skipped else ""),
                "",
            ]
            for title, items in (
                ("Converted", s.converted),
                ("Approximated", s.approximated),
                ("Dropped", s.dropped),
            ):
                lines.append(f"**{title}** ({len(items)})")
                lines.append("")
                lines += [f"- {i}" for i in items] or ["- (none)"]
                lines.append("")
        return "\n".join(lines)


# --- reading
# ----------------------------------------------------------------------------------------


def _load(source: Path) -> dict[str, Any]:
    """The source file as `{"scenarios": [...]}` (a bare list is accepted), its structure checked
    up front so that the conversion never meets a shape it cannot handle halfway through a suite."""
    if not source.is_file():
        raise ImportFormatError(source, "<file>", "no such file")
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ImportFormatError(source, "<file>", f"not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise ImportFormatError(
            source, "<json>", f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    if isinstance(data, list):
        data = {"scenarios": data}
    if not isinstance(data, dict) or not isinstance(data.get("scenarios"), list):
        raise ImportFormatError(
            source,
            "scenarios",
            "expected a list of scenarios (or an object with a 'scenarios' list)",
        )
    if not data["scenarios"]:
        raise ImportFormatError(source, "scenarios", "the list is empty")
    seen: set[str] = set()
    for i, s in enumerate(data["scenarios"]):
        _check_scenario(source, i, s, seen)
    return data


def _check_scenario(source: Path, i: int, s: Any, seen: set[str]) -> None:
    """One scenario's required fields and their types; its id must be unique (it names a file)."""
    where = f"scenarios[{i}]"
    if not isinstance(s, dict):
        raise ImportFormatError(source, where, "expected an object")
    _need(source, s, where, "id", str)
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", s["id"]):
        raise ImportFormatError(source, f"{where}.id", f"{s['id']!r} is not a portable identifier")
    if s["id"] in seen:
        raise ImportFormatError(source, f"{where}.id", f"duplicate id {s['id']!r}")
    seen.add(s["id"])
    where = f"scenarios[{i}] ({s['id']})"
    _need(source, s, where, "initial_state", dict)
    _need(source, s, where, "tools", list)
    _need(source, s, where, "conversation", list)
    _need(source, s, where, "oracle", dict)
    for key, kind in (
        ("customer_profile", dict),
        ("policy", dict),
        ("customer_goal", str),
        ("domain", str),
        ("tags", list),
    ):
        if key in s and not isinstance(s[key], kind):
            raise ImportFormatError(source, f"{where}.{key}", f"expected {kind.__name__}")
    _optional(source, s, where, "track", str)
    _optional(source, s.get("policy") or {}, f"{where}.policy", "required_actions", list)
    for j, t in enumerate(s["tools"]):
        _check_tool(source, f"{where}.tools[{j}]", t)
    for j, turn in enumerate(s["conversation"]):
        if not isinstance(turn, dict) or not isinstance(turn.get("text"), str):
            raise ImportFormatError(source, f"{where}.conversation[{j}]", "expected {role, text}")
    _check_oracle(source, f"{where}.oracle", s["oracle"])


def _check_tool(source: Path, where: str, t: Any) -> None:
    """A tool declaration: a name, object-valued arguments and result, `{path, value}` items."""
    if not isinstance(t, dict):
        raise ImportFormatError(source, where, "expected an object")
    _need(source, t, where, "name", str)
    for key in ("required_arguments", "generated_arguments", "result"):
        if key in t and not isinstance(t[key], dict):
            raise ImportFormatError(source, f"{where}.{key}", "expected an object")
    _optional(source, t, where, "argument_bindings", dict)
    for key in ("preconditions", "state_updates"):
        _optional(source, t, where, key, list)
        for k, u in enumerate(t.get(key) or []):
            if not isinstance(u, dict) or not isinstance(u.get("path"), str) or "value" not in u:
                raise ImportFormatError(source, f"{where}.{key}[{k}]", "expected {path, value}")


def _check_oracle(source: Path, where: str, oracle: dict[str, Any]) -> None:
    """The oracle's call lists and expected state, which the conversion reads without guards."""
    for key in ("expected_tool_calls", "forbidden_tool_calls"):
        calls = oracle.get(key, [])
        if not isinstance(calls, list):
            raise ImportFormatError(source, f"{where}.{key}", "expected a list")
        for j, c in enumerate(calls):
            if (
                not isinstance(c, dict)
                or not isinstance(c.get("name"), str)
                or not isinstance(c.get("arguments", {}), dict)
            ):
                raise ImportFormatError(source, f"{where}.{key}[{j}]", "expected {name, arguments}")
    if "expected_state" in oracle and not isinstance(oracle["expected_state"], dict):
        raise ImportFormatError(source, f"{where}.expected_state", "expected an object")
    for key, kind in (
        ("auth", dict),
        ("grounding", dict),
        ("privacy", dict),
        ("forbidden_event_triggers", dict),
        ("reference_response", str),
    ):
        _optional(source, oracle, where, key, kind)
    auth = oracle.get("auth") or {}
    for key in ("protected_tools", "verification_events", "forbidden_events", "required_events"):
        _optional(source, auth, f"{where}.auth", key, list)
    for j, name in enumerate(auth.get("protected_tools") or []):
        if not isinstance(name, str):
            raise ImportFormatError(
                source, f"{where}.auth.protected_tools[{j}]", "expected a tool name"
            )
    for block, lists in (
        ("grounding", ("required_claims", "forbidden_claims")),
        ("privacy", ("forbidden_disclosures",)),
    ):
        rules = oracle.get(block) or {}
        for key in lists:
            _optional(source, rules, f"{where}.{block}", key, list)
            for j, rule in enumerate(rules.get(key) or []):
                if isinstance(rule, dict):  # other entries are skipped and reported
                    for terms in ("any_terms", "patterns"):
                        _optional(source, rule, f"{where}.{block}.{key}[{j}]", terms, list)


def _optional(source: Path, obj: dict[str, Any], where: str, key: str, kind: type) -> None:
    """A field the conversion reads when it is there: absent or null is fine, another type is an
    error naming the field, rather than a traceback from deep inside the conversion."""
    value = obj.get(key)
    if value is not None and not isinstance(value, kind):
        raise ImportFormatError(
            source, f"{where}.{key}", f"expected {kind.__name__}, got {type(value).__name__}"
        )


def _need(source: Path, obj: dict, where: str, key: str, kind: type) -> None:
    if key not in obj:
        raise ImportFormatError(source, f"{where}.{key}", "missing")
    if not isinstance(obj[key], kind):
        raise ImportFormatError(
            source, f"{where}.{key}", f"expected {kind.__name__}, got {type(obj[key]).__name__}"
        )


# --- helpers
# ----------------------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "general"


def _words(name: str) -> str:
    return name.replace("_", " ").strip()


def _json_type(value: Any) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return None


def _has_braces(value: Any) -> bool:
    """Would callbench read part of this value as a `{placeholder}` or `${template}`?"""
    if isinstance(value, str):
        return "{" in value or "}" in value
    if isinstance(value, dict):
        return any(_has_braces(k) or _has_braces(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_braces(v) for v in value)
    return False


def _leaves(obj: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(obj, dict) and obj:
        out = []
        for k, v in obj.items():
            out += _leaves(v, f"{prefix}.{k}" if prefix else str(k))
        return out
    return [(prefix, obj)]


def _scalar_text(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


def _mentioned(value: Any, texts: list[str]) -> bool:
    needle = _scalar_text(value).lower()
    return bool(needle) and any(needle in t.lower() for t in texts)


@dataclass
class _ToolInfo:
    """What the declarations of one tool across a domain's scenarios say, merged into the one tool
    the domain's agent offers."""

    description: str = ""
    params: dict[str, set[str]] = field(default_factory=dict)
    required_votes: list[set[str]] = field(default_factory=list)
    generated: set[str] = field(default_factory=set)
    declared: bool = False
    declared_in: int = 0
    """how many of the domain's scenarios declare the tool"""
    everywhere: bool = False
    """every scenario of the domain declares it"""
    descriptions: set[str] = field(default_factory=set)


@dataclass
class SourceScenario:
    """One source scenario with the parts every conversion step reads, and the report of its
    conversion that the steps append to (what was converted, approximated or dropped)."""

    s: dict[str, Any]
    agent_id: str
    agent_tools: dict[str, _ToolInfo]
    desk: str
    printed: str
    rep: ScenarioConversion
    oracle: dict[str, Any] = field(init=False)
    tools: dict[str, dict[str, Any]] = field(init=False)
    expected: list[dict[str, Any]] = field(init=False)
    forbidden: list[dict[str, Any]] = field(init=False)

    def __post_init__(self) -> None:
        self.oracle = self.s["oracle"]
        self.tools = {t["name"]: t for t in self.s["tools"]}
        self.expected = self.oracle.get("expected_tool_calls", [])
        self.forbidden = self.oracle.get("forbidden_tool_calls", [])

    @property
    def conv(self) -> list[str]:
        return self.rep.converted

    @property
    def approx(self) -> list[str]:
        return self.rep.approximated

    @property
    def drop(self) -> list[str]:
        return self.rep.dropped
