"""The ChatModel boundary: messages and tools in; text, tool calls and usage out.

Messages and tools are OpenAI chat-completions dicts, the lingua franca every
OpenAI-compatible server (vLLM, Ollama, llama.cpp, OpenRouter) speaks; other
providers translate at their edge.

A model holds connections, so it is closed like httpx's `AsyncClient`: `await
model.aclose()`, or `async with model:`. Closing releases what the current event
loop holds; the model stays usable (a later loop opens its own connections), which
is what executors that run one event loop per call rely on.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable

from .secrets import redact
from .types import ToolCall, Usage

TRANSPORTS = ("aiohttp", "httpx")
"""The OpenAI SDK transports `ModelSettings.http_transport` can name."""


@dataclass(frozen=True)
class ModelSettings:
    """Per-role sampling and transport settings. None means: leave it to the endpoint."""

    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    timeout_s: float = 60.0
    max_retries: int = 4
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0
    extra_body: dict[str, Any] = field(default_factory=dict)
    http_transport: str = "aiohttp"
    """how the OpenAI SDK sends requests: "aiohttp" (its aiohttp transport; harness CPU per call in
    benchmarks/bench_sweep.py was 9.6 ms against 11.3 with a hundred calls in flight and 7.9
    against 14.3 with five hundred, as httpx's pool scans every connection for every request) or
    "httpx" (the SDK's default client, kept as a fallback)"""

    def public(self) -> dict[str, Any]:
        """What a report records about the settings (everything: none of it is secret)."""
        return {k: v for k, v in self.__dict__.items() if v not in (None, {}, [])}


@dataclass(frozen=True)
class ChatResponse:
    text: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    model: str = ""
    latency_s: float = 0.0
    attempts: int = 1
    """how many provider requests this response took (retries included)"""
    warnings: tuple[str, ...] = ()
    """what the client ignored or repaired in the provider's answer (usage out of contract, recorded
    as 0),
    one short sentence each, already redacted of secrets: for the caller to record"""
    retries: int = field(init=False, default=0)
    """requests repeated after a retryable provider failure: always `attempts - 1`"""

    def __post_init__(self) -> None:
        object.__setattr__(self, "retries", max(0, self.attempts - 1))
        object.__setattr__(
            self, "usage", replace(self.usage, retries=self.retries)
        )  # usage travels; retries with it


MAX_TOKENS_PER_RESPONSE = 10**9
"""No single response uses more tokens than this: a count above it is a broken or hostile
provider."""


def _token_count(value: Any) -> int | None:
    """A usage count as a non-negative int within bounds, or None (integral floats such as 12.0 are
    accepted)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_TOKENS_PER_RESPONSE else None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value) if 0 <= value <= MAX_TOKENS_PER_RESPONSE else None
    return None


def _shown(value: Any) -> str:
    text = repr(value)
    return redact(text if len(text) <= 40 else text[:37] + "...")


def token_count(name: str, value: Any, *, optional: bool = False) -> tuple[int, str | None]:
    """One usage count from a provider: (the count, None), or (0, a warning) when `value` is not a
    non-negative integer up to MAX_TOKENS_PER_RESPONSE (missing, null, negative, fractional, a
    string, 1e308).
    An `optional` count may be absent or null (0, no warning)."""
    if value is None:
        return 0, None if optional else f"usage {name} is missing (recorded as 0)"
    count = _token_count(value)
    if count is None:
        return 0, f"usage {name} {_shown(value)} is not a token count (recorded as 0)"
    return count, None


def checked_usage(
    prompt: Any,
    completion: Any,
    cached: Any = None,
    *,
    reported: bool = True,
    names: tuple[str, str, str] = ("prompt_tokens", "completion_tokens", "cached_tokens"),
) -> tuple[Usage, tuple[str, ...]]:
    """Usage from a provider's counts, trusted only as far as they are counts (see `token_count`):
    `prompt`
    and `completion` are required, `cached` optional and at most `prompt`. `reported=False` says the
    response had no usage at all (one warning, everything 0). `names` are the provider's names,
    for the warnings."""
    if not reported:
        return Usage(), ("the response reported no usage (recorded as 0 tokens)",)
    prompt_n, w1 = token_count(names[0], prompt)
    completion_n, w2 = token_count(names[1], completion)
    cached_n, w3 = token_count(names[2], cached, optional=True)
    warnings = [w for w in (w1, w2, w3) if w]
    if cached_n > prompt_n:
        warnings.append(
            f"usage {names[2]} {cached_n} exceeds {names[0]} {prompt_n} (recorded as {prompt_n})"
        )
        cached_n = prompt_n
    return Usage(
        prompt_tokens=prompt_n, completion_tokens=completion_n, cached_tokens=cached_n
    ), tuple(warnings)


@runtime_checkable
class ChatModel(Protocol):
    """What every role (candidate, caller, judge) talks to. Providers implement it through
    `ProviderModel` (models/provider.py), which owns the retries; fakes implement it directly."""

    name: str
    settings: ModelSettings

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        json_mode: bool = False,
        json_schema: dict[str, Any] | None = None,
    ) -> ChatResponse:
        """`json_mode` asks for a JSON object; `json_schema` (where the endpoint can enforce one)
        for its shape."""
        ...

    async def aclose(self) -> None:
        """Release the connections of the current event loop (the model stays usable)."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class ClosingModel:
    """`async with model:` for any model with an `aclose` (the base of every ChatModel here)."""

    async def aclose(self) -> None:
        """Nothing to release by default."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class CloseErrors(Exception):
    """Closing several models failed for some of them: every failure is kept, none hides another."""

    def __init__(self, errors: list[tuple[str, BaseException]]):
        self.errors = list(errors)
        names = ", ".join(f"{name} ({type(err).__name__})" for name, err in self.errors)
        super().__init__(redact(f"closing failed for {names}"))

    def __reduce__(self) -> tuple[type[CloseErrors], tuple[list[tuple[str, BaseException]]]]:
        return type(self), (self.errors,)  # survives a trip to another process


async def close_models(models: Iterable[ChatModel]) -> None:
    """Close each model once (the same object listed under several roles is closed once), all of
    them even when some fail; then raise the one failure, or `CloseErrors` listing them all. A
    cancellation is never swallowed: it propagates after the remaining models are closed."""
    errors: list[tuple[str, BaseException]] = []
    seen: set[int] = set()
    cancelled: BaseException | None = None
    for model in models:
        if id(model) in seen:
            continue
        seen.add(id(model))
        try:
            await model.aclose()
        except Exception as exc:  # noqa: BLE001 - collected, raised below
            errors.append((getattr(model, "name", type(model).__name__), exc))
        except BaseException as exc:  # cancellation or interrupt: close the rest, then re-raise
            cancelled = cancelled or exc
    if cancelled is not None:
        raise cancelled
    if len(errors) == 1:
        raise errors[0][1]
    if errors:
        raise CloseErrors(errors) from errors[0][1]
