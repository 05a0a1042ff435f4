"""The one model wrapper that owns retries, for every provider.

A provider client says only two things: how to make one request (`_request`),
and what a failure was (`classify`: one of the classes of models/errors.py,
which say whether it is retryable and carry the Retry-After the provider sent).
Everything else is decided once, here, for all of them, as Inspect AI's
`ModelAPI.should_retry` leaves it to one loop:

- only retryable failures are retried, at most `settings.max_retries` times;
- the wait is exponential backoff with full jitter, never shorter than the
  provider's Retry-After (up to `backoff_max_s`);
- every request passes through the endpoint's shared gate (in-flight cap,
  per-minute windows), and a rate limit cools the whole endpoint down;
- the number of attempts is recorded on the answer (`ChatResponse.attempts`,
  and so `usage.retries`) and on the error that ends the loop.

Written once per provider, these loops drifted (the Anthropic client once ignored
Retry-After and the gate); now there is nothing left to drift.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from .base import ChatResponse, ClosingModel, ModelSettings
from .errors import Classified, ContextOverflow, ProviderError
from .limits import Gate

MAX_RETRY_AFTER_S = 300.0
"""the longest Retry-After honoured: the shared cool-down stops every call to the endpoint, and a
provider asking for 1e308 seconds would otherwise stall the sweep for good"""

Sleep = Callable[[float], Awaitable[Any]]


def retry_after_seconds(headers: Any) -> float | None:
    """Retry-After in seconds from a response's headers, when it is a finite non-negative number
    (an HTTP date, "inf" or -1 count as absent), at most MAX_RETRY_AFTER_S."""
    try:
        value = headers.get("retry-after") if headers is not None else None
        seconds = float(value) if value is not None else None
    except (TypeError, ValueError, AttributeError):
        return None
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, MAX_RETRY_AFTER_S)


def backoff_s(settings: ModelSettings, attempt: int, retry_after: float | None) -> float:
    """How long to wait after failed attempt number `attempt` (1-based): full jitter under an
    exponential ceiling, and at least the provider's Retry-After (capped at `backoff_max_s`)."""
    ceiling = min(settings.backoff_max_s, settings.backoff_base_s * 2 ** (attempt - 1))
    delay = random.uniform(0, ceiling)
    if retry_after is None:
        return delay
    return max(delay, min(retry_after, settings.backoff_max_s))


class ProviderModel(ClosingModel):
    """A ChatModel backed by a provider's API. Subclasses implement `_request` (one request, read
    into a `ChatResponse`; any failure raised as it comes) and `classify` (a failure as a
    `ProviderError`, or re-raised when it is not the provider's: a bug of ours stays a bug)."""

    name: str
    settings: ModelSettings
    gate: Gate | None
    """the endpoint's shared limits, when the run sets any (one gate per endpoint, shared)"""

    def __init__(
        self, *, name: str, settings: ModelSettings | None = None, sleep: Sleep = asyncio.sleep
    ):
        self.name = name
        self.settings = settings or ModelSettings()
        self.gate = None
        self._sleep = sleep

    async def _request(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        *,
        json_mode: bool,
        json_schema: dict[str, Any] | None,
    ) -> ChatResponse:
        """One request to the provider, without retries."""
        raise NotImplementedError

    def classify(self, exc: Exception) -> Classified:
        """The provider failure `exc` stands for; raise it again when it is not one."""
        raise exc

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        json_mode: bool = False,
        json_schema: dict[str, Any] | None = None,
    ) -> ChatResponse:
        """One answer, retried as the module docstring says."""
        started, attempt = time.perf_counter(), 0
        gate = self.gate
        while True:
            attempt += 1
            try:
                if gate is not None:
                    async with gate.slot():
                        await gate.before_request()
                        response = await self._request(
                            messages, tools, json_mode=json_mode, json_schema=json_schema
                        )
                    gate.after_response(response.usage.total)
                else:
                    response = await self._request(
                        messages, tools, json_mode=json_mode, json_schema=json_schema
                    )
                return replace(response, latency_s=time.perf_counter() - started, attempts=attempt)
            except (ProviderError, ContextOverflow) as err:
                error: Classified = err
            except Exception as exc:  # noqa: BLE001 - classified, or re-raised by `classify`
                error = self.classify(exc)
            if gate is not None and error.kind == "rate_limit":
                gate.rate_limited(error.retry_after, backoff_s(self.settings, attempt, None))
            if not error.retryable or attempt > self.settings.max_retries:
                error.attempts, error.retries = attempt, attempt - 1
                raise error
            await self._sleep(backoff_s(self.settings, attempt, error.retry_after))


__all__ = ["MAX_RETRY_AFTER_S", "ProviderModel", "backoff_s", "retry_after_seconds"]
