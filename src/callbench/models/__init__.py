"""The LLM client layer: one protocol, one retrying wrapper for every provider, an OpenAI-compatible
client, a scripted fake, classified errors, and `ask_json`. It imports nothing above it: no spec,
call, grading or runs (tests/test_model_layer.py)."""

from .ask_json import JsonAnswer, JsonRejected, ask_json
from .base import ChatModel, ChatResponse, ClosingModel, ModelSettings, close_models
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
from .provider import ProviderModel
from .types import ToolCall, Usage

__all__ = [
    "ChatModel",
    "ChatResponse",
    "ClosingModel",
    "JsonAnswer",
    "JsonRejected",
    "ContextOverflow",
    "EmptyResponse",
    "MalformedResponse",
    "ModelNotFound",
    "ModelSettings",
    "ProviderAuthError",
    "ProviderError",
    "ProviderModel",
    "ProviderRequestError",
    "ProviderServerError",
    "ProviderTimeout",
    "ProviderTransportError",
    "RateLimited",
    "ScriptedModel",
    "ToolCall",
    "Usage",
    "ask_json",
    "close_models",
]
