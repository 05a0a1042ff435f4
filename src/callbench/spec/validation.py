"""Cross-file rules a suite must satisfy before anything runs.

Each rule reports the file and the field path (and line, when known) of every
violation. These are the mistakes that otherwise surface as a silently wrong
score: a matcher that can never hold, a criterion quoting a rule the agent was
never given, a fixture pointing at a fact nobody has.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from ..errors import Problem
from .agent import AgentDefinition, ToolSpec
from .matchers import type_problems
from .scenario import QueueBackendSpec, Scenario, Split
from .state_validation import state_problems
from .suite import Suite
from .templates import TemplateError, make_scope, references, resolve
from .validity import validity_problems
from .yamlio import YamlDocument, dotted

_SPACE = re.compile(r"\s+")


def normalize_space(text: str) -> str:
    """Excerpts are compared with runs of white space folded, so re-wrapping a paragraph is
    harmless."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


class _Report:
    def __init__(self, docs: dict[str, YamlDocument]):
        self.docs = docs
        self.problems: list[Problem] = []
        self.shared: dict[tuple, list[str]] = {}
        """problems of an agent's shared state tools, each found once per scenario using the tool"""

    def add_shared(
        self, label: str, loc: tuple, message: str, level: str, scenario_id: str
    ) -> None:
        self.shared.setdefault((label, loc, message, level), []).append(scenario_id)

    def flush_shared(self) -> None:
        """One problem per shared-tool fault, in the agent file, naming the scenarios where it
        showed."""
        for (label, loc, message, level), scenarios in self.shared.items():
            self.add(
                label,
                loc,
                f"{message} (in scenario{'s' if len(scenarios) > 1 else ''} "
                f"{', '.join(scenarios)})",
                level,
            )
        self.shared.clear()

    def add(self, label: str, loc: tuple, message: str, level: str = "error") -> None:
        doc = self.docs.get(label)
        self.problems.append(
            Problem(label, dotted(loc), message, doc.line_of(loc) if doc else None, level)
        )


def validate_suite(suite: Suite, docs: dict[str, YamlDocument]) -> list[Problem]:
    report = _Report(docs)
    languages = set(suite.manifest.languages)
    broken: set[str] = set()
    for loaded in suite.agents.values():
        before = len(report.problems)
        _check_agent(report, loaded.file, loaded.definition, languages)
        if any(p.level == "error" for p in report.problems[before:]):
            broken.add(loaded.definition.id)
    for scenario_id, scenario in suite.scenarios.items():
        label = suite.scenario_files[scenario_id]
        loaded = suite.agents.get(scenario.agent)
        if scenario.language not in languages:
            report.add(
                label,
                ("language",),
                f"language '{scenario.language}' is not one of the suite's languages "
                f"{sorted(languages)}",
            )
        if loaded is None:
            # An agent folder that exists but failed to load has its own problems reported already;
            # repeating "not defined" on every scenario of it would only bury the real cause.
            if not (suite.root / "agents" / scenario.agent).is_dir():
                report.add(label, ("agent",), f"agent '{scenario.agent}' is not defined in agents/")
            continue
        _check_scenario(
            report,
            label,
            scenario,
            loaded.definition,
            loaded.instructions,
            scenario.agent not in broken,
            tuple(suite.manifest.conversation_criteria),
            agent_file=loaded.file,
        )
        _check_scripted_caller(report, label, scenario, suite)
    for name, background in suite.manifest.casting.backgrounds.items():
        missing = [lang for lang in sorted(languages) if not background.lines_for(lang)]
        if (
            background.intrusion_rate > 0 and missing
        ):  # else the slice would mix calls with and without intrusions
            report.add(
                "suite.yaml",
                ("casting", "backgrounds", name, "intrusions"),
                f"no background speech for language(s) {missing}: add lines for them, or under '*' "
                "for any language",
            )
    report.flush_shared()
    return report.problems


