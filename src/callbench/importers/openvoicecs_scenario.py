"""One OpenVoiceCS scenario as one callbench scenario document, in named steps.

Each step reads the source scenario and appends to its `ScenarioConversion` what it converted,
approximated or dropped, so the report says, item by item, how far the converted scenario can be
trusted. The steps run in a fixed order (caller, backend, expected actions, outcome, gates,
reference, text checks) because the report lists each kind of item in the order they are found.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from .openvoicecs_backend import state_backend
from .openvoicecs_checks import text_checks
from .openvoicecs_oracle import expected_actions, expected_state, gates
from .openvoicecs_source import (
    DATETIME,
    DETAILS_CUE,
    END_TOOL,
    MORE_CUE,
    ORACLE_KEYS,
    POLICY_KEYS,
    PRIVATE,
    SCENARIO_KEYS,
    TOOL_KEYS,
    ScenarioConversion,
    SourceScenario,
    _has_braces,
    _mentioned,
    _scalar_text,
    _ToolInfo,
    _words,
)

DIFFICULTIES = ("easy", "medium", "hard")


@dataclass
class _Caller:
    """What the scripted caller knows and says: the customer's scalar profile and turns."""

    knows: dict[str, Any]
    name: str
    texts: list[str]
    plan: list[dict[str, Any]]


def details_cues(knows: dict[str, Any]) -> list[str]:
    """The caller gives its profile when the agent asks for any of it by name ("your account id",
    "the order number", "your booking reference") or for its account details."""
    words = [
        w
        for k in knows
        if k != "name"
        for w in _words(k).split()
        if len(w) >= 4 and w not in ("verified",)
    ]
    return list(dict.fromkeys([DETAILS_CUE] + words))


def convert_scenario(
    s: dict[str, Any],
    agent_id: str,
    agent_tools: dict[str, _ToolInfo],
    desk: str,
    printed: str = "",
) -> tuple[dict[str, Any] | None, ScenarioConversion]:
    """The callbench scenario document for `s` (None when it cannot be converted safely) and the
    report of its conversion. `printed`: the agent's instructions and tool descriptions, so that no
    earned check is one a recital of them would pass."""
    src = SourceScenario(
        s, agent_id, agent_tools, desk, printed, ScenarioConversion(s["id"], agent_id, None)
    )
    customer_turns = [
        t
        for t in s["conversation"]
        if t.get("role", "customer") == "customer" and t["text"].strip()
    ]
    why_not = _unconvertible(src, customer_turns)
    if why_not:
        src.rep.skipped = True
        src.drop.append(f"whole scenario: {why_not}")
        return None, src.rep
    _name_unknown_fields(src)
    track = _track(src)
    caller = _caller(src, customer_turns)
    backend, undeclared = state_backend(src)
    said = caller.texts + [_scalar_text(x) for x in caller.knows.values()]
    actions = expected_actions(src, said, undeclared)
    scenario = _document(src, track, caller, backend, actions)
    expected_state(src, scenario)
    gates(src, scenario)
    _reference(src, scenario, caller.plan)
    _no_deterministic_equivalent(src, scenario, actions)
    return scenario, src.rep


def _unconvertible(src: SourceScenario, customer_turns: list[dict[str, Any]]) -> str | None:
    """Why the scenario cannot be carried over at all: callbench would read braces as templates,
    the importer's private state key is taken, or there is nothing to script the caller with."""
    for what, value in (
        ("initial_state", src.s["initial_state"]),
        ("tools", src.s["tools"]),
        ("expected_state", src.oracle.get("expected_state", {})),
        ("expected_tool_calls", src.expected),
        ("forbidden_tool_calls", src.forbidden),
    ):
        if _has_braces(value):
            return f"{what} contains '{{' or '}}', which callbench would read as a placeholder"
    if PRIVATE in src.s["initial_state"]:
        return f"initial_state uses the key {PRIVATE!r} the importer reserves"
    if not customer_turns:
        return "no customer turn to script the caller with"
    return None


