"""Deterministic action checks: which tools were called, with which arguments, how often, in what
order."""

from __future__ import annotations

from ..call.trace import ToolEvent, Trace
from ..spec import ExpectedAction, Scenario, SuiteManifest, evaluate_args, make_scope, resolve
from .base import CodeGrader, ItemVerdict


class ActionGrader(CodeGrader):
    """Grades every expected action of a scenario against the trace's tool events.

    A call counts toward an action only if it named a known tool, its arguments
    parsed, and every argument matcher holds. Ordering (`after`) compares the
    first counted call of the action with the first counted call of each
    action it must follow, or with the caller turn that expressed a plan step
    (an achievement counts only once the caller asked for it: a script that
    fires every tool up front earns nothing for what it happened to hit).
    """

    name = "actions"

    def grade(
        self, trace: Trace, scenario: Scenario, suite: SuiteManifest | None = None
    ) -> list[ItemVerdict]:
        scope = make_scope(scenario.caller.knows, scenario.backend.hidden)
        matches = {a.id: _matching(a, trace.tool_events, scope) for a in scenario.expected_actions}
        return [self._verdict(a, trace, matches, scope) for a in scenario.expected_actions]

    def _verdict(
        self, action: ExpectedAction, trace: Trace, matches: dict[str, list[ToolEvent]], scope
    ) -> ItemVerdict:
        found = matches[action.id]
        problems: list[str] = []
        if not action.count.holds(len(found)):
            problems.append(
                f"expected {action.count} matching call(s) to {action.tool}, found {len(found)}"
            )
            near = [e for e in trace.tool_events if e.name == action.tool and e not in found]
            for e in near[:3]:
                problems.append(f"call at #{e.index} did not match: {_why(action, e, scope)}")
        problems += _order_problems(action, trace, matches)
        ok = not problems
        evidence = [e.index for e in found] or [
            e.index for e in trace.tool_events if e.name == action.tool
        ]
        detail = f"{len(found)} matching call(s) to {action.tool}" if ok else "; ".join(problems)
        return ItemVerdict(
            id=action.id,
            kind="action",
            pillar="task",
            weight=action.weight,
            label="met" if ok else "not_met",
            r=1.0 if ok else 0.0,
            grader=self.name,
            diagnostic=action_diagnostic(action),
            evidence=evidence,
            detail=detail,
            guard=action.is_guard,
        )


def _order_problems(
    action: ExpectedAction, trace: Trace, matches: dict[str, list[ToolEvent]]
) -> list[str]:
    """What breaks the action's `after` ordering: its first counted call against each dependency's
    first counted
    call, or against the caller turn that expressed a plan step."""
    found = matches[action.id]
    if not found:
        return []
    problems = []
    first = found[0].index
    for dep in action.after:
        if dep not in matches:  # a plan step: the caller must have asked before the agent acted
            asked = next(
                (
                    min(t.message_indices)
                    for t in trace.caller_turns
                    if dep in t.expressed_steps and t.message_indices
                ),
                None,
            )
            if asked is None:
                problems.append(
                    f"must come after the caller's step '{dep}', which the caller never reached"
                )
            elif asked > found[0].call_message_index:
                problems.append(
                    f"came at #{found[0].call_message_index}, before the caller asked ('{dep}' at "
                    f"#{asked})"
                )
            continue
        dep_found = matches.get(dep, [])
        if not dep_found:
            problems.append(f"must come after '{dep}', which never happened")
        elif dep_found[0].index > first:
            problems.append(f"came at #{first}, before '{dep}' at #{dep_found[0].index}")
    return problems


def first_counted(action_id: str, trace: Trace, scenario: Scenario) -> ToolEvent | None:
    """The action's first counted call, or None when it never happened or broke its ordering (a
    premature call
    anchors no window: acting before the caller asked opens nothing)."""
    scope = make_scope(scenario.caller.knows, scenario.backend.hidden)
    matches = {a.id: _matching(a, trace.tool_events, scope) for a in scenario.expected_actions}
    action = next(a for a in scenario.expected_actions if a.id == action_id)
    if not matches[action_id] or _order_problems(action, trace, matches):
        return None
    return matches[action_id][0]


def action_diagnostic(action: ExpectedAction) -> str:
    if action.is_guard:
        return "rule_compliance"
    return "argument_accuracy" if action.args or action.result else "action_correctness"


def _matching(action: ExpectedAction, events: list[ToolEvent], scope) -> list[ToolEvent]:
    out = []
    for e in events:
        if (
            e.name != action.tool
            or not e.known_tool
            or e.arguments is None
            or e.response_source == "limit"
        ):
            continue
        resolver = lambda v: resolve(v, scope)  # noqa: E731
        if all(r.ok for r in evaluate_args(action.args, e.arguments, resolve=resolver)) and all(
            r.ok
            for r in evaluate_args(
                action.result, e.result if isinstance(e.result, dict) else {}, "result", resolver
            )
        ):
            out.append(e)
    return out


def _why(action: ExpectedAction, event: ToolEvent, scope) -> str:
    if event.parse_error:
        return event.parse_error
    if event.response_source == "limit":
        return "not executed (tool call limit)"
    resolver = lambda v: resolve(v, scope)  # noqa: E731
    results = evaluate_args(action.args, event.arguments, resolve=resolver)
    results += evaluate_args(
        action.result, event.result if isinstance(event.result, dict) else {}, "result", resolver
    )
    failed = [r for r in results if not r.ok]
    return (
        ", ".join(
            f"{r.path} {r.reason} (expected {r.expected!r}, got {r.actual!r})" for r in failed
        )
        or "?"
    )
