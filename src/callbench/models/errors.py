"""Provider failures, classified by exception type and status code (never by searching error text).

InfrastructureError                 excluded from means, counted against coverage
└── ProviderError                   the endpoint failed us
    ├── RateLimited (429)           retryable; honours Retry-After
    ├── ProviderServerError (5xx)   retryable
    ├── ProviderTimeout             retryable
    ├── ProviderTransportError      retryable (connection refused/reset, DNS, TLS)
    ├── EmptyResponse               retryable (no choices / nothing usable)
    ├── MalformedResponse           retryable (body is not the JSON the protocol promises)
    ├── ProviderAuthError (401/403) final: no retry fixes a bad key
    ├── ModelNotFound (404)         final
    └── ProviderRequestError (4xx)  final: the harness sent something the endpoint refused
ModelError                          scored, not excluded
└── ContextOverflow                 the conversation no longer fits the model's window
"""

from __future__ import annotations

from ..errors import InfrastructureError, ModelError
from .secrets import redact


class ProviderError(InfrastructureError):
    """Its message is redacted of every registered secret: whatever part of a provider's answer a
    message
    quotes (status, code, type), a provider that echoes the key cannot get it into a trace or a
    report."""

    retryable: bool = False
    kind: str = "provider_error"
    attempts: int = 1
    """how many provider requests were made before this error was raised (the clients set it)"""
    retries: int = 0
    """attempts - 1: the requests repeated after a retryable failure"""

    def __init__(
        self, message: str, *, status_code: int | None = None, retry_after: float | None = None
    ):
        super().__init__(redact(str(message)))
        self.status_code = status_code
        self.retry_after = retry_after


class RateLimited(ProviderError):
    retryable, kind = True, "rate_limit"


class ProviderServerError(ProviderError):
    retryable, kind = True, "server_error"


class ProviderTimeout(ProviderError):
    retryable, kind = True, "timeout"


class ProviderTransportError(ProviderError):
    retryable, kind = True, "transport"


class EmptyResponse(ProviderError):
    retryable, kind = True, "empty_response"


class MalformedResponse(ProviderError):
    retryable, kind = True, "malformed_response"


class ProviderAuthError(ProviderError):
    kind = "auth"


class ModelNotFound(ProviderError):
    kind = "not_found"


class ProviderRequestError(ProviderError):
    kind = "bad_request"


class ContextOverflow(ModelError):
    """The model's failure, not the provider's: never retried (the same request overflows
    again)."""

    kind = "context_overflow"
    retryable = False
    retry_after: float | None = None
    attempts: int = 1
    retries: int = 0


Classified = ProviderError | ContextOverflow
"""What a provider failure is classified as: what the retry loop decides on and raises."""


CODE_CHARS = 100
"""how much of a provider's error code an error message quotes (a hostile provider can send
megabytes)"""


def status_error(status: int, code: object, retry_after: float | None = None) -> Classified:
    """A provider's HTTP error as every client reports it: the status and the provider's error
    code (redacted before it is cut, so no partial key survives; never the provider's message)."""
    shown = redact(str(code))[:CODE_CHARS] if code else ""
    return for_status(
        status,
        f"HTTP {status}" + (f" ({shown})" if shown else ""),
        code=code if isinstance(code, str) else None,
        retry_after=retry_after,
    )


def for_status(
    status: int, message: str, *, code: str | None = None, retry_after: float | None = None
) -> Classified:
    """The error class for an HTTP status (and the provider's machine-readable error code, when it
    sends one).
    The message is redacted of every registered secret (the code is only compared, never kept)."""
    message = redact(message)
    if status == 429:
        return RateLimited(message, status_code=status, retry_after=retry_after)
    if status >= 500:
        return ProviderServerError(message, status_code=status, retry_after=retry_after)
    if status in (401, 403):
        return ProviderAuthError(message, status_code=status)
    if status == 404:
        return ModelNotFound(message, status_code=status)
    if code in ("context_length_exceeded", "string_above_max_length"):
        return ContextOverflow(message)
    if status == 408:
        return ProviderTimeout(message, status_code=status)
    return ProviderRequestError(message, status_code=status)


__all__ = [
    "CODE_CHARS",
    "Classified",
    "ContextOverflow",
    "EmptyResponse",
    "MalformedResponse",
    "ModelNotFound",
    "ProviderAuthError",
    "ProviderError",
    "ProviderRequestError",
    "ProviderServerError",
    "ProviderTimeout",
    "ProviderTransportError",
    "RateLimited",
    "for_status",
    "status_error",
]
