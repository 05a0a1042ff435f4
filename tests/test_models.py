"""The OpenAI-compatible client against a real loopback server: replies, usage, retries and classification."""

import asyncio

import pytest

from callbench.models.base import ModelSettings
from callbench.models.errors import (ContextOverflow, EmptyResponse, MalformedResponse, ProviderAuthError,
                                     ProviderServerError, ProviderTimeout, ProviderTransportError, RateLimited)
from callbench.models.openai_compat import OpenAICompatibleModel
from callbench.testing import FakeProvider

KEY = "sk-test-secret-0123456789"


def model(fp, sleeps=None, **settings):
    async def fake_sleep(s):
        (sleeps if sleeps is not None else []).append(s)

    return OpenAICompatibleModel("fake-model", base_url=fp.base_url, api_key=KEY,
                                 settings=ModelSettings(**{"timeout_s": 5, "max_retries": 2, **settings}), sleep=fake_sleep)


def complete(m, **kw):
    return asyncio.run(m.complete([{"role": "user", "content": "hi"}], **kw))


def test_text_tool_calls_and_usage():
    replies = iter(["Hello there.", {"text": "Booking.", "tool_calls": [{"name": "book", "arguments": {"slot": "A1"}}]}])
    with FakeProvider(lambda body: next(replies)) as fp:
        m = model(fp, temperature=0, seed=7, max_tokens=50)
        r = complete(m)
        assert r.text == "Hello there." and r.tool_calls == () and r.attempts == 1
        assert (r.usage.prompt_tokens, r.usage.completion_tokens, r.usage.cached_tokens) == (100, 10, 64)
        r = complete(m, tools=[{"type": "function", "function": {"name": "book", "parameters": {"type": "object"}}}])
        assert r.text == "Booking." and r.tool_calls[0].name == "book" and r.tool_calls[0].arguments == '{"slot": "A1"}'
        sent = fp.requests[0]
        assert (sent["temperature"], sent["seed"], sent["max_tokens"]) == (0, 7, 50)
        assert fp.headers[0]["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("fault,error", [
    ("rate_limit", RateLimited), ("server_error", ProviderServerError), ("unavailable", ProviderServerError),
    ("reset", ProviderTransportError), ("malformed_json", MalformedResponse), ("empty_choices", EmptyResponse),
])
def test_retryable_faults_are_retried_then_classified(fault, error):
    with FakeProvider(lambda body: {"fault": fault}) as fp:
        sleeps = []
        with pytest.raises(error) as info:
            complete(model(fp, sleeps))
        assert len(fp.requests) == 3 and len(sleeps) == 2  # 1 try + 2 retries
        assert KEY not in str(info.value)


def test_a_retry_that_succeeds_is_invisible_but_counted():
    with FakeProvider(fault_plan=lambda n: {"fault": "rate_limit", "retry_after": 3} if n == 0 else None) as fp:
        sleeps = []
        r = complete(model(fp, sleeps))
        assert r.text == "Hello." and r.attempts == 2
        assert sleeps and sleeps[0] >= 3  # Retry-After honoured


def test_final_errors_are_not_retried():
    with FakeProvider(api_key="other-key") as fp:
        with pytest.raises(ProviderAuthError) as info:
            complete(model(fp))
        assert len(fp.requests) == 1 and KEY not in str(info.value) and "401" in str(info.value)


def test_timeout_is_classified():
    with FakeProvider(lambda body: {"fault": "slow", "delay": 1.5}) as fp:
        with pytest.raises(ProviderTimeout):
            complete(model(fp, timeout_s=0.3, max_retries=0))


def test_context_overflow_is_the_models_failure():
    from callbench.errors import ModelError
    from callbench.models.errors import for_status

    err = for_status(400, "HTTP 400", code="context_length_exceeded")
    assert isinstance(err, ContextOverflow) and isinstance(err, ModelError)


def test_connection_refused_is_transport():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    m = OpenAICompatibleModel("x", base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY,
                              settings=ModelSettings(max_retries=0, timeout_s=2))
    with pytest.raises(ProviderTransportError):
        complete(m)
