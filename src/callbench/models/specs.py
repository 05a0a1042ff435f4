"""Model specs as users write them, and the model they build.

    openai:gpt-4.1-mini                          OpenAI, key from OPENAI_API_KEY
    openai-compatible:http://127.0.0.1:8000/v1#my-model
                                                 any chat-completions server (vLLM, llama.cpp, ...)
    openrouter:meta-llama/llama-3.1-8b-instruct  OpenRouter, key from OPENROUTER_API_KEY
    ollama:qwen2.5:7b                            a local Ollama server
    anthropic:claude-sonnet-4-5                  the 'anthropic' extra, key from ANTHROPIC_API_KEY
    local:smollm2                                the small real model of the 'local' extra,
                                                 served on loopback

Keys only ever come from the environment: a spec names the variable, never
the value, so a config file or a report can be shared as it is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import CallbenchError
from .base import ModelSettings
from .secrets import register_secret

PROVIDERS = {
    "openai": (None, "OPENAI_API_KEY"),
    "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    "ollama": ("http://127.0.0.1:11434/v1", None),
    "openai-compatible": (None, None),
    "anthropic": (None, "ANTHROPIC_API_KEY"),
    "local": (None, None),
}


class ModelSpecError(CallbenchError):
    """A model spec that cannot be understood, or whose key is not in the environment."""


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    settings: ModelSettings = field(default_factory=ModelSettings)

    @property
    def label(self) -> str:
        """How the model is named in traces and reports (no secrets, no credentials in URLs)."""
        if self.provider == "openai-compatible":
            return f"openai-compatible:{self.base_url}#{self.model}"
        return f"{self.provider}:{self.model}"

    def api_key(self) -> str | None:
        if self.api_key_env is None:
            return None
        value = os.environ.get(self.api_key_env)
        if not value:
            raise ModelSpecError(
                f"{self.label}: environment variable {self.api_key_env} is not set"
            )
        register_secret(value)  # redacted from whatever any provider sends back, from now on
        return value


def parse_spec(
    text: str,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    settings: ModelSettings | None = None,
) -> ModelSpec:
    """Parse `provider:model` (with `#model` after a URL for openai-compatible); `base_url`
    overrides the provider's."""
    provider, sep, rest = text.partition(":")
    if not sep or not rest:
        raise ModelSpecError(
            f"model spec '{text}' must look like provider:model (providers: {', '.join(PROVIDERS)})"
        )
    if provider not in PROVIDERS:
        raise ModelSpecError(
            f"unknown provider '{provider}' in '{text}' (providers: {', '.join(PROVIDERS)})"
        )
    default_url, default_env = PROVIDERS[provider]
    model = rest
    url = base_url or default_url
    if provider == "openai-compatible":
        url_part, hash_, model = rest.rpartition("#")
        if not hash_ or not url_part or not model:
            raise ModelSpecError(
                f"'{text}': write openai-compatible:URL#MODEL, e.g. "
                "openai-compatible:http://127.0.0.1:8000/v1#my-model"
            )
        url = base_url or url_part
    if "@" in (url or "").split("//")[-1].split("/")[0]:
        raise ModelSpecError(
            f"'{text}': put credentials in an environment variable, not in the URL"
        )
    return ModelSpec(
        provider=provider,
        model=model,
        base_url=url,
        api_key_env=api_key_env or default_env,
        settings=settings or ModelSettings(),
    )


def build_model(spec: ModelSpec):
    """The ChatModel for a spec. Provider SDKs are imported here, lazily."""
    if spec.provider in ("openai", "openrouter", "ollama", "openai-compatible"):
        from .openai_compat import OpenAICompatibleModel

        return OpenAICompatibleModel(
            spec.model,
            base_url=spec.base_url,
            api_key=spec.api_key(),
            settings=spec.settings,
            name=spec.label,
        )
    if spec.provider == "anthropic":
        from .anthropic_client import AnthropicModel

        return AnthropicModel(
            spec.model, api_key=spec.api_key(), settings=spec.settings, name=spec.label
        )
    if spec.provider == "local":
        from .local import local_model

        return local_model(spec)
    raise ModelSpecError(f"no client for provider '{spec.provider}'")  # pragma: no cover
