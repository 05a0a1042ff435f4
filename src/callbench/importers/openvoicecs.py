"""Convert OpenVoiceCS-Bench scenarios into a callbench suite that uses the state backend.

OpenVoiceCS-Bench (github.com/0daycloud/openvoicecs-bench, data CC BY 4.0) describes a call as an
initial state, tools with `required_arguments`, `preconditions` and `state_updates`, scripted
customer turns, and an oracle block (expected and forbidden tool calls, expected state, auth,
grounding, privacy and policy events). This importer maps what callbench can grade
deterministically:

* `initial_state` -> `backend.initial` (kind `state`);
* each tool -> a state tool: its `required_arguments` become argument checks (preconditions against
  a private `_openvoicecs` node of the state, so a call with other values is refused and changes
  nothing, as a replay would), its `preconditions` become `eq` preconditions, its `state_updates`
  become `set` effects and its `result` the answer;
* customer turns -> scripted-caller plan steps; `customer_profile` -> what the caller knows;
* expected tool calls -> expected actions with `eq` matchers, forbidden calls -> `count: exactly 0`;
* `expected_state` -> `expected_state` matchers on every leaf; auth -> `gates`;
* a reference solution that calls the expected tools in order and ends the call.

Everything else (grounding claims, privacy patterns, policy events, latency budgets, audio) is
listed
per scenario in the conversion report as approximated or dropped, never silently lost.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

from .openvoicecs_checks import text_checks
from .openvoicecs_source import (  # noqa: F401 - re-exported
    AUTH_KEYS,
    CALLER_PHRASES,
    DATETIME,
    DETAILS_CUE,
    END_TOOL,
    LOCK_AFTER,
    MORE_CUE,
    ORACLE_KEYS,
    POLICY_KEYS,
    PRIVATE,
    SCENARIO_KEYS,
    SUITE_ID,
    TOOL_KEYS,
    ConversionReport,
    ImportFormatError,
    ScenarioConversion,
    _has_braces,
    _json_type,
    _leaves,
    _load,
    _mentioned,
    _need,
    _scalar_text,
    _slug,
    _words,
)
from .openvoicecs_tools import _domain_tools, _set_effects, _tool_spec, _ToolInfo


def details_cues(knows: dict[str, Any]) -> list[str]:
    """The caller gives its profile when the agent asks for any of it by name ("your account id",
    "the order
    number", "your booking reference") or for its account details."""
    words = [
        w
        for k in knows
        if k != "name"
        for w in _words(k).split()
        if len(w) >= 4 and w not in ("verified",)
    ]
    return list(dict.fromkeys([DETAILS_CUE] + words))


def _respond(tool: dict) -> dict[str, Any]:
    result = tool.get("result")
    if isinstance(result, dict) and result:
        return (
            {"status": "ok", **copy.deepcopy(result)}
            if "status" not in result
            else copy.deepcopy(result)
        )
    return {"status": "ok"}


def _convert_scenario(
    s: dict, agent_id: str, agent_tools: dict[str, _ToolInfo], desk: str, printed: str = ""
) -> tuple[dict[str, Any] | None, ScenarioConversion]:
    """`printed`: the agent's instructions, so that no earned check is one a recital of them would
    pass."""
    sid = s["id"]
    rep = ScenarioConversion(id=sid, agent=agent_id, file=None)
    conv, approx, drop = rep.converted, rep.approximated, rep.dropped
    oracle = s["oracle"]
    tools = {t["name"]: t for t in s["tools"]}
    expected = oracle.get("expected_tool_calls", [])
    forbidden = oracle.get("forbidden_tool_calls", [])

    # anything callbench reads as a template cannot be carried over safely
    for what, value in (
        ("initial_state", s["initial_state"]),
        ("tools", s["tools"]),
        ("expected_state", oracle.get("expected_state", {})),
        ("expected_tool_calls", expected),
        ("forbidden_tool_calls", forbidden),
    ):
        if _has_braces(value):
            rep.skipped = True
            drop.append(
                f"whole scenario: {what} contains '{{' or '}}', which callbench would read as a "
                "placeholder"
            )
            return None, rep
    if PRIVATE in s["initial_state"]:
        rep.skipped = True
        drop.append(f"whole scenario: initial_state uses the key {PRIVATE!r} the importer reserves")
        return None, rep
    customer_turns = [
        t
        for t in s["conversation"]
        if t.get("role", "customer") == "customer" and t["text"].strip()
    ]
    if not customer_turns:
        rep.skipped = True
        drop.append("whole scenario: no customer turn to script the caller with")
        return None, rep

    # unknown structure is named, never silently ignored
    for key in sorted(set(s) - SCENARIO_KEYS):
        drop.append(f"field `{key}`: not a known OpenVoiceCS field")
    for key in sorted(set(oracle) - ORACLE_KEYS):
        drop.append(f"oracle.{key}: not a known OpenVoiceCS field")
    for name, t in tools.items():
        for key in sorted(set(t) - TOOL_KEYS):
            drop.append(f"tool {name}.{key}: not a known OpenVoiceCS tool field")

    track = s.get("track", "text_to_action")
    if track == "text_to_action":
        conv.append("track text_to_action")
    elif "audio" in track or "voice" in track:
        approx.append(
            f"track {track}: run as a text call with the scripted caller (the customer turns' text)"
        )
        drop.append(
            f"track {track}: audio variants (TTS WAVs, audio manifests) are not part of the source "
            "file and are not converted"
        )
    else:
        approx.append(
            f"track {track}: run as a text call; only the deterministic items below are graded"
        )

    # --- caller --------------------------------------------------------------------------------
    profile = s.get("customer_profile") or {}
    knows = {k: v for k, v in profile.items() if isinstance(v, (str, int, float, bool))}
    for k in sorted(set(profile) - set(knows)):
        drop.append(f"customer_profile.{k}: not a scalar, not given to the caller")
    name = str(profile.get("name") or "the customer")
    texts = [t["text"] for t in customer_turns]
    for t in s["conversation"]:
        if t not in customer_turns:
            drop.append(
                f"conversation turn with role {t.get('role')!r}: only customer turns are scripted "
                f"(the candidate writes the agent's side)"
            )
    plan = [
        {
            "id": "turn1",
            "trigger": "the agent greets you and asks how it can help",
            "meaning": texts[0],
            "say": texts[0],
            "cue": [],
        }
    ]
    unsaid = {k: v for k, v in knows.items() if k != "name" and not _mentioned(v, texts)}
    details_step = bool(unsaid)
    if details_step:
        parts = [f"my {_words(k)} is ${{caller.knows.{k}}}" for k in knows if k != "name"]
        intro = "My name is ${caller.knows.name}, " if "name" in knows else ""
        plan.append(
            {
                "id": "details",
                "trigger": "the agent asks for your account details",
                "meaning": "give your name and the identifiers from your profile",
                "say": (intro + ", ".join(parts) + ".")[:1].upper()
                + (intro + ", ".join(parts) + ".")[1:],
                "cue": details_cues(knows),
            }
        )
        approx.append(
            "customer_profile: the source turns never state "
            + ", ".join(f"{k}={v}" for k, v in unsaid.items())
            + "; an extra caller step `details` gives the profile when the agent asks for account "
            "details"
        )
    for n, text in enumerate(texts[1:], start=2):
        plan.append(
            {
                "id": f"turn{n}",
                "trigger": "the agent acknowledges you and asks if there is anything else",
                "meaning": text,
                "say": text,
                "cue": [MORE_CUE],
            }
        )
    conv.append(
        f"conversation: {len(texts)} customer turn(s) -> scripted caller plan steps (say = the "
        "turn text; the "
        f"first answers the greeting question"
        + (f", then cues {details_cues(knows)}" if details_step else "")
        + (f", cue '{MORE_CUE}'" if len(texts) > 1 else "")
        + ")"
    )
    conv.append(f"customer_profile -> caller.knows ({', '.join(knows) or 'nothing'})")
    if s.get("customer_goal"):
        conv.append("customer_goal -> caller.reason and scenario title")
    approx.append(f"caller.datetime: the source has no call time; fixed at {DATETIME}")

    # --- backend -------------------------------------------------------------------------------
    required_store: dict[str, dict[str, Any]] = {}
    state_tools: dict[str, Any] = {}
    sim = copy.deepcopy(s["initial_state"])
    order = [c["name"] for c in expected if c["name"] in tools]
    order += [n for n in tools if n not in order]
    effects_of: dict[str, list[dict]] = {}
    nested_notes: list[str] = []
    for tname in order:
        if tname in effects_of:
            continue
        t = tools[tname]
        base = sim if tname in [c["name"] for c in expected] else copy.deepcopy(s["initial_state"])
        effects_of[tname] = _set_effects(t.get("state_updates") or [], base, nested_notes, tname)
    approx += nested_notes
    for tname, t in tools.items():
        req = t.get("required_arguments") or {}
        gen = t.get("generated_arguments") or {}
        model_req = {k: v for k, v in req.items() if k not in gen}
        pinned = {**copy.deepcopy(req), **{k: v for k, v in gen.items() if k not in req}}
        pre: list[dict] = []
        if pinned:
            required_store[tname] = copy.deepcopy(pinned)
            for k in pinned:  # one name for all: a refusal never says which argument was wrong
                pre.append(
                    {
                        "name": f"arg_{k}",
                        "reported_as": "request_details",
                        "path": f"{PRIVATE}.required_arguments.{tname}.{k}",
                        "match": {"eq": "{" + k + "}"},
                        "message": "the request does not match our records",
                    }
                )
        for i, p in enumerate(t.get("preconditions") or [], start=1):
            if p["value"] is None:
                match: dict[str, Any] = {"absent": True}
                approx.append(
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
        entry: dict[str, Any] = {}
        if gen:
            entry["defaults"] = copy.deepcopy(gen)
        if pre:
            entry["preconditions"] = pre
        if pinned:
            entry["lock_after"] = LOCK_AFTER
        if effects_of.get(tname):
            entry["effects"] = effects_of[tname]
        entry["respond"] = _respond(t)
        info = agent_tools[tname]
        if len(info.descriptions) > 1 and str(t.get("description") or "").strip():
            approx.append(
                f"tool {tname}: its description differs across the domain's scenarios, so the "
                "agent shows a "
                f"neutral one; not shown: {str(t.get('description')).strip()!r}"
            )
        shared = set.intersection(*info.required_votes) if info.required_votes else set()
        for k in sorted(set(model_req) - shared):
            approx.append(
                f"tool {tname}: argument {k} is required here but optional in the {agent_id} agent "
                "(another "
                "scenario declares the tool without it); a call without it is refused as "
                "missing_argument"
            )
        state_tools[tname] = entry
        conv.append(
            f"tool {tname}: required_arguments ({', '.join(req) or 'none'}) -> parameters and "
            "argument checks; "
            f"{len(t.get('preconditions') or [])} precondition(s); "
            f"{len(t.get('state_updates') or [])} state "
            f"update(s) -> set effects; "
            + ("result -> respond" if t.get("result") else "respond {status: ok} (no result given)")
        )
        for k, v in gen.items():
            approx.append(
                f"{tname}.{k} is a generated (system-assigned) argument: when omitted the tool "
                "fills in "
                f"{json.dumps(v)} (as the source does); a different value is refused"
            )
        for k in t.get("argument_bindings") or {}:
            approx.append(
                f"{tname}.{k} is bound to an earlier call's result in the source: pinned to its "
                "value "
                f"{json.dumps(req.get(k))}, which the agent must carry over"
            )
        if pinned:
            approx.append(
                f"{tname}: a refusal for wrong arguments does not say which one was wrong, and the "
                "tool locks "
                f"after {LOCK_AFTER} refused calls (the source allows unlimited retries; callbench "
                "does not "
                f"let brute force pay)"
            )
    undeclared = []
    for tname in sorted(agent_tools):
        if tname not in state_tools:
            undeclared.append(tname)
            state_tools[tname] = {"unavailable": True}
            if tname in [c["name"] for c in forbidden]:
                approx.append(
                    f"tool {tname} appears only in a forbidden call: declared to the agent with "
                    "parameters "
                    "inferred from the forbidden arguments; calling it on this call is a model "
                    "error"
                )
    state_tools[END_TOOL] = {"respond": {"status": "ended"}}
    initial = copy.deepcopy(s["initial_state"])
    initial[PRIVATE] = {"required_arguments": required_store}
    conv.append(f"initial_state -> backend.initial ({len(s['initial_state'])} top-level key(s))")
    approx.append(
        f"required argument values live in a private `{PRIVATE}` node of the state so a call with "
        "other "
        "values is refused and changes nothing; strings are compared exactly (the source "
        "normalizes case "
        f"and separators, e.g. 'damaged item' == 'damaged_item')"
    )

    # --- grading -------------------------------------------------------------------------------
    actions: list[dict] = []
    for n, c in enumerate(expected, start=1):
        t = tools.get(c["name"])
        gen = (t or {}).get("generated_arguments") or {}
        args = {}
        for k, v in (c.get("arguments") or {}).items():
            args[k] = (
                {"any": [{"absent": True}, {"eq": v}]} if k in gen and gen[k] == v else {"eq": v}
            )
        action: dict[str, Any] = {
            "id": f"call{n}_{c['name']}",
            "tool": c["name"],
            "args": args,
            "weight": 2,
        }
        if c["name"].startswith("verify"):
            action["guard"] = True  # an obligation before acting, not what the caller came for
        if t is not None:
            action["result"] = {"status": {"eq": _respond(t)["status"]}}
        else:
            approx.append(
                f"expected call {c['name']} has no tool declaration in the scenario: it can never "
                "succeed"
            )
        actions.append(action)
    if expected:
        conv.append(
            f"oracle.expected_tool_calls ({len(expected)}) -> expected actions with eq matchers "
            "and a result "
            f"matcher (only calls the backend accepted count)"
        )
        approx.append(
            "the order of expected calls is not graded itself; the preconditions enforce the order "
            "the "
            "source's state requires"
        )
    undisclosed = []
    for c in expected:
        gen = (tools.get(c["name"]) or {}).get("generated_arguments") or {}
        for k, v in (c.get("arguments") or {}).items():
            returned = [
                _scalar_text(x) for t in tools.values() for _, x in _leaves(t.get("result") or {})
            ]
            if k not in gen and not _mentioned(
                v, texts + [_scalar_text(x) for x in knows.values()] + returned
            ):
                undisclosed.append(f"{c['name']}.{k}={json.dumps(v)}")
    if undisclosed:
        rep.unsayable = undisclosed
        approx.append(
            "required argument values the caller never states and no tool returns (no agent can be "
            "expected "
            "to produce them; the source agent may have read them from records): "
            + ", ".join(undisclosed)
        )
    for n, c in enumerate(forbidden, start=1):
        gen = (tools.get(c["name"]) or {}).get("generated_arguments") or {}
        args = {}
        for k, v in (c.get("arguments") or {}).items():
            args[k] = (
                {"any": [{"absent": True}, {"eq": v}]} if k in gen and gen[k] == v else {"eq": v}
            )
        actions.append(
            {
                "id": f"forbidden{n}_{c['name']}",
                "tool": c["name"],
                "args": args,
                "count": {"exactly": 0},
                "weight": 2,
            }
        )
    if forbidden:
        conv.append(
            f"oracle.forbidden_tool_calls ({len(forbidden)}) -> expected actions with count "
            "exactly 0 "
            f"(arguments as eq matchers, so only that call pattern is forbidden)"
        )
    forbidden_tools = {c["name"] for c in forbidden}
    for tname in undeclared:
        if tname not in forbidden_tools:
            actions.append(
                {
                    "id": f"undeclared_{tname}",
                    "tool": tname,
                    "count": {"exactly": 0},
                    "weight": 2,
                    "description": "a tool this call does not offer: calling it is a model error",
                }
            )
    if undeclared:
        conv.append(
            f"domain tools this scenario does not declare ({', '.join(undeclared)}) -> unavailable "
            "on this call: "
            f"calling one is a model error that ends the call, and a broken guard"
        )
    actions.append(
        {"id": "end", "tool": END_TOOL, "result": {"status": {"eq": "ended"}}, "guard": True}
    )

    scenario: dict[str, Any] = {
        "id": sid,
        "agent": agent_id,
        "title": s.get("customer_goal") or sid,
        "language": "en",
        "difficulty": s.get("difficulty")
        if s.get("difficulty") in ("easy", "medium", "hard")
        else "medium",
        "tags": list(
            dict.fromkeys(
                ["openvoicecs", track, s.get("domain", "general")]
                + [str(tag).split(":")[0].strip() for tag in s.get("tags") or []]
            )
        ),
        "caller": {
            "context": f"You are {name}, calling the {desk} about your account.",
            "reason": s.get("customer_goal") or texts[0],
            "knows": knows,
            "persona": {"patience": "high"},
            "datetime": DATETIME,
            "plan": plan,
        },
        "backend": {"kind": "state", "initial": initial, "tools": state_tools},
        "expected_actions": actions,
    }
    if s.get("difficulty") not in ("easy", "medium", "hard"):
        approx.append(f"difficulty {s.get('difficulty')!r} -> medium")
    else:
        conv.append("difficulty and tags (a tag's explanation after ':' is left out of the tag)")

    exp_state = oracle.get("expected_state")
    if exp_state:
        leaves = _leaves(exp_state)
        scenario["expected_state"] = {"paths": {p: {"eq": v} for p, v in leaves}}
        conv.append(
            f"oracle.expected_state -> expected_state ({len(leaves)} leaf path(s), eq matchers; "
            f"paths the source does not name are not graded, as in a subset check)"
        )
    else:
        drop.append("oracle.expected_state: absent in the source, no outcome check")

    auth = oracle.get("auth") or {}
    for key in sorted(set(auth) - AUTH_KEYS):
        drop.append(f"oracle.auth.{key}: not a known OpenVoiceCS field")
    protected = [p for p in auth.get("protected_tools") or [] if p in agent_tools]
    verify_tool = next(
        (c["name"] for c in expected if c["name"].startswith("verify") and c["name"] in tools), None
    )
    if protected and verify_tool:
        scenario["gates"] = {
            "verification_tool": verify_tool,
            "verification_success": {
                "path": "status",
                "equals": _respond(tools[verify_tool])["status"],
            },
            "protected_tools": protected,
        }
        conv.append(
            f"oracle.auth.protected_tools ({', '.join(protected)}) -> gates with verification tool "
            f"{verify_tool} "
            f"(verification_events {auth.get('verification_events') or []})"
        )
        if auth.get("forbidden_events"):
            approx.append(
                f"oracle.auth.forbidden_events {auth['forbidden_events']} -> the verification_gate "
                f"(a protected tool called before a successful verification result)"
            )
    elif protected:
        drop.append(
            f"oracle.auth: protected tools {protected} but no verification tool in the scenario, "
            "so no gate "
            f"(the forbidden calls still forbid what the source forbids)"
            + (
                f"; auth.forbidden_events {auth['forbidden_events']} not graded"
                if auth.get("forbidden_events")
                else ""
            )
        )
    if auth.get("required_events"):
        approx.append(
            f"oracle.auth.required_events {auth['required_events']} -> the expected verification "
            "call"
        )

    # --- the reference solution -------------------------------------------------------------------
    reference: list[dict] = [
        {"say": f"Hello, you have reached the {desk}. How can I help you today?"}
    ]
    for step in plan[1:]:
        if step["id"] == "details":
            reference.append(
                {
                    "say": "I can help with that. First, please give me your name and your account "
                    "details."
                }
            )
        else:
            reference.append(
                {
                    "say": "Thank you, I have noted that. Please go on: is there anything else I "
                    "should know?"
                }
            )
    for n, c in enumerate(expected):
        call = {"tool": c["name"], "args": copy.deepcopy(c.get("arguments") or {})}
        if n == 0:
            reference.append(
                {"calls": [call], "say": "Thank you. One moment while I take care of that."}
            )
        else:
            reference.append(
                {"same_turn": True, "calls": [call], "say": "That went through. Next step."}
            )
    closing = (oracle.get("reference_response") or "Everything is taken care of.").strip()
    reference.append(
        {
            "same_turn": bool(expected),
            "calls": [{"tool": END_TOOL, "args": {}}],
            "say": f"{closing} Thank you for calling. Goodbye!",
        }
    )
    scenario["reference"] = reference
    conv.append(
        "reference solution: the expected calls in order with the expected arguments, then end_call"
        + (
            "; oracle.reference_response is its closing line"
            if oracle.get("reference_response")
            else ""
        )
    )

    # --- what has no deterministic equivalent
    # ------------------------------------------------------
    policy = s.get("policy") or {}
    if policy.get("summary") or policy.get("required_actions"):
        approx.append(
            f"policy.summary/required_actions -> the {agent_id} agent's instructions (shared by "
            "every "
            f"scenario of the domain, not per call)"
        )
    for key in sorted(set(policy) - POLICY_KEYS):
        drop.append(f"policy.{key}: not a known OpenVoiceCS field")
    if policy.get("required_events"):
        drop.append(
            f"policy.required_events {policy['required_events']}: policy events have no callbench "
            "equivalent"
        )
    for key in ("required_events", "forbidden_events"):
        if oracle.get(key):
            drop.append(
                f"oracle.{key} {oracle[key]}: policy events are not graded (tool calls and state "
                "are)"
            )
    if oracle.get("forbidden_event_triggers"):
        kinds = sorted(
            {
                str((v or {}).get("kind"))
                for v in oracle["forbidden_event_triggers"].values()
                if isinstance(v, dict)
            }
        )
        drop.append(
            f"oracle.forbidden_event_triggers ({', '.join(oracle['forbidden_event_triggers'])}; "
            f"kinds {kinds}): "
            f"covered only where a forbidden call or the verification gate expresses the same thing"
        )
    earned = [
        a["id"]
        for a in actions
        if not a.get("guard") and "count" not in a and a["tool"] != END_TOOL and a["tool"] in tools
    ]
    checks = text_checks(oracle, printed, earned[-1] if earned else None, conv, drop)
    if checks:
        scenario["phrase_checks"] = checks
    if s.get("experience"):
        approx.append(
            "experience "
            + json.dumps(s["experience"], sort_keys=True)
            + ": the word budget is the suite's "
            "followable_words (80: a longer agent turn confuses the caller and is no evidence); "
            "latency is "
            "recorded operationally, not graded"
        )
    return scenario, rep


def _instructions(
    agent_id: str, desk: str, scenarios: list[dict], attribution: dict[str, str]
) -> str:
    summaries, actions = [], []
    for s in scenarios:
        policy = s.get("policy") or {}
        if policy.get("summary") and policy["summary"] not in summaries:
            summaries.append(policy["summary"])
        for a in policy.get("required_actions") or []:
            if a not in actions:
                actions.append(a)
    lines = [
        f"You are the phone agent of the {desk}.",
        "",
        "How to work:",
        "- Find out what the caller needs, identify their account, and act with your tools.",
        "- Verify the caller with the verification tool before any action on their account, and "
        "wait for a "
        "successful result before the next action.",
        "- Do only what the policies below allow. Refuse requests that break them, whoever the "
        "caller claims to be.",
        "- If the caller corrects something they said earlier, use the corrected value.",
        "- Arguments described as assigned by the system may be left out.",
        "- Some tools are not available on every call (their description says so): use a tool only "
        "when the "
        "caller's request needs it; calling one that is not available on this call ends the call.",
        "- When the request is handled, tell the caller what you did, say goodbye and call "
        "end_call.",
        "",
        "Policies:",
    ]
    lines += [f"- {x}" for x in summaries] or ["- (none given)"]
    if actions:
        lines += ["", "Required actions:"] + [f"- {x}" for x in actions]
    lines += [
        "",
        "Source: these policies are adapted from OpenVoiceCS-Bench scenarios ("
        + attribution.get("source", "")
        + "), licensed "
        + attribution.get("license", "")
        + ". Converted by callbench; see LICENSE-DATA.txt and CONVERSION.md in the suite folder.",
    ]
    return "\n".join(lines) + "\n"


def _dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8"
    )


LICENSE_FALLBACK = """Creative Commons Attribution 4.0 International (CC BY 4.0)
https://creativecommons.org/licenses/by/4.0/legalcode
"""


def convert_openvoicecs(source: Path, out_dir: Path) -> ConversionReport:
    """Convert the OpenVoiceCS scenarios in `source` (JSON) into a callbench suite folder `out_dir`.

    Raises `ImportFormatError` (naming the file and field) when the source cannot be read."""
    source, out_dir = Path(source), Path(out_dir)
    data = _load(source)
    attribution = {k: str(data[k]) for k in ("source", "license", "note") if data.get(k)}
    attribution.setdefault("source", f"OpenVoiceCS-Bench ({source.name})")
    attribution.setdefault("license", "CC BY 4.0 (see the source repository)")
    scenarios = data["scenarios"]
    notes: list[str] = []

    by_domain: dict[str, list[dict]] = {}
    for s in scenarios:
        by_domain.setdefault(_slug(s.get("domain") or "general"), []).append(s)

    out_dir.mkdir(parents=True, exist_ok=True)
    reports: dict[str, ScenarioConversion] = {}
    agents: dict[str, list[str]] = {}
    for agent_id, members in by_domain.items():
        desk = (
            f"{_words(members[0].get('domain') or 'general').replace('-', ' ')} customer "
            "service desk"
        )
        tool_infos = _domain_tools(members)
        tool_specs = [_tool_spec(n, info, notes) for n, info in tool_infos.items()]
        printed = _instructions(agent_id, desk, members, attribution) + " ".join(
            t["description"] for t in tool_specs
        )
        tool_specs.append(
            {
                "name": END_TOOL,
                "description": "End the call, after saying goodbye.",
                "parameters": {"type": "object", "properties": {}},
                "ends_call": True,
                "success": {"path": "status", "equals": "ended"},
            }
        )
        converted_members = []
        for s in members:
            scenario, rep = _convert_scenario(s, agent_id, tool_infos, desk, printed)
            reports[s["id"]] = rep
            if scenario is None:
                continue
            rel = f"scenarios/{agent_id}/{s['id']}.yaml"
            _dump(out_dir / rel, scenario)
            rep.file = rel
            converted_members.append(s)
        if not converted_members:
            continue
        agents[agent_id] = [s["id"] for s in converted_members]
        _dump(
            out_dir / "agents" / agent_id / "agent.yaml",
            {
                "id": agent_id,
                "name": desk[:1].upper() + desk[1:],
                "language": "en",
                "direction": "inbound",
                "instructions": "instructions.md",
                "tools": tool_specs,
            },
        )
        (out_dir / "agents" / agent_id / "instructions.md").write_text(
            _instructions(agent_id, desk, converted_members, attribution), encoding="utf-8"
        )

    description = (
        "OpenVoiceCS-Bench scenarios converted to callbench (state backend, scripted caller, "
        "deterministic "
        f"grading) by `callbench import openvoicecs`. Source: {attribution['source']}. "
        f"License: {attribution['license']}. "
        + (f"{attribution['note']} " if attribution.get("note") else "")
        + "Changes: tools, state and oracle rewritten as callbench state tools, expected actions, "
        "expected state and "
        "gates; caller lines taken from the customer turns; reference solutions and agent "
        "instructions written by "
        "the importer; what could not be converted is listed in CONVERSION.md. The data is "
        "licensed under CC BY 4.0 "
        "(LICENSE-DATA.txt); no endorsement by the original authors is implied."
    )
    _dump(
        out_dir / "suite.yaml",
        {
            "id": SUITE_ID,
            "version": "0.1.0",
            "title": "OpenVoiceCS-Bench scenarios (imported)",
            "description": description,
            "languages": ["en"],
            "conversation_criteria": [
                {
                    "id": "closing",
                    "weight": 1,
                    "statement": "The call ends with an audible, appropriate goodbye after the "
                    "caller's needs are handled.",
                    "anchors": {
                        "met": "The agent confirms what was done and says goodbye before the call "
                        "ends.",
                        "partial": "The agent says goodbye but skips the summary.",
                        "not_met": "The call ends without a goodbye, or while the caller still has "
                        "an open request.",
                    },
                }
            ],
            "defaults": {
                "max_caller_turns": 30,
                "max_tool_calls_per_turn": 10,
                "caller_phrases": {"en": CALLER_PHRASES},
            },
        },
    )
    license_src = source.parent / (source.stem.split("-sample")[0] + "-LICENSE-DATA.txt")
    license_text = (
        license_src.read_text(encoding="utf-8") if license_src.is_file() else LICENSE_FALLBACK
    )
    header = (
        "The scenario data in this suite is adapted from OpenVoiceCS-Bench.\n"
        f"Source: {attribution['source']}\nLicense: {attribution['license']}\n"
        + (f"Note: {attribution['note']}\n" if attribution.get("note") else "")
        + "Changes: converted to the callbench suite format by `callbench import openvoicecs` "
        "(see CONVERSION.md).\n\n"
    )
    (out_dir / "LICENSE-DATA.txt").write_text(header + license_text, encoding="utf-8")

    notes += [
        "each domain is one agent; its tools are the union of the domain's tool declarations "
        "(parameters typed from "
        "the argument values; required = required in every declaration, generated arguments "
        "optional), plus end_call",
        "a domain tool the scenario does not declare is unavailable on that call: calling it is a "
        "model error that ends "
        "the call (scored, not excluded) and breaks a forbidden-action guard, as calling an absent "
        "API would",
        "verification calls and end_call are guards (obligations, worth nothing when kept); the "
        "expected writes, the "
        "final state and the grounding claims are what a call earns",
        "argument refusals never name the wrong argument, and a tool with argument checks locks "
        "after "
        f"{LOCK_AFTER} refused calls",
        "the conversation pillar (closing criterion) needs an LLM judge; without one it is "
        "reported as not measured",
    ]
    report = ConversionReport(
        source=str(source),
        out_dir=str(out_dir),
        suite_id=SUITE_ID,
        attribution=attribution,
        agents=agents,
        scenarios=[reports[s["id"]] for s in scenarios],
        notes=notes,
    )
    (out_dir / "CONVERSION.md").write_text(report.to_markdown(), encoding="utf-8")
    (out_dir / "conversion.json").write_text(
        json.dumps(report.to_dict(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return report
