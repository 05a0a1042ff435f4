"""The ChatModel boundary: messages and tools in; text, tool calls and usage out.

Messages and tools are OpenAI chat-completions dicts, the lingua franca every
OpenAI-compatible server (vLLM, Ollama, llama.cpp, OpenRouter) speaks; other
providers translate at their edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..call.types import ToolCall, Usage

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
    benchmarks/bench_sweep.py was 9.6 ms against 11.3 with a hundred calls in flight and 7.9 against 14.3
    with five hundred, as httpx's pool scans every connection for every request) or "httpx" (the SDK's
    default client, kept as a fallback)"""

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


@runtime_checkable
class ChatModel(Protocol):
    name: str
    settings: ModelSettings

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                       *, json_mode: bool = False, json_schema: dict[str, Any] | None = None) -> ChatResponse:
        """`json_mode` asks for a JSON object; `json_schema` (where the endpoint can enforce one) for its shape."""
        ...
