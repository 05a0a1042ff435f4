"""An OpenAI-compatible chat client on the official `openai` SDK: one base URL reaches OpenAI, vLLM,
Ollama, llama.cpp servers and OpenRouter.

Retries are ours, not the SDK's (its own are switched off): the one loop of
models/provider.py retries only retryable failures, with exponential backoff,
full jitter, Retry-After and the endpoint's gate honoured, and records the
number of attempts. Errors carry
the status and the provider's error code, never the provider's message text;
and since a provider can echo the key in any field (the code and type too),
every string that leaves here is redacted of the process's secrets
(models/secrets.py). Usage is trusted only as far as it is a plausible count.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Iterator
from typing import Any

from .base import TRANSPORTS, ChatResponse, ModelSettings, checked_usage
from .errors import (
    Classified,
    EmptyResponse,
    MalformedResponse,
    ProviderError,
    ProviderTimeout,
    ProviderTransportError,
    status_error,
)
from .provider import MAX_RETRY_AFTER_S, ProviderModel, Sleep, retry_after_seconds
from .secrets import redact, redact_model_text, register_secret
from .types import ToolCall

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


__all__ = ["MAX_RETRY_AFTER_S", "OpenAICompatibleModel", "classify"]


def _merged_once(merge: Callable[[Any], Any], cache: dict[str, Any], url: Any) -> Any:
    if not isinstance(url, str) or len(cache) >= 8:  # one URL in practice; never unbounded
        return merge(url)
    merged = cache.get(url)
    if merged is None:
        merged = cache[url] = merge(url)
    return merged


@functools.cache
def _sdk_classes(openai: Any) -> tuple[Any, Any]:
    """The SDK's client and its aiohttp client, each merging the one URL it is asked for with its
    base URL once rather than parsing it afresh at every request (URL parsing was 5% of the event
    loop's time at 500 calls in flight). The URLs are immutable, so sharing one is safe; base URLs
    are never changed after the client is made. The client keeps the SDK's class name, which its
    User-Agent header carries."""

    class AsyncOpenAI(openai.AsyncOpenAI):  # type: ignore[misc,name-defined]
        def _prepare_url(self, url: str) -> Any:
            cache = self.__dict__.setdefault("_callbench_urls", {})
            return _merged_once(super()._prepare_url, cache, url)

    class AioHttpClient(openai.DefaultAioHttpClient):  # type: ignore[misc,name-defined]
        def _merge_url(self, url: Any) -> Any:
            cache = self.__dict__.setdefault("_callbench_urls", {})
            return _merged_once(super()._merge_url, cache, url)

    return AsyncOpenAI, AioHttpClient


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__


def _really_timed_out(exc: BaseException) -> tuple[bool, str]:
    """The SDK's aiohttp transport reports every lost connection (a reset, a server hanging up) as a
    connect *timeout*; the aiohttp exception underneath says which it was."""
    for cause in _causes(exc):
        if type(cause).__module__.split(".")[0] == "aiohttp":
            timed_out = isinstance(cause, asyncio.TimeoutError) or "Timeout" in type(cause).__name__
            return timed_out, type(cause.__cause__ or cause).__name__
    return True, ""


def classify(exc: BaseException) -> Classified:
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
        return status_error(
            exc.status_code,
            exc.code or exc.type,
            retry_after=retry_after_seconds(getattr(exc.response, "headers", None)),
        )
    if isinstance(
        exc, openai.APIError
    ):  # any other SDK error: its message may quote the provider, so not kept
        return ProviderError(f"provider error ({type(exc).__name__})")
    if isinstance(exc, (ValueError, KeyError, TypeError, AttributeError)):
        return MalformedResponse(f"unreadable response ({type(exc).__name__})")
    raise exc


class OpenAICompatibleModel(ProviderModel):
    """A ChatModel for any endpoint that speaks chat completions."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        settings: ModelSettings | None = None,
        name: str | None = None,
        sleep: Sleep = asyncio.sleep,
        schema_style: str = "openai",
    ):
        openai = _import_openai()
        register_secret(api_key)
        super().__init__(name=name or model, settings=settings, sleep=sleep)
        # "openai": response_format json_schema; "llama": llama.cpp's json_object + schema
        self.schema_style = schema_style
        self.model = model
        self.base_url = base_url
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
        client_class, aiohttp_class = _sdk_classes(openai)
        self._make_client = lambda: client_class(
            base_url=base_url,
            api_key=api_key or "not-needed",
            timeout=self.settings.timeout_s,
            max_retries=0,
            # httpx, the fallback, stays exactly the SDK's own
            http_client=aiohttp_class() if transport == "aiohttp" else None,
        )
        # the SDK's own request options and HTTP response class (httpx2 is its dependency):
        # `request` with `cast_to` the response class returns the response unparsed
        import httpx2
        from openai._models import FinalRequestOptions

        self._options = FinalRequestOptions.construct(
            method="post",
            url="/chat/completions",
            security={"bearer_auth": True},  # as `chat.completions.create`
        )
        self._raw = httpx2.Response
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _client_for_loop(self) -> Any:
        """One SDK client per event loop: its connection pool is bound to the loop that created it.
        Call `aclose()` before a loop ends (runs do): a client left behind by a finished loop
        cannot be closed later."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client, self._loop = self._make_client(), loop
        return self._client

    async def aclose(self) -> None:
        """Close the connection pool of the current loop's client (call before the loop ends)."""
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.close()
        self._client = self._loop = None

    def _body(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        json_mode: bool,
        json_schema: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The request body, as chat-completions JSON. Messages and tools already are that JSON,
        so the body goes to the SDK's `request` as it is: `chat.completions.create` would walk
        every message of every request through its typed-dict transform, and at hundreds of calls
        in flight that walk, not the network, was the harness's largest cost. `extra_body` keys
        come last and win, as the SDK's `extra_body` does."""
        s = self.settings
        body: dict[str, Any] = {"model": self.model}
        for key in ("temperature", "top_p", "seed", "max_tokens", "reasoning_effort"):
            value = getattr(s, key)
            if value is not None:
                body[key] = value
        if json_schema is not None and self.schema_style == "llama":
            body["response_format"] = {"type": "json_object", "schema": json_schema}
        elif json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": json_schema},
            }
        elif json_mode:
            body["response_format"] = {"type": "json_object"}
        body["messages"] = messages
        if tools:
            body["tools"] = tools
        body.update(s.extra_body)
        return body

    async def _request(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        *,
        json_mode: bool,
        json_schema: dict[str, Any] | None,
    ) -> ChatResponse:
        """One POST through the SDK's own `request`: its transport, timeouts, auth hooks and error
        classes, with the body serialised once here and the raw response read by `_read`."""
        content = json.dumps(
            self._body(messages, tools, json_mode, json_schema),
            ensure_ascii=False,
            separators=(",", ":"),
            allow_nan=False,  # as the SDK's own serialiser
        ).encode()
        # a copy of options built once (the SDK copies them itself, shallowly, at every try)
        options = self._options.model_copy(update={"content": content})
        response = await self._client_for_loop().request(self._raw, options)
        return self._read(_body(response.content))

    def classify(self, exc: Exception) -> Classified:
        return classify(exc)

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
