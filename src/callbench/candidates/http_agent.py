"""Bring your own agent over HTTP: any agent stack that answers the JSON contract of `wire.py`.

Transport failures (refused connections, timeouts, 5xx, a connection that breaks off mid-answer)
are infrastructure and retried with backoff; an answer that breaks the contract is the agent's
own error and is recorded in the trace. This adapter is the boundary: every failure of the
agent's server is converted here into those typed outcomes, so anything else raised is a bug in
callbench.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import random
import urllib.error
import urllib.request
import uuid

from ..call.types import CandidateStep
from ..models.errors import ProviderError, ProviderTimeout, ProviderTransportError, for_status
from ..threads import in_daemon_thread
from .base import CandidateView
from .wire import step_from_wire, view_to_wire


class HttpAgentCandidate:
    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        headers: dict[str, str] | None = None,
    ):
        self.url = url
        self.name = url
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.headers = {"content-type": "application/json", **(headers or {})}
        self.session = uuid.uuid4().hex  # opaque: says nothing about the scenario

    async def step(self, view: CandidateView) -> CandidateStep:
        body = json.dumps(view_to_wire(view, self.session), ensure_ascii=False).encode("utf-8")
        attempt = 0
        while True:
            attempt += 1
            try:
                status, data = await in_daemon_thread(self._post, body)
            except ProviderError as err:
                if not err.retryable or attempt > self.max_retries:
                    raise
                await asyncio.sleep(
                    max(
                        err.retry_after or 0, random.uniform(0, self.backoff_s * 2 ** (attempt - 1))
                    )
                )
                continue
            try:
                answer = json.loads(data)
            except (json.JSONDecodeError, UnicodeDecodeError):
                return CandidateStep(
                    error=f"agent answered HTTP {status} with a body that is not JSON",
                    raw=data[:2000].decode("utf-8", "replace"),
                )
            return step_from_wire(answer)

    def _post(self, body: bytes) -> tuple[int, bytes]:
        request = urllib.request.Request(self.url, data=body, headers=self.headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            raise for_status(exc.code, f"agent answered HTTP {exc.code}") from None
        except TimeoutError:
            raise ProviderTimeout("agent did not answer in time") from None
        except http.client.HTTPException as exc:  # a body cut short, a status line that is not HTTP
            raise ProviderTransportError(
                f"the agent's answer broke off or is not HTTP ({type(exc).__name__})"
            ) from None
        except (urllib.error.URLError, ConnectionError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError):
                raise ProviderTimeout("agent did not answer in time") from None
            raise ProviderTransportError(
                f"cannot reach the agent ({type(reason).__name__})"
            ) from None
