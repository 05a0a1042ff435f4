"""Cross-file rules for state worlds and their grading, reported like every other rule: file, field
path, line.

These catch the mistakes that would otherwise show up as a world that refuses
every call (a path naming an argument the tool does not have), a grader that
can never pass (a write the tool cannot make), or one that passes for doing
nothing (expected no writes, but no refusal to look for).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .matchers import Matcher
from .state import (
    DATE_REF,
    ID_REF,
    STATE_ITEM_IDS,
    PathError,
    StateBackendSpec,
    placeholders,
    split_path,
)
from .templates import TemplateError, make_scope, references, resolve

if TYPE_CHECKING:
    from .agent import AgentDefinition
    from .scenario import Scenario

Found = tuple[tuple, str, str]  # (field path, message, level)


def state_problems(sc: Scenario, agent: AgentDefinition) -> list[Found]:
    out: list[Found] = []
    scope = make_scope(sc.caller.knows, sc.backend.hidden)

    def add(loc: tuple, message: str, level: str = "error") -> None:
        out.append((loc, message, level))

    def templates_ok(value: Any, loc: tuple) -> bool:
        ok = True
        for ref in references(value):
            try:
                resolve("${" + ref + "}", scope)
            except TemplateError as exc:
                add(loc, str(exc))
                ok = False
        return ok

    if isinstance(sc.backend, StateBackendSpec):
        _check_backend(sc.backend, agent, add, templates_ok)
    else:
        for name in ("expected_state", "expected_changes", "refusal"):
            if getattr(sc, name) is not None:
                add((name,), f"'{name}' grades a state world: it needs backend kind 'state'")
    if sc.expected_state is not None:
        for path, matcher in sc.expected_state.paths.items():
            loc = ("expected_state", "paths", path)
            _literal_path(path, loc, add, templates_ok)
            templates_ok(_dump(matcher), loc)
    changes = sc.expected_changes
    if changes is not None:
        for i, write in enumerate(changes.writes):
            loc = ("expected_changes", "writes", i)
            _literal_path(write.path, loc + ("path",), add, templates_ok)
            if write.value is not None:
                templates_ok(_dump(write.value), loc + ("value",))
            if (
                write.tool is not None
                and _known(agent, write.tool, loc + ("tool",), add)
                and isinstance(sc.backend, StateBackendSpec)
            ):
                tool = sc.backend.tools.get(write.tool)
                if tool is None or write.op not in {e.op for e in tool.effects}:
                    add(
                        loc + ("tool",),
                        f"tool '{write.tool}' has no '{write.op}' effect: this write can never "
                        "happen",
                    )
        for i, pattern in enumerate(changes.ignore):
            _pattern(pattern, ("expected_changes", "ignore", i), add)
        if not changes.writes and sc.refusal is None:
            add(
                ("expected_changes", "writes"),
                "expecting no writes passes on inaction alone: declare 'refusal:' "
                "with the explicit behaviour that must happen instead",
            )
    if sc.refusal is not None:
        ref = sc.refusal
        if ref.tool is not None:
            _known(agent, ref.tool, ("refusal", "tool"), add)
        for i, pattern in enumerate(ref.allow_writes):
            _pattern(pattern, ("refusal", "allow_writes", i), add)
    if sc.gates is not None:
        gates = sc.gates
        _known(agent, gates.verification_tool, ("gates", "verification_tool"), add)
        for i, name in enumerate(gates.protected_tools):
            if (
                _known(agent, name, ("gates", "protected_tools", i), add)
                and name == gates.verification_tool
            ):
                add(
                    ("gates", "protected_tools", i),
                    "the verification tool cannot be protected by its own gate",
                )
        seen: set[str] = set()
        for i, fact in enumerate(gates.protected_facts):
            if fact.id in seen:
                add(
                    ("gates", "protected_facts", i, "id"),
                    f"protected fact id '{fact.id}' is used twice",
                )
            seen.add(fact.id)
            templates_ok(fact.value, ("gates", "protected_facts", i, "value"))
    declared = {
        "expected_state": sc.expected_state,
        "expected_changes": sc.expected_changes,
        "refusal": sc.refusal,
        "refusal_no_write": sc.refusal,
        "verification_gate": sc.gates,
        "disclosure_gate": sc.gates,
    }
    for field_name in ("expected_actions", "criteria", "spoken_checks", "phrase_checks"):
        for i, item in enumerate(getattr(sc, field_name)):
            if item.id in STATE_ITEM_IDS and declared[item.id] is not None:
                add(
                    (field_name, i, "id"),
                    f"id '{item.id}' is the verdict id of a state check of this scenario",
                )
    return out


def _check_backend(spec: StateBackendSpec, agent: AgentDefinition, add, templates_ok) -> None:
    if placeholders(spec.initial):
        add(
            ("backend", "initial"),
            f"the initial state uses '{{{placeholders(spec.initial)[0]}}}': it has no call "
            f"arguments (use ${{hidden.x}} templates)",
        )
    templates_ok(spec.initial, ("backend", "initial"))
    for name, tool in spec.tools.items():
        base = ("backend", "tools", name)
        definition = agent.tool(name)
        if definition is None:
            add(base, f"tool '{name}' is not defined by agent '{agent.id}'")
            continue
        props = definition.parameters.get("properties") or {}
        params = set(props) if isinstance(props, dict) else set()
        required = set(definition.parameters.get("required") or [])

        for key in tool.defaults:
            if key not in params:
                add(base + ("defaults", key), f"'{key}' is not a parameter of tool '{name}'")
        filled = required | set(tool.defaults)

        def refs(
            value: Any, loc: tuple, ids: bool = True, params: set = params, filled: set = filled
        ) -> None:
            if placeholders_ok(value, loc, params, add, ids):
                templates_ok(value, loc)
                for ref in placeholders(value):
                    if ref in params and ref not in filled:
                        add(
                            loc,
                            f"'{{{ref}}}' is an optional parameter: a call without it is refused "
                            f"as missing_argument",
                            "warning",
                        )

        for key, read in tool.reads.items():
            refs(read.path, base + ("reads", key, "path"))
            for field_name, matcher in read.where.items():
                refs(_dump(matcher), base + ("reads", key, "where", field_name))
            if key in tool.respond:
                add(
                    base + ("reads", key),
                    f"read '{key}' would overwrite the respond key of the same name",
                )
        names: set[str] = set()
        for i, pre in enumerate(tool.preconditions):
            loc = base + ("preconditions", i)
            if pre.name in names:
                add(loc + ("name",), f"precondition name '{pre.name}' is used twice")
            names.add(pre.name)
            refs(pre.path, loc + ("path",), ids=False)
            if pre.match is not None:
                refs(_dump(pre.match), loc + ("match",), ids=False)
            for key in ("at_least", "at_most"):
                bound = getattr(pre, key)
                if bound is None:
                    continue
                refs(bound, loc + (key,), ids=False)
                if not (isinstance(bound, (int, float)) and not isinstance(bound, bool)) and not (
                    isinstance(bound, str) and (placeholders(bound) or references(bound))
                ):
                    add(
                        loc + (key,), f"{key} must be a number or a single reference, not {bound!r}"
                    )
        for i, effect in enumerate(tool.effects):
            loc = base + ("effects", i)
            refs(effect.path, loc + ("path",))
            if effect.op in ("set", "merge", "append"):
                refs(effect.value, loc + ("value",))
            if effect.op == "increment":
                refs(effect.by, loc + ("by",), ids=False)
                for bound in ("floor", "ceiling"):
                    if getattr(effect, bound) is not None:
                        refs(getattr(effect, bound), loc + (bound,), ids=False)
        refs(tool.respond, base + ("respond",))
        calls = [f.on_call for f in tool.failures]
        for i, n in enumerate(calls):
            if calls.index(n) != i:
                add(base + ("failures", i, "on_call"), f"two failures are injected on call {n}")
    for tool in agent.tools:
        if tool.name not in spec.tools:
            add(
                ("backend", "tools"),
                f"agent tool '{tool.name}' has no entry: every call to it is answered "
                f"'unsupported'",
                "warning",
            )


def placeholders_ok(value: Any, loc: tuple, params: set[str], add, ids: bool = True) -> bool:
    ok = True
    for ref in placeholders(value):
        if DATE_REF.match(ref):
            continue
        if ID_REF.match(ref):
            if not ids:
                add(loc, f"'{{{ref}}}': ids are generated by effects and cannot be used here")
                ok = False
        elif ref not in params:
            add(
                loc,
                f"'{{{ref}}}' is not a parameter of the tool"
                + (f" (parameters: {sorted(params)})" if params else ""),
            )
            ok = False
    return ok


def _literal_path(path: str, loc: tuple, add, templates_ok) -> None:
    """Grading paths name the final state: templates yes, argument placeholders no (there is no
    call)."""
    if placeholders(path):
        add(
            loc,
            f"path {path!r} uses a '{{...}}' placeholder: grading paths are concrete (templates "
            "and '*' only)",
        )
    templates_ok(path, loc)


def _pattern(pattern: str, loc: tuple, add) -> None:
    try:
        split_path(pattern)
    except PathError as exc:
        add(loc, str(exc))


def _known(agent: AgentDefinition, name: str, loc: tuple, add) -> bool:
    if agent.tool(name) is None:
        add(loc, f"tool '{name}' is not defined by agent '{agent.id}'")
        return False
    return True


def _dump(matcher: Matcher) -> Any:
    return matcher.model_dump(by_alias=True)
