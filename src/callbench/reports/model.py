"""report.json, typed: what the report code builds, what is validated before it is written, and what
the HTML renderer, the leaderboard and `compare` read.

Fields present since the first report are required; every later one is optional (None when the
report predates it), so an older report.json still loads and its readers say "not available"
rather than guess. Sections the report code builds forbid unknown keys, so a misspelt key fails
the write; sections echoed from other layers (the run configuration, the caller and judge
settings, the store's counts) keep keys this version does not know. Non-finite numbers are
refused: JSON has no NaN.

`callbench schema report` prints the JSON Schema of this model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from ..errors import CallbenchError
from ..spec.generation_record import GenerationRecord

Pillar = Literal["task", "conversation", "overall"]


class Section(BaseModel):
    """A section the report code builds: unknown keys are an error."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    def has(self, name: str) -> bool:
        """Whether the report carried the field (an older report lacks it; None may mean 'nothing
        to measure')."""
        return name in self.model_fields_set


class EchoedSection(BaseModel):
    """A section copied from another layer: the fields read here are typed, others are kept."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)


class SuiteRef(Section):
    id: str
    version: str | None = None
    sha256: str


class RunSettings(EchoedSection):
    """The run configuration as the run recorded it (`RunConfig.as_dict()`)."""

    candidates: list[str] | None = None
    repeats: int | None = None
    seed: int | None = None
    caller: str | None = None
    scenarios: list[str] | None = None
    infra_reruns: int | None = None
    judge: str | None = None
    scoring: str | None = None
    step_timeout_s: float | None = None
    call_timeout_s: float | None = None


class Scoring(Section):
    mode: Literal["guards", "reference"]
    rule: str
    cutoff: float


class Gameability(Section):
    figure: float = Field(description="max(shortcut, spray) - noop on the task pillar")
    noop: float
    by: str
    baselines: dict[str, float]


class CallerInfo(EchoedSection):
    """The caller: scripted, lines or an LLM, with its model label and settings as recorded."""

    kind: str | None = None
    model: str | None = None


class JudgeInfo(EchoedSection):
    """The judge's model label, settings and prompt hashes as recorded."""

    model: str | None = None


class CandidateModel(EchoedSection):
    """The model behind an LLM candidate, as the candidate registry describes it."""

    spec: str | None = None


class CodeVersion(Section):
    package: str
    commit: str | None = Field(None, description="only when run from callbench's own checkout")
    dirty: bool | None = None


class Bootstrap(Section):
    samples: int
    levels: str
    seeded_by: str


class Interval(Section):
    estimate: float | None
    low: float | None
    high: float | None
    samples: int
    level: float


class Intervals(Section):
    task: Interval | None = None
    conversation: Interval | None = None
    overall: Interval | None = None


class Completion(Section):
    passed: int
    of: int
    rate: float | None
    wilson: tuple[float, float]


class CutoffCompletion(Completion):
    rule: str


class TransferRate(Section):
    """Calls a transfer tool ended, of the completed calls whose scorecard says (schema 4)."""

    transferred: int
    of: int
    rate: float | None
    wilson: tuple[float, float]


class Transfers(Section):
    """How often a candidate handed the call to a person (reports/slices_requests.py)."""

    tools: list[str] = Field(description="the suite's call-ending tools named transfer*")
    all: TransferRate
    by_persona: dict[str, TransferRate]


class ExclusionCount(Section):
    count: int
    passes: int


class Guards(Section):
    kept: int
    broken: int
    untested: int
    calls_with_a_broken_guard: int


