"""The `http` services backend: every tool call goes to a team's own service (a staging system).

The services backend (`service.py`) runs worlds callbench ships; this one lets a team evaluate its
agent against the systems it will really call, as long as they answer a small protocol and can
open a fresh world per call (a setup hook) and throw it away afterwards (a reset hook).

Wire protocol (JSON over HTTP; `{url}` is the spec's base URL, paths are the spec's hooks):

1. `POST {url}{setup}` (default `/calls`) with `{"options": {...}, "clock": "<iso>" | null}`
   answers `{"call_id": "<str>"}`: a fresh world for one call, its clock frozen at `clock` (the
   service's own time when null). Sent before the first tool call (or at the end, if the candidate
   never called a tool, so the untouched world is still recorded).
2. `POST {url}/calls/{call_id}/tools/{name}` with the tool's arguments object answers
   `{"result": <the tool's JSON answer>, "writes": [{"op": "append|set|merge|increment|delete",
   "path": "<str>", "value": <any>}, ...]}`: `writes` are what the call changed, for the ledger
   the state graders read (the services backend's convention: `append` at `<db>.<table>` for a
   new row, `set` at `<db>.<table>.<key>.<column>`, `delete` at `<db>.<table>.<key>`).
   A 4xx answer is the service refusing the call: the candidate is shown the body's `result` when
   it carries one (`{"result": {...}}`), otherwise a typed failure (`not_found` for 404,
   `refused`/`invalid_argument` for 400 and 422, `refused`/`precondition_failed` for any other
   4xx) with the body's `message`, `detail` or `error` text. A refusal writes nothing.
3. `GET {url}/calls/{call_id}/state` answers `{"final_state": <any JSON>, "initial_sha256":
   "<str>"}`: what grading reads (the rows the call is about) and a digest of the world it
   started from, read once after the call has ended.
4. `DELETE {url}{reset}` (default `/calls/{call_id}`, `{call_id}` filled in; no reset when the
   spec's `reset` is null), after the state was read: any 2xx.

Every request carries the headers of `headers_env` (header -> environment variable), read from the
environment when the request is sent and never stored: they appear in no trace, report, log or
exception message, and a service's answer that echoes one has it masked.

Who is to blame: the arguments are checked against the agent's tool schemas before anything is
sent (a breach is the candidate's, refused as the other backends refuse it). A service that cannot
be reached, does not answer within `timeout_seconds`, answers 5xx, answers a body that breaks the
protocol, or answers 401/407 (our credentials) or 429 (our load) failed the harness, not the
candidate: an `HttpServiceError` (an `InfrastructureError`), so the attempt is excluded and, when
repeating could help, rerun. Its message names the method, the URL's path and the status, never
the host's credentials, the query or a header.

The world record (`snapshot()`, kind "http") needs the final state, which is remote; `snapshot()`
is synchronous, so the episode awaits `finish()` first: it opens the world if no tool call did,
reads the state, then calls the reset hook.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx2  # the HTTP client the OpenAI SDK depends on (models/openai_compat.py uses it too)

from ..call.types import ToolOutcome
from ..errors import InfrastructureError
from ..spec import HttpBackendSpec, make_scope, resolve
from .arguments import UNREADABLE, schema_refusal, schema_validators
from .state import digest

WRITE_OPS = ("append", "set", "merge", "increment", "delete")
_INFRA_4XX = {401, 407, 429}
"""4xx answers that say something about the harness (credentials, load), not about the call"""


class HttpServiceError(InfrastructureError):
    """The team's service failed (unreachable, slow, 5xx, off-protocol): the attempt is excluded.
    `retryable` is false where running the attempt again would fail the same way."""

    def __init__(self, message: str, retryable: bool = True):
        super().__init__(message)
        self.retryable = retryable


def _refusal(status: int, message: str) -> tuple[dict[str, Any], str]:
    if status == 404:
        return {"status": "not_found", "reason": "not_found", "message": message}, "not_found"
    reason = "invalid_argument" if status in (400, 422) else "precondition_failed"
    return {"status": "refused", "reason": reason, "message": message}, "refused"


class HttpServiceBackend:
    """One call's world on the team's service (see the module docstring). `schemas`: the agent's
    tool parameter schemas; `today` is accepted for the common backend signature and unused (the
    service keeps its own clock, frozen at the spec's `clock`)."""

    def __init__(
        self,
        spec: HttpBackendSpec,
        knows: Mapping[str, Any],
        schemas: Mapping[str, Any] | None = None,
        today: dt.date | None = None,
    ):
        self.spec = spec
        self.validators = schema_validators(schemas)
        self.scope = make_scope(knows, spec.hidden)
        self.options = {k: resolve(v, self.scope) for k, v in spec.options.items()}
        self.base = spec.url.rstrip("/")
        self.ledger: list[dict[str, Any]] = []
        self.calls = 0
        self.call_id: str | None = None
        self.initial_sha256 = ""
        self.final_state: Any = None
        """None until `finish()` read it (it stays None on an attempt whose service failed)"""
        self.finished = False
        self.failed = False
        self._client: httpx2.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._opening: asyncio.Lock | None = None

    # --- transport --------------------------------------------------------------------------
    def _headers(self) -> dict[str, str]:
        headers = {}
        for header, variable in self.spec.headers_env.items():
            value = os.environ.get(variable)
            if not value:
                self.failed = True
                raise HttpServiceError(
                    f"the environment variable {variable} (for the service's {header} header) is "
                    "not set",
                    retryable=False,
                )
            headers[header] = value
        return headers

    def _secrets(self) -> list[str]:
        """The header values, and each long word of them (the token of `Bearer <token>`)."""
        out: set[str] = set()
        for variable in self.spec.headers_env.values():
            value = os.environ.get(variable) or ""
            out |= {value} if len(value) >= 4 else set()
            out |= {w for w in value.split() if len(w) >= 8}
        return sorted(out, key=len, reverse=True)

    def _mask(self, value: Any) -> Any:
        """The service's answer with any header value it echoed masked, so none reaches a trace."""
        secrets = self._secrets()
        if not secrets:
            return value

        def walk(v: Any) -> Any:
            if isinstance(v, str):
                for s in secrets:
                    v = v.replace(s, "[redacted]")
                return v
            if isinstance(v, list):
                return [walk(x) for x in v]
            if isinstance(v, dict):
                return {walk(k): walk(x) for k, x in v.items()}
            return v

        return walk(value)

    def _client_here(self) -> httpx2.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = httpx2.AsyncClient(timeout=self.spec.timeout_seconds)
            self._loop = loop
            self._opening = asyncio.Lock()
        return self._client

    async def _request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """(status, parsed JSON body or None) for a 2xx or a 4xx the caller may handle; every
        failure of the service raises `HttpServiceError`."""
        url = self.base + path
        shown = f"{method} {_path_of(url)}"
        headers = self._headers()
        client = self._client_here()
        if body is not None:
            headers["content-type"] = "application/json"
        content = None if body is None else json.dumps(body, default=_jsonable).encode("utf-8")
        try:
            response = await client.request(
                method, url, content=content, headers=headers, timeout=self.spec.timeout_seconds
            )
        except httpx2.TimeoutException:
            self.failed = True
            raise HttpServiceError(
                f"the service did not answer {shown} within {self.spec.timeout_seconds:g} s"
            ) from None
        except (httpx2.HTTPError, httpx2.InvalidURL) as exc:
            self.failed = True
            raise HttpServiceError(
                f"the service could not be reached for {shown} ({type(exc).__name__})"
            ) from None
        status = response.status_code
        if status >= 500 or status in _INFRA_4XX or not 200 <= status < 500:
            self.failed = True
            raise HttpServiceError(
                f"the service answered {shown} with HTTP {status}",
                retryable=status >= 500 or status == 429,
            )
        if not response.content:
            return status, None
        try:
            return status, response.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            if status >= 400:
                return status, None
            self.failed = True
            raise HttpServiceError(
                f"the service answered {shown} with HTTP {status} and a body that is not JSON"
            ) from None

    def _broken(self, what: str, expected: str) -> HttpServiceError:
        self.failed = True
        return HttpServiceError(f"the service's answer to {what} is not {expected}")

    # --- the protocol ---------------------------------------------------------------------------
    async def _open(self) -> str:
        client = self._client_here()
        assert self._opening is not None and client is not None
        async with self._opening:
            if self.call_id is None:
                body = {
                    "options": self.options,
                    "clock": self.spec.clock.isoformat() if self.spec.clock else None,
                }
                status, answer = await self._request("POST", self.spec.setup, body)
                if status >= 400:
                    self.failed = True
                    where = _path_of(self.base + self.spec.setup)
                    raise HttpServiceError(
                        f"the service refused to open a world: POST {where} answered HTTP {status}",
                        retryable=False,
                    )
                call_id = answer.get("call_id") if isinstance(answer, dict) else None
                if not isinstance(call_id, str) or not call_id:
                    raise self._broken(f"POST {self.spec.setup}", '{"call_id": "<non-empty str>"}')
                self.call_id = call_id
        return self.call_id

    async def call(self, name: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        index = self.calls
        self.calls += 1
        if arguments is None:
            return UNREADABLE
        refusal = schema_refusal(self.validators.get(name), arguments)
        if refusal is not None:
            return refusal
        call_id = await self._open()
        path = f"/calls/{quote(call_id, safe='')}/tools/{quote(name, safe='')}"
        status, answer = await self._request("POST", path, arguments)
        if status >= 400:
            if isinstance(answer, dict) and isinstance(answer.get("result"), dict):
                return ToolOutcome(result=self._mask(answer["result"]), source="refused")
            text = _message(answer) or f"the service answered HTTP {status}"
            result, source = _refusal(status, self._mask(text))
            return ToolOutcome(result={**result, "http_status": status}, source=source)
        if not isinstance(answer, dict) or "result" not in answer:
            raise self._broken(f"POST {path}", '{"result": ..., "writes": [...]}')
        writes = answer.get("writes", [])
        if not isinstance(writes, list) or not all(_is_write(w) for w in writes):
            raise self._broken(
                f"POST {path}", "a list of writes {op: append|set|merge|increment|delete, path}"
            )
        self.ledger += [
            {
                "call_index": index,
                "tool": name,
                "op": w["op"],
                "path": w["path"],
                "value": w.get("value"),
            }
            for w in self._mask(writes)
        ]
        return ToolOutcome(result=self._mask(answer["result"]), source="service")

    async def finish(self) -> None:
        """Read the final state and throw the world away (the episode awaits this before
        `snapshot()`). After a failure of the service only the reset is attempted."""
        if self.finished:
            return
        self.finished = True
        try:
            if not self.failed:
                call_id = await self._open()
                path = f"/calls/{quote(call_id, safe='')}/state"
                status, answer = await self._request("GET", path)
                if (
                    status >= 400
                    or not isinstance(answer, dict)
                    or "final_state" not in answer
                    or not isinstance(answer.get("initial_sha256"), str)
                ):
                    raise self._broken(
                        f"GET {path}", '{"final_state": ..., "initial_sha256": "<str>"}'
                    )
                self.final_state = self._mask(answer["final_state"])
                self.initial_sha256 = answer["initial_sha256"]
        finally:
            try:
                if self.call_id is not None and self.spec.reset is not None:
                    reset = self.spec.reset.replace("{call_id}", quote(self.call_id, safe=""))
                    status, _ = await self._request("DELETE", reset)
                    if status >= 400:
                        raise HttpServiceError(
                            f"the service answered DELETE {_path_of(self.base + reset)} with "
                            f"HTTP {status}",
                            retryable=False,
                        )
            finally:
                await self.aclose()

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()

    def snapshot(self) -> dict[str, Any]:
        return {
            "kind": "http",
            "initial_sha256": self.initial_sha256,
            "final_sha256": digest(self.final_state),
            "final_state": self.final_state,
            "ledger": [dict(w) for w in self.ledger],
            "calls": self.calls,
        }


def _path_of(url: str) -> str:
    """The URL's path only: a base URL's credentials, host and query stay out of messages."""
    try:
        return httpx2.URL(url).path or "/"
    except httpx2.InvalidURL:
        return "(an invalid URL)"


def _jsonable(value: Any) -> Any:
    """YAML reads `2026-09-10` in `options` as a date: send it as the ISO text it was."""
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} cannot be sent as JSON")


def _message(answer: Any) -> str | None:
    if isinstance(answer, dict):
        for key in ("message", "detail", "error"):
            if isinstance(answer.get(key), str) and answer[key].strip():
                return str(answer[key])[:500]
    return None


def _is_write(w: Any) -> bool:
    return isinstance(w, dict) and w.get("op") in WRITE_OPS and isinstance(w.get("path"), str)


__all__ = ["HttpServiceBackend", "HttpServiceError", "WRITE_OPS"]
