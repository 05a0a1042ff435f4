"""Per-provider limits that hold across a Ray cluster.

In one process every call to an endpoint waits at the same `ProviderGate`. Ray workers are separate
processes, so each would keep its own gate and a cap of 16 requests in flight would become 16 per
worker.
Instead the executor starts one `GateServer` actor per run, holding the real gates; in the workers a
`RemoteGate` stands in for a `ProviderGate` and asks the actor for every slot, per-minute window and
shared cool-down. A request costs two small actor calls more, which is nothing next to a model's
latency.

A worker process that dies while holding a slot leaves it taken until the run ends (the actor cannot
tell a dead caller from a slow one); the run's other workers go on with one slot fewer.
"""

from __future__ import annotations

import uuid
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from ..models.limits import ProviderGate, ProviderLimits


class GateServer:
    """The actor's class (wrapped by `ray.remote` at start): one ProviderGate per endpoint key."""

    def __init__(self) -> None:
        self.gates: dict[str, ProviderGate] = {}

    def _gate(self, key: str, limits: dict[str, Any] | None = None) -> ProviderGate:
        if key not in self.gates:
            self.gates[key] = ProviderGate(ProviderLimits(**(limits or {})))
        return self.gates[key]

    async def acquire(self, key: str, limits: dict[str, Any]) -> None:
        await self._gate(key, limits).acquire()

    def release(self, key: str) -> None:
        self._gate(key).release()

    async def before_request(self, key: str, limits: dict[str, Any]) -> None:
        await self._gate(key, limits).before_request()

    def after_response(self, key: str, tokens: int) -> None:
        self._gate(key).after_response(tokens)

    def rate_limited(self, key: str, retry_after: float | None, fallback_s: float) -> None:
        self._gate(key).rate_limited(retry_after, fallback_s)

    def stats(self) -> dict[str, dict[str, float]]:
        return {
            k: {
                "max_in_flight": g.max_in_flight,
                "in_flight": g.in_flight,
                "waited_s": round(g.waited_s, 3),
            }
            for k, g in self.gates.items()
        }


@dataclass(frozen=True)
class GateLink:
    """What a task carries to reach its run's gates: the actor, and a token naming this run's actor
    (a
    long-lived worker caches one cast per run and must not keep a previous run's, dead, actor)."""

    server: Any
    token: str = field(default_factory=lambda: uuid.uuid4().hex)


def start_gate_server(ray) -> GateLink:
    """An async actor, so that a request waiting for a slot does not block the others' calls."""
    return GateLink(ray.remote(GateServer).options(max_concurrency=10_000, num_cpus=0).remote())


class RemoteGate:
    """What a model in a Ray worker holds instead of a ProviderGate: the same four calls, made to
    the actor."""

    def __init__(self, server: Any, key: str, limits: ProviderLimits):
        self.server, self.key, self.limits = server, key, asdict(limits)

    @asynccontextmanager
    async def slot(self):
        await self.server.acquire.remote(self.key, self.limits)
        try:
            yield
        finally:
            self.server.release.remote(
                self.key
            )  # sent after acquire returned, so it cannot overtake it

    async def before_request(self) -> None:
        await self.server.before_request.remote(self.key, self.limits)

    def after_response(self, tokens: int) -> None:
        self.server.after_response.remote(self.key, tokens)

    def rate_limited(self, retry_after: float | None, fallback_s: float) -> None:
        self.server.rate_limited.remote(self.key, retry_after, fallback_s)
