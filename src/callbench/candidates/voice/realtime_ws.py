"""What the hosted realtime adapters (OpenAI Realtime, Gemini Live) share: the stack itself
(`RealtimeStack`: its settings, the key lookup and opening the connection; each adapter adds only
where its endpoint is and how a session starts), one WebSocket to a provider, its failures turned
into callbench's typed errors, and audio as base64 PCM16.

A provider that cannot be reached, refuses the handshake, drops the connection or goes silent is
infrastructure (`ProviderError`: excluded from means, retryable where a retry can help); what the
provider sends that breaks the protocol we speak (a frame that is not JSON, audio that is not
base64) is the stack's own failure (`ModelError`: scored).

Keys never leave this module in text: messages name the endpoint by scheme and host only (the
Gemini key travels in the URL's query), the key is registered with `models.secrets` so that any
provider text quoted in an error is redacted of it, every third-party exception is re-raised
`from None` (no chained exception carrying the URL or headers into a trace), and the websockets
library gets a logger that discards its records (its debug log quotes the request line).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
import os
from typing import Any, ClassVar
from urllib.parse import quote, urlsplit

import numpy as np

from ...call.audio.types import Audio
from ...errors import ModelError
from ...models.errors import (
    ModelNotFound,
    ProviderAuthError,
    ProviderError,
    ProviderRequestError,
    ProviderServerError,
    ProviderTimeout,
    ProviderTransportError,
    RateLimited,
    for_status,
)
from ...models.secrets import redact, register_secret
from .protocol import VoiceSession, VoiceSessionSetup

INSTALL_HINT = "pip install 'callbench[voice]'"
CHUNK_SECONDS = 0.5
"""audio is sent in pieces this long (one append message each)"""
MAX_MESSAGE_BYTES = 64 * 1024 * 1024

_QUIET = logging.getLogger("callbench.voice.websocket")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False
_QUIET.setLevel(logging.CRITICAL + 1)


def websockets_module() -> Any:
    try:
        import websockets
        import websockets.asyncio.client
    except ImportError:
        raise ModelError(
            f"the realtime voice adapters need the websockets package: {INSTALL_HINT}"
        ) from None
    return websockets


def api_key(env: str, service: str) -> str:
    """The key from the environment variable `env` (registered as a secret at once)."""
    value = os.environ.get(env, "")
    if not value.strip():
        raise ProviderAuthError(f"{service} needs an API key in the environment variable {env}")
    register_secret(value)
    return value


class RealtimeStack:
    """A hosted speech-to-speech service, one WebSocket session per call. `base_url` replaces the
    endpoint (a proxy, Azure, a loopback fake); `api_key_env` names the environment variable
    holding the key (None: the service's usual one).

    The key is read only in `open`, registered as a secret there and handed to `endpoint` alone:
    the stack never keeps it, so no repr, trace or message of the stack can carry it. A session
    that fails to start closes its connection before the error goes on."""

    service: ClassVar[str]
    """the name messages use"""
    default_url: ClassVar[str]
    default_key_env: ClassVar[str]
    prefix: ClassVar[str]
    """the candidate name's kind: the stack is named `prefix:model`"""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str | None = None,
        *,
        voice: str | None = None,
        timeout_s: float = 60.0,
    ):
        self.model = model
        self.base_url = base_url or self.default_url
        self.api_key_env = self.default_key_env if api_key_env is None else api_key_env
        self.voice = voice
        self.timeout_s = timeout_s
        self.name = f"{self.prefix}:{model}"

    def endpoint(self, key: str) -> tuple[str, dict[str, str]]:
        """The URL to open and the headers to send, the key placed where the service takes it."""
        raise NotImplementedError

    async def start(self, conn: Any, setup: VoiceSessionSetup) -> VoiceSession:
        """The session on the open connection `conn`, set up for the call."""
        raise NotImplementedError

    async def open(self, setup: VoiceSessionSetup) -> VoiceSession:
        url, headers = self.endpoint(api_key(self.api_key_env, self.service))
        conn = await connect(url, headers, self.service, self.timeout_s)
        try:
            return await self.start(conn, setup)
        except BaseException:
            await close_quietly(conn)
            raise


def with_query(url: str, name: str, value: str) -> str:
    """`url` with the query parameter `name=value` added (the value quoted whole)."""
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}{name}={quote(value, safe='')}"


