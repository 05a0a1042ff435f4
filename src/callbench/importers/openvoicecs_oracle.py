"""The OpenVoiceCS oracle as callbench grading: expected and forbidden calls as expected actions,
the expected state as matchers, and the auth block as a verification gate.
"""

from __future__ import annotations

import json
from typing import Any

from .openvoicecs_source import (
    AUTH_KEYS,
    END_TOOL,
    SourceScenario,
    _leaves,
    _mentioned,
    _scalar_text,
)
from .openvoicecs_tools import _respond


def _arg_matchers(src: SourceScenario, call: dict[str, Any]) -> dict[str, Any]:
    """`eq` matchers for a call's arguments; a generated argument at its default may be left out."""
    gen = (src.tools.get(call["name"]) or {}).get("generated_arguments") or {}
    return {
        k: ({"any": [{"absent": True}, {"eq": v}]} if k in gen and gen[k] == v else {"eq": v})
        for k, v in (call.get("arguments") or {}).items()
    }


def expected_actions(
    src: SourceScenario, said: list[str], undeclared: list[str]
) -> list[dict[str, Any]]:
    """The oracle's expected calls, its forbidden calls (count 0), a count-0 guard for each
    undeclared tool, and the end of the call as a guard."""
    actions = _expected_calls(src)
    _unsayable(src, said)
    actions += _forbidden_calls(src)
    actions += _undeclared_calls(src, undeclared)
    actions.append(
        {"id": "end", "tool": END_TOOL, "result": {"status": {"eq": "ended"}}, "guard": True}
    )
    return actions


def _expected_calls(src: SourceScenario) -> list[dict[str, Any]]:
    """Each expected call as an action that counts only when the backend accepted it. A
    verification call is a guard: an obligation before acting, not what the caller came for."""
    actions: list[dict[str, Any]] = []
    for n, c in enumerate(src.expected, start=1):
        t = src.tools.get(c["name"])
        action: dict[str, Any] = {
            "id": f"call{n}_{c['name']}",
            "tool": c["name"],
            "args": _arg_matchers(src, c),
            "weight": 2,
        }
        if c["name"].startswith("verify"):
            action["guard"] = True
        if t is not None:
            action["result"] = {"status": {"eq": _respond(t)["status"]}}
        else:
            src.approx.append(
                f"expected call {c['name']} has no tool declaration in the scenario: it can never "
                "succeed"
            )
        actions.append(action)
    if src.expected:
        src.conv.append(
            f"oracle.expected_tool_calls ({len(src.expected)}) -> expected actions with eq "
            "matchers and a result matcher (only calls the backend accepted count)"
        )
        src.approx.append(
            "the order of expected calls is not graded itself; the preconditions enforce the order "
            "the source's state requires"
        )
    return actions


def _unsayable(src: SourceScenario, said: list[str]) -> None:
    """Expected argument values that neither the caller, its profile nor any tool result ever
    states: no agent can be expected to produce them, so the report names them."""
    returned = [
        _scalar_text(x) for t in src.tools.values() for _, x in _leaves(t.get("result") or {})
    ]
    heard = said + returned
    undisclosed = []
    for c in src.expected:
        gen = (src.tools.get(c["name"]) or {}).get("generated_arguments") or {}
        for k, v in (c.get("arguments") or {}).items():
            if k not in gen and not _mentioned(v, heard):
                undisclosed.append(f"{c['name']}.{k}={json.dumps(v)}")
    if undisclosed:
        src.rep.unsayable = undisclosed
        src.approx.append(
            "required argument values the caller never states and no tool returns (no agent can be "
            "expected to produce them; the source agent may have read them from records): "
            + ", ".join(undisclosed)
        )


def _forbidden_calls(src: SourceScenario) -> list[dict[str, Any]]:
    """Each forbidden call as a count-0 action; its arguments as matchers, so only that call
    pattern is forbidden."""
    actions = [
        {
            "id": f"forbidden{n}_{c['name']}",
            "tool": c["name"],
            "args": _arg_matchers(src, c),
            "count": {"exactly": 0},
            "weight": 2,
        }
        for n, c in enumerate(src.forbidden, start=1)
    ]
    if src.forbidden:
        src.conv.append(
            f"oracle.forbidden_tool_calls ({len(src.forbidden)}) -> expected actions with count "
            "exactly 0 (arguments as eq matchers, so only that call pattern is forbidden)"
        )
    return actions


def _undeclared_calls(src: SourceScenario, undeclared: list[str]) -> list[dict[str, Any]]:
    """A domain tool this scenario does not declare is a model error to call (as an absent API
    would be), and a broken guard; forbidden calls already cover the tools they name."""
    forbidden_tools = {c["name"] for c in src.forbidden}
    actions = [
        {
            "id": f"undeclared_{tname}",
            "tool": tname,
            "count": {"exactly": 0},
            "weight": 2,
            "description": "a tool this call does not offer: calling it is a model error",
        }
        for tname in undeclared
        if tname not in forbidden_tools
    ]
    if undeclared:
        src.conv.append(
            f"domain tools this scenario does not declare ({', '.join(undeclared)}) -> unavailable "
            "on this call: calling one is a model error that ends the call, and a broken guard"
        )
    return actions


def expected_state(src: SourceScenario, scenario: dict[str, Any]) -> None:
    """The oracle's expected state as `eq` matchers on its leaves; paths it does not name are not
    graded, as the source's subset check does."""
    exp_state = src.oracle.get("expected_state")
    if exp_state:
        leaves = _leaves(exp_state)
        scenario["expected_state"] = {"paths": {p: {"eq": v} for p, v in leaves}}
        src.conv.append(
            f"oracle.expected_state -> expected_state ({len(leaves)} leaf path(s), eq matchers; "
            f"paths the source does not name are not graded, as in a subset check)"
        )
    else:
        src.drop.append("oracle.expected_state: absent in the source, no outcome check")


def gates(src: SourceScenario, scenario: dict[str, Any]) -> None:
    """The oracle's auth block as a verification gate, when the scenario expects a verification
    call to gate the protected tools with."""
    auth = src.oracle.get("auth") or {}
    for key in sorted(set(auth) - AUTH_KEYS):
        src.drop.append(f"oracle.auth.{key}: not a known OpenVoiceCS field")
    protected = [p for p in auth.get("protected_tools") or [] if p in src.agent_tools]
    verify_tool = next(
        (
            c["name"]
            for c in src.expected
            if c["name"].startswith("verify") and c["name"] in src.tools
        ),
        None,
    )
    if protected and verify_tool:
        scenario["gates"] = {
            "verification_tool": verify_tool,
            "verification_success": {
                "path": "status",
                "equals": _respond(src.tools[verify_tool])["status"],
            },
            "protected_tools": protected,
        }
        src.conv.append(
            f"oracle.auth.protected_tools ({', '.join(protected)}) -> gates with verification tool "
            f"{verify_tool} (verification_events {auth.get('verification_events') or []})"
        )
        if auth.get("forbidden_events"):
            src.approx.append(
                f"oracle.auth.forbidden_events {auth['forbidden_events']} -> the verification_gate "
                f"(a protected tool called before a successful verification result)"
            )
    elif protected:
        src.drop.append(
            f"oracle.auth: protected tools {protected} but no verification tool in the scenario, "
            "so no gate (the forbidden calls still forbid what the source forbids)"
            + (
                f"; auth.forbidden_events {auth['forbidden_events']} not graded"
                if auth.get("forbidden_events")
                else ""
            )
        )
    if auth.get("required_events"):
        src.approx.append(
            f"oracle.auth.required_events {auth['required_events']} -> the expected verification "
            "call"
        )
