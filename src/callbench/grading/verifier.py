"""The LLM verifier: explicit checks (value, tolerance, evidence window, topic) decided by a model
that must quote its evidence. It runs beside the code verifier on checks both can decide, which is
how calibration measures whether the LLM can be trusted where code cannot decide. It is a Grader
like the judges: scored alone, it decides the code's checks in the code's place."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..call.trace import RoleUsage, Trace
from ..jsontext import find_json_object
from ..models.ask_json import JsonRejected, ask_json
from ..models.base import ChatModel
from ..spec import Scenario, SuiteManifest, make_scope, resolve
from ..text import clean_json
from .base import Graded, ItemVerdict
from .conversation_checks import ConversationChecks
from .judges import JudgeFailure, role_usage, sha
from .scripts import LanguageDetector
from .spoken_checks import SpokenChecks
from .transcript_text import numbered_transcript

VERIFIER_PROMPT = """\
You verify explicit claims about one recorded phone call. Entries are numbered (#index). For each
check,
decide strictly from the transcript whether it holds, and quote the exact words that decide it.
Reply with one JSON object only:
{"checks": [
  {"id": "<check id>", "holds": true|false, "evidence": [<indices>],
   "quote": "<exact words from the transcript, or empty>"}
]}
"""


@dataclass(frozen=True)
class VerifierCheck:
    id: str
    question: str
    """a self-contained yes/no question naming the value, tolerance, window and topic"""


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


def check_questions(scenario: Scenario, code_items: list[ItemVerdict]) -> list[VerifierCheck]:
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


class LLMVerifier:
    """A Grader of the checks code can decide (speakable replies, script, goodbye, speech around
    tools, spoken values), decided by a model instead; calibration asks it the same questions
    (`verify`) to measure where the two part ways."""

    name = "llm_verifier"

    def __init__(
        self,
        model: ChatModel,
        label: str | None = None,
        language_detector: LanguageDetector = "script",
    ):
        self.model = model
        self.label = label or model.name
        self.language_detector: LanguageDetector = language_detector
        """the run's setting, so the checks it decides are the ones the code scored"""
        self.usage = RoleUsage()
        """what every `verify` so far cost (re-asks and failures included)"""

    async def agrade(self, trace: Trace, scenario: Scenario, suite: SuiteManifest) -> Graded:
        """Each check the code grades on this call, relabelled with the model's answer (met when it
        holds), citing the model's evidence and quote."""
        code_items = ConversationChecks(language_detector=self.language_detector).grade(
            trace, scenario, suite
        ) + SpokenChecks().grade(trace, scenario, suite)
        questions = check_questions(scenario, code_items)
        if not questions:
            return Graded([])
        answers, usage = await self._verify(trace, questions)
        n = len(trace.messages)
        verdicts = []
        for item in code_items:
            answer = answers.get(item.id)
            if answer is None:
                continue
            evidence = answer.get("evidence")
            cited = [
                i
                for i in (evidence if isinstance(evidence, list) else [])
                if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n
            ]
            holds = answer["holds"]
            verdicts.append(
                item.model_copy(
                    update={
                        "label": "met" if holds else "not_met",
                        "r": 1.0 if holds else 0.0,
                        "grader": self.name,
                        "evidence": sorted(set(cited)),
                        "detail": str(answer.get("quote", ""))[:500],
                        "judge": answer["judge"],
                    }
                )
            )
        return Graded(verdicts, usage)

    async def verify(self, trace: Trace, checks: list[VerifierCheck]) -> dict[str, dict[str, Any]]:
        """The model's answer to each check, by id (what calibration compares with the code)."""
        if not checks:
            return {}
        answers, _ = await self._verify(trace, checks)
        return answers

    async def _verify(
        self, trace: Trace, checks: list[VerifierCheck]
    ) -> tuple[dict[str, dict[str, Any]], RoleUsage]:
        rubric = json.dumps(
            [{"id": c.id, "check": c.question} for c in checks], ensure_ascii=False, indent=1
        )
        messages = [
            {"role": "system", "content": VERIFIER_PROMPT},
            {
                "role": "user",
                "content": f"## Transcript\n{numbered_transcript(trace)}\n\n## Checks\n{rubric}",
            },
        ]
        judge = {
            "model": self.label,
            "prompt_sha256": sha(VERIFIER_PROMPT),
            "rubric_sha256": sha(rubric),
        }
        try:
            answer = await ask_json(
                self.model, messages, lambda text: _read_checks(text, checks, judge)
            )
        except JsonRejected as exc:
            self.usage = _sum(self.usage, role_usage(exc.cost))
            raise JudgeFailure(
                f"llm_verifier: reply rejected twice: {exc.reason}", role_usage(exc.cost)
            ) from None
        usage = role_usage(answer.cost)
        self.usage = _sum(self.usage, usage)
        return answer.value, usage


def _read_checks(
    text: str, checks: list[VerifierCheck], judge: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """The verdicts by check id; ValueError (shown to the model) when the reply is not usable."""
    obj = clean_json(find_json_object(text, ("checks",)))
    if obj is None or not isinstance(obj.get("checks"), list):
        raise ValueError("the reply is not a JSON object with a 'checks' list")
    out: dict[str, dict[str, Any]] = {}
    for item in obj["checks"]:
        if not isinstance(item, dict) or not isinstance(item.get("holds"), bool):
            raise ValueError(f"each check needs an id and a boolean 'holds': {item!r:.80}")
        out[str(item.get("id"))] = {**item, "judge": judge}
    missing = [c.id for c in checks if c.id not in out]
    if missing:
        raise ValueError(f"no verdict for {missing}")
    return out


def _sum(a: RoleUsage, b: RoleUsage) -> RoleUsage:
    return RoleUsage(
        calls=a.calls + b.calls,
        prompt_tokens=a.prompt_tokens + b.prompt_tokens,
        completion_tokens=a.completion_tokens + b.completion_tokens,
        cached_tokens=a.cached_tokens + b.cached_tokens,
        retries=a.retries + b.retries,
    )