def _check_agent(report: _Report, label: str, agent: AgentDefinition, languages: set[str]) -> None:
    if agent.language not in languages:
        report.add(
            label,
            ("language",),
            f"language '{agent.language}' is not one of the suite's languages {sorted(languages)}",
        )
    seen: set[str] = set()
    for i, tool in enumerate(agent.tools):
        loc = ("tools", i)
        if tool.name in seen:
            report.add(label, loc + ("name",), f"tool name '{tool.name}' is used twice")
        seen.add(tool.name)
        if tool.parameters.get("type") != "object":
            report.add(
                label,
                loc + ("parameters", "type"),
                "tool parameters must be a JSON Schema of type 'object'",
            )
        try:
            Draft202012Validator.check_schema(tool.parameters)
        except SchemaError as exc:
            where = ("parameters",) + tuple(exc.path)
            report.add(label, loc + where, f"not a valid JSON Schema: {exc.message}")
        required = tool.parameters.get("required", [])
        props = tool.parameters.get("properties", {}) or {}
        for name in required if isinstance(required, list) else []:
            if name not in props:
                report.add(
                    label,
                    loc + ("parameters", "required"),
                    f"required parameter '{name}' has no entry in properties",
                )
        if tool.ends_call and tool.success is None:
            report.add(
                label,
                loc + ("success",),
                f"call-ending tool '{tool.name}' must declare a success condition",
            )
        if tool.success is not None and not tool.ends_call:
            report.add(
                label,
                loc + ("success",),
                f"tool '{tool.name}' declares a success condition but does not end the call (set "
                "ends_call: true)",
            )
    if not agent.end_tools:
        report.add(
            label,
            ("tools",),
            "no tool ends the call (mark one with ends_call: true)",
            level="warning",
        )


RESERVED_IDS = ("speakable", "numbers_spoken", "script", "tool_speech", "goodbye")
"""The ids of the deterministic conversation checks (grading/conversation_checks.py); spec imports
nothing of grading."""


