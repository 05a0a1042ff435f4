"""The OpenAI-compatible client's request path: the body goes through the SDK's own `request`
(its transport, auth, timeouts and errors) without `chat.completions.create`'s per-request
typed-dict transform, and what reaches the provider is what `create` sent."""

import asyncio

import pytest

from callbench.models.base import ModelSettings
from callbench.models.openai_compat import TRANSPORTS, OpenAICompatibleModel
from callbench.testing import FakeProvider

KEY = "sk-test-secret-0123456789"
TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]


def _send(fp, transport, **settings):
    async def go():
        m = OpenAICompatibleModel(
            "fake-model",
            base_url=fp.base_url,
            api_key=KEY,
            settings=ModelSettings(http_transport=transport, **settings),
        )
        try:
            await m.complete(
                [{"role": "user", "content": "héllo"}], tools=TOOLS, json_schema={"type": "object"}
            )
            await m.complete([{"role": "user", "content": "again"}], json_mode=True)
        finally:
            await m.aclose()

    asyncio.run(go())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_requests_skip_the_sdks_typed_dict_transform(transport, monkeypatch):
    from openai.resources.chat.completions import AsyncCompletions

    def forbidden(*args, **kwargs):
        raise AssertionError("chat.completions.create and its typed-dict transform ran")

    monkeypatch.setattr(AsyncCompletions, "create", forbidden)
    with FakeProvider(lambda body: "fine") as fp:
        _send(fp, transport)
    assert len(fp.requests) == 2


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_provider_receives_what_create_sent(transport):
    """The body `chat.completions.create` sent (settings, response format, messages, tools, with
    `extra_body` winning), the SDK's headers (its User-Agent names `AsyncOpenAI`), the same URL
    every time."""
    with FakeProvider(lambda body: "fine") as fp:
        _send(fp, transport, temperature=0.3, seed=7, extra_body={"top_k": 3, "seed": 8})
    first, second = fp.requests
    assert first == {
        "model": "fake-model",
        "temperature": 0.3,
        "seed": 8,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": {"type": "object"}},
        },
        "messages": [{"role": "user", "content": "héllo"}],
        "tools": TOOLS,
        "top_k": 3,
    }
    assert second["response_format"] == {"type": "json_object"} and "tools" not in second
    for headers in fp.headers:
        assert headers["authorization"] == f"Bearer {KEY}"
        assert headers["content-type"] == "application/json"
        assert headers["user-agent"].startswith("AsyncOpenAI/Python")
        assert headers["x-stainless-retry-count"] == "0"
        assert "x-stainless-raw-response" not in headers
