"""Per-provider limits shared by every call to the same endpoint: concurrent requests, requests and
tokens
per minute, and one shared cool-down after a rate limit, so a 429 seen by one call slows all of them
instead of each call discovering it on its own."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class ProviderLimits:
    concurrency: int | None = None
    rpm: int | None = None
    tpm: int | None = None


class Gate(Protocol):
    """What the retry loop (models/provider.py) asks of an endpoint's limits: a `ProviderGate` here,
    or a stand-in for one held elsewhere (the Ray executor's gate actor)."""

    def slot(self) -> AbstractAsyncContextManager[None]:
        """An in-flight slot, held for one request."""
        ...

    async def before_request(self) -> None: ...

    def after_response(self, tokens: int) -> None: ...

    def rate_limited(self, retry_after: float | None, fallback_s: float) -> None: ...


class ProviderGate:
    def __init__(self, limits: ProviderLimits, clock=time.monotonic, sleep=asyncio.sleep):
        self.limits = limits
        self.clock = clock
        self.sleep = sleep
        self._sem = asyncio.Semaphore(limits.concurrency) if limits.concurrency else None
        self._requests: deque[float] = deque()
        self._tokens: deque[tuple[float, int]] = deque()
        self.cooldown_until = 0.0
        self.waited_s = 0.0
        self.in_flight = 0
        self.max_in_flight = 0

    async def acquire(self) -> None:
        """Take an in-flight slot (waits while the endpoint's cap is reached)."""
        if self._sem is not None:
            await self._sem.acquire()
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def release(self) -> None:
        self.in_flight -= 1
        if self._sem is not None:
            self._sem.release()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        await self.acquire()
        try:
            yield
        finally:
            self.release()

    async def before_request(self) -> None:
        """Wait out a shared cool-down and the per-minute windows, then count this request."""
        while True:
            now = self.clock()
            delay = max(0.0, self.cooldown_until - now)
            while self._requests and now - self._requests[0] >= 60:
                self._requests.popleft()
            while self._tokens and now - self._tokens[0][0] >= 60:
                self._tokens.popleft()
            if self.limits.rpm and len(self._requests) >= self.limits.rpm:
                delay = max(delay, 60 - (now - self._requests[0]))
            if self.limits.tpm and sum(t for _, t in self._tokens) >= self.limits.tpm:
                delay = max(delay, 60 - (now - self._tokens[0][0]))
            if delay <= 0:
                self._requests.append(now)
                return
            self.waited_s += delay
            await self.sleep(delay)

    def after_response(self, tokens: int) -> None:
        if self.limits.tpm:
            self._tokens.append((self.clock(), tokens))

    def rate_limited(self, retry_after: float | None, fallback_s: float) -> None:
        self.cooldown_until = max(
            self.cooldown_until,
            self.clock() + (retry_after if retry_after is not None else fallback_s),
        )


class SharedCooldownGate(ProviderGate):
    """A gate whose rate-limit cool-down lives in memory shared between processes (one slot of a
    `multiprocessing.Array` of doubles), so a 429 seen by one worker process slows the others too.
    The
    monotonic clock is the machine's, the same in every process, so the deadline means the same
    to all."""

    def __init__(self, limits: ProviderLimits, shared, slot: int, **kwargs):
        self._shared, self._slot = shared, slot
        super().__init__(limits, **kwargs)

    @property
    def cooldown_until(self) -> float:  # type: ignore[override]
        return self._shared[self._slot]

    @cooldown_until.setter
    def cooldown_until(
        self, value: float
    ) -> None:  # only ever extended: another process may hold a later one
        with self._shared.get_lock():
            self._shared[self._slot] = max(self._shared[self._slot], value)


def cooldown_slot(key: str, slots: int) -> int:
    """A stable slot per endpoint key (two keys sharing one only make each other wait longer)."""
    import hashlib

    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:4], "big") % slots
