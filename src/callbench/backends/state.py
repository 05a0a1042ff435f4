"""The declarative state backend: a JSON document is the world, and tools read and change it.

Each call is a transaction on a copy of the state: preconditions, then effects,
then reads; it commits only when every step succeeded, so a refused or broken
call never leaves half a change behind. Every committed write goes to the
ledger with the ordinal of the backend call that made it. Nothing depends on
time or chance (ids come from per-prefix counters), so the same calls in the
same order give the same answers and the same final state: `replay` proves it
from a stored trace.

Answers that are not a success have one typed shape, so a grader and a reader
can tell a refusal from an outage without parsing prose:
  {"status": "refused", "reason": "precondition_failed" | "missing_argument" | "invalid_argument",
  ...}
  {"status": "not_found", "reason": "not_found", "read": <read name>}
  {"status": "error", "reason": "timeout" | "outage" | "rate_limited" | "error" | "effect_failed"
                                | "invalid_arguments" | "unsupported", "retryable": bool, "message":
                                ...}
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import json
import operator
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..call.trace import Trace, backend_events
from ..call.types import ToolOutcome
from ..spec import MatchResult, evaluate, make_scope
from ..spec.matchers import MISSING
from ..spec.state import (
    DATE_REF,
    ID_REF,
    IdFormat,
    InjectedFailure,
    ReadSpec,
    StateBackendSpec,
    StateTool,
    get_path,
    interpolate,
    placeholders,
    split_path,
)
from ..spec.templates import lookup
from .arguments import schema_refusal, schema_validators

FAILURE_MESSAGES = {
    "timeout": "the request timed out",
    "outage": "the service is temporarily unavailable",
    "rate_limited": "too many requests, try again shortly",
    "error": "the request failed",
}


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode("utf-8")).hexdigest()


class _Stop(Exception):
    """Ends a call early with a typed answer; nothing of the call is committed."""

    def __init__(self, result: dict[str, Any], source: str):
        super().__init__(result.get("reason", source))
        self.result, self.source = result, source


def _refused(reason: str, **extra: Any) -> _Stop:
    return _Stop({"status": "refused", "reason": reason, **extra}, "refused")


def _error(reason: str, message: str, retryable: bool = False, source: str = "error") -> _Stop:
    return _Stop(
        {"status": "error", "reason": reason, "retryable": retryable, "message": message}, source
    )


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _add(a: int | float, b: int | float) -> int | float:
    """Exact decimal sums, so 0.1 + 0.2 is stored as 0.3 and a replay compares equal."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    return float(Decimal(str(a)) + Decimal(str(b)))


class _Call:
    """The references of one call: its arguments, the templates, and the ids it generated."""

    def __init__(self, backend: StateBackend, arguments: Mapping[str, Any]):
        self.backend, self.arguments = backend, arguments
        self.ids: dict[str, str] = {}

    def fill(self, ref: str, is_template: bool) -> Any:
        if is_template:
            return lookup(ref, self.backend.scope)
        d = DATE_REF.match(ref)
        if d:
            if self.backend.today is None:
                raise _error(
                    "unsupported",
                    "this world was built without the call's date, which {date:N} needs",
                )
            return (self.backend.today + dt.timedelta(days=int(d.group(1)))).isoformat()
        m = ID_REF.match(ref)
        if m:
            prefix = m.group(1)
            if prefix not in self.ids:
                self.ids[prefix] = self.backend.render_id(prefix)
            return self.ids[prefix]
        value = self.arguments.get(ref)
        if value is None:
            raise _refused("missing_argument", argument=ref)
        return value

    def value(self, value: Any) -> Any:
        return interpolate(value, self.fill)

    def segments(self, template: str) -> list[str]:
        return [str(interpolate(seg, self._key)) for seg in split_path(template)]

    def _key(self, ref: str, is_template: bool) -> Any:
        """A reference inside a path must name one key: a string or a whole number, never an
        object."""
        v = self.fill(ref, is_template)
        if (
            isinstance(v, bool)
            or not isinstance(v, (str, int))
            or (isinstance(v, str) and not v.strip())
        ):
            raise _refused(
                "invalid_argument",
                argument=ref,
                message=f"{ref} must be a non-empty string or an integer",
            )
        return v


