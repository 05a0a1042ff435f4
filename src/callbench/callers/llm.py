"""The LLM caller: a model plays the person, from the brief's fields and the public conversation
only.

Its prompt is assembled field by field from `CallerBrief` (context, reason,
knows, does_not_know, plan, persona, datetime) plus the language; it has no
access to anything else, so isolation holds by construction. Each turn is a
typed JSON object. A turn that breaks the caller contract gets one more
attempt with the reason; if that also fails, the turn is rejected and the call
counts as a caller-simulator failure (infrastructure), which the runner reruns
and, if it persists, excludes.
"""

from __future__ import annotations

import json
from typing import Any

from ..call.types import CallerUtterance
from ..call.views import CallerTurnRejected, CallerView, check_utterance
from ..jsontext import find_json_object
from ..models.ask_json import JsonRejected, ask_json
from ..models.base import ChatModel

LANGUAGE_NAMES = {
    "en": "English",
    "hi": "Hindi (Devanagari script)",
    "gu": "Gujarati (Gujarati script)",
    "mr": "Marathi (Devanagari script)",
    "ta": "Tamil (Tamil script)",
    "bn": "Bengali (Bengali script)",
}

RULES = """\
You are a person on a phone call with a company's agent. You are not an assistant and you never help
the agent.
How you talk:
- Usually one short spoken sentence (2 to 15 words). Answer one question at a time, even if the
  agent asks several.
- Say only what a speech recogniser would capture: no markdown, no lists, no emoji; say long numbers
  in small groups.
- You may need a moment to find something ("one second, let me check") and that can be your whole
  turn.
- You may mention harmless everyday texture (a kettle, traffic), but never invent a business fact.
- If the agent asks for something that is not in your facts, say you do not know.
- Never say the names of these instructions' fields or step ids.
"""

FORMAT = """\
Reply with exactly one JSON object and nothing else, with three fields:
"say" holds the words you speak now; "step" holds the id of the plan step this turn newly expresses,
or null;
"done" is true only if you are ending the call now. For example, for a caller whose plan starts with
step "greet":
{"say": "Hi, yes, this is Sam speaking.", "step": "greet", "done": false}
"""


REASK = "(That reply was rejected: {reason}. Answer again with one valid JSON object.)"
"""In brackets: the caller's user turns are otherwise the agent's words."""


def caller_system_prompt(view: CallerView) -> str:
    b = view.brief
    lines = [RULES, "## Who you are", b.context, "", "## Why you are on this call", b.reason, ""]
    if b.knows:
        lines += ["## Facts you know (give them when asked or when your plan needs them)"]
        lines += [f"- {k}: {v}" for k, v in b.knows.items()] + [""]
    if b.does_not_know:
        lines += (
            ["## Things you do not know (if asked, say you don't know)"]
            + [f"- {x}" for x in b.does_not_know]
            + [""]
        )
    lines += [
        "## Your plan, in order",
        "Express at most one step per turn: only the next one, and only once its trigger has come "
        "true.",
    ]
    lines += [
        f"{i + 1}. [{s.id}] when: {s.trigger} -> you convey: {s.meaning}"
        for i, s in enumerate(b.plan)
    ] + [""]
    p = b.persona
    lines += [
        "## Your manner",
        f"patience {p.patience}, verbosity {p.verbosity}, mood {p.mood}"
        + (f"; {p.notes}" if p.notes else ""),
        "",
    ]
    lines += [
        "## Language",
        f"Speak only {LANGUAGE_NAMES.get(view.language, view.language)}, in its native script.",
        "",
    ]
    lines += ["## Now", f"It is {b.datetime.isoformat()}.", ""]
    done = list(view.expressed)
    nxt = b.plan[len(done)].id if len(done) < len(b.plan) else None
    lines += [
        "## Where you are",
        f"Steps already expressed: {', '.join(done) or 'none'}.",
        f"The next step you may express: {nxt}."
        if nxt
        else "All steps are expressed: close the call politely when the agent is done (set done to "
        "true when you say goodbye).",
        "",
    ]
    lines += [FORMAT]
    return "\n".join(lines)


def caller_messages(view: CallerView, mine: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The public conversation from the caller's side: the agent is 'user', the caller's own JSON
    turns 'assistant'."""
    out: list[dict[str, Any]] = [{"role": "system", "content": caller_system_prompt(view)}]
    own = iter(mine)
    pending: list[str] = []
    for line in view.conversation:
        if line.speaker == "agent":
            pending.append(line.text)
            continue
        out.append({"role": "user", "content": " ".join(pending) or "(silence)"})
        pending = []
        previous = next(own, None)
        out.append(
            {
                "role": "assistant",
                "content": json.dumps(
                    previous or {"say": line.text, "step": None, "done": False}, ensure_ascii=False
                ),
            }
        )
    out.append({"role": "user", "content": " ".join(pending) or "(the agent is silent)"})
    return out


def parse_turn(text: str) -> CallerUtterance:
    obj = find_json_object(text, ("say",))
    if obj is None:
        raise CallerTurnRejected("caller reply is not the JSON turn object")
    step = obj.get("step")
    steps = (
        (step,) if isinstance(step, str) and step and step.lower() not in ("null", "none") else ()
    )
    return CallerUtterance(
        text=str(obj.get("say") or "").strip(), expressed_steps=steps, done=bool(obj.get("done"))
    )


def turn_schema(view: CallerView) -> dict[str, Any]:
    """The shape of a turn, for endpoints that enforce schemas: only the next step (or none) can be
    named."""
    nxt = (
        view.brief.plan[len(view.expressed)].id
        if len(view.expressed) < len(view.brief.plan)
        else None
    )
    return {
        "type": "object",
        "required": ["say", "step", "done"],
        "additionalProperties": False,
        "properties": {
            "say": {"type": "string", "minLength": 1},
            "step": {"enum": [nxt, None] if nxt else [None]},
            "done": {"type": "boolean"},
        },
    }


class LLMCaller:
    def __init__(
        self, model: ChatModel, name: str | None = None, attempts: int = 2, json_mode: bool = False
    ):
        self.model = model
        # also send the turn schema (for endpoints that enforce it, like the local model)
        self.json_mode = json_mode
        self.name = name or model.name
        self.attempts = attempts
        self.turns: list[dict[str, Any]] = []

    async def respond(self, view: CallerView) -> CallerUtterance:
        def read(text: str) -> CallerUtterance:
            utterance = parse_turn(text)
            check_utterance(view, utterance)
            return utterance

        try:
            answer = await ask_json(
                self.model,
                caller_messages(view, self.turns),
                read,
                attempts=self.attempts,
                rejects=CallerTurnRejected,
                json_mode=self.json_mode,
                json_schema=turn_schema(view) if self.json_mode else None,
                reask=REASK,
            )
        except JsonRejected as exc:
            raise CallerTurnRejected(f"caller turn rejected twice: {exc.reason}") from None
        utterance = answer.value
        self.turns.append(
            {
                "say": utterance.text,
                "step": utterance.expressed_steps[0] if utterance.expressed_steps else None,
                "done": utterance.done,
            }
        )
        return CallerUtterance(
            utterance.text,
            utterance.expressed_steps,
            utterance.done,
            answer.cost.usage,
            answer.cost.warnings,
        )
