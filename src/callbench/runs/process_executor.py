"""Local worker processes: one event loop per core, the driver keeps the store.

The harness's own CPU (client, engine, graders) runs under one interpreter lock per process; on a
machine with several cores, a single event loop becomes the bottleneck long before the provider
does.
Each worker process plays its share of the attempts with its own pool of concurrent calls and sends
back
plain JSON; the driver alone writes the store, exactly as with the local and Ray executors.

Per-provider limits are split between the processes (each gets its share of every cap, rounded down,
and
there are never more processes than the smallest cap), so together they stay within the limits; a
rate
limit's cool-down is shared by all of them through shared memory.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import traceback
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from ..call import Trace
from ..errors import CallbenchError
from ..grading import Scorecard
from ..models.limits import ProviderLimits, SharedCooldownGate, cooldown_slot
from .episodes import Attempt
from .executors import AttemptJob, Deliver, _maybe_await, close_models, play_and_score
from .manifest import RunManifest
from .worker import worker_run


def _worker(
    source: str,
    meta: dict[str, Any],
    limits: dict[str, dict[str, int | None]],
    attempts: list[tuple[str, str, int]],
    concurrency: int,
    results: Any,
    stop_flag: Any,
    cooldowns: Any = None,
) -> None:
    def shared_gate(key: str, lim: ProviderLimits) -> SharedCooldownGate:
        return SharedCooldownGate(lim, cooldowns, cooldown_slot(key, len(cooldowns)))

    async def main() -> None:
        suite, config, cast, graders = worker_run(
            source, meta, limits, gate_factory=shared_gate if cooldowns is not None else None
        )
        queue = list(reversed(attempts))

        async def one_worker() -> None:
            while queue and not stop_flag.is_set():
                candidate, scenario_id, repeat = queue.pop()
                results.put(("start", candidate, scenario_id, repeat, None, None))
                attempt = Attempt(candidate, scenario_id, repeat)
                trace, card = await play_and_score(suite, attempt, config, cast, graders)
                results.put(
                    (
                        "done",
                        candidate,
                        scenario_id,
                        repeat,
                        trace.to_json(),
                        card.model_dump_json(),
                    )
                )

        try:
            await asyncio.gather(*(one_worker() for _ in range(max(1, concurrency))))
        finally:
            await close_models(cast)

    try:
        asyncio.run(main())
        results.put(("exit", None, None, None, None, None))
    except BaseException as exc:  # noqa: BLE001 - reported to the driver, which decides
        # a deliberate error is one line; anything else is a bug, sent with its traceback
        deliberate = isinstance(exc, CallbenchError)
        shown = None if deliberate else "".join(traceback.format_exception(exc))
        results.put(("error", type(exc).__name__, str(exc)[:500], shown, None, None))


COOLDOWN_SLOTS = 64


class WorkerCrashed(RuntimeError):
    """A bug in a worker process: its message holds the worker's traceback, so the run fails with
    it (a bug is never reported as a one-line user error)."""


def split_limits(
    limits: dict[str, dict[str, int | None]], processes: int
) -> dict[str, dict[str, int | None]]:
    """Each process's share of every cap (rounded down: together they never exceed it)."""
    return {
        key: {name: (value // processes if value else value) for name, value in lim.items()}
        for key, lim in limits.items()
    }


class ProcessExecutor:
    name = "processes"

    def __init__(self, processes: int = 2, concurrency: int = 8):
        self.processes = max(1, processes)
        self.concurrency = max(1, concurrency)

    async def run(
        self, attempts: list[Attempt], job: AttemptJob, deliver: Deliver, stop: Callable[[], bool]
    ) -> None:
        if not attempts:
            return
        ctx = mp.get_context(
            "spawn"
        )  # a fresh interpreter: no inherited event loop, threads or sockets
        results = ctx.Queue()
        stop_flag = ctx.Event()
        meta = RunManifest.build(job.suite, job.config).as_json()
        limits = {k: asdict(v) for k, v in job.config.limits.items()}
        processes = min(
            [self.processes] + [v for lim in limits.values() for v in lim.values() if v]
        )
        limits = split_limits(limits, processes)
        shares = [attempts[i::processes] for i in range(processes)]
        per_process = max(1, self.concurrency // processes)
        cooldowns = (
            ctx.Array("d", COOLDOWN_SLOTS) if limits else None
        )  # a 429's cool-down, seen by every process
        procs = [
            ctx.Process(
                target=_worker,
                args=(
                    str(job.suite.root),
                    meta,
                    limits,
                    [(a.candidate, a.scenario_id, a.repeat) for a in share],
                    per_process,
                    results,
                    stop_flag,
                    cooldowns,
                ),
                daemon=True,
            )
            for share in shares
            if share
        ]
        for p in procs:
            p.start()
        running = len(procs)
        try:
            while running:
                kind, a, b, c, trace_json, card_json = await asyncio.to_thread(results.get)
                if kind == "exit":
                    running -= 1
                elif kind == "error":
                    if c is None:
                        raise CallbenchError(f"a worker process failed: {a}: {b}")
                    raise WorkerCrashed(f"a worker process crashed:\n{c}")
                elif kind == "start":
                    if job.on_start is not None:
                        job.on_start(Attempt(a, b, c))
                else:
                    await _maybe_await(
                        deliver(
                            Attempt(a, b, c),
                            Trace.model_validate_json(trace_json),
                            Scorecard.model_validate_json(card_json),
                        )
                    )
                    if stop():
                        stop_flag.set()
        finally:
            stop_flag.set()
            for p in procs:
                p.join(timeout=10)
                if p.is_alive():
                    p.terminate()
