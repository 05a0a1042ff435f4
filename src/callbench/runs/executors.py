"""Executors: who runs the attempts of a sweep. The driver alone writes the store, whatever runs the
calls.

Executor protocol   run(attempts, job, deliver, stop)
LocalExecutor       asyncio workers in this process, a global concurrency limit
InlineExecutor      one at a time, optionally "crashing" after N calls (the fake, for resume tests)
RayExecutor         Ray tasks on a cluster (runs/ray_executor.py, optional extra)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..call import Trace
from ..grading import CodeGrader, Grader, ItemVerdict, Scorecard
from ..models import close_models as close_all
from ..spec import Suite
from .config import RunConfig
from .episodes import Attempt, Cast, run_attempt

Deliver = Callable[[Attempt, Trace, Scorecard], Any]


@dataclass
class AttemptJob:
    """Everything needed to play and score one attempt in this process."""

    suite: Suite
    config: RunConfig
    cast: Cast
    graders: list[Any]
    on_start: Callable[[Attempt], None] | None = None

    async def __call__(self, attempt: Attempt) -> tuple[Trace, Scorecard]:
        if self.on_start is not None:
            self.on_start(attempt)
        return await play_and_score(self.suite, attempt, self.config, self.cast, self.graders)


class _Graded(CodeGrader):
    """A deterministic grader's verdicts, computed already: folded in the grader's place, under its
    name."""

    def __init__(self, name: str, verdicts: list[ItemVerdict]):
        self.name = name
        self.verdicts = verdicts

    def grade(self, trace: Trace, scenario: Any, suite: Any) -> list[ItemVerdict]:
        return self.verdicts


async def score_off_loop(
    trace: Trace, scenario: Any, manifest: Any, graders: Sequence[Grader] | None
) -> Scorecard:
    """`score_trace_async`, with the deterministic graders (`CodeGrader`s: CPU only, and their time
    grows with what the candidate said) run in a worker thread, so that grading one huge reply does
    not stall every other call in flight on this event loop; the graders that ask a model are
    awaited here as before. The scorecard is the one `score_trace_async` gives: the same verdicts,
    folded in the same order."""
    from ..grading.scorecard import default_graders, score_trace_async

    chosen: list[Grader] = list(graders) if graders is not None else list(default_graders())
    code = [g for g in chosen if isinstance(g, CodeGrader)]
    if code:
        done = iter(
            await asyncio.to_thread(lambda: [g.grade(trace, scenario, manifest) for g in code])
        )
        chosen = [_Graded(g.name, next(done)) if isinstance(g, CodeGrader) else g for g in chosen]
    return await score_trace_async(trace, scenario, manifest, chosen)


class Executor(Protocol):
    name: str

    async def run(
        self, attempts: list[Attempt], job: AttemptJob, deliver: Deliver, stop: Callable[[], bool]
    ) -> None: ...


async def _maybe_await(value: Any) -> None:
    if isinstance(value, Awaitable):
        await value


class LocalExecutor:
    """A fixed pool of workers pulling from a queue: memory does not grow with the size of the
    sweep."""

    name = "local"

    def __init__(self, concurrency: int = 8):
        self.concurrency = max(1, concurrency)

    async def run(
        self, attempts: list[Attempt], job: AttemptJob, deliver: Deliver, stop: Callable[[], bool]
    ) -> None:
        queue: asyncio.Queue[Attempt] = asyncio.Queue()
        for a in attempts:
            queue.put_nowait(a)

        async def worker() -> None:
            while not queue.empty() and not stop():
                attempt = queue.get_nowait()
                trace, card = await job(attempt)
                await _maybe_await(deliver(attempt, trace, card))

        await asyncio.gather(*(worker() for _ in range(min(self.concurrency, len(attempts)) or 1)))


class SimulatedCrash(RuntimeError):
    """Raised by InlineExecutor to stand for a process killed mid-sweep."""


class InlineExecutor:
    name = "inline"

    def __init__(self, crash_after: int | None = None):
        self.crash_after = crash_after
        self.delivered = 0

    async def run(
        self, attempts: list[Attempt], job: AttemptJob, deliver: Deliver, stop: Callable[[], bool]
    ) -> None:
        for attempt in attempts:
            if stop():
                return
            trace, card = await job(attempt)
            if self.crash_after is not None and self.delivered >= self.crash_after:
                raise SimulatedCrash(
                    f"crashed after {self.delivered} calls, with {attempt.trace_id} played but not "
                    "saved"
                )
            await _maybe_await(deliver(attempt, trace, card))
            self.delivered += 1


async def play_and_score(
    suite: Suite, attempt: Attempt, config: RunConfig, cast: Cast, graders: list[Any]
) -> tuple[Trace, Scorecard]:
    """One attempt played (with the run's infrastructure reruns) and scored off the loop: the one
    way every executor (this process, worker processes, Ray tasks) turns an attempt into a trace
    and its scorecard."""
    trace = await run_attempt(
        suite, attempt, config.seed, cast=cast, infra_reruns=config.infra_reruns
    )
    card = await score_off_loop(
        trace, suite.scenarios[attempt.scenario_id], suite.manifest, graders
    )
    return trace, card


async def close_models(cast: Cast) -> None:
    """Close every model client the cast opened (connection pools, local servers)."""
    await close_all(cast.models.values())
