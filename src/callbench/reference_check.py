"""Proof that each scenario is solvable: its reference solution, played through the real engine,
passes.

The oracle is run against the scripted caller (its plan steps anchor windows and
orderings; a caller that only acknowledges stands in for scenarios without
scripted lines), with no channel damage (no authored events, no seeded
mishearing, no casting: background and persona). Every deterministic item must
be met, every guard kept, the whole plan walked, and the call must end through a
successful call-ending tool.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from .callers import Caller, LineCaller, ScriptedCaller, ScriptedCallerUnavailable
from .candidates import OracleCandidate
from .errors import Problem
from .grading.scorecard import default_graders
from .play import Attempt, play_once
from .spec import Casting, Scenario, Suite
from .spec.yamlio import YamlDocument


def reference_problems(suite: Suite, docs: dict[str, YamlDocument]) -> list[Problem]:
    """Synchronous on purpose (validation is); inside a running event loop it runs on a helper
    thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_check_all(suite, docs))
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _check_all(suite, docs)).result()


def quiet_suite(suite: Suite) -> Suite:
    """The suite as a reference is proven on: no casting, no channel events (the oracle's words
    reach the scripted caller as written)."""
    return suite.model_copy(
        update={
            "manifest": suite.manifest.model_copy(update={"casting": Casting()}),
            "scenarios": {
                k: s.model_copy(
                    update={
                        "channel": s.channel.model_copy(
                            update={"events": [], "seeded_first_turn": False}
                        )
                    }
                )
                for k, s in suite.scenarios.items()
            },
        }
    )


async def _check_all(suite: Suite, docs: dict[str, YamlDocument]) -> list[Problem]:
    problems: list[Problem] = []
    quiet = quiet_suite(suite)
    for scenario_id in quiet.scenarios:
        label = suite.scenario_files[scenario_id]
        doc = docs.get(label)
        line = doc.line_of(("reference",)) if doc else None
        problems += await _solvable(quiet, scenario_id, label, line)
        problems += await _alignment(suite, scenario_id, label, line)
    return problems


def caller_for(suite: Suite, scenario: Scenario) -> Caller:
    """The scripted caller when the scenario has one (windows and orderings may hang on its plan
    steps),
    else a caller that only acknowledges."""
    try:
        return ScriptedCaller(
            scenario,
            suite.manifest.defaults.caller_phrases.get(scenario.language),
            suite.manifest.defaults.followable_words,
            suite.manifest.defaults.followable_figures,
        )
    except ScriptedCallerUnavailable:
        return LineCaller()


async def _solvable(quiet: Suite, scenario_id: str, label: str, line: int | None) -> list[Problem]:
    """Every deterministic item met (guards kept), the plan walked, and a successful call-ending
    tool."""
    scenario = quiet.scenarios[scenario_id]
    caller = caller_for(quiet, scenario)
    trace = await play_once(
        quiet, Attempt("oracle", scenario_id, 0), 0, OracleCandidate(scenario), caller
    )
    steps = {s.id for s in scenario.caller.plan}
    on_steps = _step_anchored(scenario, steps)
    out = []
    for grader in (
        default_graders()
    ):  # every deterministic check: actions, spoken values, phrases, conversation, state
        for verdict in grader.grade(trace, scenario, quiet.manifest):
            if verdict.r is None or verdict.r == 1.0:
                continue
            if isinstance(caller, LineCaller) and verdict.id in on_steps:
                out.append(
                    Problem(
                        label,
                        "reference",
                        f"'{verdict.id}' hangs on a plan step and cannot be proven "
                        f"without the scripted caller",
                        line,
                        "warning",
                    )
                )
                continue
            what = {
                "actions": "expected action",
                "spoken_checks": "spoken check",
                "conversation_checks": "conversation check",
                "state_checks": "state check",
                "phrase_checks": "phrase check",
            }.get(verdict.grader, verdict.grader)
            out.append(
                Problem(
                    label,
                    "reference",
                    f"the reference solution fails {what} '{verdict.id}': {verdict.detail}",
                    line,
                )
            )
    if not isinstance(caller, LineCaller):
        expressed = [s for t in trace.caller_turns for s in t.expressed_steps]
        missing = [s.id for s in scenario.caller.plan if s.id not in expressed]
        if missing:
            idle = [t.turn for t in trace.caller_turns if not t.expressed_steps and not t.done]
            out.append(
                Problem(
                    label,
                    "reference",
                    f"with the scripted caller the oracle never reaches plan step(s) "
                    f"{missing} (idle or confused caller turns: {idle}): a reference turn "
                    f"does not end by asking for the next step with its cue, asks for two "
                    f"at once, or runs past {quiet.manifest.defaults.followable_words} words",
                    line,
                )
            )
    has_end_tool = bool(quiet.agent_for(scenario).definition.end_tools)
    if has_end_tool and (trace.end is None or trace.end.reason != "end_tool"):
        reason = trace.end.detail if trace.end else "no end"
        out.append(
            Problem(
                label,
                "reference",
                f"the reference solution does not end the call through a successful "
                f"call-ending tool ({reason})",
                line,
            )
        )
    return out


def _step_anchored(scenario: Scenario, steps: set[str]) -> set[str]:
    """Verdict ids whose window or ordering hangs on a plan step."""
    ids = {a.id for a in scenario.expected_actions if steps & set(a.after)}
    ids |= {
        c.id
        for c in list(scenario.spoken_checks) + list(scenario.phrase_checks)
        if {c.after, c.before} & steps
    }
    if scenario.refusal is not None and scenario.refusal.after in steps:
        ids.add("refusal")
    return ids


async def _alignment(suite: Suite, scenario_id: str, label: str, line: int | None) -> list[Problem]:
    """With the real channel, every authored channel event must land; otherwise a real run of this
    scenario is
    not the call its author meant (warnings: the scenario still runs)."""
    scenario = suite.scenarios[scenario_id]
    caller = caller_for(suite, scenario)
    if isinstance(caller, LineCaller) or not scenario.channel.events:
        return []
    trace = await play_once(
        suite, Attempt("oracle", scenario_id, 0), 0, OracleCandidate(scenario), caller
    )
    out = []
    for event in trace.unapplied_channel_events + [
        e for t in trace.caller_turns for e in t.channel_events if not e.applied
    ]:
        if event.origin == "authored":
            out.append(
                Problem(
                    label,
                    "channel",
                    f"{event.kind} at {event.anchor} does not apply in the oracle's run: "
                    f"{event.detail}",
                    None,
                    "warning",
                )
            )
    return out
