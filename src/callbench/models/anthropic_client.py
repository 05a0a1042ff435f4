"""An optional Anthropic client (`pip install -e '.[anthropic]'`), translating the OpenAI-style messages
and tools of the ChatModel protocol at this edge.

The operating instructions become a cached system block (Anthropic caches
only what is marked), tool results become `tool_result` blocks in user turns,
and the required alternation of roles is restored by merging neighbours.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

from ..call.types import ToolCall, Usage
from .base import ChatResponse, ModelSettings
from .errors import EmptyResponse, MalformedResponse, ProviderError, ProviderTimeout, ProviderTransportError, for_status

INSTALL_HINT = "the Anthropic client needs its extra: pip install -e '.[anthropic]'"
DEFAULT_MAX_TOKENS = 1024


def to_anthropic(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
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
            add("user", [{"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"] or ""}])
        elif m["role"] == "assistant":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": m["content"]}] if m.get("content") else []
            for call in m.get("tool_calls") or []:
                try:
                    args = json.loads(call["function"]["arguments"] or "{}")
                except json.JSONDecodeError:
                    args = {"_unparseable_arguments": call["function"]["arguments"]}
                blocks.append({"type": "tool_use", "id": call["id"], "name": call["function"]["name"],
                               "input": args if isinstance(args, dict) else {"_value": args}})
            add("assistant", blocks or [{"type": "text", "text": "(silence)"}])
    if not turns or turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": [{"type": "text", "text": "(the call has connected)"}]})
    request: dict[str, Any] = {"messages": turns}
    if system:
        request["system"] = [{"type": "text", "text": "\n\n".join(system), "cache_control": {"type": "ephemeral"}}]
    if tools:
        request["tools"] = [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
                             "input_schema": t["function"].get("parameters") or {"type": "object"}} for t in tools]
    return request


def from_anthropic(raw: Any) -> ChatResponse:
    blocks = getattr(raw, "content", None)
    if blocks is None:
        raise EmptyResponse("the response had no content")
    texts, calls = [], []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(block.text)
        elif kind == "tool_use":
            calls.append(ToolCall(name=block.name, arguments=json.dumps(block.input, ensure_ascii=False), id=block.id))
    u = getattr(raw, "usage", None)
    cached = (getattr(u, "cache_read_input_tokens", 0) or 0) if u else 0
    created = (getattr(u, "cache_creation_input_tokens", 0) or 0) if u else 0
    usage = Usage(prompt_tokens=(getattr(u, "input_tokens", 0) or 0) + cached + created,
                  completion_tokens=getattr(u, "output_tokens", 0) or 0, cached_tokens=cached) if u else Usage()
    return ChatResponse(text="".join(texts) or None, tool_calls=tuple(calls), usage=usage,
                        finish_reason=getattr(raw, "stop_reason", None), model=getattr(raw, "model", "") or "")


def classify(exc: BaseException) -> ProviderError:
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return ProviderTimeout("request timed out")
    if isinstance(exc, anthropic.APIConnectionError):
        return ProviderTransportError("connection failed")
    if isinstance(exc, anthropic.APIStatusError):
        body = exc.body if isinstance(exc.body, dict) else {}
        code = (body.get("error") or {}).get("type") if isinstance(body.get("error"), dict) else None
        return for_status(exc.status_code, f"HTTP {exc.status_code}" + (f" ({code})" if code else ""), code=code)  # type: ignore[return-value]
    if isinstance(exc, anthropic.APIResponseValidationError):
        return MalformedResponse("response did not match the messages schema")
    raise exc


class AnthropicModel:
    def __init__(self, model: str, *, api_key: str | None, settings: ModelSettings | None = None, name: str | None = None,
                 client: Any = None, sleep=asyncio.sleep):
        self.model = model
        self.settings = settings or ModelSettings()
        self.name = name or f"anthropic:{model}"
        self._sleep = sleep
        if client is None:
            try:
                import anthropic
            except ImportError as exc:
                raise ImportError(INSTALL_HINT) from exc
            client = anthropic.AsyncAnthropic(api_key=api_key, timeout=self.settings.timeout_s, max_retries=0)
        self._client = client

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                       *, json_mode: bool = False, json_schema: dict[str, Any] | None = None) -> ChatResponse:
        s = self.settings
        params = {"model": self.model, "max_tokens": s.max_tokens or DEFAULT_MAX_TOKENS, **to_anthropic(messages, tools)}
        for key in ("temperature", "top_p"):
            if getattr(s, key) is not None:
                params[key] = getattr(s, key)
        started, attempt = time.perf_counter(), 0
        while True:
            attempt += 1
            try:
                response = from_anthropic(await self._client.messages.create(**params))
                return ChatResponse(text=response.text, tool_calls=response.tool_calls, usage=response.usage,
                                    finish_reason=response.finish_reason, model=response.model,
                                    latency_s=time.perf_counter() - started, attempts=attempt)
            except ProviderError as err:
                error = err
            except Exception as exc:  # noqa: BLE001
                error = classify(exc)
            if not error.retryable or attempt > s.max_retries:
                raise error
            ceiling = min(s.backoff_max_s, s.backoff_base_s * 2 ** (attempt - 1))
            await self._sleep(random.uniform(0, ceiling))
