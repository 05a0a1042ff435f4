"""An optional Anthropic client (`pip install -e '.[anthropic]'`), translating the OpenAI-style
messages
and tools of the ChatModel protocol at this edge.

The operating instructions become a cached system block (Anthropic caches
only what is marked), tool results become `tool_result` blocks in user turns,
and the required alternation of roles is restored by merging neighbours.
As with the OpenAI-compatible client, every string that leaves here is
redacted of the process's secrets, usage is checked before it is trusted, and
retries are the one loop of models/provider.py (Retry-After and the endpoint's
gate honoured); the SDK's own are switched off.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from .base import ChatResponse, ModelSettings, checked_usage, token_count
from .errors import (
    Classified,
    EmptyResponse,
    MalformedResponse,
    ProviderError,
    ProviderTimeout,
    ProviderTransportError,
    status_error,
)
from .provider import ProviderModel, Sleep, retry_after_seconds
from .secrets import redact, redact_model_text, register_secret
from .types import ToolCall, Usage

INSTALL_HINT = "the Anthropic client needs its extra: pip install -e '.[anthropic]'"
DEFAULT_MAX_TOKENS = 1024


def to_anthropic(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> dict[str, Any]:
    system = [m["content"] for m in messages if m["role"] == "system"]
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": list(blocks)})

    for m in messages:
        if m["role"] == "user":
            add("user", [{"type": "text", "text": m["content"] or "(silence)"}])
        elif m["role"] == "tool":
            add(
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": m["tool_call_id"],
                        "content": m["content"] or "",
                    }
                ],
            )
        elif m["role"] == "assistant":
            blocks: list[dict[str, Any]] = (
                [{"type": "text", "text": m["content"]}] if m.get("content") else []
            )
            for call in m.get("tool_calls") or []:
                try:
                    args = json.loads(call["function"]["arguments"] or "{}")
                except json.JSONDecodeError:
                    args = {"_unparseable_arguments": call["function"]["arguments"]}
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call["id"],
                        "name": call["function"]["name"],
                        "input": args if isinstance(args, dict) else {"_value": args},
                    }
                )
            add("assistant", blocks or [{"type": "text", "text": "(silence)"}])
    if not turns or turns[0]["role"] != "user":
        turns.insert(
            0, {"role": "user", "content": [{"type": "text", "text": "(the call has connected)"}]}
        )
    request: dict[str, Any] = {"messages": turns}
    if system:
        request["system"] = [
            {"type": "text", "text": "\n\n".join(system), "cache_control": {"type": "ephemeral"}}
        ]
    if tools:
        request["tools"] = [
            {
                "name": t["function"]["name"],
                "description": t["function"].get("description", ""),
                "input_schema": t["function"].get("parameters") or {"type": "object"},
            }
            for t in tools
        ]
    return request


def from_anthropic(raw: Any) -> ChatResponse:
    blocks = getattr(raw, "content", None)
    if blocks is None:
        raise EmptyResponse("the response had no content")
    texts, calls = [], []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(block.text if isinstance(block.text, str) else str(block.text))
        elif kind == "tool_use":
            if not isinstance(getattr(block, "name", None), str) or not block.name:
                raise MalformedResponse("a tool_use block had no name")
            call_id = getattr(block, "id", None)
            calls.append(
                ToolCall(
                    name=redact_model_text(block.name),
                    arguments=redact_model_text(
                        json.dumps(block.input, ensure_ascii=False, default=str)
                    ),
                    id=redact(call_id) if isinstance(call_id, str) and call_id else None,
                )
            )
    u = getattr(raw, "usage", None)
    if u is not None:
        # Anthropic counts cache reads and writes apart from input_tokens; all of them are prompt
        # tokens
        counted, warnings = checked_usage(
            getattr(u, "input_tokens", None),
            getattr(u, "output_tokens", None),
            names=("input_tokens", "output_tokens", ""),
        )
        cached, w1 = token_count(
            "cache_read_input_tokens", getattr(u, "cache_read_input_tokens", None), optional=True
        )
        created, w2 = token_count(
            "cache_creation_input_tokens",
            getattr(u, "cache_creation_input_tokens", None),
            optional=True,
        )
        counted = Usage(
            prompt_tokens=counted.prompt_tokens + cached + created,
            completion_tokens=counted.completion_tokens,
            cached_tokens=cached,
        )
        warnings += tuple(w for w in (w1, w2) if w)
    else:
        counted, warnings = checked_usage(None, None, reported=False)
    finish, model = getattr(raw, "stop_reason", None), getattr(raw, "model", None)
    return ChatResponse(
        text=redact_model_text("".join(texts)) or None,
        tool_calls=tuple(calls),
        usage=counted,
        finish_reason=redact(finish) if isinstance(finish, str) else None,
        model=redact(model) if isinstance(model, str) else "",
        warnings=warnings,
    )


def classify(exc: BaseException) -> Classified:
    """An SDK failure as one of our classes, by type and status (Retry-After read from the
    response's headers); anything else is raised again."""
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return ProviderTimeout("request timed out")
    if isinstance(exc, anthropic.APIConnectionError):
        return ProviderTransportError("connection failed")
    if isinstance(exc, anthropic.APIStatusError):
        body = exc.body if isinstance(exc.body, dict) else {}
        code = (
            (body.get("error") or {}).get("type") if isinstance(body.get("error"), dict) else None
        )
        return status_error(
            exc.status_code,
            code,
            retry_after=retry_after_seconds(
                getattr(getattr(exc, "response", None), "headers", None)
            ),
        )
    if isinstance(exc, anthropic.APIResponseValidationError):
        return MalformedResponse("response did not match the messages schema")
    if isinstance(
        exc, anthropic.APIError
    ):  # any other SDK error: its message may quote the provider, so not kept
        return ProviderError(f"provider error ({type(exc).__name__})")
    if isinstance(exc, (ValueError, KeyError, TypeError, AttributeError)):
        return MalformedResponse(f"unreadable response ({type(exc).__name__})")
    raise exc


class AnthropicModel(ProviderModel):
    def __init__(
        self,
        model: str,
        *,
        api_key: str | None,
        settings: ModelSettings | None = None,
        name: str | None = None,
        client: Any = None,
        sleep: Sleep = asyncio.sleep,
    ):
        super().__init__(name=name or f"anthropic:{model}", settings=settings, sleep=sleep)
        self.model = model
        register_secret(api_key)
        self._client: Any = client
        """a client passed in is the caller's to close; one made here is made per event loop"""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._make_client: Any = None
        if client is None:
            try:
                import anthropic
            except ImportError as exc:
                raise ImportError(INSTALL_HINT) from exc
            self._make_client = lambda: anthropic.AsyncAnthropic(
                api_key=api_key, timeout=self.settings.timeout_s, max_retries=0
            )

    def _client_for_loop(self) -> Any:
        """One SDK client per event loop, as in the OpenAI-compatible client: its connection pool
        is bound to the loop that created it."""
        if self._make_client is None:
            return self._client
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client, self._loop = self._make_client(), loop
        return self._client

    async def aclose(self) -> None:
        """Close the connection pool of the current loop's client, when this model made it (the
        model stays usable: the next request makes a new client)."""
        if self._make_client is None:
            return
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.close()
        self._client = self._loop = None

    async def _request(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        *,
        json_mode: bool,
        json_schema: dict[str, Any] | None,
    ) -> ChatResponse:
        s = self.settings
        params = {
            "model": self.model,
            "max_tokens": s.max_tokens or DEFAULT_MAX_TOKENS,
            **to_anthropic(messages, tools),
        }
        for key in ("temperature", "top_p"):
            if getattr(s, key) is not None:
                params[key] = getattr(s, key)
        return from_anthropic(await self._client_for_loop().messages.create(**params))

    def classify(self, exc: Exception) -> Classified:
        return classify(exc)
