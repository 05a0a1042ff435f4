"""The LLM verifier: explicit checks (value, tolerance, evidence window, topic) decided by a model
that must
quote its evidence. It runs beside the code verifier on checks both can decide, which is how
calibration
measures whether the LLM can be trusted where code cannot decide."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..call.trace import Trace
from ..jsontext import find_json_object
from ..text import clean_json
from .judges import JudgeFailure, sha
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
    name = "llm_verifier"

    def __init__(self, model, label: str | None = None):
        self.model = model
        self.label = label or model.name

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
        reason = ""
        for _ in range(2):
            response = await self.model.complete(messages, None, json_mode=True)
            obj = clean_json(find_json_object(response.text or "", ("checks",)))
            try:
                if obj is None or not isinstance(obj.get("checks"), list):
                    raise ValueError("the reply is not a JSON object with a 'checks' list")
                out = {}
                for item in obj["checks"]:
                    if not isinstance(item, dict) or not isinstance(item.get("holds"), bool):
                        raise ValueError(
                            f"each check needs an id and a boolean 'holds': {item!r:.80}"
                        )
                    out[item.get("id")] = {
                        **item,
                        "judge": {
                            "model": self.label,
                            "prompt_sha256": sha(VERIFIER_PROMPT),
                            "rubric_sha256": sha(rubric),
                        },
                    }
                missing = [c.id for c in checks if c.id not in out]
                if missing:
                    raise ValueError(f"no verdict for {missing}")
                return out
            except ValueError as exc:
                reason = str(exc)
                messages = messages + [
                    {"role": "assistant", "content": response.text or ""},
                    {"role": "user", "content": f"That reply was rejected: {reason}. Reply again."},
                ]
        raise JudgeFailure(f"llm_verifier: reply rejected twice: {reason}")
