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
from .scenario import CONVERSATION_CHECK_IDS, QueueBackendSpec, Scenario, Split
from .state_validation import state_problems
from .suite import ConversationCriterion, Suite
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
        used = suite.agents.get(scenario.agent)
        if scenario.language not in languages:
            report.add(
                label,
                ("language",),
                f"language '{scenario.language}' is not one of the suite's languages "
                f"{sorted(languages)}",
            )
        if used is None:
            # An agent folder that exists but failed to load has its own problems reported already;
            # repeating "not defined" on every scenario of it would only bury the real cause.
            if not (suite.root / "agents" / scenario.agent).is_dir():
                report.add(label, ("agent",), f"agent '{scenario.agent}' is not defined in agents/")
            continue
        _check_scenario(
            report,
            label,
            scenario,
            used.definition,
            used.instructions,
            scenario.agent not in broken,
            tuple(suite.manifest.conversation_criteria),
            agent_file=used.file,
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


RESERVED_IDS = CONVERSATION_CHECK_IDS
"""Verdict ids a scenario may not use: the built-in conversation checks' (defined in `scenario.py`,
where grading imports them from)."""

Loc = tuple[Any, ...]
"""A field path inside a suite file: keys and list indices."""


class _ScenarioCheck:
    """One scenario checked against its agent: the rules share the template scope (so every
    `${...}` reference is resolved as the run will resolve it) and report into one file."""

    def __init__(
        self, report: _Report, label: str, sc: Scenario, agent: AgentDefinition, agent_file: str
    ):
        self.report, self.label, self.sc, self.agent = report, label, sc, agent
        self.agent_file = agent_file
        self.scope = make_scope(sc.caller.knows, sc.backend.hidden)
        self.step_ids = [s.id for s in sc.caller.plan]
        self.action_ids = [a.id for a in sc.expected_actions]

    def add(self, loc: Loc, message: str, level: str = "error") -> None:
        self.report.add(self.label, loc, message, level)

    def resolves(self, value: Any, loc: Loc) -> bool:
        """Report each template reference in `value` that the scope cannot resolve."""
        ok = True
        for where, ref in _references_at(value, loc):
            try:
                resolve("${" + ref + "}", self.scope)
            except TemplateError as exc:
                self.add(where, str(exc))
                ok = False
        return ok

    def check_args(self, matchers: dict[str, Any], tool_name: str, loc: Loc) -> None:
        """Argument matchers must name the tool's parameters and be able to match their types."""
        tool = self.agent.tool(tool_name)
        if tool is None or not isinstance(tool.parameters.get("properties", {}), dict):
            # a malformed schema is reported on the agent; matching against it would only add noise
            return
        for pname, matcher in matchers.items():
            schema = tool.parameter_schema(pname)
            if schema is None:
                self.add(loc + (pname,), f"tool '{tool_name}' has no parameter '{pname}'")
                continue
            raw = matcher.model_dump(by_alias=True)
            if not self.resolves(raw, loc + (pname,)):
                continue
            for message in type_problems(matcher, schema, lambda v: resolve(v, self.scope)):
                self.add(loc + (pname,), message)

    def known_tool(self, name: str, loc: Loc) -> bool:
        if self.agent.tool(name) is None:
            self.add(loc, f"tool '{name}' is not defined by agent '{self.agent.id}'")
            return False
        return True


def _check_scenario(
    report: _Report,
    label: str,
    sc: Scenario,
    agent: AgentDefinition,
    instructions: str,
    agent_ok: bool = True,
    suite_criteria: tuple[ConversationCriterion, ...] = (),
    agent_file: str = "",
) -> None:
    """Every cross-file rule of one scenario, in a fixed order so that the problems of a file are
    listed as it reads: caller plan, backend, channel, expected actions, verdict ids, criteria,
    reference."""
    chk = _ScenarioCheck(report, label, sc, agent, agent_file)
    _check_plan(chk)
    _check_backend(chk)
    chk.resolves(sc.call_context, ("call_context",))
    _check_channel(chk)
    _check_actions(chk)
    _check_verdict_ids(chk, suite_criteria)
    for i, check in enumerate(sc.spoken_checks):
        chk.resolves(check.value, ("spoken_checks", i, "value"))
    # spoken checks, phrase checks and refusals: windows anchored on actions or plan steps
    for loc, message, level in validity_problems(sc):
        chk.add(loc, message, level)
    _check_criteria(chk, instructions)
    _check_reference(chk, agent_ok)


def _check_plan(chk: _ScenarioCheck) -> None:
    """Plan step ids are unique (cues and windows name them) and their lines resolve."""
    for i, step in enumerate(chk.sc.caller.plan):
        if chk.step_ids.index(step.id) != i:
            chk.add(("caller", "plan", i, "id"), f"plan step id '{step.id}' is used twice")
        if step.say:
            chk.resolves(step.say, ("caller", "plan", i, "say"))


def _check_backend(chk: _ScenarioCheck) -> None:
    """Queue entries name the agent's tools and match its parameters; state worlds, outcome checks
    and gates are checked by `state_problems`, and a fault in a tool the scenario inherits from its
    agent's `state_tools` is reported once, in the agent file, not in every scenario."""
    sc = chk.sc
    queues = (
        sc.backend if isinstance(sc.backend, QueueBackendSpec) else QueueBackendSpec(kind="queue")
    )
    for tool_name, entries in queues.queues.items():
        if not chk.known_tool(tool_name, ("backend", "queues", tool_name)):
            continue
        for j, entry in enumerate(entries):
            loc = ("backend", "queues", tool_name, j)
            chk.check_args(dict(entry.expect), tool_name, loc + ("expect",))
            chk.resolves(entry.respond, loc + ("respond",))
            chk.resolves(entry.mismatch, loc + ("mismatch",))
    for tool_name, value in queues.defaults.items():
        if chk.known_tool(tool_name, ("backend", "defaults", tool_name)):
            chk.resolves(value, ("backend", "defaults", tool_name))
    doc = chk.report.docs.get(chk.label)
    for loc, message, level in state_problems(sc, chk.agent):
        inherited = (
            loc[:2] in (("backend", "tools"), ("backend", "ids"))
            and len(loc) > 2
            and doc is not None
            and tuple(loc[:3]) not in doc.lines
            and chk.agent_file
        )
        if inherited:
            chk.report.add_shared(
                chk.agent_file,
                ("state_tools" if loc[1] == "tools" else "state_ids",) + tuple(loc[2:]),
                message,
                level,
                sc.id,
            )
        else:
            chk.add(loc, message, level)


def _check_channel(chk: _ScenarioCheck) -> None:
    """A channel event's spans must occur in the line of the step it garbles, or it never fires."""
    for i, event in enumerate(chk.sc.channel.events):
        loc = ("channel", "events", i)
        if event.step is None:
            continue
        step = next((s for s in chk.sc.caller.plan if s.id == event.step), None)
        if step is None:
            chk.add(loc + ("step",), f"plan step '{event.step}' does not exist")
            continue
        if not step.say:
            continue
        try:
            said = str(resolve(step.say, chk.scope))
        except TemplateError:
            # the say line's own reference is reported; its spans cannot be checked
            continue
        spans: list[tuple[Loc, str]] = (
            [(("after", k), s) for k, s in enumerate(event.after)]
            if isinstance(event, Split)
            else [(("span",), event.span)]
        )
        for where, span in spans:
            if span not in said:
                chk.add(
                    loc + where,
                    f"span {span!r} does not occur in the 'say' line of step '{step.id}'",
                )


def _check_actions(chk: _ScenarioCheck) -> None:
    """Expected actions: unique ids, known tools, matchable arguments, and ordering constraints
    that name something and can be satisfied (no self-reference, no cycle, none on a forbidden
    action)."""
    sc, action_ids = chk.sc, chk.action_ids
    for i, action in enumerate(sc.expected_actions):
        loc = ("expected_actions", i)
        if action_ids.index(action.id) != i:
            chk.add(loc + ("id",), f"action id '{action.id}' is used twice")
        if chk.known_tool(action.tool, loc + ("tool",)):
            chk.check_args(dict(action.args), action.tool, loc + ("args",))
        for key, matcher in action.result.items():
            # results are untyped: only their references can be checked
            chk.resolves(matcher.model_dump(by_alias=True), loc + ("result", key))
        for k, dep in enumerate(action.after):
            if dep not in action_ids and dep not in chk.step_ids:
                chk.add(
                    loc + ("after", k), f"'{dep}' is neither an expected action nor a plan step"
                )
            elif dep == action.id:
                chk.add(loc + ("after", k), "an action cannot come after itself")
        if action.after and action.count.forbids:
            chk.add(
                loc + ("after",), "a forbidden action (count 0) cannot have an ordering constraint"
            )
    cycle = _cycle({a.id: [d for d in a.after if d in action_ids] for a in sc.expected_actions})
    if cycle:
        chk.add(("expected_actions",), f"ordering constraints form a cycle: {' -> '.join(cycle)}")


def _check_verdict_ids(
    chk: _ScenarioCheck, suite_criteria: tuple[ConversationCriterion, ...]
) -> None:
    """Verdict ids are shared by actions, criteria, spoken and phrase checks, the suite's rated
    dimensions and the built-in conversation checks: one id, one verdict, or a report would merge
    two verdicts under one name."""
    sc = chk.sc
    ids: dict[str, list[str]] = {
        "expected_actions": [a.id for a in sc.expected_actions],
        "criteria": [c.id for c in sc.criteria],
        "spoken_checks": [c.id for c in sc.spoken_checks],
        "phrase_checks": [c.id for c in sc.phrase_checks],
    }
    reserved = set(RESERVED_IDS) | {c.id for c in suite_criteria}
    for field_name, field_ids in ids.items():
        for i, item_id in enumerate(field_ids):
            if item_id in reserved:
                chk.add(
                    (field_name, i, "id"),
                    f"id '{item_id}' is reserved for a conversation check or rating of the suite",
                )
    seen_ids: dict[str, str] = dict.fromkeys(ids["expected_actions"], "expected_actions")
    for field_name in ("criteria", "spoken_checks", "phrase_checks"):
        for i, item_id in enumerate(ids[field_name]):
            if item_id in seen_ids and seen_ids[item_id] != field_name:
                chk.add(
                    (field_name, i, "id"), f"id '{item_id}' is also used in {seen_ids[item_id]}"
                )
            seen_ids.setdefault(item_id, field_name)


def _check_criteria(chk: _ScenarioCheck, instructions: str) -> None:
    """Criterion ids are unique, and an excerpt quotes the agent's instructions verbatim: a
    criterion citing a rule the agent was never given would grade the candidate on a secret."""
    rendered = normalize_space(instructions)
    crit_ids = [c.id for c in chk.sc.criteria]
    for i, crit in enumerate(chk.sc.criteria):
        if crit_ids.index(crit.id) != i:
            chk.add(("criteria", i, "id"), f"criterion id '{crit.id}' is used twice")
        for k, excerpt in enumerate(crit.excerpts):
            if normalize_space(excerpt) not in rendered:
                chk.add(
                    ("criteria", i, "excerpts", k),
                    "excerpt does not occur verbatim in the instructions of agent "
                    f"'{chk.agent.id}'",
                )


def _check_reference(chk: _ScenarioCheck, agent_ok: bool) -> None:
    """The reference solution must be playable: `same_turn` follows tool calls, calls name known
    tools with resolvable arguments that fit the tool's schema (unless the agent's tools are
    already reported broken, when the verdict would mean nothing)."""
    reference = chk.sc.reference
    for i, turn in enumerate(reference):
        if turn.same_turn and (i == 0 or not reference[i - 1].calls):
            # the oracle would wait forever for a tool chain that never starts; say why here, not as
            # a run of failed actions from the reference check
            chk.add(
                ("reference", i, "same_turn"),
                "same_turn needs a previous reference entry with tool calls to follow",
            )
        for k, call in enumerate(turn.calls):
            loc = ("reference", i, "calls", k)
            if chk.known_tool(call.tool, loc + ("tool",)) and chk.resolves(
                call.args, loc + ("args",)
            ):
                tool = chk.agent.tool(call.tool)
                if agent_ok and tool is not None:
                    _check_reference_args(
                        chk.report, chk.label, tool, resolve(call.args, chk.scope), loc + ("args",)
                    )
        if turn.say:
            chk.resolves(turn.say, ("reference", i, "say"))


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
