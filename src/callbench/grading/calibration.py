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
from ..spec import Scenario, SuiteManifest
from ..stats.agreement import agreement
from .judges import ConversationJudge, JudgeFailure, TaskJudge
from .scripts import LanguageDetector
from .verifier import QUESTIONS, SCRIPT_NAMES, LLMVerifier, VerifierCheck, check_questions

__all__ = [
    "QUESTIONS",
    "SCRIPT_NAMES",
    "VerifierCheck",
    "calibrate_traces",
    "check_questions",
]


async def calibrate_traces(
    traces: list[tuple[Trace, Scenario]],
    suite: SuiteManifest,
    model,
    label: str,
    repeats: int = 2,
    language_detector: LanguageDetector = "script",
) -> dict[str, Any]:
    """`language_detector`: the run's own setting, so the code's verdicts are the ones it scored."""
    from .conversation_checks import ConversationChecks
    from .spoken_checks import SpokenChecks

    verifier, task, conv = (
        LLMVerifier(model, label, language_detector=language_detector),
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
            code_items = ConversationChecks(language_detector=language_detector).grade(
                trace, scenario, suite
            ) + SpokenChecks().grade(trace, scenario, suite)
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
