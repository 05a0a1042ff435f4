"""Ray executor: the calls of a sweep run as Ray tasks, the driver keeps the store.

Tasks get only plain data (the suite's path, the run's meta dict, the attempt) and send back plain
JSON, so
nothing that holds a connection, a lock or an event loop crosses a process boundary, and the driver
stays the
one writer of the store: a worker that dies loses at most calls that were never recorded as
finished.

Per-provider limits (`[limits]`) hold across the cluster: the executor starts one actor holding
every
endpoint's gate (runs/ray_gates.py) and the workers' models ask it for each request's slot, as calls
in one
process ask their shared gate.

On a remote cluster (`--address`) every worker needs callbench installed, the suite at the same path
and the
provider keys in its environment; a worker that finds a different suite than the driver refuses to
play it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from ..call import Trace
from ..errors import CallbenchError
from ..grading import Scorecard
from .episodes import Attempt
from .executors import AttemptJob, Deliver, _maybe_await, close_models, play_and_score
from .manifest import RunManifest
from .ray_gates import start_gate_server
from .worker import worker_run

INSTALL_HINT = "the ray executor needs the 'ray' extra: pip install -e '.[ray]'"


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise CallbenchError(INSTALL_HINT) from exc
    return ray


def play_attempt(
    source: str,
    meta: dict[str, Any],
    limits: dict[str, Any],
    candidate: str,
    scenario_id: str,
    repeat: int,
    gates: Any = None,
) -> tuple[str, str]:
    """One call, played and scored in a worker; returns (trace JSON, scorecard JSON). `gates` links
    to the run's GateServer actor (None when the run has no limits)."""
    suite, config, cast, graders = worker_run(source, meta, limits, gates)
    attempt = Attempt(candidate, scenario_id, repeat)

    async def play() -> tuple[str, str]:
        try:
            trace, card = await play_and_score(suite, attempt, config, cast, graders)
            return trace.to_json(), card.model_dump_json()
        finally:
            # Clients keep one connection pool per event loop, and this loop ends with the call;
            # the cached cast stays usable because the next call's loop makes its own pool.
            await close_models(cast)

    return asyncio.run(play())


class RayExecutor:
    """At most `concurrency` calls in flight on the cluster, results delivered to the driver as they
    finish."""

    name = "ray"

    def __init__(
        self, address: str | None = None, concurrency: int = 8, num_cpus: int | None = None
    ):
        self.address = address
        self.concurrency = max(1, concurrency)
        self.num_cpus = num_cpus
        self.gate_stats: dict[str, dict[str, float]] = {}
        """per endpoint, after a run with limits: the most requests in flight at once, seconds
        waited"""

    def _connect(self, ray: Any) -> bool:
        """Join the given cluster, or start a small local one; True if this executor started Ray."""
        if ray.is_initialized():
            return False
        if self.address:
            ray.init(address=self.address, log_to_driver=False)
        else:
            ray.init(
                num_cpus=self.num_cpus or 2,
                include_dashboard=False,
                ignore_reinit_error=True,
                log_to_driver=False,
            )
        return True

    async def run(
        self, attempts: list[Attempt], job: AttemptJob, deliver: Deliver, stop: Callable[[], bool]
    ) -> None:
        if not attempts:
            return
        ray = _import_ray()
        started = self._connect(ray)
        try:
            remote = ray.remote(play_attempt)
            source = str(job.suite.root)
            meta_ref = ray.put(RunManifest.build(job.suite, job.config).as_json())
            limits = {k: asdict(v) for k, v in job.config.limits.items()}
            gates = start_gate_server(ray) if limits else None
            queue = list(reversed(attempts))
            in_flight: dict[Any, Attempt] = {}
            try:
                while queue or in_flight:
                    while queue and len(in_flight) < self.concurrency and not stop():
                        attempt = queue.pop()
                        if job.on_start is not None:
                            job.on_start(attempt)
                        ref = remote.remote(
                            source,
                            meta_ref,
                            limits,
                            attempt.candidate,
                            attempt.scenario_id,
                            attempt.repeat,
                            gates,
                        )
                        in_flight[ref] = attempt
                    if not in_flight:
                        # stopped (budget): calls already running were delivered, the rest stay
                        # pending
                        break
                    ready, _ = await asyncio.to_thread(ray.wait, list(in_flight), num_returns=1)
                    for ref in ready:
                        attempt = in_flight.pop(ref)
                        trace_json, card_json = await asyncio.to_thread(ray.get, ref)
                        await _maybe_await(
                            deliver(
                                attempt,
                                Trace.model_validate_json(trace_json),
                                Scorecard.model_validate_json(card_json),
                            )
                        )
            finally:
                for (
                    ref
                ) in in_flight:  # an error or a cancellation: do not leave calls running unrecorded
                    ray.cancel(ref)
                if gates is not None:
                    try:
                        self.gate_stats = await asyncio.to_thread(
                            ray.get, gates.server.stats.remote()
                        )
                    except Exception:  # noqa: BLE001 - figures only; never hide the sweep's own error
                        self.gate_stats = {}
                    finally:
                        ray.kill(gates.server)
        finally:
            if started:
                ray.shutdown()
