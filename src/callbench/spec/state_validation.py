"""Cross-file rules for state worlds and their grading, reported like every other rule: file,
field path, line.

These catch the mistakes that would otherwise show up as a world that refuses
every call (a path naming an argument the tool does not have), a grader that
can never pass (a write the tool cannot make), or one that passes for doing
nothing (expected no writes, but no refusal to look for).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .matchers import Matcher
from .state import (
    DATE_REF,
    ID_REF,
    STATE_ITEM_IDS,
    PathError,
    StateBackendSpec,
    StateTool,
    placeholders,
    split_path,
)
from .templates import TemplateError, make_scope, references, resolve

if TYPE_CHECKING:
    from .agent import AgentDefinition, ToolSpec
    from .scenario import Scenario

Loc = tuple[Any, ...]
"""A field path inside a suite file: keys and list indices."""
Found = tuple[Loc, str, str]  # (field path, message, level)
Add = Callable[..., None]
"""Reports a problem: `add(loc, message, level="error")`."""


class _StateCheck:
    """What every state rule of one scenario needs: its template scope (so each `${...}` is
    resolved as the run will resolve it), its agent, and the list the problems go to."""

    def __init__(self, sc: Scenario, agent: AgentDefinition):
        self.sc, self.agent = sc, agent
        self.out: list[Found] = []
        self.scope = make_scope(sc.caller.knows, sc.backend.hidden)

    def add(self, loc: Loc, message: str, level: str = "error") -> None:
        self.out.append((loc, message, level))

    def templates_ok(self, value: Any, loc: Loc) -> bool:
        ok = True
        for ref in references(value):
            try:
                resolve("${" + ref + "}", self.scope)
            except TemplateError as exc:
                self.add(loc, str(exc))
                ok = False
        return ok

    def known(self, name: str, loc: Loc) -> bool:
        return _known(self.agent, name, loc, self.add)


def state_problems(sc: Scenario, agent: AgentDefinition) -> list[Found]:
    """The problems of a scenario's state world and of the checks that grade it, in file order:
    backend, expected state, expected changes, refusal, gates, then verdict ids."""
    chk = _StateCheck(sc, agent)
    if isinstance(sc.backend, StateBackendSpec):
        _check_backend(chk, sc.backend)
    elif sc.backend.kind == "queue":
        for name in ("expected_state", "expected_changes", "refusal"):
            if getattr(sc, name) is not None:
                chk.add(
                    (name,),
                    f"'{name}' grades a world with a ledger: it needs backend kind 'state', "
                    "'service' or 'http'",
                )
    if sc.expected_state is not None:
        for path, matcher in sc.expected_state.paths.items():
            loc = ("expected_state", "paths", path)
            _literal_path(path, loc, chk.add, chk.templates_ok)
            chk.templates_ok(_dump(matcher), loc)
    _check_expected_changes(chk)
    if sc.refusal is not None:
        ref = sc.refusal
        if ref.tool is not None:
            chk.known(ref.tool, ("refusal", "tool"))
        for i, pattern in enumerate(ref.allow_writes):
            _pattern(pattern, ("refusal", "allow_writes", i), chk.add)
    _check_gates(chk)
    _check_state_ids(chk)
    return chk.out


def _check_expected_changes(chk: _StateCheck) -> None:
    """Each expected write must be one a tool can make; expecting no writes needs a refusal or a
    figure or phrase the agent must say, or doing nothing would pass (with one, the empty write list
    is a guard against changing anything)."""
    sc = chk.sc
    changes = sc.expected_changes
    if changes is None:
        return
    for i, write in enumerate(changes.writes):
        loc = ("expected_changes", "writes", i)
        _literal_path(write.path, loc + ("path",), chk.add, chk.templates_ok)
        if write.value is not None:
            chk.templates_ok(_dump(write.value), loc + ("value",))
        if (
            write.tool is not None
            and chk.known(write.tool, loc + ("tool",))
            and isinstance(sc.backend, StateBackendSpec)
        ):
            tool = sc.backend.tools.get(write.tool)
            if tool is None or write.op not in {e.op for e in tool.effects}:
                chk.add(
                    loc + ("tool",),
                    f"tool '{write.tool}' has no '{write.op}' effect: this write can never happen",
                )
    for i, pattern in enumerate(changes.ignore):
        _pattern(pattern, ("expected_changes", "ignore", i), chk.add)
    earned = any(c.must == "state" for c in sc.spoken_checks) or any(
        c.must == "say" for c in sc.phrase_checks
    )
    if not changes.writes and sc.refusal is None and not earned:
        chk.add(
            ("expected_changes", "writes"),
            "expecting no writes passes on inaction alone: declare 'refusal:' "
            "with the explicit behaviour that must happen instead",
        )


def _check_gates(chk: _StateCheck) -> None:
    """Gates name the agent's tools, never gate the verification tool on itself, and give each
    protected fact its own id."""
    gates = chk.sc.gates
    if gates is None:
        return
    chk.known(gates.verification_tool, ("gates", "verification_tool"))
    for i, name in enumerate(gates.protected_tools):
        if chk.known(name, ("gates", "protected_tools", i)) and name == gates.verification_tool:
            chk.add(
                ("gates", "protected_tools", i),
                "the verification tool cannot be protected by its own gate",
            )
    seen: set[str] = set()
    for i, fact in enumerate(gates.protected_facts):
        if fact.id in seen:
            chk.add(
                ("gates", "protected_facts", i, "id"),
                f"protected fact id '{fact.id}' is used twice",
            )
        seen.add(fact.id)
        chk.templates_ok(fact.value, ("gates", "protected_facts", i, "value"))


def _check_state_ids(chk: _StateCheck) -> None:
    """A scenario's own verdict may not take the id of a state check it declares: one id, one
    verdict."""
    sc = chk.sc
    declared = {
        "expected_state": sc.expected_state,
        "expected_changes": sc.expected_changes,
        "refusal": sc.refusal,
        "refusal_no_write": sc.refusal,
        "verification_gate": sc.gates,
        "disclosure_gate": sc.gates,
    }
    ids: dict[str, list[str]] = {
        "expected_actions": [a.id for a in sc.expected_actions],
        "criteria": [c.id for c in sc.criteria],
        "spoken_checks": [c.id for c in sc.spoken_checks],
        "phrase_checks": [c.id for c in sc.phrase_checks],
    }
    for field_name, field_ids in ids.items():
        for i, item_id in enumerate(field_ids):
            if item_id in STATE_ITEM_IDS and declared[item_id] is not None:
                chk.add(
                    (field_name, i, "id"),
                    f"id '{item_id}' is the verdict id of a state check of this scenario",
                )


def _check_backend(chk: _StateCheck, spec: StateBackendSpec) -> None:
    """The world: its initial state holds no argument placeholders (there is no call yet), each
    state tool belongs to the agent, and an agent tool without an entry is pointed out."""
    if placeholders(spec.initial):
        chk.add(
            ("backend", "initial"),
            f"the initial state uses '{{{placeholders(spec.initial)[0]}}}': it has no call "
            f"arguments (use ${{hidden.x}} templates)",
        )
    chk.templates_ok(spec.initial, ("backend", "initial"))
    for name, tool in spec.tools.items():
        base = ("backend", "tools", name)
        definition = chk.agent.tool(name)
        if definition is None:
            chk.add(base, f"tool '{name}' is not defined by agent '{chk.agent.id}'")
            continue
        _check_tool(chk, name, tool, definition)
    for agent_tool in chk.agent.tools:
        if agent_tool.name not in spec.tools:
            chk.add(
                ("backend", "tools"),
                f"agent tool '{agent_tool.name}' has no entry: every call to it is answered "
                f"'unsupported'",
                "warning",
            )


class _ToolRefs:
    """Checks the `{placeholder}` and `${template}` references of one state tool: a placeholder
    must name a parameter (or a generated id or date where allowed), and one naming an optional
    parameter is refused as missing whenever a call leaves it out."""

    def __init__(self, chk: _StateCheck, params: set[str], filled: set[str]):
        self.chk, self.params, self.filled = chk, params, filled

    def __call__(self, value: Any, loc: Loc, ids: bool = True) -> None:
        if placeholders_ok(value, loc, self.params, self.chk.add, ids):
            self.chk.templates_ok(value, loc)
            for ref in placeholders(value):
                if ref in self.params and ref not in self.filled:
                    self.chk.add(
                        loc,
                        f"'{{{ref}}}' is an optional parameter: a call without it is refused "
                        f"as missing_argument",
                        "warning",
                    )


def _check_tool(chk: _StateCheck, name: str, tool: StateTool, definition: ToolSpec) -> None:
    """One state tool against the agent's declaration of it: defaults, reads, preconditions,
    effects, the answer and injected failures."""
    base = ("backend", "tools", name)
    props = definition.parameters.get("properties") or {}
    params = set(props) if isinstance(props, dict) else set()
    required = set(definition.parameters.get("required") or [])
    for key in tool.defaults:
        if key not in params:
            chk.add(base + ("defaults", key), f"'{key}' is not a parameter of tool '{name}'")
    refs = _ToolRefs(chk, params, required | set(tool.defaults))
    for key, read in tool.reads.items():
        path, where = (read, {}) if isinstance(read, str) else (read.path, read.where)
        refs(path, base + ("reads", key, "path"))
        for field_name, matcher in where.items():
            refs(_dump(matcher), base + ("reads", key, "where", field_name))
        if key in tool.respond:
            chk.add(
                base + ("reads", key),
                f"read '{key}' would overwrite the respond key of the same name",
            )
    _check_preconditions(chk, base, tool, refs)
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
            chk.add(base + ("failures", i, "on_call"), f"two failures are injected on call {n}")


def _check_preconditions(chk: _StateCheck, base: Loc, tool: StateTool, refs: _ToolRefs) -> None:
    """Precondition names are unique (a refusal reports one), their paths and matchers take no
    generated ids (nothing has been generated when they run), and a bound is a number or one
    reference."""
    names: set[str] = set()
    for i, pre in enumerate(tool.preconditions):
        loc = base + ("preconditions", i)
        if pre.name in names:
            chk.add(loc + ("name",), f"precondition name '{pre.name}' is used twice")
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
                chk.add(
                    loc + (key,), f"{key} must be a number or a single reference, not {bound!r}"
                )


def placeholders_ok(value: Any, loc: Loc, params: set[str], add: Add, ids: bool = True) -> bool:
    """Report each `{placeholder}` in `value` that is neither a parameter of the tool, a date, nor
    (where `ids`) a generated id; true when there is none."""
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


def _literal_path(path: str, loc: Loc, add: Add, templates_ok: Callable[[Any, Loc], bool]) -> None:
    """Grading paths name the final state: templates yes, argument placeholders no (there is no
    call)."""
    if placeholders(path):
        add(
            loc,
            f"path {path!r} uses a '{{...}}' placeholder: grading paths are concrete (templates "
            "and '*' only)",
        )
    templates_ok(path, loc)


def _pattern(pattern: str, loc: Loc, add: Add) -> None:
    try:
        split_path(pattern)
    except PathError as exc:
        add(loc, str(exc))


def _known(agent: AgentDefinition, name: str, loc: Loc, add: Add) -> bool:
    if agent.tool(name) is None:
        add(loc, f"tool '{name}' is not defined by agent '{agent.id}'")
        return False
    return True


def _dump(matcher: Matcher) -> Any:
    return matcher.model_dump(by_alias=True)