def _check_scenario(
    report: _Report,
    label: str,
    sc: Scenario,
    agent: AgentDefinition,
    instructions: str,
    agent_ok: bool = True,
    suite_criteria: tuple = (),
    agent_file: str = "",
) -> None:
    scope = make_scope(sc.caller.knows, sc.backend.hidden)

    def resolves(value: Any, loc: tuple) -> bool:
        ok = True
        for where, ref in _references_at(value, loc):
            try:
                resolve("${" + ref + "}", scope)
            except TemplateError as exc:
                report.add(label, where, str(exc))
                ok = False
        return ok

    def check_args(matchers: dict, tool_name: str, loc: tuple) -> None:
        tool = agent.tool(tool_name)
        if tool is None or not isinstance(tool.parameters.get("properties", {}), dict):
            # a malformed schema is reported on the agent; matching against it would only add noise
            return
        for pname, matcher in matchers.items():
            schema = tool.parameter_schema(pname)
            if schema is None:
                report.add(label, loc + (pname,), f"tool '{tool_name}' has no parameter '{pname}'")
                continue
            raw = matcher.model_dump(by_alias=True)
            if not resolves(raw, loc + (pname,)):
                continue
            for message in type_problems(matcher, schema, lambda v: resolve(v, scope)):
                report.add(label, loc + (pname,), message)

    def known_tool(name: str, loc: tuple) -> bool:
        if agent.tool(name) is None:
            report.add(label, loc, f"tool '{name}' is not defined by agent '{agent.id}'")
            return False
        return True

    # plan
    step_ids = [s.id for s in sc.caller.plan]
    for i, step in enumerate(sc.caller.plan):
        if step_ids.index(step.id) != i:
            report.add(
                label, ("caller", "plan", i, "id"), f"plan step id '{step.id}' is used twice"
            )
        if step.say:
            resolves(step.say, ("caller", "plan", i, "say"))
    # backend
    queues = (
        sc.backend if isinstance(sc.backend, QueueBackendSpec) else QueueBackendSpec(kind="queue")
    )
    for tool_name, entries in queues.queues.items():
        if not known_tool(tool_name, ("backend", "queues", tool_name)):
            continue
        for j, entry in enumerate(entries):
            loc = ("backend", "queues", tool_name, j)
            check_args(dict(entry.expect), tool_name, loc + ("expect",))
            resolves(entry.respond, loc + ("respond",))
            resolves(entry.mismatch, loc + ("mismatch",))
    for tool_name, value in queues.defaults.items():
        if known_tool(tool_name, ("backend", "defaults", tool_name)):
            resolves(value, ("backend", "defaults", tool_name))
    doc = report.docs.get(label)
    for loc, message, level in state_problems(sc, agent):  # state worlds, outcome checks, gates
        inherited = (
            loc[:2] in (("backend", "tools"), ("backend", "ids"))
            and len(loc) > 2
            and doc is not None
            and tuple(loc[:3]) not in doc.lines
            and agent_file
        )
        if (
            inherited
        ):  # the tool comes from the agent's state_tools: say so there, not in every scenario
            report.add_shared(
                agent_file,
                ("state_tools" if loc[1] == "tools" else "state_ids",) + tuple(loc[2:]),
                message,
                level,
                sc.id,
            )
        else:
            report.add(label, loc, message, level)
    resolves(sc.call_context, ("call_context",))
    # channel
    for i, event in enumerate(sc.channel.events):
        loc = ("channel", "events", i)
        if event.step is not None:
            step = next((s for s in sc.caller.plan if s.id == event.step), None)
            if step is None:
                report.add(label, loc + ("step",), f"plan step '{event.step}' does not exist")
            elif step.say:
                try:
                    said = str(resolve(step.say, scope))
                except TemplateError:
                    # the say line's own reference is reported; its spans cannot be checked
                    continue
                spans = (
                    [(("after", k), s) for k, s in enumerate(event.after)]
                    if isinstance(event, Split)
                    else [(("span",), event.span)]
                )
                for where, span in spans:
                    if span not in said:
                        report.add(
                            label,
                            loc + where,
                            f"span {span!r} does not occur in the 'say' line of step '{step.id}'",
                        )
    # expected actions
    action_ids = [a.id for a in sc.expected_actions]
    for i, action in enumerate(sc.expected_actions):
        loc = ("expected_actions", i)
        if action_ids.index(action.id) != i:
            report.add(label, loc + ("id",), f"action id '{action.id}' is used twice")
        if known_tool(action.tool, loc + ("tool",)):
            check_args(dict(action.args), action.tool, loc + ("args",))
        for (
            key,
            matcher,
        ) in action.result.items():  # results are untyped: only their references can be checked
            resolves(matcher.model_dump(by_alias=True), loc + ("result", key))
        for k, dep in enumerate(action.after):
            if dep not in action_ids and dep not in step_ids:
                report.add(
                    label,
                    loc + ("after", k),
                    f"'{dep}' is neither an expected action nor a plan step",
                )
            elif dep == action.id:
                report.add(label, loc + ("after", k), "an action cannot come after itself")
        if action.after and action.count.forbids:
            report.add(
                label,
                loc + ("after",),
                "a forbidden action (count 0) cannot have an ordering constraint",
            )
    cycle = _cycle({a.id: [d for d in a.after if d in action_ids] for a in sc.expected_actions})
    if cycle:
        report.add(
            label, ("expected_actions",), f"ordering constraints form a cycle: {' -> '.join(cycle)}"
        )
    # verdict ids are shared by actions, criteria, spoken checks, the suite's rated dimensions and
    # the built-in
    # conversation checks: one id, one verdict
    seen_ids: dict[str, str] = {a.id: "expected_actions" for a in sc.expected_actions}
    reserved = set(RESERVED_IDS) | {c.id for c in suite_criteria}
    for field_name, items in (
        ("expected_actions", sc.expected_actions),
        ("criteria", sc.criteria),
        ("spoken_checks", sc.spoken_checks),
        ("phrase_checks", sc.phrase_checks),
    ):
        for i, item in enumerate(items):
            if item.id in reserved:
                report.add(
                    label,
                    (field_name, i, "id"),
                    f"id '{item.id}' is reserved for a conversation check or rating of the suite",
                )
    for field_name, items in (
        ("criteria", sc.criteria),
        ("spoken_checks", sc.spoken_checks),
        ("phrase_checks", sc.phrase_checks),
    ):
        for i, item in enumerate(items):
            if item.id in seen_ids and seen_ids[item.id] != field_name:
                report.add(
                    label,
                    (field_name, i, "id"),
                    f"id '{item.id}' is also used in {seen_ids[item.id]}",
                )
            seen_ids.setdefault(item.id, field_name)
    # spoken checks, phrase checks and refusals: windows anchored on actions or plan steps
    for i, check in enumerate(sc.spoken_checks):
        resolves(check.value, ("spoken_checks", i, "value"))
    for loc, message, level in validity_problems(sc):
        report.add(label, loc, message, level)
    # criteria
    rendered = normalize_space(instructions)
    crit_ids = [c.id for c in sc.criteria]
    for i, crit in enumerate(sc.criteria):
        if crit_ids.index(crit.id) != i:
            report.add(label, ("criteria", i, "id"), f"criterion id '{crit.id}' is used twice")
        for k, excerpt in enumerate(crit.excerpts):
            if normalize_space(excerpt) not in rendered:
                report.add(
                    label,
                    ("criteria", i, "excerpts", k),
                    f"excerpt does not occur verbatim in the instructions of agent '{agent.id}'",
                )
    # reference
    for i, turn in enumerate(sc.reference):
        if turn.same_turn and (i == 0 or not sc.reference[i - 1].calls):
            # the oracle would wait forever for a tool chain that never starts; say why here, not as
            # a run of failed actions from the reference check
            report.add(
                label,
                ("reference", i, "same_turn"),
                "same_turn needs a previous reference entry with tool calls to follow",
            )
        for k, call in enumerate(turn.calls):
            loc = ("reference", i, "calls", k)
            if known_tool(call.tool, loc + ("tool",)) and resolves(call.args, loc + ("args",)):
                if (
                    agent_ok
                ):  # against a tool contract already reported broken, the verdict means nothing
                    _check_reference_args(
                        report,
                        label,
                        agent.tool(call.tool),
                        resolve(call.args, scope),
                        loc + ("args",),
                    )
        if turn.say:
            resolves(turn.say, ("reference", i, "say"))


