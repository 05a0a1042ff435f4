"""The Anthropic edge: message/tool translation and response reading, with a fake SDK client (no
network)."""

import asyncio
import json
from types import SimpleNamespace as NS

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
