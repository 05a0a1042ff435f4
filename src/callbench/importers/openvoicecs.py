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
listed per scenario in the conversion report as approximated or dropped, never silently lost.

This module writes the suite (one agent per domain, the manifest, the licence, the report);
`openvoicecs_scenario.py` converts one scenario, with its backend (`openvoicecs_backend.py`) and
its grading (`openvoicecs_oracle.py`, `openvoicecs_checks.py`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from .openvoicecs_scenario import convert_scenario
from .openvoicecs_source import (
    CALLER_PHRASES,
    END_TOOL,
    LOCK_AFTER,
    SUITE_ID,
    ConversionReport,
    ImportFormatError,
    ScenarioConversion,
    _load,
    _slug,
    _words,
)
from .openvoicecs_tools import _domain_tools, _tool_spec

__all__ = ["ConversionReport", "ImportFormatError", "ScenarioConversion", "convert_openvoicecs"]


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


SUITE_NOTES = [
    "each domain is one agent; its tools are the union of the domain's tool declarations "
    "(parameters typed from the argument values; required = required in every declaration, "
    "generated arguments optional), plus end_call",
    "a domain tool the scenario does not declare is unavailable on that call: calling it is a "
    "model error that ends the call (scored, not excluded) and breaks a forbidden-action guard, "
    "as calling an absent API would",
    "verification calls and end_call are guards (obligations, worth nothing when kept); the "
    "expected writes, the final state and the grounding claims are what a call earns",
    "argument refusals never name the wrong argument, and a tool with argument checks locks "
    f"after {LOCK_AFTER} refused calls",
    "the conversation pillar (closing criterion) needs an LLM judge; without one it is "
    "reported as not measured",
]
"""What holds for every converted scenario, listed once at the top of the report."""

END_TOOL_SPEC: dict[str, Any] = {
    "name": END_TOOL,
    "description": "End the call, after saying goodbye.",
    "parameters": {"type": "object", "properties": {}},
    "ends_call": True,
    "success": {"path": "status", "equals": "ended"},
}
"""Every OpenVoiceCS call ends by the agent's choice; callbench needs a tool that says so."""


def convert_openvoicecs(source: Path, out_dir: Path) -> ConversionReport:
    """Convert the OpenVoiceCS scenarios in `source` (JSON) into a callbench suite folder `out_dir`.

    Raises `ImportFormatError` (naming the file and field) when the source cannot be read."""
    source, out_dir = Path(source), Path(out_dir)
    data = _load(source)
    attribution = _attribution(data, source)
    scenarios = data["scenarios"]
    notes: list[str] = []

    by_domain: dict[str, list[dict]] = {}
    for s in scenarios:
        by_domain.setdefault(_slug(s.get("domain") or "general"), []).append(s)

    out_dir.mkdir(parents=True, exist_ok=True)
    reports: dict[str, ScenarioConversion] = {}
    agents: dict[str, list[str]] = {}
    for agent_id, members in by_domain.items():
        converted = _write_agent(out_dir, agent_id, members, attribution, reports, notes)
        if converted:
            agents[agent_id] = converted
    _write_manifest(out_dir, attribution)
    _write_license(source, out_dir, attribution)
    report = ConversionReport(
        source=str(source),
        out_dir=str(out_dir),
        suite_id=SUITE_ID,
        attribution=attribution,
        agents=agents,
        scenarios=[reports[s["id"]] for s in scenarios],
        notes=notes + SUITE_NOTES,
    )
    (out_dir / "CONVERSION.md").write_text(report.to_markdown(), encoding="utf-8")
    (out_dir / "conversion.json").write_text(
        json.dumps(report.to_dict(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return report


def _attribution(data: dict[str, Any], source: Path) -> dict[str, str]:
    """The source's own attribution fields, with defaults: CC BY 4.0 requires the source and the
    licence to travel with every adapted copy."""
    attribution = {k: str(data[k]) for k in ("source", "license", "note") if data.get(k)}
    attribution.setdefault("source", f"OpenVoiceCS-Bench ({source.name})")
    attribution.setdefault("license", "CC BY 4.0 (see the source repository)")
    return attribution


def _write_agent(
    out_dir: Path,
    agent_id: str,
    members: list[dict],
    attribution: dict[str, str],
    reports: dict[str, ScenarioConversion],
    notes: list[str],
) -> list[str]:
    """Write one domain's scenarios and, when any converted, its agent; returns the converted ids.

    The agent's tools are the union of the domain's declarations, and every scenario is checked
    against the instructions and tool descriptions the agent prints, so no earned phrase check is
    one a recital would pass."""
    desk = (
        f"{_words(members[0].get('domain') or 'general').replace('-', ' ')} customer service desk"
    )
    tool_infos = _domain_tools(members)
    tool_specs = [_tool_spec(n, info, notes) for n, info in tool_infos.items()]
    printed = _instructions(agent_id, desk, members, attribution) + " ".join(
        t["description"] for t in tool_specs
    )
    tool_specs.append(dict(END_TOOL_SPEC))
    converted_members = []
    for s in members:
        scenario, rep = convert_scenario(s, agent_id, tool_infos, desk, printed)
        reports[s["id"]] = rep
        if scenario is None:
            continue
        rel = f"scenarios/{agent_id}/{s['id']}.yaml"
        _dump(out_dir / rel, scenario)
        rep.file = rel
        converted_members.append(s)
    if not converted_members:
        return []
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
    return [s["id"] for s in converted_members]


def _write_manifest(out_dir: Path, attribution: dict[str, str]) -> None:
    """suite.yaml: its description carries the attribution and the list of changes CC BY 4.0
    asks for; the closing criterion is the one conversation rating the source implies."""
    description = (
        "OpenVoiceCS-Bench scenarios converted to callbench (state backend, scripted caller, "
        "deterministic grading) by `callbench import openvoicecs`. "
        f"Source: {attribution['source']}. "
        f"License: {attribution['license']}. "
        + (f"{attribution['note']} " if attribution.get("note") else "")
        + "Changes: tools, state and oracle rewritten as callbench state tools, expected actions, "
        "expected state and gates; caller lines taken from the customer turns; reference solutions "
        "and agent instructions written by the importer; what could not be converted is listed in "
        "CONVERSION.md. The data is licensed under CC BY 4.0 (LICENSE-DATA.txt); no endorsement by "
        "the original authors is implied."
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


def _write_license(source: Path, out_dir: Path, attribution: dict[str, str]) -> None:
    """LICENSE-DATA.txt: the licence file found beside the source (`X-sample.json` ->
    `X-LICENSE-DATA.txt`), else the CC BY 4.0 name and link, under a header naming the source and
    the changes."""
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