class UsageRow(Section):
    """Tokens of one role over every attempt; cost_usd is absent (not null) when no price is
    known."""

    model: str | None = None
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int | None = None
    retries: int | None = None
    cost_usd: float | None = None

    @model_serializer(mode="wrap")
    def _drop_unknown_cost(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if out.get("cost_usd") is None:
            out.pop("cost_usd", None)
        return out


class Operational(Section):
    tokens: int | None = None
    tokens_per_call: float | None = None
    tokens_per_resolved_call: float | None = None
    cost_usd: float | None = None
    cost_per_call: float | None = None
    cost_per_resolved_call: float | None = None
    latency_p50_s: float | None = None
    latency_p90_s: float | None = None
    latency_p99_s: float | None = None
    response_latency_p50_s: float | None = Field(
        default=None, description="voice candidates: end of caller speech to first audio"
    )
    response_latency_p90_s: float | None = None
    response_latency_p99_s: float | None = None
    tool_calls_per_call: float | None = None


class ScenarioRow(Section):
    agent: str
    repeats: int
    task: float | None
    conversation: float | None = None
    overall: float | None = None
    passed_repeats: int
    end_reasons: list[str]


class CandidateRow(Section):
    """One candidate's figures (reports/summary.py), its intervals and pass^k."""

    attempted: int
    completed: int
    excluded: dict[str, int]
    exclusions: dict[str, ExclusionCount] | None = None
    coverage: float
    measured: bool
    unmeasured_cause: str | None = None
    task: float | None
    conversation: float | None
    overall: float | None
    pillars_complete: bool | None = None
    diagnostics: dict[str, float | None] | None = None
    judge_failures: int | None = None
    task_points: float
    task_max_points: float
    unmeasured_items: int
    calls_passed: int
    completion: Completion | None = None
    completion_at_cutoff: CutoffCompletion | None = None
    guards: Guards | None = None
    flake_rate: float | None = None
    flaky_scenarios: list[str] | None = None
    completion_by_repeat: list[float] | None = None
    caller_satisfied_but_failed: int | None = None
    caller_satisfied: int | None = None
    model_errors: int | None = None
    reruns: int | None = None
    usage: dict[str, UsageRow] | None = None
    operational: Operational | None = None
    scenarios: int
    scenarios_passed: int
    per_scenario: dict[str, ScenarioRow]
    intervals: Intervals | None = None
    pass_k: dict[str, float | None] | None = None
    completion_by_requests: dict[str, Completion] | None = Field(
        default=None,
        description="completion by the number of requests in the call (requests-N tags), keyed "
        "by N; None when the suite tags no call so",
    )
    transfers: Transfers | None = Field(
        default=None,
        description="transfer rate overall and by persona; None when no agent of the suite has a "
        "call-ending transfer tool or no scorecard records transfers",
    )

    def interval(self, pillar: Pillar) -> Interval | None:
        return getattr(self.intervals, pillar) if self.intervals else None

    def estimate(self, pillar: Pillar) -> float | None:
        """The interval's estimate, else the point score (a report from before intervals)."""
        iv = self.interval(pillar)
        if iv is not None and iv.estimate is not None:
            return iv.estimate
        score: float | None = getattr(self, pillar)
        return score

    def headline(self) -> float | None:
        """Overall, else task: what a ranking sorts by."""
        return self.overall if self.overall is not None else self.task


class Comparison(Section):
    a: str
    b: str
    n: int
    mean_diff: float | None
    low: float | None
    high: float | None
    wins: int
    losses: int
    ties: int
    level: float


class SliceCell(Section):
    calls: int
    scored: int | None = None
    scenarios: int
    mean: float | None
    pass_rate: float | None


Slices = dict[str, dict[str, dict[str, SliceCell]]]
"""slice kind (language, tags...) -> candidate -> slice value -> cell"""


class AudioCell(Section):
    """One candidate in one background condition through the audio channel."""

    calls: int
    completed: int = Field(description="calls with every deterministic check met")
    completion: float | None
    caller_wer: float | None = Field(description="word-weighted WER of the caller as heard")
    agent_wer: float | None = Field(description="word-weighted WER of the agent as heard")
    caller_words: int


AudioTable = dict[str, dict[str, AudioCell]]
"""candidate -> background condition -> cell"""


class StoreCounts(EchoedSection):
    """The run store's counts when the report was written (runs/runner.py adds them)."""

    attempts: int | None = None
    pending: int | None = None
    running: int | None = None
    completed: int | None = None
    excluded: int | None = None
    stopped_by_budget: bool | None = None
    spent_usd: float | None = None


class SealCheck(Section):
    """What `callbench verify-seal` found (sealing.py): the run's sealed scenarios against the
    commitments published before the run. Written into report.json by verify-seal."""

    split: str
    sealed_sha256: str = Field(description="sha256 of the sealed.json checked against")
    sealed: int = Field(description="scenarios the split seals")
    used: list[str] = Field(description="sealed scenarios the run used")
    verified: list[str] = Field(description="of them, those whose commitment holds")
    failed: list[str] = Field(description="of them, those whose file does not match")
    not_run: list[str] = Field(description="sealed scenarios the run did not use")
    suite_matches: bool = Field(description="the revealed suite is the one the run measured")
    official: bool = Field(description="every check above passed")
    reasons: list[str] = Field(default_factory=list, description="why it is not official")
    checked_at: str


class Report(Section):
    """report.json. `schema_version` says which fields a writer knew; readers rely on the types."""

    schema_version: int
    run_id: str | None = None
    suite: SuiteRef
    instructions_sha256: dict[str, str] | None = None
    run: RunSettings = Field(default_factory=RunSettings)
    scoring: Scoring | None = None
    gameability: Gameability | None = None
    caller: CallerInfo | None = None
    candidate_models: dict[str, CandidateModel] | None = None
    judge: JudgeInfo | None = None
    graders: list[str] | None = None
    rescored_from: str | None = None
    code: CodeVersion | None = None
    coverage_floor: float | None = None
    bootstrap: Bootstrap | None = None
    ranking: list[str] | None = None
    unmeasured: list[str] | None = None
    candidates: dict[str, CandidateRow]
    comparisons: list[Comparison] | None = None
    slices: Slices | None = None
    audio: AudioTable | None = Field(
        default=None, description="WER and completion by background condition (audio runs)"
    )
    manifest: dict[str, str] = Field(default_factory=dict)
    store: StoreCounts | None = None
    generation: GenerationRecord | None = Field(
        default=None, description="the suite's generation manifest as the run recorded it"
    )
    seal: SealCheck | None = Field(
        default=None, description="set by `callbench verify-seal`; None when never verified"
    )

    @property
    def official(self) -> bool:
        """A run on a sealed split whose commitments verified (`callbench verify-seal`)."""
        return self.seal is not None and self.seal.official

    def as_json(self) -> dict[str, Any]:
        """The report as report.json holds it (absent optional sections written as null)."""
        out: dict[str, Any] = self.model_dump(mode="json")
        if self.store is None:  # the runner adds it; a rebuilt or rescored report has none
            out.pop("store")
        return out

    def ranked(self) -> list[tuple[str, CandidateRow]]:
        """Candidates in the report's own ranking, then the rest by overall then task estimate."""
        order = [n for n in dict.fromkeys(self.ranking or []) if n in self.candidates]

        def key(item: tuple[str, CandidateRow]) -> tuple[bool, float, bool, float]:
            overall, task = item[1].estimate("overall"), item[1].estimate("task")
            return (overall is None, -(overall or 0), task is None, -(task or 0))

        rest = sorted(((n, r) for n, r in self.candidates.items() if n not in order), key=key)
        return [(n, self.candidates[n]) for n in order] + rest


def load_report(path: str | Path) -> Report:
    """A report.json file, validated; unreadable or invalid files raise CallbenchError naming the
    file and the first problem."""
    from pydantic import ValidationError

    path = Path(path)
    try:
        return Report.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise CallbenchError(f"{path}: not a readable report ({exc.__class__.__name__})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise CallbenchError(
            f"{path}: not a callbench report ({exc.error_count()} problem(s); first at {where}: "
            f"{first['msg']})"
        ) from None


def as_report(report: Report | dict[str, Any]) -> Report:
    """The typed report, from a report.json dict (as `build_report` returns and runs store)."""
    return report if isinstance(report, Report) else Report.model_validate(report)


def report_schema() -> dict[str, Any]:
    """The JSON Schema of report.json (draft 2020-12), as `callbench schema report` prints it."""
    schema: dict[str, Any] = Report.model_json_schema(by_alias=True)
    return schema
