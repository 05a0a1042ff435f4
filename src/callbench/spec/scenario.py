"""Scenarios: one call to simulate, with everything needed to run it and grade it.

Who sees what is enforced by which part reads which field: the caller reads
`caller`; the candidate reads the agent definition and `call_context`; the
backend reads `backend`; graders read `expected_actions` and `criteria`; only
the oracle reads `reference`.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from .base import Identifier, SpecModel
from .matchers import Matcher
from .service import HttpBackendSpec, ServiceBackendSpec
from .state import ExpectedChanges, Gates, Refusal, StateBackendSpec, StateExpectation

Weight = Annotated[int, Field(ge=1, le=3)]


class Persona(SpecModel):
    patience: Literal["low", "medium", "high"] = "medium"
    verbosity: Literal["terse", "normal", "chatty"] = "normal"
    mood: Literal["calm", "angry", "anxious", "confused"] = "calm"
    notes: str = ""


class PlanStep(SpecModel):
    """One intention: it fires only when `trigger` is true, and the caller then conveys `meaning`.

    For the scripted caller, `cue` words must occur in the question or request that ends the agent's
    turn;
    the first step may have none, and then any question ending the agent's opening turn fires it
    (the
    greeting's "how can I help?")."""

    id: Identifier
    trigger: str = Field(min_length=1)
    meaning: str = Field(min_length=1)
    say: str | None = Field(default=None, description="canonical line for the scripted caller")
    cue: list[str] = Field(
        default_factory=list,
        description="words that make the trigger true when they occur in "
        "the question or request ending the agent's turn",
    )


class CallerBrief(SpecModel):
    context: str = Field(min_length=1)
    reason: str = Field(min_length=1)
    knows: dict[str, Any] = Field(default_factory=dict)
    does_not_know: list[str] = Field(default_factory=list)
    persona: Persona = Field(default_factory=Persona)
    datetime: dt.datetime
    plan: list[PlanStep] = Field(min_length=1)


class QueueEntry(SpecModel):
    expect: dict[str, Matcher] = Field(default_factory=dict)
    respond: Any
    mismatch: Any = Field(
        default_factory=lambda: {"status": "error", "message": "the request could not be processed"}
    )


class QueueBackendSpec(SpecModel):
    kind: Literal["queue"]
    hidden: dict[str, Any] = Field(default_factory=dict)
    queues: dict[str, list[QueueEntry]] = Field(default_factory=dict)
    defaults: dict[str, Any] = Field(default_factory=dict)


BackendSpec = Annotated[
    QueueBackendSpec | StateBackendSpec | ServiceBackendSpec | HttpBackendSpec,
    Field(discriminator="kind"),
]


class _Event(SpecModel):
    """Events are keyed to a caller turn number or to the plan step being expressed.

    `step` is the robust choice: with an LLM caller, the turn on which a step is
    expressed varies, but the damage should still land on that step's words.
    """

    turn: int | None = Field(default=None, ge=1)
    step: Identifier | None = None

    @model_validator(mode="after")
    def _one_anchor(self):
        if (self.turn is None) == (self.step is None):
            raise ValueError("a channel event needs exactly one of 'turn' or 'step'")
        return self


class Substitute(_Event):
    kind: Literal["substitute"]
    span: str = Field(min_length=1)
    with_: str = Field(alias="with")


class Drop(_Event):
    kind: Literal["drop"]
    span: str = Field(min_length=1)


class Double(_Event):
    kind: Literal["double"]
    span: str = Field(min_length=1)


class Split(_Event):
    """A VAD split: the turn is cut right after each span in `after` (so at most three
    fragments)."""

    kind: Literal["split"]
    after: list[str] = Field(min_length=1, max_length=2)


ChannelEvent = Annotated[Substitute | Drop | Double | Split, Field(discriminator="kind")]


class ChannelProgram(SpecModel):
    seeded_first_turn: bool = False
    events: list[ChannelEvent] = Field(default_factory=list)


class Count(SpecModel):
    exactly: int | None = Field(default=None, ge=0)
    min: int | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _coherent(self) -> Count:
        if self.exactly is not None and (self.min is not None or self.max is not None):
            raise ValueError("use either 'exactly' or 'min'/'max', not both")
        if self.exactly is None and self.min is None and self.max is None:
            raise ValueError("a count needs 'exactly', 'min' or 'max'")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is greater than max {self.max}")
        return self

    def holds(self, n: int) -> bool:
        if self.exactly is not None:
            return n == self.exactly
        return (self.min is None or n >= self.min) and (self.max is None or n <= self.max)

    @property
    def forbids(self) -> bool:
        return self.exactly == 0 or self.max == 0

    def __str__(self) -> str:
        if self.exactly is not None:
            return f"exactly {self.exactly}"
        parts = ([f"at least {self.min}"] if self.min is not None else []) + (
            [f"at most {self.max}"] if self.max is not None else []
        )
        return " and ".join(parts)


class ExpectedAction(SpecModel):
    id: Identifier
    tool: Identifier
    description: str = ""
    args: dict[str, Matcher] = Field(default_factory=dict)
    result: dict[str, Matcher] = Field(
        default_factory=dict,
        description="matchers over top-level fields of the tool's result: only calls whose result "
        "matches count "
        "(e.g. {status: {eq: ended}} to require that the call really ended)",
    )
    count: Count = Field(default_factory=lambda: Count(min=1))
    after: list[Identifier] = Field(
        default_factory=list,
        description=(
            "expected actions whose first counted call, or plan steps whose caller turn, must come "
            "before this action's "
            "first counted call"
        ),
    )
    weight: Weight = 1
    guard: bool = Field(
        default=False,
        description="an obligation rather than an achievement (verify first, end the "
        "call through the tool, look before acting): kept it earns nothing, broken it costs its "
        "weight "
        "and fails the call. Forbidden actions (count 0) are always guards",
    )

    @property
    def is_guard(self) -> bool:
        return self.guard or self.count.forbids


class Anchors(SpecModel):
    met: str = Field(min_length=1)
    partial: str = Field(min_length=1)
    not_met: str = Field(min_length=1)


Diagnostic = Literal[
    "action_correctness",
    "argument_accuracy",
    "outcome_state",
    "rule_compliance",
    "stated_facts",
    "memory",
    "speech_around_tools",
    "speakable_replies",
    "language_and_script",
    "closing",
]


class Criterion(SpecModel):
    id: Identifier
    pillar: Literal["task", "conversation"] = "task"
    diagnostic: Diagnostic | None = None
    weight: Weight = 1
    statement: str = Field(min_length=1)
    anchors: Anchors
    excerpts: list[str] = Field(default_factory=list)
    guard: bool = Field(
        default=False,
        description="a 'never say or do X' rule: met earns nothing, not met costs "
        "its weight and fails the call",
    )


class SpokenCheck(SpecModel):
    """A value the agent must (or must not) say, decided by code from the transcript.

    `value` may reference `${hidden.x}`; `after`/`before` name an expected action (its first
    matching call)
    or a plan step (the caller turn that expressed it) bounding the window ("stated the arrears
    before the
    payment was made"); every check names at least one, and a window whose anchor never happened is
    closed.
    `topic` words must occur in the same sentence; `unit` keeps a count of payments from satisfying
    a number
    of months. Only speech a person could follow counts as evidence (see `followable_words`); `must:
    not_state` checks are guards and read every message.
    """

    id: Identifier
    description: str = ""
    kind: Literal["amount", "number", "date", "identifier"]
    value: Any
    tolerance: float = Field(default=0.0, ge=0)
    unit: str | None = None
    speaker: Literal["candidate", "caller", "any"] = "candidate"
    topic: list[str] = Field(default_factory=list)
    after: Identifier | None = None
    before: Identifier | None = None
    must: Literal["state", "not_state"] = "state"
    weight: Weight = 1


class PhraseCheck(SpecModel):
    """Words the agent must say (`terms`, within a window, in speech a person could follow) or must
    never say
    (`terms` or regular-expression `patterns`, anywhere: a guard). For claims that are not a value:
    "no change fee", "instant refund", a card number read out in full."""

    id: Identifier
    description: str = ""
    terms: list[str] = Field(
        default_factory=list, description="phrases matched at word starts, case-insensitive"
    )
    patterns: list[str] = Field(
        default_factory=list, description="regular expressions, case-insensitive (not_say only)"
    )
    must: Literal["say", "not_say"] = "say"
    after: Identifier | None = None
    before: Identifier | None = None
    weight: Weight = 1

    @model_validator(mode="after")
    def _something(self) -> PhraseCheck:
        if not self.terms and not self.patterns:
            raise ValueError("a phrase check needs 'terms' or 'patterns'")
        if self.patterns and self.must == "say":
            raise ValueError(
                "'patterns' are for must: not_say; a phrase to say is given as 'terms'"
            )
        for p in self.patterns:
            try:
                re.compile(p)
            except re.error as exc:
                raise ValueError(f"pattern {p!r} is not a regular expression: {exc}") from None
        return self


class ReferenceCall(SpecModel):
    tool: Identifier
    args: dict[str, Any] = Field(default_factory=dict)


class ReferenceTurn(SpecModel):
    """One oracle message: speech and/or tool calls.

    An entry normally opens a new candidate turn (after the caller has spoken);
    `same_turn: true` plays it right after the previous entry's tool results
    instead, so a reference can look something up and act on the answer before
    the caller speaks again.
    """

    say: str | None = None
    calls: list[ReferenceCall] = Field(default_factory=list)
    same_turn: bool = False

    @model_validator(mode="after")
    def _not_empty(self) -> ReferenceTurn:
        if not self.say and not self.calls:
            raise ValueError("a reference turn needs 'say', 'calls' or both")
        return self


CONVERSATION_CHECK_IDS = ("speakable", "numbers_spoken", "script", "tool_speech", "goodbye")
"""The verdict ids of the deterministic conversation checks every call gets
(`grading/conversation_checks.py` runs them). They are defined here, in the lowest layer that needs
them, because a scenario's own verdicts must not reuse them: suite validation rejects such ids, and
grading imports this tuple rather than keeping a copy that could drift."""


class Scenario(SpecModel):
    id: Identifier
    agent: Identifier
    title: str = ""
    language: str = Field(min_length=2)
    difficulty: Literal["easy", "medium", "hard"] = "medium"
    tags: list[str] = Field(default_factory=list)
    call_context: dict[str, Any] = Field(
        default_factory=dict,
        description="facts the deployment hands the candidate when the call starts (caller id, the "
        "member being called)",
    )
    caller: CallerBrief
    backend: BackendSpec
    channel: ChannelProgram = Field(default_factory=ChannelProgram)
    expected_actions: list[ExpectedAction] = Field(default_factory=list)
    criteria: list[Criterion] = Field(default_factory=list)
    spoken_checks: list[SpokenCheck] = Field(default_factory=list)
    phrase_checks: list[PhraseCheck] = Field(default_factory=list)
    expected_state: StateExpectation | None = None
    expected_changes: ExpectedChanges | None = None
    refusal: Refusal | None = None
    gates: Gates | None = None
    reference: list[ReferenceTurn] = Field(min_length=1)
