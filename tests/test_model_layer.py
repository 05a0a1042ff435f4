"""The model layer as a layer: it imports nothing above it, every model closes the same way, and
the one `ask_json` loop counts what re-asking costs."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import types

import pytest
from anthropic_sdk import fake_anthropic_sdk

from callbench.models import ChatModel, ScriptedModel
from callbench.models.anthropic_client import AnthropicModel
from callbench.models.ask_json import JsonRejected, ask_json
from callbench.models.base import ChatResponse, CloseErrors, ModelSettings, close_models
from callbench.models.openai_compat import OpenAICompatibleModel
from callbench.models.types import Usage
from callbench.testing import FakeProvider

HIGHER = ("callbench.spec", "callbench.call", "callbench.grading", "callbench.runs")


def _loaded_after(statement: str) -> list[str]:
    code = f"{statement}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(out.stdout)


@pytest.mark.parametrize(
    "statement",
    [
        "import callbench.models",
        "from callbench.models.base import ChatModel, close_models",
        "import callbench.models.provider, callbench.models.ask_json, callbench.models.limits",
        "import callbench.models.specs, callbench.models.openai_compat",
    ],
)
def test_importing_the_model_layer_loads_nothing_above_it(statement):
    """`models/base.py` once took ToolCall and Usage from `call/types.py`, so importing the
    ChatModel protocol loaded 27 modules, the suite validator among them."""
    loaded = _loaded_after(statement)
    above = [m for m in loaded if m.startswith(HIGHER)]
    assert above == [], f"{statement!r} loaded {above}"


def test_the_package_root_imports_no_layer_eagerly():
    loaded = _loaded_after("import callbench")
    assert [m for m in loaded if m.startswith("callbench.")] == ["callbench._version"]


def test_the_call_layer_still_exports_the_model_value_types():
    from callbench.call import ToolCall as CallToolCall
    from callbench.call.types import Usage as CallUsage
    from callbench.models.types import ToolCall

    assert CallToolCall is ToolCall and CallUsage is Usage


# --- closing: aclose, async with, close_models


def test_every_model_is_a_chat_model_that_closes_with_async_with(monkeypatch):
    sdk = fake_anthropic_sdk()
    clients = []

    class AsyncAnthropic:
        def __init__(self, **kwargs):
            self.closed = 0
            self.messages = types.SimpleNamespace(create=self.create)
            clients.append(self)

        async def create(self, **params):
            return types.SimpleNamespace(
                content=[types.SimpleNamespace(type="text", text="Hi.")],
                usage=types.SimpleNamespace(input_tokens=3, output_tokens=1),
                stop_reason="end_turn",
                model="claude-x",
            )

        async def close(self):
            self.closed += 1

    sdk.AsyncAnthropic = AsyncAnthropic
    monkeypatch.setitem(sys.modules, "anthropic", sdk)
    hello = [{"role": "user", "content": "hi"}]

    with FakeProvider(lambda body: "Hello.") as fp:
        openai_model = OpenAICompatibleModel(
            "m", base_url=fp.base_url, api_key=None, settings=ModelSettings(max_retries=0)
        )
        anthropic_model = AnthropicModel("claude-x", api_key=None)
        scripted = ScriptedModel(["Hey."])
        models = (openai_model, anthropic_model, scripted)
        assert all(isinstance(m, ChatModel) for m in models)

        async def go():
            texts = []
            for model in models:
                async with model as entered:
                    assert entered is model
                    texts.append((await model.complete(hello)).text)
            # closed, and still usable: the next request opens what it needs
            texts.append((await openai_model.complete(hello)).text)
            await openai_model.aclose()
            return texts

        texts = asyncio.run(go())
    assert texts == ["Hello.", "Hi.", "Hey.", "Hello."]
    assert openai_model._client is None
    assert [c.closed for c in clients] == [1] and anthropic_model._client is None
    assert scripted.closed == 1


def test_a_client_passed_in_is_left_to_its_owner():
    closed = []

    class Client:
        messages = None

        async def close(self):
            closed.append(1)

    model = AnthropicModel("claude-x", api_key=None, client=Client())
    asyncio.run(model.aclose())
    assert closed == []


def test_close_models_closes_each_once_and_keeps_every_error():
    class Failing(ScriptedModel):
        async def aclose(self):
            await super().aclose()
            raise RuntimeError(f"{self.name} would not close")

    a, b = ScriptedModel(name="a"), ScriptedModel(name="b")
    asyncio.run(close_models([a, b, a, b]))  # the same model under two roles
    assert (a.closed, b.closed) == (1, 1)

    bad = Failing(name="bad")
    with pytest.raises(RuntimeError, match="bad would not close"):
        asyncio.run(close_models([bad, a]))
    assert bad.closed == 1 and a.closed == 2  # the failure did not stop the others

    worse = Failing(name="worse")
    with pytest.raises(CloseErrors) as info:
        asyncio.run(close_models([bad, a, worse]))
    assert [name for name, _ in info.value.errors] == ["bad", "worse"] and a.closed == 3
    assert "bad (RuntimeError), worse (RuntimeError)" in str(info.value)


# --- ask_json


def _read(text: str) -> dict:
    obj = json.loads(text) if text.startswith("{") else None
    if not isinstance(obj, dict) or "answer" not in obj:
        raise ValueError("no 'answer' in the reply")
    return obj


def test_ask_json_re_asks_with_the_reason_and_sums_what_every_answer_cost():
    model = ScriptedModel(
        [
            ChatResponse(text="Sure! The answer is 4.", usage=Usage(100, 8, 50), attempts=3),
            ChatResponse(
                text='{"answer": 4}', usage=Usage(130, 5, 60), attempts=1, warnings=("w",)
            ),
        ]
    )
    messages = [{"role": "user", "content": "2+2? Reply in JSON."}]
    answer = asyncio.run(ask_json(model, messages, _read))
    assert answer.value == {"answer": 4} and answer.text == '{"answer": 4}'
    assert answer.cost.requests == 2 and answer.cost.warnings == ("w",)
    assert answer.cost.usage == Usage(230, 13, 110, retries=2)
    second = model.requests[1]["messages"]
    assert second[:1] == messages and second[1]["content"] == "Sure! The answer is 4."
    assert second[2]["content"].startswith("That reply was rejected: no 'answer' in the reply.")
    assert model.requests[0]["json_mode"] is True


def test_ask_json_gives_up_with_the_cost_and_lets_a_reader_bug_through():
    model = ScriptedModel(["nope"])
    with pytest.raises(JsonRejected) as info:
        asyncio.run(ask_json(model, [], _read, attempts=3))
    assert info.value.reason == "no 'answer' in the reply"
    assert info.value.cost.requests == 3 and info.value.cost.usage.prompt_tokens == 30

    def buggy(text: str) -> dict:
        raise KeyError("a bug in the reader")

    model = ScriptedModel(["{}"])
    with pytest.raises(KeyError):
        asyncio.run(ask_json(model, [], buggy))
    assert len(model.requests) == 1  # never re-asked: the model did nothing wrong
