"""The LLM verifier: explicit checks (value, tolerance, evidence window, topic) decided by a model
that must
quote its evidence. It runs beside the code verifier on checks both can decide, which is how
calibration
measures whether the LLM can be trusted where code cannot decide."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..call.trace import RoleUsage, Trace
from ..jsontext import find_json_object
from ..models.ask_json import JsonRejected, ask_json
from ..models.base import ChatModel
from ..text import clean_json
from .judges import JudgeFailure, role_usage, sha
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


class LLMVerifier:
    """Not a Grader: calibration asks it about checks the code decided, to compare the two."""

    name = "llm_verifier"

    def __init__(self, model: ChatModel, label: str | None = None):
        self.model = model
        self.label = label or model.name
        self.usage = RoleUsage()
        """what every `verify` so far cost (re-asks and failures included)"""

    async def verify(self, trace: Trace, checks: list[VerifierCheck]) -> dict[str, dict[str, Any]]:
        if not checks:
            return {}
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
        self.usage = _sum(self.usage, role_usage(answer.cost))
        return answer.value


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