def _check_scripted_caller(report: _Report, label: str, sc: Scenario, suite: Suite) -> None:
    """The scripted caller needs a line and cues for each step; say so up front rather than at run
    time."""
    for i, step in enumerate(sc.caller.plan):
        if not step.say:
            report.add(
                label,
                ("caller", "plan", i, "say"),
                f"step '{step.id}' has no 'say' line: this scenario cannot run with the scripted "
                "caller",
                "warning",
            )
        if not step.cue and i > 0:  # the opening step may answer any question that opens the call
            report.add(
                label,
                ("caller", "plan", i, "cue"),
                f"step '{step.id}' has no cues: this scenario cannot run with the scripted caller",
                "warning",
            )
    if sc.language not in suite.manifest.defaults.caller_phrases:
        report.add(
            label,
            ("language",),
            f"suite.yaml defaults.caller_phrases has no entry for '{sc.language}': the scripted "
            "caller cannot run this scenario",
            "warning",
        )


def _check_reference_args(
    report: _Report, label: str, tool: ToolSpec, args: dict, loc: tuple
) -> None:
    """The engine does not police arguments, so a reference sending what the schema forbids would
    still
    "pass" and prove the scenario solvable only for candidates that break the tool contract."""
    for err in Draft202012Validator(tool.parameters).iter_errors(args):
        report.add(
            label,
            loc + tuple(err.absolute_path),
            f"does not fit the parameters of tool '{tool.name}': {err.message}",
        )


def _references_at(value: Any, loc: tuple) -> list[tuple[tuple, str]]:
    """Each `${...}` reference with the field path of the string that holds it, so errors point at
    the key."""
    if isinstance(value, str):
        return [(loc, ref) for ref in references(value)]
    if isinstance(value, dict):
        return [r for k, v in value.items() for r in _references_at(v, loc + (k,))]
    if isinstance(value, list):
        return [r for i, v in enumerate(value) for r in _references_at(v, loc + (i,))]
    return []


def _cycle(graph: dict[str, list[str]]) -> list[str]:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt in graph and state.get(nxt) is None:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return []

    for node in graph:
        if state.get(node) is None:
            found = visit(node)
            if found:
                return found
    return []
