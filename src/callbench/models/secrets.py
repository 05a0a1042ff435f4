"""The secrets of this process (API keys), and their redaction from whatever a provider sends back.

A provider may echo the key it was sent anywhere in an error (the message, the machine-readable code
or
type, the parameter name, a raw body quoting the request headers) or even in a reply. Every string
that
leaves the model layer for a trace, a scorecard, the store, a report or the console passes through
`redact` first. Keys are registered where they are read: `ModelSpec.api_key()` (the value of the
variable a spec names) and the clients' constructors (a key passed explicitly).
"""

from __future__ import annotations

import threading
from typing import overload

REDACTED = "[redacted]"
MODEL_TEXT_MIN_LENGTH = 8
"""Model output (speech, tool-call arguments) is redacted only of secrets at least this long: a
placeholder
key such as "x" or "EMPTY" (what local servers are usually given) is no secret, and redacting it
from what
the model said would change the call being scored. Errors and metadata are redacted of every
secret."""

_secrets: frozenset[str] = frozenset()
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Remember a secret so that it is redacted from provider output from now on (empty values are
    ignored)."""
    global _secrets
    if not isinstance(value, str) or not value.strip():
        return
    with _lock:
        _secrets = _secrets | {value, value.strip()}


def secrets() -> frozenset[str]:
    return _secrets


def redact(text: str, *, min_length: int = 1) -> str:
    """`text` with every registered secret (at least `min_length` long) replaced by [redacted]."""
    if not isinstance(text, str) or not _secrets:
        return text
    # longest first, so a secret containing another is replaced whole
    for secret in sorted(_secrets, key=len, reverse=True):
        if len(secret) >= min_length and secret in text:
            text = text.replace(secret, REDACTED)
    return text


@overload
def redact_model_text(text: str) -> str: ...
@overload
def redact_model_text(text: None) -> None: ...
def redact_model_text(text: str | None) -> str | None:
    """What the model said, redacted of real secrets only (see MODEL_TEXT_MIN_LENGTH)."""
    return redact(text, min_length=MODEL_TEXT_MIN_LENGTH) if isinstance(text, str) else text


def clear_secrets() -> None:
    """Forget every secret (for tests)."""
    global _secrets
    with _lock:
        _secrets = frozenset()