def _name_unknown_fields(src: SourceScenario) -> None:
    """Structure the importer does not know is named in the report, never silently ignored."""
    for key in sorted(set(src.s) - SCENARIO_KEYS):
        src.drop.append(f"field `{key}`: not a known OpenVoiceCS field")
    for key in sorted(set(src.oracle) - ORACLE_KEYS):
        src.drop.append(f"oracle.{key}: not a known OpenVoiceCS field")
    for name, t in src.tools.items():
        for key in sorted(set(t) - TOOL_KEYS):
            src.drop.append(f"tool {name}.{key}: not a known OpenVoiceCS tool field")


def _track(src: SourceScenario) -> Any:
    """Every track runs as a text call; say what that loses for audio and voice tracks."""
    track = src.s.get("track", "text_to_action")
    if track == "text_to_action":
        src.conv.append("track text_to_action")
    elif "audio" in track or "voice" in track:
        src.approx.append(
            f"track {track}: run as a text call with the scripted caller (the customer turns' text)"
        )
        src.drop.append(
            f"track {track}: audio variants (TTS WAVs, audio manifests) are not part of the source "
            "file and are not converted"
        )
    else:
        src.approx.append(
            f"track {track}: run as a text call; only the deterministic items below are graded"
        )
    return track


def _caller(src: SourceScenario, customer_turns: list[dict[str, Any]]) -> _Caller:
    """The scripted caller: one plan step per customer turn, plus a `details` step when the profile
    holds values no turn states (else an agent that asks for them could never get them)."""
    profile = src.s.get("customer_profile") or {}
    knows = {k: v for k, v in profile.items() if isinstance(v, (str, int, float, bool))}
    for k in sorted(set(profile) - set(knows)):
        src.drop.append(f"customer_profile.{k}: not a scalar, not given to the caller")
    name = str(profile.get("name") or "the customer")
    texts = [t["text"] for t in customer_turns]
    for t in src.s["conversation"]:
        if t not in customer_turns:
            src.drop.append(
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
    if unsaid:
        plan.append(_details_step(knows))
        src.approx.append(
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
    src.conv.append(
        f"conversation: {len(texts)} customer turn(s) -> scripted caller plan steps (say = the "
        "turn text; the first answers the greeting question"
        + (f", then cues {details_cues(knows)}" if unsaid else "")
        + (f", cue '{MORE_CUE}'" if len(texts) > 1 else "")
        + ")"
    )
    src.conv.append(f"customer_profile -> caller.knows ({', '.join(knows) or 'nothing'})")
    if src.s.get("customer_goal"):
        src.conv.append("customer_goal -> caller.reason and scenario title")
    src.approx.append(f"caller.datetime: the source has no call time; fixed at {DATETIME}")
    return _Caller(knows, name, texts, plan)


def _details_step(knows: dict[str, Any]) -> dict[str, Any]:
    """The plan step that recites the caller's profile, cued by a request for any of it."""
    parts = [f"my {_words(k)} is ${{caller.knows.{k}}}" for k in knows if k != "name"]
    intro = "My name is ${caller.knows.name}, " if "name" in knows else ""
    line = intro + ", ".join(parts) + "."
    return {
        "id": "details",
        "trigger": "the agent asks for your account details",
        "meaning": "give your name and the identifiers from your profile",
        "say": line[:1].upper() + line[1:],
        "cue": details_cues(knows),
    }


def _document(
    src: SourceScenario,
    track: Any,
    caller: _Caller,
    backend: dict[str, Any],
    actions: list[dict[str, Any]],
) -> dict[str, Any]:
    """The scenario document's core: identity, tags, caller, backend and expected actions."""
    s = src.s
    difficulty = s.get("difficulty")
    scenario: dict[str, Any] = {
        "id": s["id"],
        "agent": src.agent_id,
        "title": s.get("customer_goal") or s["id"],
        "language": "en",
        "difficulty": difficulty if difficulty in DIFFICULTIES else "medium",
        "tags": list(
            dict.fromkeys(
                ["openvoicecs", track, s.get("domain", "general")]
                + [str(tag).split(":")[0].strip() for tag in s.get("tags") or []]
            )
        ),
        "caller": {
            "context": f"You are {caller.name}, calling the {src.desk} about your account.",
            "reason": s.get("customer_goal") or caller.texts[0],
            "knows": caller.knows,
            "persona": {"patience": "high"},
            "datetime": DATETIME,
            "plan": caller.plan,
        },
        "backend": backend,
        "expected_actions": actions,
    }
    if difficulty not in DIFFICULTIES:
        src.approx.append(f"difficulty {difficulty!r} -> medium")
    else:
        src.conv.append(
            "difficulty and tags (a tag's explanation after ':' is left out of the tag)"
        )
    return scenario


def _reference(src: SourceScenario, scenario: dict[str, Any], plan: list[dict[str, Any]]) -> None:
    """A reference solution that answers each caller step, makes the expected calls in order with
    the expected arguments and ends the call, so the suite check can prove the scenario solvable."""
    reference: list[dict[str, Any]] = [
        {"say": f"Hello, you have reached the {src.desk}. How can I help you today?"}
    ]
    for step in plan[1:]:
        if step["id"] == "details":
            say = "I can help with that. First, please give me your name and your account details."
        else:
            say = (
                "Thank you, I have noted that. Please go on: is there anything else I should know?"
            )
        reference.append({"say": say})
    for n, c in enumerate(src.expected):
        call = {"tool": c["name"], "args": copy.deepcopy(c.get("arguments") or {})}
        if n == 0:
            reference.append(
                {"calls": [call], "say": "Thank you. One moment while I take care of that."}
            )
        else:
            reference.append(
                {"same_turn": True, "calls": [call], "say": "That went through. Next step."}
            )
    closing = (src.oracle.get("reference_response") or "Everything is taken care of.").strip()
    reference.append(
        {
            "same_turn": bool(src.expected),
            "calls": [{"tool": END_TOOL, "args": {}}],
            "say": f"{closing} Thank you for calling. Goodbye!",
        }
    )
    scenario["reference"] = reference
    src.conv.append(
        "reference solution: the expected calls in order with the expected arguments, then end_call"
        + (
            "; oracle.reference_response is its closing line"
            if src.oracle.get("reference_response")
            else ""
        )
    )


def _no_deterministic_equivalent(
    src: SourceScenario, scenario: dict[str, Any], actions: list[dict[str, Any]]
) -> None:
    """Policies, policy events and experience budgets: what callbench cannot grade
    deterministically is reported; grounding and privacy patterns become phrase checks."""
    s, oracle = src.s, src.oracle
    policy = s.get("policy") or {}
    if policy.get("summary") or policy.get("required_actions"):
        src.approx.append(
            f"policy.summary/required_actions -> the {src.agent_id} agent's instructions (shared "
            f"by every scenario of the domain, not per call)"
        )
    for key in sorted(set(policy) - POLICY_KEYS):
        src.drop.append(f"policy.{key}: not a known OpenVoiceCS field")
    if policy.get("required_events"):
        src.drop.append(
            f"policy.required_events {policy['required_events']}: policy events have no callbench "
            "equivalent"
        )
    for key in ("required_events", "forbidden_events"):
        if oracle.get(key):
            src.drop.append(
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
        src.drop.append(
            f"oracle.forbidden_event_triggers ({', '.join(oracle['forbidden_event_triggers'])}; "
            f"kinds {kinds}): "
            f"covered only where a forbidden call or the verification gate expresses the same thing"
        )
    # a grounding claim is earned only after the last action the caller came for
    earned = [
        a["id"]
        for a in actions
        if not a.get("guard")
        and "count" not in a
        and a["tool"] != END_TOOL
        and a["tool"] in src.tools
    ]
    checks = text_checks(oracle, src.printed, earned[-1] if earned else None, src.conv, src.drop)
    if checks:
        scenario["phrase_checks"] = checks
    if s.get("experience"):
        src.approx.append(
            "experience "
            + json.dumps(s["experience"], sort_keys=True)
            + ": the word budget is the suite's followable_words (80: a longer agent turn confuses "
            "the caller and is no evidence); latency is recorded operationally, not graded"
        )
