"""Hostile providers at the model boundary: a provider that echoes the key in any field of an error
(or of a
reply), that reports absurd usage, asks for an endless Retry-After, or answers in shapes the
protocol does
not promise. Whatever it sends, the sweep finishes, report.json is written, and the key is
written nowhere."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from anthropic_sdk import fake_anthropic_sdk

from callbench.call import read_trace
from callbench.models.base import ChatResponse, ModelSettings
from callbench.models.errors import ContextOverflow, ProviderError, ProviderServerError
from callbench.models.openai_compat import OpenAICompatibleModel
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import load_suite
from callbench.testing import FakeProvider

FAST = ModelSettings(max_retries=1, backoff_base_s=0.001, backoff_max_s=0.002, timeout_s=2)
SCENARIO = ("clinic-book-slot-taken",)
SECRET = "sk-hostile-7d41c9e0a2b84f3e9c15"
KEY_ENV = "CALLBENCH_HOSTILE_KEY"


@pytest.fixture(scope="module")
def starter():
    return load_suite("starter")


class Responder:
    """A loopback HTTP server answering every POST with `reply(body) -> (status, content_type,
    bytes, headers)`:
    for answers FakeProvider has no fault for (an error whose code is the key, a non-JSON
    body...)."""

    def __init__(self, reply):
        self.reply = reply
        self.requests: list[dict] = []

    def __enter__(self) -> Responder:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                received = {k.lower(): v for k, v in self.headers.items()}
                outer.requests.append({"body": body, "headers": received})
                status, ctype, data, headers = outer.reply(body, received)
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def _json(status, payload, headers=None):
    return status, "application/json", json.dumps(payload).encode(), headers or {}


def _completion(text="Hello.", model="m", finish="stop", usage=None):
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
        ],
        "usage": usage if usage is not None else {"prompt_tokens": 10, "completion_tokens": 2},
    }


# every field a provider can put the key in, with a status that takes each error path (final,
# retried, auth)
ECHOES = {
    "message": lambda key, h: _json(
        400, {"error": {"message": f"invalid key {key}", "type": "invalid_request_error"}}
    ),
    "code": lambda key, h: _json(
        400, {"error": {"message": "no", "type": "invalid_request_error", "code": key}}
    ),
    "type": lambda key, h: _json(400, {"error": {"message": "no", "type": f"bad_key:{key}"}}),
    "param": lambda key, h: _json(
        400, {"error": {"message": "no", "type": "invalid_request_error", "param": key}}
    ),
    "raw_body": lambda key, h: (
        500,
        "text/plain",
        f"upstream refused: Authorization: Bearer {key}".encode(),
        {},
    ),
    "echoed_headers": lambda key, h: _json(
        400, {"error": {"message": json.dumps(h), "code": h.get("authorization")}}
    ),
    "rate_limit_code": lambda key, h: _json(
        429, {"error": {"code": f"slow_down_{key}", "type": "rate_limit"}}, {"retry-after": "0"}
    ),
    "auth_type": lambda key, h: _json(401, {"error": {"type": key, "code": key}}),
    "server_error_code": lambda key, h: _json(503, {"error": {"code": key}}),
    "reply_fields": lambda key, h: _json(
        200, _completion(text=f"my key is {key}", model=key, finish=key)
    ),
}


@pytest.mark.parametrize("field", list(ECHOES))
def test_a_key_echoed_in_any_field_is_written_nowhere(starter, tmp_path, monkeypatch, field):
    from callbench.reports.html import render_html

    monkeypatch.setenv(KEY_ENV, SECRET)
    with Responder(lambda body, headers: ECHOES[field](SECRET, headers)) as r:
        name = f"openai-compatible:{r.base_url}#m"
        config = RunConfig(
            candidates=(name,),
            scenarios=SCENARIO,
            infra_reruns=1,
            candidate_options={"api_key_env": KEY_ENV, "settings": FAST},
        )
        result = run_suite(starter, config, tmp_path / "run")
        assert (
            r.requests and r.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"
        )  # the key was sent
    html = render_html(tmp_path / "run", tmp_path / "report.html")
    card = result.scorecards[0]
    if field != "reply_fields":
        assert (
            card.outcome == "excluded" and card.failure is not None
        )  # the error itself was recorded...
        assert card.failure.detail  # ...with a message
    files = [p for p in (tmp_path / "run").rglob("*") if p.is_file()] + [html]
    names = {p.name for p in files}
    assert {"report.json", "run.sqlite", "report.html"} <= names and any(
        p.suffix == ".json" and "traces" in p.parts for p in files
    )
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), f"{field}: key written to {path}"


def test_an_explicit_key_is_redacted_from_errors_too():
    explicit = "sk-explicit-0b7e5d3c1a9f4e2d8c6b"
    with Responder(
        lambda body, headers: _json(
            400, {"error": {"code": explicit, "type": explicit, "param": explicit}}
        )
    ) as r:
        m = OpenAICompatibleModel(
            "m", base_url=r.base_url, api_key=explicit, settings=ModelSettings(max_retries=0)
        )
        with pytest.raises(ProviderError) as info:
            asyncio.run(m.complete([{"role": "user", "content": "hi"}]))
    assert (
        "HTTP 400" in str(info.value)
        and explicit not in str(info.value)
        and "[redacted]" in str(info.value)
    )
    assert explicit not in repr(info.value.args)


def test_a_huge_error_code_is_cut_short():
    with Responder(lambda body, headers: _json(400, {"error": {"code": "x" * 100_000}})) as r:
        m = OpenAICompatibleModel(
            "m", base_url=r.base_url, api_key=None, settings=ModelSettings(max_retries=0)
        )
        with pytest.raises(ProviderError) as info:
            asyncio.run(m.complete([{"role": "user", "content": "hi"}]))
    assert len(str(info.value)) < 200


def test_a_short_placeholder_key_does_not_change_what_the_model_said():
    """Local servers are given keys such as "x": redacting those from speech would change the call
    scored."""
    with Responder(lambda body, headers: _json(200, _completion(text="x marks the spot"))) as r:
        m = OpenAICompatibleModel(
            "m", base_url=r.base_url, api_key="x", settings=ModelSettings(max_retries=0)
        )
        response = asyncio.run(m.complete([{"role": "user", "content": "hi"}]))
    assert response.text == "x marks the spot"


# --- the Anthropic client, with a stand-in for its SDK (the extra is optional)
# --------------------------------


@pytest.mark.parametrize("where", ["type", "message", "raw"])
def test_the_anthropic_client_redacts_the_key_from_errors(monkeypatch, where):
    from callbench.models.anthropic_client import AnthropicModel

    key = "sk-ant-hostile-4c2e8a6f1b3d5e7a9c0b"
    sdk = fake_anthropic_sdk()
    monkeypatch.setitem(sys.modules, "anthropic", sdk)
    body = (
        {
            "type": "error",
            "error": {
                "type": key if where == "type" else "invalid_request_error",
                "message": key if where == "message" else "no",
            },
        }
        if where != "raw"
        else f"Bearer {key}"
    )

    class Messages:
        async def create(self, **params):
            raise sdk.APIStatusError(f"Error code: 400 - {body}", status_code=400, body=body)

    model = AnthropicModel(
        "claude-x",
        api_key=key,
        client=types.SimpleNamespace(messages=Messages()),
        settings=ModelSettings(max_retries=0),
    )
    with pytest.raises(ProviderError) as info:
        asyncio.run(model.complete([{"role": "user", "content": "hi"}]))
    assert "HTTP 400" in str(info.value) and key not in str(info.value)


# --- usage
# ------------------------------------------------------------------------------------------------

BAD_USAGE = [1e308, -5, "many", None, 2.5, True, 10**12]


@pytest.mark.parametrize("bad", BAD_USAGE, ids=repr)
def test_absurd_usage_is_recorded_as_missing_with_a_warning(bad):
    usage = {
        "prompt_tokens": bad,
        "completion_tokens": bad,
        "total_tokens": bad,
        "prompt_tokens_details": {"cached_tokens": bad},
    }
    with FakeProvider(lambda body: {"text": "Hello.", "usage": usage}) as fp:
        m = OpenAICompatibleModel(
            "m", base_url=fp.base_url, api_key=None, settings=ModelSettings(max_retries=0)
        )
        r = asyncio.run(m.complete([{"role": "user", "content": "hi"}]))
    assert r.text == "Hello." and (
        r.usage.prompt_tokens,
        r.usage.completion_tokens,
        r.usage.cached_tokens,
    ) == (0, 0, 0)
    assert (
        r.warnings
        and any("prompt_tokens" in w for w in r.warnings)
        and any("completion_tokens" in w for w in r.warnings)
    )
    assert all("recorded as 0" in w for w in r.warnings)


@pytest.mark.parametrize("bad", [1e308, -5, "many", None], ids=repr)
def test_a_sweep_with_absurd_usage_completes_and_writes_its_report(starter, tmp_path, bad):
    usage = {"prompt_tokens": bad, "completion_tokens": bad, "total_tokens": bad}
    with FakeProvider(lambda body: {"text": "Hello, one moment please.", "usage": usage}) as fp:
        name = f"openai-compatible:{fp.base_url}#m"
        config = RunConfig(
            candidates=(name,), scenarios=SCENARIO, candidate_options={"settings": FAST}
        )
        result = run_suite(starter, config, tmp_path / "run")
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["candidates"][name]["completed"] == 1
    assert result.scorecards[0].outcome == "completed"
    trace = read_trace(next((tmp_path / "run" / "traces").rglob("*.json")))
    assert (
        trace.usage["candidate"].prompt_tokens == 0
        and trace.usage["candidate"].completion_tokens == 0
    )


def test_valid_usage_is_kept_and_cached_tokens_are_bounded_by_the_prompt():
    replies = iter(
        [
            {"text": "a", "usage": {"prompt_tokens": 12.0, "completion_tokens": 3}},
            {
                "text": "b",
                "usage": {
                    "prompt_tokens": 5,
                    "completion_tokens": 1,
                    "prompt_tokens_details": {"cached_tokens": 9},
                },
            },
            {
                "text": "c",
                "usage": {
                    "prompt_tokens": 5,
                    "completion_tokens": 1,
                    "prompt_tokens_details": None,
                },
            },
        ]
    )
    with FakeProvider(lambda body: next(replies)) as fp:
        m = OpenAICompatibleModel(
            "m", base_url=fp.base_url, api_key=None, settings=ModelSettings(max_retries=0)
        )
        a, b, c = (asyncio.run(m.complete([{"role": "user", "content": "hi"}])) for _ in range(3))
    assert (a.usage.prompt_tokens, a.usage.completion_tokens, a.warnings) == (12, 3, ())
    assert b.usage.cached_tokens == 5 and b.warnings and "exceeds" in b.warnings[0]
    assert c.usage.prompt_tokens == 5 and c.warnings == ()


def test_a_response_without_usage_says_so():
    with Responder(lambda body, headers: _json(200, {**_completion(), "usage": "lots"})) as r:
        m = OpenAICompatibleModel(
            "m", base_url=r.base_url, api_key=None, settings=ModelSettings(max_retries=0)
        )
        response = asyncio.run(m.complete([{"role": "user", "content": "hi"}]))
    assert response.usage.total == 0 and response.warnings == (
        "the response reported no usage (recorded as 0 tokens)",
    )


@pytest.mark.parametrize("bad", [1e308, -5, "many"], ids=repr)
def test_the_anthropic_client_checks_usage_too(bad):
    from callbench.models.anthropic_client import from_anthropic

    raw = types.SimpleNamespace(
        content=[types.SimpleNamespace(type="text", text="Hi.")],
        stop_reason="end_turn",
        model="c",
        usage=types.SimpleNamespace(
            input_tokens=bad,
            output_tokens=bad,
            cache_read_input_tokens=bad,
            cache_creation_input_tokens=None,
        ),
    )
    r = from_anthropic(raw)
    assert (r.usage.prompt_tokens, r.usage.completion_tokens, r.usage.cached_tokens) == (0, 0, 0)
    assert {w.split()[1] for w in r.warnings} == {
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
    }


# --- retries
# --------------------------------------------------------------------------------------------------


def test_provider_retries_are_counted_on_the_response():
    async def no_sleep(_s):
        pass

    with FakeProvider(fault_plan=lambda n: {"fault": "unavailable"} if n < 2 else None) as fp:
        m = OpenAICompatibleModel(
            "m",
            base_url=fp.base_url,
            api_key=None,
            sleep=no_sleep,
            settings=ModelSettings(max_retries=3, timeout_s=5),
        )
        r = asyncio.run(m.complete([{"role": "user", "content": "hi"}]))
        assert (r.attempts, r.retries) == (3, 2)
        r = asyncio.run(m.complete([{"role": "user", "content": "hi"}]))
        assert (r.attempts, r.retries) == (1, 0)
    with FakeProvider(lambda body: {"fault": "server_error"}) as fp:
        m = OpenAICompatibleModel(
            "m",
            base_url=fp.base_url,
            api_key=None,
            sleep=no_sleep,
            settings=ModelSettings(max_retries=2, timeout_s=5),
        )
        with pytest.raises(ProviderServerError) as info:
            asyncio.run(m.complete([{"role": "user", "content": "hi"}]))
        assert (info.value.attempts, info.value.retries) == (3, 2)


def test_the_anthropic_client_counts_retries():
    from callbench.models.anthropic_client import AnthropicModel

    class Messages:
        calls = 0

        async def create(self, **params):
            Messages.calls += 1
            if Messages.calls == 1:
                raise ProviderServerError("HTTP 529", status_code=529)
            return types.SimpleNamespace(
                content=[types.SimpleNamespace(type="text", text="Hi.")],
                stop_reason="end_turn",
                model="c",
                usage=types.SimpleNamespace(input_tokens=3, output_tokens=1),
            )

    async def no_sleep(_s):
        pass

    model = AnthropicModel(
        "c", api_key=None, client=types.SimpleNamespace(messages=Messages()), sleep=no_sleep
    )
    r = asyncio.run(model.complete([{"role": "user", "content": "hi"}]))
    assert (r.text, r.attempts, r.retries) == ("Hi.", 2, 1)


def test_retries_always_follow_attempts():
    from dataclasses import replace

    r = ChatResponse(text="x", attempts=4)
    assert (
        r.retries == 3
        and replace(r, attempts=1).retries == 0
        and ChatResponse(text="y").retries == 0
    )


def test_a_sweep_records_retries_and_usage_warnings_per_role(starter, tmp_path):
    """What the model layer repeated or repaired is not lost on the way to the report: retries are
    summed per
    role in the trace and the report, and each usage warning is a note in the trace."""
    replies = iter(
        [
            {
                "text": "Hello, one moment please.",
                "usage": {"prompt_tokens": -5, "completion_tokens": 2},
            }
        ]
    )

    def responder(body):
        return next(
            replies,
            {"text": "Thank you, goodbye.", "usage": {"prompt_tokens": 7, "completion_tokens": 2}},
        )

    with FakeProvider(
        responder, fault_plan=lambda n: {"fault": "unavailable"} if n in (0, 1) else None
    ) as fp:
        name = f"openai-compatible:{fp.base_url}#m"
        config = RunConfig(
            candidates=(name,),
            scenarios=SCENARIO,
            candidate_options={
                "settings": ModelSettings(
                    max_retries=2, backoff_base_s=0.001, backoff_max_s=0.002, timeout_s=2
                )
            },
        )
        run_suite(starter, config, tmp_path / "run")
        served = len(fp.requests)
    trace = read_trace(next((tmp_path / "run" / "traces").rglob("*.json")))
    usage = trace.usage["candidate"]
    assert usage.retries == 2 and usage.calls == served - 2
    assert usage.prompt_tokens == 7 * (
        usage.calls - 1
    )  # the first answer's usage was out of contract: 0
    assert [n for n in trace.notes if "prompt_tokens" in n and "recorded as 0" in n], trace.notes
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["candidates"][name]["usage"]["candidate"]["retries"] == 2


# --- other hostile shapes
# -------------------------------------------------------------------------------------


@pytest.mark.parametrize("retry_after", ["1e308", "inf"])
def test_an_endless_retry_after_does_not_stall_the_shared_gate(retry_after):
    from callbench.models.limits import ProviderGate, ProviderLimits
    from callbench.models.openai_compat import MAX_RETRY_AFTER_S

    now = [0.0]

    async def fake_sleep(s):
        now[0] += s

    gate = ProviderGate(ProviderLimits(concurrency=4), clock=lambda: now[0], sleep=fake_sleep)
    with FakeProvider(
        fault_plan=lambda n: {"fault": "rate_limit", "retry_after": retry_after} if n == 0 else None
    ) as fp:
        m = OpenAICompatibleModel(
            "m",
            base_url=fp.base_url,
            api_key=None,
            sleep=fake_sleep,
            settings=ModelSettings(max_retries=2, backoff_max_s=30.0, timeout_s=5),
        )
        m.gate = gate
        r = asyncio.run(m.complete([{"role": "user", "content": "hi"}]))
    assert r.text == "Hello." and r.retries == 1
    assert gate.waited_s <= MAX_RETRY_AFTER_S and gate.cooldown_until <= 2 * MAX_RETRY_AFTER_S


def test_a_context_overflow_from_the_provider_is_the_models_failure_not_a_crash():
    with Responder(
        lambda body, headers: _json(
            400,
            {
                "error": {
                    "message": "too long",
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
            },
        )
    ) as r:
        m = OpenAICompatibleModel(
            "m", base_url=r.base_url, api_key=None, settings=ModelSettings(max_retries=3)
        )
        with pytest.raises(ContextOverflow) as info:
            asyncio.run(m.complete([{"role": "user", "content": "hi"}]))
        assert (
            len(r.requests) == 1 and info.value.attempts == 1
        )  # not retried: no retry makes it fit


def test_tool_call_arguments_sent_as_an_object_become_json_text():
    reply = _completion(text=None)
    reply["choices"][0]["message"]["tool_calls"] = [
        {"id": 7, "type": "function", "function": {"name": "book", "arguments": {"slot": "A1"}}}
    ]
    with Responder(lambda body, headers: _json(200, reply)) as r:
        m = OpenAICompatibleModel(
            "m", base_url=r.base_url, api_key=None, settings=ModelSettings(max_retries=0)
        )
        response = asyncio.run(m.complete([{"role": "user", "content": "hi"}]))
    call = response.tool_calls[0]
    assert (
        call.name == "book" and json.loads(call.arguments) == {"slot": "A1"} and call.id == "call_0"
    )
