"""A stand-in for the `anthropic` SDK's error classes (the extra is optional, never installed for
tests), shaped like the real ones: a status error carries the HTTP response and its headers."""

from __future__ import annotations

import types


def fake_anthropic_sdk() -> types.ModuleType:
    sdk = types.ModuleType("anthropic")

    class APIError(Exception):
        pass

    class APIStatusError(APIError):
        def __init__(self, message, *, status_code, body, headers=None):
            super().__init__(message)
            self.status_code, self.body = status_code, body
            self.response = types.SimpleNamespace(status_code=status_code, headers=headers or {})

    class APITimeoutError(APIError):
        pass

    class APIConnectionError(APIError):
        pass

    class APIResponseValidationError(APIError):
        pass

    for cls in (
        APIError,
        APIStatusError,
        APITimeoutError,
        APIConnectionError,
        APIResponseValidationError,
    ):
        setattr(sdk, cls.__name__, cls)
    return sdk
