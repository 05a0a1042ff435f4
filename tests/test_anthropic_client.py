"""The Anthropic edge: message/tool translation and response reading, with a fake SDK client (no
network)."""

import asyncio
import json
from types import SimpleNamespace as NS

import pytest

from callbench.call import ObservedMessage, ToolCall
from callbench.candidates import CandidateView, chat_messages, tool_schemas
from callbench.models.anthropic_client import AnthropicModel, to_anthropic


def test_translation_keeps_roles_alternating_and_caches_the_instructions(mini_suite):
    agent = mini_suite.agents["parcel-desk"]
    view = CandidateView(
        instructions=agent.instructions,
        tools=tuple(agent.definition.tools),
        language="en",
        direction="inbound",
        call_context={},
        messages=(
            ObservedMessage("candidate", "Hello!"),
            ObservedMessage("caller", "It's SP-04"),
            ObservedMessage("caller", "12."),
            ObservedMessage(
                "candidate",
                "Looking.",
                (ToolCall("lookup_parcel", '{"tracking_id": "SP-0412"}', "c1"),),
            ),
            ObservedMessage(
                "tool", '{"found": true}', tool_call_id="c1", tool_name="lookup_parcel"
            ),
        ),
    )
    req = to_anthropic(chat_messages(view), tool_schemas(view.tools))
    assert (
        req["system"][0]["text"].startswith(agent.instructions)
        and req["system"][0]["cache_control"]["type"] == "ephemeral"
    )
    roles = [m["role"] for m in req["messages"]]
    assert roles[0] == "user" and all(a != b for a, b in zip(roles, roles[1:]))
    user_fragments = req["messages"][2]["content"]
    assert [b["text"] for b in user_fragments] == [
        "It's SP-04",
        "12.",
    ]  # split fragments stay separate blocks
    tool_use = req["messages"][3]["content"][1]
    assert tool_use == {
        "type": "tool_use",
        "id": "c1",
        "name": "lookup_parcel",
        "input": {"tracking_id": "SP-0412"},
    }
    assert req["messages"][4]["content"][0]["type"] == "tool_result"
    assert req["tools"][0]["input_schema"]["properties"]["tracking_id"]["type"] == "string"


def test_response_reading_and_usage():
    class FakeMessages:
        def __init__(self):
            self.calls = []

        async def create(self, **params):
            self.calls.append(params)
            return NS(
                content=[
                    NS(type="text", text="One moment."),
                    NS(
                        type="tool_use",
                        id="tu_1",
                        name="lookup_parcel",
                        input={"tracking_id": "SP-1"},
                    ),
                ],
                usage=NS(
                    input_tokens=20,
                    output_tokens=9,
                    cache_read_input_tokens=300,
                    cache_creation_input_tokens=0,
                ),
                stop_reason="tool_use",
                model="claude-x",
            )

    fake = NS(messages=FakeMessages())
    model = AnthropicModel("claude-x", api_key=None, client=fake)
    r = asyncio.run(
        model.complete([{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}])
    )
    assert r.text == "One moment." and r.tool_calls[0].name == "lookup_parcel"
    assert json.loads(r.tool_calls[0].arguments) == {"tracking_id": "SP-1"}
    assert (r.usage.prompt_tokens, r.usage.cached_tokens, r.usage.completion_tokens) == (
        320,
        300,
        9,
    )
    assert fake.messages.calls[0]["max_tokens"] == 1024


# --- retries: the one loop of models/provider.py, with a stand-in for the SDK's errors


def _ok():
    return NS(
        content=[NS(type="text", text="Fine.")],
        usage=NS(input_tokens=5, output_tokens=2),
        stop_reason="end_turn",
        model="claude-x",
    )


def test_retries_wait_for_retry_after_and_pass_through_the_gate(monkeypatch):
    """Once, this client slept a jittered backoff whatever the provider asked, and never met the
    endpoint's gate: a 429 asking for 7 s was retried at once and no other call slowed down."""
    import sys

    from anthropic_sdk import fake_anthropic_sdk

    from callbench.models.base import ModelSettings
    from callbench.models.limits import ProviderGate, ProviderLimits

    sdk = fake_anthropic_sdk()
    monkeypatch.setitem(sys.modules, "anthropic", sdk)
    now, slept = [0.0], []

    async def sleep(s):
        slept.append(s)
        now[0] += s

    class Messages:
        calls = 0

        async def create(self, **params):
            Messages.calls += 1
            if Messages.calls <= 2:
                raise sdk.APIStatusError(
                    "Error code: 429",
                    status_code=429,
                    body={"error": {"type": "rate_limit_error"}},
                    headers={"retry-after": "7"},
                )
            return _ok()

    gate = ProviderGate(ProviderLimits(concurrency=1, rpm=100), clock=lambda: now[0], sleep=sleep)
    model = AnthropicModel(
        "claude-x",
        api_key=None,
        client=NS(messages=Messages()),
        settings=ModelSettings(max_retries=4, backoff_base_s=0.01, backoff_max_s=30.0),
        sleep=sleep,
    )
    model.gate = gate
    r = asyncio.run(model.complete([{"role": "user", "content": "hi"}]))
    assert r.text == "Fine." and Messages.calls == 3
    assert r.attempts == 3 and r.retries == 2 and r.usage.retries == 2
    # the client waited out the Retry-After after each 429 (not a 0.01-0.02 s jitter) ...
    assert slept == [7.0, 7.0]
    # ... and every request went through the gate, which the 429s cooled down for every call
    assert len(gate._requests) == 3 and gate.cooldown_until >= 7.0
    assert gate.max_in_flight == 1 and gate.in_flight == 0


def test_a_final_failure_records_its_attempts_and_a_bug_is_not_retried(monkeypatch):
    import sys

    from anthropic_sdk import fake_anthropic_sdk

    from callbench.models.base import ModelSettings
    from callbench.models.errors import ProviderServerError

    sdk = fake_anthropic_sdk()
    monkeypatch.setitem(sys.modules, "anthropic", sdk)
    slept = []

    async def sleep(s):
        slept.append(s)

    class Messages:
        async def create(self, **params):
            raise sdk.APIStatusError("Error code: 529", status_code=529, body={})

    model = AnthropicModel(
        "claude-x",
        api_key=None,
        client=NS(messages=Messages()),
        settings=ModelSettings(max_retries=2),
        sleep=sleep,
    )
    with pytest.raises(ProviderServerError) as info:
        asyncio.run(model.complete([{"role": "user", "content": "hi"}]))
    assert (info.value.attempts, info.value.retries) == (3, 2) and len(slept) == 2

    class Broken:
        async def create(self, **params):
            raise RuntimeError("a bug of ours")

    buggy = AnthropicModel("claude-x", api_key=None, client=NS(messages=Broken()), sleep=sleep)
    with pytest.raises(RuntimeError, match="a bug of ours"):
        asyncio.run(buggy.complete([{"role": "user", "content": "hi"}]))
    assert len(slept) == 2  # raised as it is, never retried
