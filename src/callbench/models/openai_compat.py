"""An OpenAI-compatible chat client on the official `openai` SDK: one base URL reaches OpenAI, vLLM,
Ollama, llama.cpp servers and OpenRouter.

Retries are ours, not the SDK's (its own are switched off), so that only
retryable failures are retried, with exponential backoff, full jitter and
Retry-After honoured, and so the number of attempts is recorded. Errors carry
the status and the provider's error code, never the provider's message text;
and since a provider can echo the key in any field (the code and type too),
every string that leaves here is redacted of the process's secrets
(models/secrets.py). Usage is trusted only as far as it is a plausible count.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import time
from typing import Any

from ..call.types import ToolCall
from .base import TRANSPORTS, ChatResponse, ModelSettings, checked_usage
from .errors import (
    EmptyResponse,
    MalformedResponse,
    ProviderError,
    ProviderTimeout,
    ProviderTransportError,
    for_status,
)
from .secrets import redact, redact_model_text, register_secret

CODE_CHARS = 100
"""how much of a provider's error code an error message quotes (a hostile provider can send
megabytes)"""
MAX_RETRY_AFTER_S = 300.0
"""the longest Retry-After honoured: the shared cool-down stops every call to the endpoint, and a
provider
asking for 1e308 seconds would otherwise stall the sweep for good"""

INSTALL_HINT = "the OpenAI-compatible client needs the 'openai' package: pip install openai"
AIOHTTP_HINT = (
    "http_transport = \"aiohttp\" needs the SDK's aiohttp extra: pip install 'openai[aiohttp]'"
)


def _import_openai():
    try:
        import openai
    except ImportError as exc:  # pragma: no cover - openai is a core dependency
        raise ImportError(INSTALL_HINT) from exc
    return openai


def _retry_after(headers: Any) -> float | None:
    """Retry-After in seconds, when it is a finite non-negative number (an HTTP date, "inf" or -1
    count as
    absent), at most MAX_RETRY_AFTER_S."""
    try:
        value = headers.get("retry-after") if headers is not None else None
        seconds = float(value) if value is not None else None
    except (TypeError, ValueError):
        return None
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, MAX_RETRY_AFTER_S)


def _causes(exc: BaseException):
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__


def _really_timed_out(exc: BaseException) -> tuple[bool, str]:
    """The SDK's aiohttp transport reports every lost connection (a reset, a server hanging up) as a
    connect *timeout*; the aiohttp exception underneath says which it was."""
    for cause in _causes(exc):
        if type(cause).__module__.split(".")[0] == "aiohttp":
            timed_out = isinstance(cause, asyncio.TimeoutError) or "Timeout" in type(cause).__name__
            return timed_out, type(cause.__cause__ or cause).__name__
    return True, ""


def classify(exc: BaseException) -> ProviderError:
    """Map an SDK exception to our classes by type and status code."""
    openai = _import_openai()
    if isinstance(exc, openai.APITimeoutError):
        timed_out, cause = _really_timed_out(exc)
        return (
            ProviderTimeout("request timed out")
            if timed_out
            else ProviderTransportError(f"connection failed ({cause})")
        )
    if isinstance(exc, openai.APIConnectionError):
        return ProviderTransportError(f"connection failed ({type(exc.__cause__ or exc).__name__})")
    if isinstance(exc, openai.APIResponseValidationError):
        return MalformedResponse(
            f"response did not match the chat-completions schema (status {exc.status_code})"
        )
    if isinstance(exc, openai.APIStatusError):
        code = exc.code or exc.type
        shown = (
            redact(str(code))[:CODE_CHARS] if code else ""
        )  # redacted before it is cut: no partial key survives
        err = for_status(
            exc.status_code,
            f"HTTP {exc.status_code}" + (f" ({shown})" if shown else ""),
            code=exc.code if isinstance(exc.code, str) else None,
            retry_after=_retry_after(getattr(exc.response, "headers", None)),
        )
        return err  # type: ignore[return-value]
    if isinstance(
        exc, openai.APIError
    ):  # any other SDK error: its message may quote the provider, so not kept
        return ProviderError(f"provider error ({type(exc).__name__})")
    if isinstance(exc, (ValueError, KeyError, TypeError, AttributeError)):
        return MalformedResponse(f"unreadable response ({type(exc).__name__})")
    raise exc


class OpenAICompatibleModel:
    """A ChatModel for any endpoint that speaks chat completions."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        settings: ModelSettings | None = None,
        name: str | None = None,
        sleep=asyncio.sleep,
        schema_style: str = "openai",
    ):
        openai = _import_openai()
        register_secret(api_key)
        # "openai": response_format json_schema; "llama": llama.cpp's json_object + schema
        self.schema_style = schema_style
        self.model = model
        self.settings = settings or ModelSettings()
        self.name = name or model
        self.base_url = base_url
        self._sleep = sleep
        transport = self.settings.http_transport
        if transport not in TRANSPORTS:
            raise ValueError(f"http_transport must be one of {TRANSPORTS}, not {transport!r}")
        if transport == "aiohttp":
            try:  # fail here, with the hint, rather than at the first request of a sweep
                import aiohttp  # noqa: F401

                # the SDK's placeholder class raises RuntimeError without its extra
                openai.DefaultAioHttpClient()
            except (ImportError, RuntimeError):
                raise ImportError(AIOHTTP_HINT) from None
        self._make_client = lambda: openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",
            timeout=self.settings.timeout_s,
            max_retries=0,
            http_client=openai.DefaultAioHttpClient() if transport == "aiohttp" else None,
        )
        self._client = None
        self._loop = None
        self.gate = (
            None  # a ProviderGate shared with every model on the same endpoint (runs set it)
        )

    def _client_for_loop(self):
        """One SDK client per event loop: its connection pool is bound to the loop that created it.
        Call
        `aclose()` before a loop ends (runs do): a client left behind by a finished loop cannot
        be closed later."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client, self._loop = self._make_client(), loop
        return self._client

    async def aclose(self) -> None:
        """Close the connection pool of the current loop's client (call before the loop ends)."""
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.close()
        self._client = self._loop = None

    def _params(
        self, messages, tools, json_mode: bool, json_schema: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The request. Messages and tools are already plain chat-completions JSON, so they travel
        in
        `extra_body`: the SDK's typed-dict transform walks every message of every request, and at a
        hundred calls in flight that walk, not the network, was the harness's largest cost."""
        s = self.settings
        body: dict[str, Any] = {"messages": messages}
        if tools:
            body["tools"] = tools
        params: dict[str, Any] = {"model": self.model, "messages": []}
        for key in ("temperature", "top_p", "seed", "max_tokens", "reasoning_effort"):
            value = getattr(s, key)
            if value is not None:
                params[key] = value
        if json_schema is not None and self.schema_style == "llama":
            params["response_format"] = {"type": "json_object", "schema": json_schema}
        elif json_schema is not None:
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": json_schema},
            }
        elif json_mode:
            params["response_format"] = {"type": "json_object"}
        params["extra_body"] = {**body, **s.extra_body}
        return params

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        json_mode: bool = False,
        json_schema: dict[str, Any] | None = None,
    ) -> ChatResponse:
        params = self._params(messages, tools, json_mode, json_schema)
        attempt = 0
        started = time.perf_counter()
        while True:
            attempt += 1
            try:
                create = self._client_for_loop().chat.completions.with_raw_response.create
                if self.gate is not None:
                    async with self.gate.slot():
                        await self.gate.before_request()
                        raw = await create(**params)
                else:
                    raw = await create(**params)
                response = self._read(_body(raw.content))
                if self.gate is not None:
                    self.gate.after_response(response.usage.total)
                return ChatResponse(
                    text=response.text,
                    tool_calls=response.tool_calls,
                    usage=response.usage,
                    finish_reason=response.finish_reason,
                    model=response.model,
                    latency_s=time.perf_counter() - started,
                    attempts=attempt,
                    warnings=response.warnings,
                )
            except ProviderError as err:
                error = err
            except Exception as exc:  # noqa: BLE001 - every SDK failure is classified or re-raised
                error = classify(exc)
            if self.gate is not None and error.kind == "rate_limit":
                self.gate.rate_limited(error.retry_after, self._backoff(attempt, None))
            if (
                not getattr(error, "retryable", False) or attempt > self.settings.max_retries
            ):  # ContextOverflow: never
                error.attempts, error.retries = attempt, attempt - 1
                raise error
            await self._sleep(self._backoff(attempt, error.retry_after))

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        s = self.settings
        ceiling = min(s.backoff_max_s, s.backoff_base_s * 2 ** (attempt - 1))
        delay = random.uniform(0, ceiling)
        return max(delay, min(retry_after, s.backoff_max_s)) if retry_after is not None else delay

    @staticmethod
    def _read(raw: dict[str, Any]) -> ChatResponse:
        """The chat-completions JSON read directly (not through the SDK's response models, whose
        construction was a large share of the harness's CPU per request)."""
        choices = raw.get("choices")
        if not choices:
            raise EmptyResponse("the response had no choices")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise EmptyResponse("the first choice had no message")
        calls = []
        tool_calls = message.get("tool_calls") or []
        if not isinstance(tool_calls, list):
            raise MalformedResponse("tool_calls is not a list")
        for i, call in enumerate(tool_calls):
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict) or not fn.get("name") or not isinstance(fn["name"], str):
                raise MalformedResponse("a tool call had no function name")
            arguments = fn.get("arguments")
            if arguments is None:
                arguments = ""
            elif not isinstance(
                arguments, str
            ):  # some servers send the arguments as a JSON object, not as its text
                arguments = json.dumps(arguments, ensure_ascii=False)
            call_id = call.get("id")
            calls.append(
                ToolCall(
                    name=redact_model_text(fn["name"]),
                    arguments=redact_model_text(arguments),
                    id=redact(call_id) if isinstance(call_id, str) and call_id else f"call_{i}",
                )
            )
        text = message.get(
            "content"
        )  # empty text with no calls is the model choosing silence: its behaviour, not ours
        usage = raw.get("usage")
        if isinstance(usage, dict):
            details = usage.get("prompt_tokens_details")
            cached = details.get("cached_tokens") if isinstance(details, dict) else None
            counted, warnings = checked_usage(
                usage.get("prompt_tokens"), usage.get("completion_tokens"), cached
            )
        else:
            counted, warnings = checked_usage(None, None, reported=False)
        finish, model = choices[0].get("finish_reason"), raw.get("model")
        return ChatResponse(
            text=redact_model_text(text if isinstance(text, str) or text is None else str(text)),
            tool_calls=tuple(calls),
            finish_reason=redact(finish) if isinstance(finish, str) else None,
            model=redact(model) if isinstance(model, str) else "",
            usage=counted,
            warnings=warnings,
        )


def _body(content: bytes) -> dict[str, Any]:
    try:
        data = json.loads(content)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise MalformedResponse("the response body is not JSON") from None
    if not isinstance(data, dict):
        raise MalformedResponse("the response body is not a JSON object")
    return data