@dataclass
class ReplayReport:
    calls: int
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


class StateBackend:
    """Answers tool calls from a JSON state declared in the scenario (see the module docstring)."""

    def __init__(
        self,
        spec: StateBackendSpec,
        knows: Mapping[str, Any],
        schemas: Mapping[str, Any] | None = None,
        today: dt.date | None = None,
    ):
        """`schemas`: the agent's tool parameter schemas. A call that breaks its tool's schema (a
        negative
        quantity where the minimum is 1, a value outside an enum) is refused before it can touch the
        world,
        as a real service would refuse it. `today`: the call's date, for `{date:N}` references."""
        self.today = today
        self.validators = schema_validators(schemas)
        self.spec = spec
        self.scope = make_scope(knows, spec.hidden)
        self.state: dict[str, Any] = interpolate(
            copy.deepcopy(spec.initial), lambda r, t: lookup(r, self.scope)
        )
        self.initial_sha256 = digest(self.state)
        self.ledger: list[dict[str, Any]] = []
        self.calls = 0
        self.per_tool: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        """refused calls per tool, for `lock_after`"""
        self.issued: Counter[str] = Counter()

    def render_id(self, prefix: str) -> str:
        """The next id of `prefix`; it is used up only if the call that asked for it commits."""
        fmt = self.spec.ids.get(prefix, IdFormat())
        return fmt.render(prefix, fmt.start + self.issued[prefix])

    async def call(self, name: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        return self.handle(name, arguments)

    def handle(self, name: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        """Synchronous core of `call` (replay uses it directly)."""
        index = self.calls
        self.calls += 1
        self.per_tool[name] += 1
        tool = self.spec.tools.get(name)
        if arguments is None:
            return _outcome(
                _error(
                    "invalid_arguments",
                    "the arguments could not be read as a JSON object",
                    True,
                    "invalid_arguments",
                )
            )
        if tool is None:
            return _outcome(_error("unsupported", f"{name} is not available", False, "unsupported"))
        if tool.unavailable:
            return ToolOutcome(
                result={
                    "status": "error",
                    "reason": "unavailable",
                    "message": f"{name} does not exist on this call",
                },
                source="unavailable",
            )
        arguments = {**tool.defaults, **arguments}
        refusal = schema_refusal(self.validators.get(name), arguments)
        if refusal is not None:
            self.refused[name] += 1
            return refusal
        if tool.lock_after is not None and self.refused[name] >= tool.lock_after:
            return ToolOutcome(
                result={
                    "status": "refused",
                    "reason": "locked",
                    "message": f"locked after {tool.lock_after} failed attempts; no more attempts "
                    f"are possible on this call",
                },
                source="locked",
            )
        failure = next((f for f in tool.failures if f.on_call == self.per_tool[name]), None)
        if failure is not None and not failure.applied:
            return _failure(failure)
        call = _Call(self, arguments)
        checks: list[MatchResult] = []
        try:
            work = copy.deepcopy(self.state)
            self._preconditions(tool, work, call, checks)
            writes = [self._apply(effect, work, call) for effect in tool.effects]
            reads = self._reads(tool, work, call)
            respond = call.value(tool.respond)
        except _Stop as stop:  # a reply lost in transit is lost whatever it would have said
            if stop.result.get("status") == "refused":
                self.refused[name] += 1
            if failure is not None:
                return _failure(failure, checks)
            return ToolOutcome(result=stop.result, source=stop.source, matcher_results=checks)
        self.state = work
        self.issued.update(call.ids.keys())
        self.ledger += [{"call_index": index, "tool": name, **w} for w in writes]
        if failure is not None:
            return _failure(failure, checks)
        return ToolOutcome(
            result=copy.deepcopy({**respond, **reads}), source="state", matcher_results=checks
        )

    def snapshot(self) -> dict[str, Any]:
        """What grading needs, copied into the trace at the end of the call."""
        return {
            "kind": "state",
            "initial_sha256": self.initial_sha256,
            "final_sha256": digest(self.state),
            "final_state": copy.deepcopy(self.state),
            "ledger": copy.deepcopy(self.ledger),
            "calls": self.calls,
        }

    # --- the steps of one call -----------------------------------------------------------------
    def _preconditions(
        self, tool: StateTool, work: dict, call: _Call, checks: list[MatchResult]
    ) -> None:
        for pre in tool.preconditions:
            segs = call.segments(pre.path)
            where, actual = ".".join(segs), get_path(work, segs)
            results = []
            if pre.match is not None:
                results.append(evaluate(pre.match, actual, where, resolve=call.value))
            for key, holds in (("at_least", operator.ge), ("at_most", operator.le)):
                bound = getattr(pre, key)
                if bound is None:
                    continue
                bound = call.value(bound)
                if not _is_number(bound):
                    refs = placeholders(getattr(pre, key))
                    raise _refused(
                        "invalid_argument",
                        argument=refs[0] if refs else key,
                        message=f"{key} needs a number",
                    )
                ok = _is_number(actual) and holds(actual, bound)
                why = (
                    ""
                    if ok
                    else ("not a number" if not _is_number(actual) else f"not {key} {bound}")
                )
                results.append(
                    MatchResult(
                        path=where,
                        matcher=key,
                        expected=bound,
                        ok=ok,
                        reason=why,
                        actual="<missing>" if actual is MISSING else actual,
                    )
                )
            checks.extend(results)
            if not all(r.ok for r in results):
                extra = {"message": pre.message} if pre.message else {}
                raise _refused(
                    "precondition_failed", precondition=pre.reported_as or pre.name, **extra
                )

    def _apply(self, effect, work: dict, call: _Call) -> dict[str, Any]:
        segs = call.segments(effect.path)
        parent = get_path(work, segs[:-1])
        if (
            isinstance(parent, list)
            and re.fullmatch(r"-\d+", segs[-1])
            and -len(parent) <= int(segs[-1])
        ):
            segs[-1] = str(
                len(parent) + int(segs[-1])
            )  # the ledger names the element, not "the last one"
        where = ".".join(segs)

        def fail(why: str) -> _Stop:
            return _error(
                "effect_failed", f"cannot {effect.op} at {where}: {why}", False, "effect_failed"
            )

        key = segs[-1]
        target = get_path(work, segs)
        if effect.op in ("set", "delete", "increment"):
            if isinstance(parent, list) and not key.lstrip("-").isdigit():
                raise fail("a list is indexed by number")
            if not isinstance(parent, (dict, list)):
                raise fail("the parent does not exist")
        if effect.op == "set":
            value = copy.deepcopy(call.value(effect.value))
            if isinstance(parent, list):
                if target is MISSING:
                    raise fail("index out of range")
                parent[int(key)] = value
            else:
                parent[key] = value
            return {"op": "set", "path": where, "value": value}
        if effect.op == "delete":
            if target is MISSING:
                raise fail("nothing is there")
            parent.pop(int(key) if isinstance(parent, list) else key)
            return {"op": "delete", "path": where, "value": None}
        if effect.op == "merge":
            value = call.value(effect.value)
            if not isinstance(target, dict) or not isinstance(value, dict):
                raise fail("merge needs an existing object")
            target.update(copy.deepcopy(value))
            return {"op": "merge", "path": where, "value": copy.deepcopy(value)}
        if effect.op == "append":
            if not isinstance(target, list):
                raise fail("append needs an existing list")
            value = copy.deepcopy(call.value(effect.value))
            target.append(value)
            return {"op": "append", "path": where, "value": value}
        by = call.value(effect.by)  # increment
        if not _is_number(by):
            refs = placeholders(effect.by)
            raise _refused(
                "invalid_argument",
                argument=refs[0] if refs else "by",
                message="the amount must be a number",
            )
        if not _is_number(target):
            raise fail("the value is not a number")
        by = -by if effect.negate else by
        result = _add(target, by)
        for name, bound, beyond in (
            ("floor", effect.floor, operator.lt),
            ("ceiling", effect.ceiling, operator.gt),
        ):
            if bound is None:
                continue
            limit = call.value(bound)
            if not _is_number(limit):
                raise fail(f"the {name} is not a number")
            if beyond(result, limit):
                result = limit
        parent[int(key) if isinstance(parent, list) else key] = result
        return {
            "op": "increment",
            "path": where,
            "value": _add(result, -target),
        }  # what was really added

    def _reads(self, tool: StateTool, work: dict, call: _Call) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, given in tool.reads.items():
            # the spec's validator makes every read a ReadSpec; a bare path is its shorthand
            read = given if isinstance(given, ReadSpec) else ReadSpec.model_construct(path=given)
            value = get_path(work, call.segments(read.path))
            if read.where and value is not MISSING:

                def keep(item: Any, where: dict = read.where) -> bool:
                    return isinstance(item, Mapping) and all(
                        evaluate(m, item.get(f, MISSING), f, resolve=call.value).ok
                        for f, m in where.items()
                    )

                if isinstance(value, dict):
                    value = {k: _project(v, read.fields) for k, v in value.items() if keep(v)}
                elif isinstance(value, list):
                    value = [_project(v, read.fields) for v in value if keep(v)]
                else:
                    value = MISSING
                if not value:
                    value = MISSING if not read.optional else value
            elif value is not MISSING:
                value = _project(value, read.fields)
            if value is MISSING:
                if not read.optional:
                    raise _Stop(
                        {"status": "not_found", "reason": "not_found", "read": name}, "not_found"
                    )
                value = None
            out[name] = copy.deepcopy(value)
        return out


def _project(value: Any, fields: list[str] | None) -> Any:
    if fields is None or not isinstance(value, Mapping):
        return value
    return {f: value[f] for f in fields if f in value}


def _outcome(stop: _Stop) -> ToolOutcome:
    return ToolOutcome(result=stop.result, source=stop.source)


def _failure(failure: InjectedFailure, checks: list[MatchResult] | None = None) -> ToolOutcome:
    result = {
        "status": "error",
        "reason": failure.kind,
        "retryable": failure.retryable,
        "message": failure.message or FAILURE_MESSAGES[failure.kind],
    }
    return ToolOutcome(result=result, source="injected_failure", matcher_results=list(checks or []))


def replay(
    trace: Trace,
    spec: StateBackendSpec,
    knows: Mapping[str, Any],
    schemas: Mapping[str, Any] | None = None,
    today: dt.date | None = None,
) -> ReplayReport:
    """Feed the trace's backend calls, in order, to a fresh backend and compare every answer, the
    ledger
    and the final state with what the trace recorded. Any difference is named. Pass the agent's tool
    schemas when the run had them (runs always do)."""
    backend = StateBackend(spec, knows, schemas, today)
    report = replay_calls(trace, backend.handle)
    return compare_world(
        report, trace, backend.initial_sha256, backend.ledger, backend.state, backend.calls
    )


def replay_calls(trace: Trace, handle: Callable[[str, Any], ToolOutcome]) -> ReplayReport:
    """Feed the trace's backend calls, in order, to `handle`; name every answer that differs."""
    report = ReplayReport(calls=0)
    for i, event in enumerate(backend_events(trace)):
        outcome = handle(event.name, event.arguments)
        report.calls += 1
        if canonical(outcome.result) != canonical(event.result):
            report.mismatches.append(
                f"call {i} ({event.name} at #{event.index}): replay answered "
                f"{canonical(outcome.result)}, the trace has {canonical(event.result)}"
            )
    return report


def compare_world(
    report: ReplayReport,
    trace: Trace,
    initial_sha256: str,
    ledger: list[dict[str, Any]],
    final_state: Any,
    calls: int,
) -> ReplayReport:
    """Name every difference between the trace's world record and a replayed backend's."""
    world = trace.world
    if world is None:
        report.mismatches.append("the trace has no world record")
        return report
    if world.initial_sha256 != initial_sha256:
        report.mismatches.append(
            "the initial state differs from the one the trace was recorded with"
        )
    if canonical([e.model_dump() for e in world.ledger]) != canonical(ledger):
        report.mismatches.append("the ledger differs")
    if canonical(world.final_state) != canonical(final_state):
        report.mismatches.append("the final state differs")
    if world.calls != calls:
        report.mismatches.append(
            f"the trace recorded {world.calls} backend calls, replay made {calls}"
        )
    return report


__all__ = [
    "ReplayReport",
    "StateBackend",
    "canonical",
    "compare_world",
    "digest",
    "replay",
    "replay_calls",
]
