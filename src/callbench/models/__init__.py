"""The LLM client layer: one protocol, an OpenAI-compatible client, a scripted fake, and classified
errors."""

from .base import ChatModel, ChatResponse, ModelSettings
from .errors import (
    ContextOverflow,
    EmptyResponse,
    MalformedResponse,
    ModelNotFound,
    ProviderAuthError,
    ProviderError,
    ProviderRequestError,
    ProviderServerError,
    ProviderTimeout,
    ProviderTransportError,
    RateLimited,
)
from .fake import ScriptedModel

__all__ = [
    "ChatModel",
    "ChatResponse",
    "ContextOverflow",
    "EmptyResponse",
    "MalformedResponse",
    "ModelNotFound",
    "ModelSettings",
    "ProviderAuthError",
    "ProviderError",
    "ProviderRequestError",
    "ProviderServerError",
    "ProviderTimeout",
    "ProviderTransportError",
    "RateLimited",
    "ScriptedModel",
]
