"""Candidates by name: the built-in baselines, model specs, Python agents and HTTP agents.

    oracle | noop | shortcut                 built-in baselines
    openai:gpt-4.1-mini (any model spec)     native tool calling (see callbench.models.specs)
    json:ollama:llama3.2                     the JSON action loop, for chat-only models
    python:my_pkg.agent:MyAgent              a Python agent (class or function)
    http://127.0.0.1:8080/agent              an agent stack over HTTP
    cascade:local:smollm2                    voice: recogniser + any candidate above + espeak-ng
    ws://127.0.0.1:8765/voice (or wss://)    voice: a stack speaking the WebSocket audio contract
    openai-realtime:gpt-realtime             voice: OpenAI Realtime
    gemini-live:gemini-live-2.5-flash        voice: Gemini Live

Voice candidates hear and speak audio: they run with `--channel audio` only.

Only a privileged entry may read the scenario (the oracle, by design); every
other factory is called without it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import CallbenchError
from ..spec import Scenario
from .base import Candidate
from .noop import NoopCandidate
from .oracle import OracleCandidate
from .shortcut import ShortcutCandidate
from .spray import SprayCandidate


@dataclass(frozen=True)
class CandidateEntry:
    name: str
    description: str
    make: Callable[[Scenario], Candidate]
    privileged: bool = False
    model: dict[str, Any] = field(default_factory=dict)
    """what a report records about the model behind the candidate (spec label and settings; never a
    key)"""
    spec: Any = None
    """the parsed model spec, for model-backed candidates"""


BASELINES: dict[str, CandidateEntry] = {
    "oracle": CandidateEntry(
        "oracle",
        "plays the scenario's reference solution (reads the answer key)",
        OracleCandidate,
        privileged=True,
    ),
    "noop": CandidateEntry(
        "noop", "polite, never calls a tool: the floor", lambda _scenario: NoopCandidate()
    ),
    "shortcut": CandidateEntry(
        "shortcut",
        "no model; copies identifiers from the conversation into every tool it can fill",
        lambda _scenario: ShortcutCandidate(),
    ),
    "spray": CandidateEntry(
        "spray",
        "no model; recites cue and refusal words, brute-forces verification, calls every "
        "tool with every identifier it heard (the gaming attack)",
        lambda _scenario: SprayCandidate(),
    ),
}


class UnknownCandidate(CallbenchError):
    """A candidate name that resolves to nothing (user input: reported in one line)."""


def candidate_entry(
    name: str, models: dict[str, Any] | None = None, **options: Any
) -> CandidateEntry:
    """Resolve a candidate name. `models` caches ChatModel clients by spec so all calls share one
    connection pool."""
    if name in BASELINES:
        return BASELINES[name]
    voice = _voice_entry(name, models, options)
    if voice is not None:
        return voice
    if name.startswith(("http://", "https://")):
        from .http_agent import HttpAgentCandidate

        return CandidateEntry(
            name, "agent over HTTP", lambda _s: HttpAgentCandidate(name, **options.get("http", {}))
        )
    if name.startswith("python:"):
        from .python_agent import PythonAgentCandidate, PythonAgentError, load_attribute

        target = name.removeprefix("python:")
        try:
            obj = load_attribute(target)
        except PythonAgentError as exc:
            raise UnknownCandidate(str(exc)) from None
        return CandidateEntry(name, "Python agent", lambda _s: PythonAgentCandidate(target, obj))
    json_loop = name.startswith("json:")
    spec_text = name.removeprefix("json:")
    from ..models.specs import PROVIDERS, ModelSpecError, build_model, parse_spec

    if spec_text.partition(":")[0] not in PROVIDERS:
        raise UnknownCandidate(
            f"unknown candidate '{name}' (built-in: {', '.join(BASELINES)}; or a model spec such "
            "as "
            f"openai:gpt-4.1-mini, json:ollama:llama3.2, python:module:attr, http://host/agent)"
        )
    try:
        spec = parse_spec(
            spec_text,
            base_url=options.get("base_url"),
            api_key_env=options.get("api_key_env"),
            settings=options.get("settings"),
        )
    except ModelSpecError as exc:
        raise UnknownCandidate(str(exc)) from None
    cache = models if models is not None else {}
    if spec.label not in cache:
        try:
            cache[spec.label] = build_model(spec)
        except ModelSpecError as exc:
            raise UnknownCandidate(str(exc)) from None
    model = cache[spec.label]
    from .llm import ChatCandidate, JsonActionCandidate

    # the local model's template knows no tools: JSON actions, JSON mode
    json_actions = json_loop or spec.provider == "local"

    def make(_s):
        if json_actions:
            return JsonActionCandidate(model, name=name, json_mode=spec.provider == "local")
        return ChatCandidate(
            model,
            name=name,
            user_first=options.get("user_first", False),
            concluding_message=options.get("concluding_message", False),
        )

    return CandidateEntry(
        name,
        "model-backed candidate",
        make,
        model={"spec": spec.label, "settings": spec.settings.public()},
        spec=spec,
    )


REALTIME = {
    "openai-realtime": ("openai_realtime", "OpenAIRealtimeStack", "OpenAI Realtime"),
    "gemini-live": ("gemini_live", "GeminiLiveStack", "Gemini Live"),
}


def _voice_entry(
    name: str, models: dict[str, Any] | None, options: dict[str, Any]
) -> CandidateEntry | None:
    """A voice candidate (`VoiceCandidate` around a stack), or None when `name` is not one. The
    stack modules load only when named (they need the optional voice packages)."""
    from .voice.adapter import VoiceCandidate

    if name.startswith("cascade:"):
        from .voice.cascade import CascadeStack

        inner_name = name.removeprefix("cascade:")
        if not inner_name:
            raise UnknownCandidate("'cascade:' needs a candidate, e.g. cascade:local:smollm2")
        inner = candidate_entry(inner_name, models=models, **options)
        stack = CascadeStack(inner, name=name)
        return CandidateEntry(
            name,
            f"voice cascade: recogniser + {inner_name} + synthesizer (Piper for English)",
            lambda _s: VoiceCandidate(stack),
            model=dict(inner.model),
            spec=inner.spec,
        )
    if name.startswith(("ws://", "wss://")):
        from .voice.ws_contract import WebSocketStack

        return CandidateEntry(
            name,
            "voice stack over the WebSocket audio contract",
            lambda _s: VoiceCandidate(WebSocketStack(name)),
        )
    kind, sep, model = name.partition(":")
    if sep and kind in REALTIME:
        if not model:
            raise UnknownCandidate(f"'{name}': name the model, e.g. {kind}:MODEL")
        module_name, class_name, label = REALTIME[kind]

        def make(_s: Any) -> Any:
            import importlib

            module = importlib.import_module(f"{__package__}.voice.{module_name}")
            stack = getattr(module, class_name)(
                model,
                base_url=options.get("base_url"),
                api_key_env=options.get("api_key_env") or None,  # None: the service's own
            )
            return VoiceCandidate(stack)

        return CandidateEntry(name, f"voice: {label}", make, model={"spec": name, "settings": {}})
    return None
