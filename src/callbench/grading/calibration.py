"""How far the LLM graders can be trusted: agreement with code on checks both can decide, agreement
with
themselves across repeated judgments, and sensitivity to the order in which criteria are presented.

Every figure is reported with Cohen's kappa and the disagreeing items listed, so a reader can look
at the
calls where the judge and the code part ways instead of trusting a single rate.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ..call.trace import Trace
from ..spec import Scenario, SuiteManifest, make_scope, resolve
from ..stats.agreement import agreement
from .judges import ConversationJudge, JudgeFailure, TaskJudge
from .verifier import LLMVerifier, VerifierCheck

SCRIPT_NAMES = {
    "en": "Latin",
    "hi": "Devanagari",
    "mr": "Devanagari",
    "gu": "Gujarati",
    "ta": "Tamil",
    "bn": "Bengali",
}
QUESTIONS = {
    "speakable": "Is every AGENT reply free of markdown, bullet lists, URLs, tables and emoji?",
    "script": "Is every AGENT reply written mainly in the {script} script?",
    "goodbye": "Does the agent's last spoken reply before the call ends include a goodbye?",
    "tool_speech": "Every time the agent calls tools, does it also speak to the caller between the "
    "caller's turns around those calls?",
}


def check_questions(scenario: Scenario, code_items: list) -> list[VerifierCheck]:
    """The same checks the code decided, as self-contained questions (with the values resolved)."""
    scope = make_scope(scenario.caller.knows, scenario.backend.hidden)
    spoken = {c.id: c for c in scenario.spoken_checks}
    out = []
    for item in code_items:
        if item.id in QUESTIONS:
            out.append(
                VerifierCheck(
                    item.id,
                    QUESTIONS[item.id].format(
                        script=SCRIPT_NAMES.get(scenario.language, scenario.language)
                    ),
                )
            )
        elif item.id in spoken:
            c = spoken[item.id]
            who = {"candidate": "the agent", "caller": "the caller", "any": "someone"}[c.speaker]
            tol = f" (within {c.tolerance})" if c.tolerance else ""
            topic = f", when talking about {' / '.join(c.topic)}" if c.topic else ""
            when = (f", after the {c.after} step" if c.after else "") + (
                f", before the {c.before} step" if c.before else ""
            )
            verb = "state" if c.must == "state" else "avoid stating"
            out.append(
                VerifierCheck(
                    c.id,
                    f"Did {who} {verb} the {c.kind} {resolve(c.value, scope)}{tol}{topic}{when}?",
                )
            )
    return out


async def calibrate_traces(
    traces: list[tuple[Trace, Scenario]], suite: SuiteManifest, model, label: str, repeats: int = 2
) -> dict[str, Any]:
    from .conversation_checks import ConversationChecks
    from .spoken_checks import SpokenChecks

    verifier, task, conv = (
        LLMVerifier(model, label),
        TaskJudge(model, label),
        ConversationJudge(model, label),
    )
    Pairs = list[tuple[dict[str, Any], Hashable, Hashable]]
    code_llm: Pairs = []
    self_task: Pairs = []
    self_conv: Pairs = []
    order_task: Pairs = []
    order_conv: Pairs = []
    failures = 0
    for trace, scenario in traces:
        meta = {"trace": trace.id}
        try:
            code_items = ConversationChecks().grade(trace, scenario, suite) + SpokenChecks().grade(
                trace, scenario, suite
            )
            llm = await verifier.verify(trace, check_questions(scenario, code_items))
            for item in code_items:
                if item.id in llm:
                    code_llm.append(
                        (
                            {**meta, "check": item.id, "quote": llm[item.id].get("quote", "")},
                            item.r == 1.0,
                            llm[item.id]["holds"],
                        )
                    )
            runs = [(await task.agrade(trace, scenario, suite)).verdicts for _ in range(repeats)]
            reversed_run = (await task.agrade(trace, scenario, suite, reverse=True)).verdicts
            for i, first in enumerate(runs[0]):
                for other in runs[1:]:
                    self_task.append(({**meta, "criterion": first.id}, first.label, other[i].label))
                order_task.append(
                    ({**meta, "criterion": first.id}, first.label, reversed_run[i].label)
                )
            ratings = [(await conv.agrade(trace, scenario, suite)).verdicts for _ in range(repeats)]
            reversed_ratings = (await conv.agrade(trace, scenario, suite, reverse=True)).verdicts
            for i, first in enumerate(ratings[0]):
                for other in ratings[1:]:
                    self_conv.append(
                        ({**meta, "dimension": first.id}, first.rating, other[i].rating)
                    )
                order_conv.append(
                    ({**meta, "dimension": first.id}, first.rating, reversed_ratings[i].rating)
                )
        except JudgeFailure:
            failures += 1
    return {
        "judge": label,
        "traces": len(traces),
        "judge_failures": failures,
        "repeats": repeats,
        "code_vs_llm": agreement(code_llm).as_dict(),
        "self_agreement": {
            "task": agreement(self_task).as_dict(),
            "conversation": agreement(self_conv).as_dict(),
        },
        "order_sensitivity": {
            "task": agreement(order_task).as_dict(),
            "conversation": agreement(order_conv).as_dict(),
        },
    }
