"""An OpenVoiceCS scenario's tools and initial state as a callbench state backend.

The source replays a tool call against its declared `required_arguments`, `preconditions` and
`state_updates`; here each becomes a state tool whose preconditions refuse a call with other values
(so it changes nothing, as a replay would), whose effects are `set` operations and whose answer is
the source's `result`.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from .openvoicecs_source import END_TOOL, LOCK_AFTER, PRIVATE, SourceScenario
from .openvoicecs_tools import _respond, _set_effects


def state_backend(src: SourceScenario) -> tuple[dict[str, Any], list[str]]:
    """The state backend, and the domain tools this scenario does not declare (unavailable on
    this call). Required argument values go into a private node of the state, so a call with other
    values is refused by a precondition and changes nothing, as a replay would."""
    effects_of = _effects(src)
    required_store: dict[str, dict[str, Any]] = {}
    state_tools: dict[str, Any] = {}
    for tname, t in src.tools.items():
        state_tools[tname] = _state_tool(src, tname, t, effects_of.get(tname), required_store)
    undeclared = []
    for tname in sorted(src.agent_tools):
        if tname not in state_tools:
            undeclared.append(tname)
            state_tools[tname] = {"unavailable": True}
            if tname in [c["name"] for c in src.forbidden]:
                src.approx.append(
                    f"tool {tname} appears only in a forbidden call: declared to the agent with "
                    "parameters inferred from the forbidden arguments; calling it on this call is "
                    "a model error"
                )
    state_tools[END_TOOL] = {"respond": {"status": "ended"}}
    initial = copy.deepcopy(src.s["initial_state"])
    initial[PRIVATE] = {"required_arguments": required_store}
    src.conv.append(
        f"initial_state -> backend.initial ({len(src.s['initial_state'])} top-level key(s))"
    )
    src.approx.append(
        f"required argument values live in a private `{PRIVATE}` node of the state so a call with "
        "other values is refused and changes nothing; strings are compared exactly (the source "
        "normalizes case and separators, e.g. 'damaged item' == 'damaged_item')"
    )
    return {"kind": "state", "initial": initial, "tools": state_tools}, undeclared


def _effects(src: SourceScenario) -> dict[str, list[dict[str, Any]]]:
    """Each tool's state updates as `set` effects. The expected tools are simulated in the expected
    order on one state, so an update whose parent an earlier expected call creates is written as
    the source means it; any other tool starts from the initial state."""
    sim = copy.deepcopy(src.s["initial_state"])
    expected_names = [c["name"] for c in src.expected]
    order = [n for n in expected_names if n in src.tools]
    order += [n for n in src.tools if n not in order]
    effects_of: dict[str, list[dict[str, Any]]] = {}
    nested_notes: list[str] = []
    for tname in order:
        if tname in effects_of:
            continue
        t = src.tools[tname]
        base = sim if tname in expected_names else copy.deepcopy(src.s["initial_state"])
        effects_of[tname] = _set_effects(t.get("state_updates") or [], base, nested_notes, tname)
    src.approx.extend(nested_notes)
    return effects_of


def _argument_checks(tname: str, pinned: dict[str, Any]) -> list[dict[str, Any]]:
    """Preconditions comparing each pinned argument with its value in the private node. They all
    report as `request_details`, so a refusal never says which argument was wrong."""
    return [
        {
            "name": f"arg_{k}",
            "reported_as": "request_details",
            "path": f"{PRIVATE}.required_arguments.{tname}.{k}",
            "match": {"eq": "{" + k + "}"},
            "message": "the request does not match our records",
        }
        for k in pinned
    ]


def _preconditions(src: SourceScenario, tname: str, t: dict[str, Any]) -> list[dict[str, Any]]:
    """The source's `preconditions` as `eq` preconditions (a null value as `absent`)."""
    pre: list[dict[str, Any]] = []
    for i, p in enumerate(t.get("preconditions") or [], start=1):
        if p["value"] is None:
            match: dict[str, Any] = {"absent": True}
            src.approx.append(
                f"{tname}: precondition `{p['path']}` == null -> `absent` (missing or null)"
            )
        else:
            match = {"eq": copy.deepcopy(p["value"])}
        pre.append(
            {
                "name": f"pre_{i}",
                "path": p["path"],
                "match": match,
                "message": "this request cannot be completed at this point",
            }
        )
    return pre


def _state_tool(
    src: SourceScenario,
    tname: str,
    t: dict[str, Any],
    effects: list[dict[str, Any]] | None,
    required_store: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """One declared tool as a state tool; its pinned argument values go into `required_store`."""
    req = t.get("required_arguments") or {}
    gen = t.get("generated_arguments") or {}
    model_req = {k: v for k, v in req.items() if k not in gen}
    pinned = {**copy.deepcopy(req), **{k: v for k, v in gen.items() if k not in req}}
    if pinned:
        required_store[tname] = copy.deepcopy(pinned)
    pre = _argument_checks(tname, pinned) + _preconditions(src, tname, t)
    entry: dict[str, Any] = {}
    if gen:
        entry["defaults"] = copy.deepcopy(gen)
    if pre:
        entry["preconditions"] = pre
    if pinned:
        entry["lock_after"] = LOCK_AFTER
    if effects:
        entry["effects"] = effects
    entry["respond"] = _respond(t)
    _note_tool(src, tname, t, req, gen, model_req, pinned)
    return entry


def _note_tool(
    src: SourceScenario,
    tname: str,
    t: dict[str, Any],
    req: dict[str, Any],
    gen: dict[str, Any],
    model_req: dict[str, Any],
    pinned: dict[str, Any],
) -> None:
    """Report how the tool was converted and where the domain-wide agent tool differs from the
    scenario's own declaration."""
    info = src.agent_tools[tname]
    if len(info.descriptions) > 1 and str(t.get("description") or "").strip():
        src.approx.append(
            f"tool {tname}: its description differs across the domain's scenarios, so the "
            f"agent shows a neutral one; not shown: {str(t.get('description')).strip()!r}"
        )
    shared = set.intersection(*info.required_votes) if info.required_votes else set()
    for k in sorted(set(model_req) - shared):
        src.approx.append(
            f"tool {tname}: argument {k} is required here but optional in the {src.agent_id} agent "
            "(another scenario declares the tool without it); a call without it is refused as "
            "missing_argument"
        )
    src.conv.append(
        f"tool {tname}: required_arguments ({', '.join(req) or 'none'}) -> parameters and "
        f"argument checks; {len(t.get('preconditions') or [])} precondition(s); "
        f"{len(t.get('state_updates') or [])} state update(s) -> set effects; "
        + ("result -> respond" if t.get("result") else "respond {status: ok} (no result given)")
    )
    for k, v in gen.items():
        src.approx.append(
            f"{tname}.{k} is a generated (system-assigned) argument: when omitted the tool "
            f"fills in {json.dumps(v)} (as the source does); a different value is refused"
        )
    for k in t.get("argument_bindings") or {}:
        src.approx.append(
            f"{tname}.{k} is bound to an earlier call's result in the source: pinned to its "
            f"value {json.dumps(req.get(k))}, which the agent must carry over"
        )
    if pinned:
        src.approx.append(
            f"{tname}: a refusal for wrong arguments does not say which one was wrong, and the "
            f"tool locks after {LOCK_AFTER} refused calls (the source allows unlimited retries; "
            "callbench does not let brute force pay)"
        )
