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
import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Any

from ..call import Trace
from ..errors import CallbenchError
from ..grading import Scorecard
from .episodes import Attempt
from .executors import AttemptJob, Deliver, _maybe_await
from .ray_gates import start_gate_server

INSTALL_HINT = "the ray executor needs the 'ray' extra: pip install -e '.[ray]'"

# Per worker process: (suite, config, cast, graders) by run. A worker plays many calls of the same
# run, and
# loading and validating the suite, or starting a local model server, once per call would dominate
# short calls.
_WORKER_RUNS: dict[str, tuple[Any, Any, Any, list]] = {}


def _import_ray():
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise CallbenchError(INSTALL_HINT) from exc
    return ray


def _run_key(meta: dict[str, Any], limits: dict[str, Any], gates: Any = None) -> str:
    """Suite and run id, plus the adapter options, prices, limits and gate actor the run id leaves
    out: a
    long-lived cluster worker must not reuse one run's model clients (or gates) for another run."""
    gate_id = gates.token if gates is not None else None
    extra = hashlib.sha256(
        json.dumps(
            [meta.get("options"), meta.get("prices"), limits, gate_id], sort_keys=True, default=str
        ).encode()
    )
    return f"{meta['suite']['sha256']}:{meta['run_id']}:{extra.hexdigest()[:12]}"


def _worker_run(
    source: str,
    meta: dict[str, Any],
    limits: dict[str, Any],
    gates: Any = None,
    gate_factory: Any = None,
):
    """`gates` links Ray workers to their run's gate actor; `gate_factory` is another
    process-spanning gate
    (the processes executor's shared cool-down); without either, gates are this process's own."""
    from ..models.limits import ProviderLimits
    from ..suite_check import load_suite
    from .ray_gates import RemoteGate
    from .runner import config_from_run, make_cast

    key = _run_key(meta, limits, gates)
    if key not in _WORKER_RUNS:
        suite = load_suite(source)
        if suite.sha256 != meta["suite"]["sha256"]:
            raise CallbenchError(
                f"the suite at {source} on this worker is not the driver's (sha256 "
                f"{suite.sha256[:12]}… "
                f"here, {meta['suite']['sha256'][:12]}… on the driver)"
            )
        config = config_from_run(meta)
        if limits and not config.limits:  # run.json does not keep them
            config = replace(config, limits={k: ProviderLimits(**v) for k, v in limits.items()})
        if gates is not None:
            gate_factory = lambda k, lim: RemoteGate(gates.server, k, lim)  # noqa: E731
        cast = make_cast(config, gate_factory=gate_factory)
        _WORKER_RUNS[key] = (suite, config, cast, cast.graders())
    return _WORKER_RUNS[key]


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
    to the
    run's GateServer actor (None when the run has no limits)."""
    from .episodes import run_attempt
    from .executors import score_off_loop

    suite, config, cast, graders = _worker_run(source, meta, limits, gates)
    attempt = Attempt(candidate, scenario_id, repeat)

    async def play() -> tuple[str, str]:
        try:
            trace = await run_attempt(
                suite, attempt, config.seed, cast=cast, infra_reruns=config.infra_reruns
            )
            card = await score_off_loop(
                trace, suite.scenarios[scenario_id], suite.manifest, graders
            )
            return trace.to_json(), card.model_dump_json()
        finally:
            # Clients keep one connection pool per event loop, and this loop ends with the call; the
            # cached
            # cast stays usable because the next call's loop makes its own pool.
            for model in cast.models.values():
                close = getattr(model, "aclose", None)
                if close is not None:
                    await close()

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

    def _connect(self, ray) -> bool:
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
        from .runner import _run_meta

        if not attempts:
            return
        ray = _import_ray()
        started = self._connect(ray)
        try:
            remote = ray.remote(play_attempt)
            source = str(job.suite.root)
            meta_ref = ray.put(_run_meta(job.suite, job.config))
            limits = {k: asdict(v) for k, v in getattr(job.config, "limits", {}).items()}
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
