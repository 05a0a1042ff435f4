"""The OpenAI-compatible client against a real loopback server: replies, usage, retries and
classification."""

import asyncio

import pytest

from callbench.models.base import ModelSettings
from callbench.models.errors import (
    ContextOverflow,
    EmptyResponse,
    MalformedResponse,
    ProviderAuthError,
    ProviderServerError,
    ProviderTimeout,
    ProviderTransportError,
    RateLimited,
)
from callbench.models.openai_compat import TRANSPORTS, OpenAICompatibleModel
from callbench.testing import FakeProvider

KEY = "sk-test-secret-0123456789"


def model(fp, sleeps=None, **settings):
    async def fake_sleep(s):
        (sleeps if sleeps is not None else []).append(s)

    return OpenAICompatibleModel(
        "fake-model",
        base_url=fp.base_url,
        api_key=KEY,
        settings=ModelSettings(**{"timeout_s": 5, "max_retries": 2, **settings}),
        sleep=fake_sleep,
    )


def complete(m, **kw):
    return asyncio.run(m.complete([{"role": "user", "content": "hi"}], **kw))


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_text_tool_calls_and_usage(transport):
    replies = iter(
        [
            "Hello there.",
            {"text": "Booking.", "tool_calls": [{"name": "book", "arguments": {"slot": "A1"}}]},
        ]
    )
    with FakeProvider(lambda body: next(replies)) as fp:
        m = model(fp, temperature=0, seed=7, max_tokens=50, http_transport=transport)
        r = complete(m)
        assert r.text == "Hello there." and r.tool_calls == () and r.attempts == 1
        assert (r.usage.prompt_tokens, r.usage.completion_tokens, r.usage.cached_tokens) == (
            100,
            10,
            64,
        )
        r = complete(
            m,
            tools=[
                {"type": "function", "function": {"name": "book", "parameters": {"type": "object"}}}
            ],
        )
        assert (
            r.text == "Booking."
            and r.tool_calls[0].name == "book"
            and r.tool_calls[0].arguments == '{"slot": "A1"}'
        )
        sent = fp.requests[0]
        assert (sent["temperature"], sent["seed"], sent["max_tokens"]) == (0, 7, 50)
        assert fp.headers[0]["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize(
    "fault,error",
    [
        ("rate_limit", RateLimited),
        ("server_error", ProviderServerError),
        ("unavailable", ProviderServerError),
        ("reset", ProviderTransportError),
        ("malformed_json", MalformedResponse),
        ("empty_choices", EmptyResponse),
    ],
)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_retryable_faults_are_retried_then_classified(fault, error, transport):
    """Both transports classify alike (the SDK's aiohttp transport calls a reset a connect
    timeout)."""
    with FakeProvider(lambda body: {"fault": fault}) as fp:
        sleeps = []
        with pytest.raises(error) as info:
            complete(model(fp, sleeps, http_transport=transport))
        assert len(fp.requests) == 3 and len(sleeps) == 2  # 1 try + 2 retries
        assert KEY not in str(info.value)


def test_a_retry_that_succeeds_is_invisible_but_counted():
    with FakeProvider(
        fault_plan=lambda n: {"fault": "rate_limit", "retry_after": 3} if n == 0 else None
    ) as fp:
        sleeps = []
        r = complete(model(fp, sleeps))
        assert r.text == "Hello." and r.attempts == 2
        assert sleeps and sleeps[0] >= 3  # Retry-After honoured


def test_final_errors_are_not_retried():
    with FakeProvider(api_key="other-key") as fp:
        with pytest.raises(ProviderAuthError) as info:
            complete(model(fp))
        assert len(fp.requests) == 1 and KEY not in str(info.value) and "401" in str(info.value)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_timeout_is_classified(transport):
    with FakeProvider(lambda body: {"fault": "slow", "delay": 1.5}) as fp:
        with pytest.raises(ProviderTimeout):
            complete(model(fp, timeout_s=0.3, max_retries=0, http_transport=transport))


def test_the_aiohttp_transport_without_the_sdks_extra_fails_at_once_with_the_hint(monkeypatch):
    import openai

    class Placeholder:  # what the SDK exports when its aiohttp extra is missing
        def __init__(self, **_):
            raise RuntimeError(
                "To use the aiohttp client you must have installed the package with the `aiohttp` "
                "extra"
            )

    monkeypatch.setattr(openai, "DefaultAioHttpClient", Placeholder)
    with pytest.raises(ImportError, match=r"openai\[aiohttp\]"):
        OpenAICompatibleModel("x", base_url="http://127.0.0.1:9/v1", api_key=KEY)
    OpenAICompatibleModel(
        "x",
        base_url="http://127.0.0.1:9/v1",
        api_key=KEY,
        settings=ModelSettings(http_transport="httpx"),
    )


def test_an_unknown_transport_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="aiohttp.*httpx.*'curl'"):
        OpenAICompatibleModel(
            "x",
            base_url="http://127.0.0.1:9/v1",
            api_key=KEY,
            settings=ModelSettings(http_transport="curl"),
        )


def test_context_overflow_is_the_models_failure():
    from callbench.errors import ModelError
    from callbench.models.errors import for_status

    err = for_status(400, "HTTP 400", code="context_length_exceeded")
    assert isinstance(err, ContextOverflow) and isinstance(err, ModelError)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_connection_refused_is_transport(transport):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    m = OpenAICompatibleModel(
        "x",
        base_url=f"http://127.0.0.1:{port}/v1",
        api_key=KEY,
        settings=ModelSettings(max_retries=0, timeout_s=2, http_transport=transport),
    )
    with pytest.raises(ProviderTransportError):
        complete(m)


def test_the_fake_provider_takes_a_burst_of_new_connections():
    """A sweep opens a hundred connections at once. socketserver's default listen backlog (5) made
    the
    kernel drop most of those handshakes and the clients retry a second later, which a benchmark
    then
    charged to the harness. The kernel completes handshakes for a listener with room in its backlog,
    so every socket must be connected well before the first SYN retry (1 s)."""
    import select
    import socket
    import time
    from urllib.parse import urlparse

    with FakeProvider() as fp:
        url = urlparse(fp.base_url)
        sockets = []
        try:
            for _ in range(200):
                s = socket.socket()
                s.setblocking(False)
                s.connect_ex((url.hostname, url.port))
                sockets.append(s)
            pending, deadline = set(sockets), time.monotonic() + 0.7
            while pending and time.monotonic() < deadline:
                _, writable, _ = select.select([], list(pending), [], 0.05)
                pending -= {
                    s for s in writable if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
                }
            assert not pending, f"{len(pending)} of 200 connections were still handshaking"
        finally:
            for s in sockets:
                s.close()
