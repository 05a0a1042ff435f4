"""An optional Anthropic client (`pip install -e '.[anthropic]'`), translating the OpenAI-style
messages
and tools of the ChatModel protocol at this edge.

The operating instructions become a cached system block (Anthropic caches
only what is marked), tool results become `tool_result` blocks in user turns,
and the required alternation of roles is restored by merging neighbours.
As with the OpenAI-compatible client, every string that leaves here is
redacted of the process's secrets, and usage is checked before it is trusted.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

from ..call.types import ToolCall, Usage
from .base import ChatResponse, ModelSettings, checked_usage, token_count
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


def classify(exc: BaseException) -> ProviderError:
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
        shown = (
            redact(str(code))[:CODE_CHARS] if code else ""
        )  # redacted before it is cut: no partial key survives
        return for_status(
            exc.status_code,
            # type: ignore[return-value]
            f"HTTP {exc.status_code}" + (f" ({shown})" if shown else ""),
            code=code if isinstance(code, str) else None,
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


class AnthropicModel:
    def __init__(
        self,
        model: str,
        *,
        api_key: str | None,
        settings: ModelSettings | None = None,
        name: str | None = None,
        client: Any = None,
        sleep=asyncio.sleep,
    ):
        self.model = model
        self.settings = settings or ModelSettings()
        self.name = name or f"anthropic:{model}"
        self._sleep = sleep
        register_secret(api_key)
        if client is None:
            try:
                import anthropic
            except ImportError as exc:
                raise ImportError(INSTALL_HINT) from exc
            client = anthropic.AsyncAnthropic(
                api_key=api_key, timeout=self.settings.timeout_s, max_retries=0
            )
        self._client = client

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        json_mode: bool = False,
        json_schema: dict[str, Any] | None = None,
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
        started, attempt = time.perf_counter(), 0
        while True:
            attempt += 1
            try:
                response = from_anthropic(await self._client.messages.create(**params))
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
            except Exception as exc:  # noqa: BLE001
                error = classify(exc)
            if (
                not getattr(error, "retryable", False) or attempt > s.max_retries
            ):  # ContextOverflow: never
                error.attempts, error.retries = attempt, attempt - 1
                raise error
            ceiling = min(s.backoff_max_s, s.backoff_base_s * 2 ** (attempt - 1))
            await self._sleep(random.uniform(0, ceiling))
