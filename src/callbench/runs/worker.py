"""A run as a worker process sees it (the processes and Ray executors): the suite, the
configuration, the cast and the graders, made once per process from the run's manifest.

Workers get only plain data (the suite's path, the manifest as JSON, the limits), never an object
holding a connection, a lock or an event loop.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..errors import CallbenchError
from ..models.limits import ProviderLimits
from ..spec import Suite
from ..suite_check import load_suite
from .config import RunConfig
from .episodes import Cast
from .manifest import RunManifest
from .ray_gates import RemoteGate
from .runner import make_cast

WorkerRun = tuple[Suite, RunConfig, Cast, list[Any]]

# Per worker process: (suite, config, cast, graders) by run. A worker plays many calls of the same
# run, and loading and validating the suite, or starting a local model server, once per call would
# dominate short calls.
_WORKER_RUNS: dict[str, WorkerRun] = {}


def run_key(meta: dict[str, Any], limits: dict[str, Any], gates: Any = None) -> str:
    """Suite and run id, plus everything else of the manifest (options, prices, limits) the run id
    leaves out, and the gate actor: a long-lived cluster worker must not reuse one run's model
    clients (or gates) for another run."""
    gate_id = gates.token if gates is not None else None
    extra = hashlib.sha256(
        json.dumps([meta, limits, gate_id], sort_keys=True, default=str).encode()
    )
    return f"{meta['suite']['sha256']}:{meta['run_id']}:{extra.hexdigest()[:12]}"


def worker_run(
    source: str,
    meta: dict[str, Any],
    limits: dict[str, dict[str, int | None]],
    gates: Any = None,
    gate_factory: Callable[[str, ProviderLimits], Any] | None = None,
) -> WorkerRun:
    """`limits`: this worker's share of the run's limits (the processes executor splits them), in
    place of the manifest's. `gates` links Ray workers to their run's gate actor; `gate_factory` is
    another process-spanning gate (the processes executor's shared cool-down); without either,
    gates are this process's own."""
    key = run_key(meta, limits, gates)
    if key not in _WORKER_RUNS:
        manifest = RunManifest.parse(meta, "the run's manifest")
        suite = load_suite(source)
        if suite.sha256 != manifest.suite.sha256:
            raise CallbenchError(
                f"the suite at {source} on this worker is not the driver's (sha256 "
                f"{suite.sha256[:12]}… "
                f"here, {manifest.suite.sha256[:12]}… on the driver)"
            )
        config = replace(
            manifest.to_config(),
            limits={k: ProviderLimits(**v) for k, v in limits.items()},
        )
        if gates is not None:

            def gate_factory(k: str, lim: ProviderLimits) -> RemoteGate:
                return RemoteGate(gates.server, k, lim)

        cast = make_cast(config, gate_factory=gate_factory)
        _WORKER_RUNS[key] = (suite, config, cast, cast.graders())
    return _WORKER_RUNS[key]
