"""Proof that each scenario is solvable: its reference solution, played through the real engine, passes.

The oracle is run against a caller that only acknowledges (so the check does
not depend on the caller's plan), with no channel damage (no authored events, no
seeded mishearing, no casting: background and persona), and every
deterministic item must be met and the call must end through a successful
call-ending tool.
"""

from __future__ import annotations

import asyncio

from .errors import Problem
from .grading.scorecard import default_graders
from .runs.episodes import Attempt, run_attempt
from .spec import Casting, Suite
from .spec.yamlio import YamlDocument


def reference_problems(suite: Suite, docs: dict[str, YamlDocument]) -> list[Problem]:
    """Synchronous on purpose (validation is); inside a running event loop it runs on a helper thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_check_all(suite, docs))
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _check_all(suite, docs)).result()


async def _check_all(suite: Suite, docs: dict[str, YamlDocument]) -> list[Problem]:
    from .callers import LineCaller
    from .candidates import OracleCandidate

    problems: list[Problem] = []
    quiet = suite.model_copy(update={
        "manifest": suite.manifest.model_copy(update={"casting": Casting()}),
        "scenarios": {k: s.model_copy(update={"channel": s.channel.model_copy(update={"events": [], "seeded_first_turn": False})})
                      for k, s in suite.scenarios.items()}})
    for scenario_id, scenario in quiet.scenarios.items():
        label = suite.scenario_files[scenario_id]
        doc = docs.get(label)
        line = doc.line_of(("reference",)) if doc else None
        trace = await run_attempt(quiet, Attempt("oracle", scenario_id, 0), 0,
                                  candidate=OracleCandidate(scenario), caller=LineCaller())
        for grader in default_graders():  # every deterministic check: actions, spoken values, conversation checks
            for verdict in grader.grade(trace, scenario, suite.manifest):
                if verdict.r is not None and verdict.r != 1.0:
                    what = {"actions": "expected action", "spoken_checks": "spoken check", "conversation_checks": "conversation check",
                            "state_checks": "state check"}.get(verdict.grader, verdict.grader)
                    problems.append(Problem(label, "reference", f"the reference solution fails {what} '{verdict.id}': {verdict.detail}", line))
        problems += await _alignment(suite, scenario_id, label, line)
        has_end_tool = bool(suite.agent_for(scenario).definition.end_tools)
        if has_end_tool and (trace.end is None or trace.end.reason != "end_tool"):
            reason = trace.end.detail if trace.end else "no end"
            problems.append(Problem(label, "reference", f"the reference solution does not end the call through a successful call-ending tool ({reason})", line))
    return problems


async def _alignment(suite: Suite, scenario_id: str, label: str, line: int | None) -> list[Problem]:
    """With the scripted caller and the real channel, the oracle's lines must walk the caller through its
    whole plan and every authored channel event must land; otherwise a real run of this scenario is not
    the call its author meant (warnings: the scenario still runs)."""
    from .callers import ScriptedCaller, ScriptedCallerUnavailable
    from .candidates import OracleCandidate

    scenario = suite.scenarios[scenario_id]
    try:
        caller = ScriptedCaller(scenario, suite.manifest.defaults.caller_phrases.get(scenario.language))
    except ScriptedCallerUnavailable:
        return []  # already reported as a warning by validation
    trace = await run_attempt(suite, Attempt("oracle", scenario_id, 0), 0, candidate=OracleCandidate(scenario), caller=caller)
    out = []
    expressed = [s for t in trace.caller_turns for s in t.expressed_steps]
    missing = [s.id for s in scenario.caller.plan if s.id not in expressed]
    if missing:
        idle = [t.turn for t in trace.caller_turns if not t.expressed_steps and not t.done]
        out.append(Problem(label, "reference", f"with the scripted caller the oracle never reaches plan step(s) {missing} "
                           f"(idle caller turns: {idle}): a reference line lacks the next step's cue", line, "warning"))
    for event in trace.unapplied_channel_events + [e for t in trace.caller_turns for e in t.channel_events if not e.applied]:
        if event.origin == "authored":
            out.append(Problem(label, "channel", f"{event.kind} at {event.anchor} does not apply in the oracle's run: {event.detail}", None, "warning"))
    return out
