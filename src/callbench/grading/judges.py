"""LLM judges: a task judge for the scenario's judged criteria and a conversation judge for the
suite's
rated dimensions. Accountable by construction: every verdict carries the judge model, the hashes of
the
prompt template and of the rubric it was given, and its sampling settings.

The task judge sees the trace and the criteria (statement, anchors, instruction excerpts); it never
sees
the expected actions or the reference solution. A reply that is empty, malformed, misses an item or
cites
an index that is not in the trace gets one retry with the reason; a second failure is a judge
failure: the
items are not measured and the call is excluded and counted, never passed.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, ClassVar

from ..call.trace import RoleUsage, Trace
from ..jsontext import find_json_object
from ..models.ask_json import AskCost, JsonRejected, ask_json
from ..models.base import ChatModel
from ..spec import Scenario, SuiteManifest
from ..text import clean_json
from .base import R_OF, Graded, GraderFailure, ItemVerdict
from .scorecard import criterion_diagnostic, rating_diagnostic
from .transcript_text import numbered_transcript

TASK_PROMPT = """\
You grade one recorded phone call between a company's agent and a caller. You judge only what the
transcript shows: entries are numbered (#index); tool calls and their results are part of it.
For each criterion, choose exactly one label: "met", "partial" or "not_met", using the criterion's
anchors.
Cite as evidence the #indices of the entries that decide it (at least one), and give a one-sentence
rationale.
Reply with one JSON object only:
{"verdicts": [
  {"id": "<criterion id>", "label": "met|partial|not_met", "evidence": [<indices>],
   "rationale": "..."}
]}
"""

CONVERSATION_PROMPT = """\
You rate one recorded phone call between a company's agent and a caller, as the caller experienced
it.
Entries are numbered (#index). For each dimension give a rating from 1 (worst) to 5 (best) using its
description and anchors, cite the #indices that decide it (at least one), and give a one-sentence
rationale.
Reply with one JSON object only:
{"ratings": [
  {"id": "<dimension id>", "rating": <1-5>, "evidence": [<indices>], "rationale": "..."}
]}
"""


class JudgeFailure(GraderFailure):
    """The judge did not return a usable verdict twice: the call cannot be graded and is
    excluded (what the judge's requests cost is kept in `usage`)."""


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def role_usage(cost: AskCost) -> RoleUsage:
    """What a judge's questions cost, as the scorecard records a role's usage: one call per
    request."""
    u = cost.usage
    return RoleUsage(
        calls=cost.requests,
        prompt_tokens=u.prompt_tokens,
        completion_tokens=u.completion_tokens,
        cached_tokens=u.cached_tokens,
        retries=u.retries,
    )


class _Judge:
    prompt: ClassVar[str]
    key: ClassVar[str]
    name: str

    def __init__(self, model: ChatModel, label: str | None = None):
        self.model = model
        self.label = label or model.name

    def accountability(self, rubric: str) -> dict[str, Any]:
        s = self.model.settings
        return {
            "model": self.label,
            "prompt_sha256": sha(self.prompt),
            "rubric_sha256": sha(rubric),
            "temperature": s.temperature,
            "seed": s.seed,
        }

    async def _ask(
        self, rubric: str, transcript: str, ids: list[str], trace: Trace
    ) -> tuple[dict[str, dict], RoleUsage]:
        """The judge's verdicts by id, and what asking cost (re-asks included)."""
        messages = [
            {"role": "system", "content": self.prompt},
            {
                "role": "user",
                "content": f"## Transcript\n{transcript}\n\n## {self.key.title()} to "
                f"judge\n{rubric}",
            },
        ]
        try:
            answer = await ask_json(
                self.model, messages, lambda text: self._validate(text, ids, len(trace.messages))
            )
        except JsonRejected as exc:
            raise JudgeFailure(
                f"{self.name}: reply rejected twice: {exc.reason}", role_usage(exc.cost)
            ) from None
        return answer.value, role_usage(answer.cost)

    @staticmethod
    def _check_value(item: dict) -> None:
        raise NotImplementedError

    def _validate(self, text: str, ids: list[str], n_messages: int) -> dict[str, dict]:
        if not text.strip():
            raise ValueError("the reply is empty")
        obj = clean_json(
            find_json_object(text, (self.key,))
        )  # a judge's words are outside text too
        if obj is None or not isinstance(obj.get(self.key), list):
            raise ValueError(f"the reply is not a JSON object with a '{self.key}' list")
        found: dict[str, dict] = {}
        for item in obj[self.key]:
            if not isinstance(item, dict) or item.get("id") not in ids:
                raise ValueError(f"unknown or missing id in {item!r:.80}")
            evidence = item.get("evidence")
            if (
                not isinstance(evidence, list)
                or not evidence
                or not all(isinstance(i, int) and not isinstance(i, bool) for i in evidence)
            ):
                raise ValueError(
                    f"'{item['id']}': evidence must be a non-empty list of entry indices"
                )
            bad = [i for i in evidence if not 0 <= i < n_messages]
            if bad:
                raise ValueError(
                    f"'{item['id']}': evidence cites {bad}, which are not entries of the "
                    f"transcript (0-{n_messages - 1})"
                )
            self._check_value(item)
            found[item["id"]] = item
        missing = [i for i in ids if i not in found]
        if missing:
            raise ValueError(f"no verdict for {missing}")
        return found


class TaskJudge(_Judge):
    name, prompt, key = "task_judge", TASK_PROMPT, "verdicts"

    @staticmethod
    def _check_value(item: dict) -> None:
        if item.get("label") not in R_OF:
            raise ValueError(f"'{item['id']}': label must be met, partial or not_met")

    async def agrade(
        self, trace: Trace, scenario: Scenario, suite: SuiteManifest, reverse: bool = False
    ) -> Graded:
        if not scenario.criteria:
            return Graded([])
        criteria = list(reversed(scenario.criteria)) if reverse else list(scenario.criteria)
        rubric = json.dumps(
            [
                {
                    "id": c.id,
                    "statement": c.statement,
                    "anchors": c.anchors.model_dump(),
                    "instruction_excerpts": c.excerpts,
                }
                for c in criteria
            ],
            ensure_ascii=False,
            indent=1,
        )
        found, usage = await self._ask(
            rubric, numbered_transcript(trace), [c.id for c in criteria], trace
        )
        info = self.accountability(rubric)
        verdicts = [
            ItemVerdict(
                id=c.id,
                kind="criterion",
                pillar=c.pillar,
                weight=c.weight,
                label=found[c.id]["label"],
                r=R_OF[found[c.id]["label"]],
                grader=self.name,
                diagnostic=criterion_diagnostic(c),
                evidence=sorted(set(found[c.id]["evidence"])),
                detail=str(found[c.id].get("rationale", ""))[:500],
                judge=info,
                guard=c.guard,
            )
            for c in scenario.criteria
        ]
        return Graded(verdicts, usage)


class ConversationJudge(_Judge):
    name, prompt, key = "conversation_judge", CONVERSATION_PROMPT, "ratings"

    @staticmethod
    def _check_value(item: dict) -> None:
        rating = item.get("rating")
        if not isinstance(rating, int) or isinstance(rating, bool) or not 1 <= rating <= 5:
            raise ValueError(f"'{item['id']}': rating must be an integer from 1 to 5")

    async def agrade(
        self, trace: Trace, scenario: Scenario, suite: SuiteManifest, reverse: bool = False
    ) -> Graded:
        dims = (
            list(reversed(suite.conversation_criteria))
            if reverse
            else list(suite.conversation_criteria)
        )
        if not dims:
            return Graded([])
        rubric = json.dumps(
            [
                {
                    "id": d.id,
                    "description": d.statement,
                    "anchors": d.anchors.model_dump() if d.anchors else None,
                }
                for d in dims
            ],
            ensure_ascii=False,
            indent=1,
        )
        found, usage = await self._ask(
            rubric, numbered_transcript(trace, show_intended=False), [d.id for d in dims], trace
        )
        info = self.accountability(rubric)
        out = []
        for d in suite.conversation_criteria:
            g = found[d.id]["rating"]
            out.append(
                ItemVerdict(
                    id=d.id,
                    kind="conversation",
                    pillar="conversation",
                    weight=d.weight,
                    label="met" if g >= 4 else ("partial" if g == 3 else "not_met"),
                    r=(g - 1) / 4,
                    rating=g,
                    grader=self.name,
                    diagnostic=rating_diagnostic(d),
                    evidence=sorted(set(found[d.id]["evidence"])),
                    detail=str(found[d.id].get("rationale", ""))[:500],
                    judge=info,
                )
            )
        return Graded(out, usage)
