"""Folding verdicts into pillars and an overall score.

A pillar is 100·Σw·r/Σw over its measured items. Items nobody could measure
(judged criteria without a judge) enter neither sum and are counted, so a
pillar built from part of its items says so. The overall score exists only
when both pillars were measured in full; it is never guessed.

Two scoring modes fold the same verdicts:
* `guards` (the default): a guard (a forbidden action, a verification or
  disclosure gate, a "never say" check, a refusal's no-write condition, an
  obligation such as verifying first) enters neither side when kept, and
  enters with its weight and r = 0 when broken, which also fails the call. So
  doing nothing, or only the ritual, earns nothing; what was achieved earns
  points and what was broken costs them.
* `reference`: every applicable item on both sides, kept guards included, as
  published phone-agent benchmarks define the pillar, so results can be set
  beside their figures.
A scorecard carries both; `Scorecard.in_mode` picks the one a report uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..call.trace import Failure, RoleUsage, Trace
from ..errors import InfrastructureError
from ..spec import Criterion, Scenario, SuiteManifest
from ..spec.suite import ConversationCriterion
from .actions import ActionGrader
from .base import CodeGrader, Grader, GraderFailure, ItemVerdict
from .diagnostics import CONVERSATION_DIAGNOSTIC, diagnostic_scores
from .scripts import LanguageDetector

SCORECARD_SCHEMA_VERSION = 2
SCORING_MODES = ("guards", "reference")
CUTOFF = 70.0
"""The provisional success cutoff on the task pillar (uncalibrated; completion is also reported
without it)."""


class Pillar(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: float | None = Field(
        description="100·Σw·r/Σw over measured items; None when nothing was measured"
    )
    points: float = Field(description="Σw·r over measured items (raw, for re-weighting)")
    max_points: float = Field(description="Σw over measured items")
    measured_items: int
    unmeasured_items: int
    unmeasured_weight: int


class PillarSet(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task: Pillar
    conversation: Pillar
    overall: float | None


class GuardSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kept: list[str] = Field(default_factory=list)
    broken: list[str] = Field(default_factory=list)
    untested: list[str] = Field(
        default_factory=list, description="never put to the test (no protected tool called...)"
    )


class AudioSummary(BaseModel):
    """How the call sounded through the audio channel: word error rates (weighted by the words
    meant) of the caller as the candidate's recogniser heard it and of the agent as the caller's
    heard it, the background, and the seconds of audio and of recognition."""

    model_config = ConfigDict(extra="forbid")

    background: str
    caller_fragments: int
    caller_words: int
    caller_wer: float | None
    agent_fragments: int
    agent_words: int
    agent_wer: float | None
    audio_seconds: float
    recognise_seconds: float


def audio_summary(trace: Trace) -> AudioSummary | None:
    if trace.channel != "audio":
        return None
    caller = [r for t in trace.caller_turns for r in t.audio]
    agent = list(trace.agent_audio)

    def weighted(records: list[Any]) -> tuple[int, float | None]:
        records = [r for r in records if r.wer is not None]
        words = [max(1, len(r.intended.split())) for r in records]
        total = sum(words)
        if not total:
            return 0, None
        return total, round(sum(r.wer * w for r, w in zip(records, words)) / total, 4)

    caller_words, caller_wer = weighted(caller)
    agent_words, agent_wer = weighted(agent)
    every = caller + agent
    return AudioSummary(
        background=caller[0].background if caller else "clean",
        caller_fragments=len(caller),
        caller_words=caller_words,
        caller_wer=caller_wer,
        agent_fragments=len(agent),
        agent_words=agent_words,
        agent_wer=agent_wer,
        audio_seconds=round(sum(r.audio_seconds for r in every), 3),
        recognise_seconds=round(sum(r.recognise_seconds for r in every), 3),
    )


class Scorecard(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCORECARD_SCHEMA_VERSION
    trace_id: str
    scenario_id: str
    agent_id: str
    candidate: str
    repeat: int
    conditions: dict[str, str] = Field(
        default_factory=dict, description="persona and background the suite's casting assigned"
    )
    outcome: Literal["completed", "excluded"]
    end_reason: str | None
    items: list[ItemVerdict]
    scoring: Literal["guards", "reference"] = Field(
        default="guards", description="the mode task/conversation/overall are in"
    )
    task: Pillar
    conversation: Pillar
    overall: float | None
    other_mode: PillarSet | None = Field(
        default=None, description="the same verdicts folded in the other scoring mode"
    )
    guards: GuardSummary = Field(default_factory=GuardSummary)
    diagnostics: dict[str, float | None] = Field(
        default_factory=dict, description="ten diagnostics, 0-100 or None"
    )
    deterministic_passed: bool = Field(description="every deterministic item of the call was met")
    graders: list[str]
    failure: Failure | None = None
    reruns: int = 0
    usage: dict[str, RoleUsage] = Field(
        default_factory=dict, description="tokens by role (operational, not graded)"
    )
    models: dict[str, str] = Field(
        default_factory=dict, description="who played each role (candidate, caller)"
    )
    candidate_latency_s: list[float] = Field(
        default_factory=list, description="seconds per candidate response (operational)"
    )
    response_latency_s: list[float] = Field(
        default_factory=list,
        description="a voice candidate's response latencies (end of caller speech to first audio)",
    )
    audio: AudioSummary | None = Field(
        default=None, description="the call through the audio channel (None: the text channel)"
    )
    tool_calls: int = 0
    caller_satisfied: bool = Field(
        default=False,
        description="the caller ended the call itself after expressing its whole plan",
    )
    completed_call: bool = Field(
        default=False,
        description="all deterministic items met, whatever the outcome (to count excluded passes)",
    )
    transferred: bool | None = Field(
        default=None,
        description="the call ended on a successful call-ending tool named transfer* (handed to "
        "a person); None on a scorecard written before the field",
    )

    @property
    def cutoff_passed(self) -> bool:
        """Completed, no guard broken, and the task pillar at or above the provisional cutoff."""
        return (
            self.outcome == "completed"
            and not self.guards.broken
            and (self.task.score or 0.0) >= CUTOFF
        )

    def in_mode(self, mode: str) -> Scorecard:
        """This scorecard with task, conversation and overall in `mode` (the other kept in
        `other_mode`)."""
        if mode not in SCORING_MODES:
            raise ValueError(f"unknown scoring mode {mode!r} (one of {', '.join(SCORING_MODES)})")
        if mode == self.scoring or self.other_mode is None:
            return self
        current = PillarSet(task=self.task, conversation=self.conversation, overall=self.overall)
        o = self.other_mode
        return self.model_copy(
            update={
                "scoring": mode,
                "task": o.task,
                "conversation": o.conversation,
                "overall": o.overall,
                "other_mode": current,
            }
        )


def criterion_diagnostic(criterion: Criterion) -> str:
    """An author may name the diagnostic; otherwise a criterion quoting the instructions is about a
    rule."""
    return criterion.diagnostic or (
        "rule_compliance" if criterion.excerpts else "action_correctness"
    )


def rating_diagnostic(criterion: ConversationCriterion) -> str:
    return criterion.diagnostic or CONVERSATION_DIAGNOSTIC.get(criterion.id, "speakable_replies")


def pillar(items: Iterable[ItemVerdict], mode: str = "guards") -> Pillar:
    items = list(items)
    measured = [
        i for i in items if i.r is not None and not (mode == "guards" and i.guard and not i.broken)
    ]
    unmeasured = [i for i in items if i.r is None and i.label == "not_measured"]
    max_points = float(sum(i.weight for i in measured))
    # a broken guard enters with r = 0 whatever its label (a judged "partial" on a "never do X" rule
    # is broken)
    points = float(
        sum(
            i.weight * (0.0 if (mode == "guards" and i.broken) or i.r is None else i.r)
            for i in measured
        )
    )
    return Pillar(
        score=100.0 * points / max_points if max_points else None,
        points=points,
        max_points=max_points,
        measured_items=len(measured),
        unmeasured_items=len(unmeasured),
        unmeasured_weight=sum(i.weight for i in unmeasured),
    )


def earned_with_the_task(conversation: Pillar, task: Pillar) -> Pillar:
    """Guards mode: conversation points are earned in proportion to the task pillar.

    Most conversation checks ask that nothing bad was said (no markdown, numbers said as words,
    the caller's script, speech around tools), so silence passes them: a noop scored 80 on the
    conversation pillar of every built-in suite, and a script that recites a farewell more. How an
    agent spoke counts only as far as the call got done; the reference formula (`--scoring
    reference`) keeps the pillars apart, as published benchmarks do. A scenario without task items
    leaves the conversation pillar as it is."""
    if task.score is None or conversation.score is None:
        return conversation
    share = task.score / 100.0
    points = conversation.points * share
    return conversation.model_copy(
        update={"points": points, "score": 100.0 * points / conversation.max_points}
    )


def not_measured(scenario: Scenario, suite: SuiteManifest, graded: set[str]) -> list[ItemVerdict]:
    """Judged items that no grader covered: listed, weighted, never scored."""
    out = []
    for c in scenario.criteria:
        if c.id not in graded:
            out.append(
                ItemVerdict(
                    id=c.id,
                    kind="criterion",
                    pillar=c.pillar,
                    weight=c.weight,
                    label="not_measured",
                    r=None,
                    grader="none",
                    diagnostic=criterion_diagnostic(c),
                    guard=c.guard,
                    detail="judged criterion; no judge was configured",
                )
            )
    for d in suite.conversation_criteria:
        if d.id not in graded:
            out.append(
                ItemVerdict(
                    id=d.id,
                    kind="conversation",
                    pillar="conversation",
                    weight=d.weight,
                    label="not_measured",
                    r=None,
                    grader="none",
                    diagnostic=rating_diagnostic(d),
                    detail="conversation rating; no judge was configured",
                )
            )
    return out


def score_trace(
    trace: Trace,
    scenario: Scenario,
    suite: SuiteManifest,
    graders: Sequence[CodeGrader] | None = None,
) -> Scorecard:
    """Score with the deterministic checks only (synchronous); see `score_trace_async` for
    judges."""
    graders = list(graders) if graders is not None else default_graders()
    items: list[ItemVerdict] = []
    for grader in graders:
        items += grader.grade(trace, scenario, suite)
    return _card(trace, scenario, suite, graders, items, None, [])


async def score_trace_async(
    trace: Trace,
    scenario: Scenario,
    suite: SuiteManifest,
    graders: Sequence[Grader] | None = None,
) -> Scorecard:
    """Score with any graders. Those that ask a model (every grader but the deterministic
    `CodeGrader`s) skip excluded calls, and a grader's failure excludes the call (recorded and
    counted) instead of letting it pass. Usage is what each grader reports per request."""
    graders = list(graders) if graders is not None else default_graders()
    items: list[ItemVerdict] = []
    usages: list[RoleUsage] = []
    failure: Failure | None = None
    for grader in graders:
        if isinstance(grader, CodeGrader):
            items += grader.grade(trace, scenario, suite)
            continue
        if trace.outcome != "completed":
            continue
        try:
            graded = await grader.agrade(trace, scenario, suite)
        except InfrastructureError as exc:
            failure = Failure(
                failure_class="infrastructure",
                kind=type(exc).__name__,
                detail=str(exc),
                retryable=False,
            )
            if isinstance(exc, GraderFailure) and exc.usage is not None:
                usages.append(exc.usage)
            continue
        items += graded.verdicts
        if graded.usage is not None:
            usages.append(graded.usage)
    return _card(trace, scenario, suite, graders, items, failure, usages)


def default_graders(language_detector: LanguageDetector = "script") -> list[CodeGrader]:
    """The deterministic graders of every run; `language_detector` is the run's recorded setting
    for telling apart languages that share a script ("script" needs nothing installed)."""
    from .conversation_checks import ConversationChecks
    from .phrase_checks import PhraseChecks
    from .spoken_checks import SpokenChecks
    from .state_checks import StateChecks

    return [
        ActionGrader(),
        ConversationChecks(language_detector=language_detector),
        SpokenChecks(),
        PhraseChecks(),
        StateChecks(),
    ]


def _sum_usage(usages: Iterable[RoleUsage]) -> RoleUsage:
    total = RoleUsage()
    for u in usages:
        total.calls += u.calls
        total.prompt_tokens += u.prompt_tokens
        total.completion_tokens += u.completion_tokens
        total.cached_tokens += u.cached_tokens
        total.retries += u.retries
    return total


def _card(
    trace: Trace,
    scenario: Scenario,
    suite: SuiteManifest,
    graders: Sequence[Grader | CodeGrader],
    items: list[ItemVerdict],
    judge_failure: Failure | None,
    judge_usages: list[RoleUsage],
) -> Scorecard:
    """`judge_usages`: one entry per grader that asked a model, each counting its requests."""
    if (
        judge_failure is not None
    ):  # nothing a failed judge said is kept: its items are simply not measured
        items = [i for i in items if i.judge is None]
    items += not_measured(scenario, suite, {i.id for i in items})
    guards_mode, reference_mode = (_pillars(items, m) for m in SCORING_MODES)
    deterministic = [i for i in items if i.judge is None and i.r is not None]
    outcome = "excluded" if judge_failure is not None else trace.outcome
    usage = dict(trace.usage)
    models = {"candidate": trace.candidate, "caller": trace.caller}
    if judge_usages:
        usage["judge"] = _sum_usage(judge_usages)
    judge = next((i.judge for i in items if i.judge), None)
    if judge is not None:
        models["judge"] = judge["model"]
    return Scorecard(
        trace_id=trace.id,
        scenario_id=trace.scenario_id,
        agent_id=trace.agent_id,
        candidate=trace.candidate,
        repeat=trace.repeat,
        conditions=dict(trace.conditions),
        outcome=outcome,
        end_reason=trace.end.reason if trace.end else None,
        items=items,
        scoring="guards",
        task=guards_mode.task,
        conversation=guards_mode.conversation,
        overall=guards_mode.overall,
        other_mode=reference_mode,
        guards=_guard_summary(items),
        diagnostics=diagnostic_scores(items),
        deterministic_passed=outcome == "completed" and all(i.r == 1.0 for i in deterministic),
        graders=[g.name for g in graders],
        failure=judge_failure or trace.failure,
        reruns=len(trace.reruns),
        usage=usage,
        models=models,
        candidate_latency_s=[round(x, 6) for x in trace.timings.candidate_seconds],
        response_latency_s=list(trace.timings.response_latency_seconds),
        audio=audio_summary(trace),
        tool_calls=len(trace.tool_events),
        caller_satisfied=_caller_satisfied(trace, scenario),
        completed_call=bool(deterministic) and all(i.r == 1.0 for i in deterministic),
        transferred=transferred(trace),
    )


TRANSFER_PREFIX = "transfer"
"""A call-ending tool whose name starts with this hands the call to a person (transfer_to_human)."""


def is_transfer_tool(name: str) -> bool:
    return name.startswith(TRANSFER_PREFIX)


def transferred(trace: Trace) -> bool:
    """Whether a call-ending transfer tool ended the call: the tool was offered as call-ending, was
    called, and its result met its success condition. Saying "I'll transfer you" is not a
    transfer, and neither is a transfer tool the world refused (the call went on)."""
    return any(
        e.known_tool and e.ends_call_tool and e.ended_call and is_transfer_tool(e.name)
        for e in trace.tool_events
    )


def _pillars(items: list[ItemVerdict], mode: str) -> PillarSet:
    task = pillar((i for i in items if i.pillar == "task"), mode)
    conversation = pillar((i for i in items if i.pillar == "conversation"), mode)
    if mode == "guards":
        conversation = earned_with_the_task(conversation, task)
    # the overall score needs both pillars whole: a pillar missing its judged items (no judge) would
    # let
    # well-formed silence (the noop) look half good
    whole = task.unmeasured_items == 0 and conversation.unmeasured_items == 0
    overall = None
    if whole and task.score is not None and conversation.score is not None:
        overall = (task.score + conversation.score) / 2
    return PillarSet(task=task, conversation=conversation, overall=overall)


def _guard_summary(items: list[ItemVerdict]) -> GuardSummary:
    guards = [i for i in items if i.guard]
    return GuardSummary(
        kept=[i.id for i in guards if i.r is not None and not i.broken],
        broken=[i.id for i in guards if i.broken],
        untested=[i.id for i in guards if i.r is None],
    )


def _caller_satisfied(trace: Trace, scenario: Scenario) -> bool:
    """The closest our callers come to saying 'my goal was met': they hung up themselves, plan
    complete."""
    expressed = {s for t in trace.caller_turns for s in t.expressed_steps}
    return bool(trace.end and trace.end.reason == "caller") and all(
        s.id in expressed for s in scenario.caller.plan
    )