def where(url: str) -> str:
    """The endpoint as it may be shown: scheme, host and port, never a path query or a key."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    return f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")


async def connect(url: str, headers: dict[str, str], service: str, timeout_s: float) -> Any:
    """An open connection, or the ProviderError saying why not (the URL is never quoted)."""
    ws = websockets_module()
    shown = where(url)
    try:
        return await asyncio.wait_for(
            ws.asyncio.client.connect(
                url,
                additional_headers=headers,
                logger=_QUIET,
                max_size=MAX_MESSAGE_BYTES,
                open_timeout=None,
            ),
            timeout_s,
        )
    except ws.exceptions.InvalidStatus as exc:
        status = exc.response.status_code
        message = f"{service} at {shown} refused the connection (HTTP {status})"
        raise for_status(status, message) from None
    except TimeoutError:
        raise ProviderTimeout(f"{service} at {shown} did not answer in {timeout_s:g} s") from None
    except (ws.exceptions.InvalidURI, ValueError):
        raise ProviderRequestError(f"{service}: the endpoint URL is not a WebSocket URL") from None
    except (ws.exceptions.WebSocketException, OSError) as exc:
        raise ProviderTransportError(
            f"cannot reach {service} at {shown} ({type(exc).__name__})"
        ) from None


async def send_json(conn: Any, message: dict[str, Any], service: str) -> None:
    ws = websockets_module()
    try:
        await conn.send(json.dumps(message, ensure_ascii=False))
    except ws.exceptions.ConnectionClosed as exc:
        raise closed(exc, service) from None
    except OSError as exc:
        raise ProviderTransportError(f"{service}: sending failed ({type(exc).__name__})") from None


async def receive_json(conn: Any, service: str, timeout_s: float) -> dict[str, Any]:
    """The next server event as a JSON object."""
    ws = websockets_module()
    try:
        raw = await asyncio.wait_for(conn.recv(), timeout_s)
    except TimeoutError:
        raise ProviderTimeout(f"{service} sent nothing for {timeout_s:g} s") from None
    except ws.exceptions.ConnectionClosed as exc:
        raise closed(exc, service) from None
    except OSError as exc:
        message = f"{service}: receiving failed ({type(exc).__name__})"
        raise ProviderTransportError(message) from None
    try:
        event = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ModelError(f"{service} sent a message that is not JSON") from None
    if not isinstance(event, dict):
        raise ModelError(f"{service} sent a JSON message that is not an object")
    return event


STATUS_BY_CLOSE_REASON = {
    "RESOURCE_EXHAUSTED": 429,
    "UNAVAILABLE": 503,
    "INTERNAL": 500,
    "DEADLINE_EXCEEDED": 504,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "INVALID_ARGUMENT": 400,
}
"""Google's canonical status names, which Gemini Live puts first in a close reason"""


def closed(exc: Any, service: str) -> ProviderError:
    """The connection closed while a response was due: infrastructure, classified by the close
    code (and a canonical status name leading the reason, the machine-readable part Gemini
    sends)."""
    frame = getattr(exc, "rcvd", None)
    code = getattr(frame, "code", None)
    reason = str(getattr(frame, "reason", "") or "")
    status_name = reason.split(":", 1)[0].strip().upper()
    shown = f" (close code {code})" if code is not None else " (no close frame)"
    message = f"{service} closed the connection mid-call{shown}"
    status = STATUS_BY_CLOSE_REASON.get(status_name)
    if status is not None:
        error = for_status(status, f"{message}: {status_name}")
        return error if isinstance(error, ProviderError) else ProviderRequestError(message)
    if code == 1008:
        return ProviderAuthError(message)
    if code in (1011, 1013, 1014):
        return ProviderServerError(message)
    return ProviderTransportError(message)


def error_for_code(service: str, code: str, kind: str, message: str) -> ProviderError:
    """An error event's machine-readable code and type, classified (never its text)."""
    codes = {code.lower(), kind.lower()}
    text = redact(f"{service} error {code or kind}: {message[:300]}")
    if codes & {"rate_limit_exceeded", "rate_limit_error", "rate_limits_exceeded", "quota"}:
        return RateLimited(text, status_code=429)
    if codes & {"server_error", "internal_error", "service_unavailable", "overloaded"}:
        return ProviderServerError(text)
    if codes & {"invalid_api_key", "authentication_error", "permission_denied", "unauthorized"}:
        return ProviderAuthError(text)
    if codes & {"model_not_found", "not_found"}:
        return ModelNotFound(text)
    return ProviderRequestError(text)


def pcm16_base64(audio: Audio, rate: int) -> list[str]:
    """`audio` at `rate` Hz as little-endian PCM16, base64, in CHUNK_SECONDS pieces."""
    from ...call.audio.signal import resample, to_pcm16

    data = to_pcm16(resample(audio, rate)).tobytes()
    step = int(CHUNK_SECONDS * rate) * 2
    return [base64.b64encode(data[i : i + step]).decode("ascii") for i in range(0, len(data), step)]


def audio_from_base64(data: Any, rate: int, service: str) -> Audio:
    if not isinstance(data, str):
        raise ModelError(f"{service} sent audio that is not base64 text")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ModelError(f"{service} sent audio that is not valid base64") from None
    if len(raw) % 2:
        raise ModelError(f"{service} sent PCM16 audio of an odd number of bytes")
    samples = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
    return Audio(samples, rate)


def tool_result_text(result: Any) -> str:
    """A tool's result as the text the providers take (the turn loop hands over JSON text)."""
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


async def close_quietly(conn: Any) -> None:
    ws = websockets_module()
    try:
        await conn.close()
    except (ws.exceptions.WebSocketException, OSError):
        pass
