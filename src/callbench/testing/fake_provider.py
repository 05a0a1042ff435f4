"""A real OpenAI-compatible HTTP server on loopback that serves scripted replies and injects faults
on demand.

Tests point the real `openai` client at it, so the whole path (HTTP, JSON,
SDK parsing, our retries and classification) is exercised without a network.

A *responder* turns each request body into a reply: a string (assistant
text), a dict `{"text": ..., "tool_calls": [{"name": ..., "arguments": ...}]}`,
or a fault dict `{"fault": KIND, ...}` with KIND one of FAULTS. A *fault
plan* (a function of the request number) can inject faults independently of
the responder, at a known rate.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = (
    "rate_limit",
    "server_error",
    "unavailable",
    "reset",
    "slow",
    "malformed_json",
    "empty_choices",
    "bad_arguments",
    "unknown_tool",
    "auth",
)

Responder = Callable[[dict[str, Any]], Any]


def _completion(reply: Any, model: str, n: int) -> dict[str, Any]:
    if isinstance(reply, str):
        reply = {"text": reply}
    calls = [
        {
            "id": c.get("id", f"call_{n}_{i}"),
            "type": "function",
            "function": {
                "name": c["name"],
                "arguments": c["arguments"]
                if isinstance(c["arguments"], str)
                else json.dumps(c["arguments"]),
            },
        }
        for i, c in enumerate(reply.get("tool_calls", []))
    ]
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("text")}
    if calls:
        message["tool_calls"] = calls
    usage = reply.get(
        "usage",
        {
            "prompt_tokens": 100,
            "completion_tokens": 10,
            "total_tokens": 110,
            "prompt_tokens_details": {"cached_tokens": 64},
        },
    )
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": usage,
    }


class FakeProvider:
    """Use as a context manager: `with FakeProvider(responder) as fp: OpenAI(base_url=fp.base_url,
    ...)`."""

    def __init__(
        self,
        responder: Responder | None = None,
        fault_plan: Callable[[int], dict | None] | None = None,
        model: str = "fake-model",
        api_key: str | None = None,
    ):
        self.responder = responder or (lambda body: "Hello.")
        self.fault_plan = fault_plan
        self.model = model
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.faults_served: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        """the most requests it was answering at once (tests of concurrency limits read it)"""
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the provider first"
        host, port = self._server.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeProvider:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def setup(self) -> None:
                super().setup()
                # headers and body go out in two writes; without this, Nagle's algorithm and the
                # client's
                # delayed ACK add ~40 ms to every response, which would be charged to the harness
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._json(
                        200, {"object": "list", "data": [{"id": provider.model, "object": "model"}]}
                    )
                else:
                    self._json(404, {"error": {"message": "not found", "type": "not_found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    self._json(
                        400, {"error": {"message": "bad json", "type": "invalid_request_error"}}
                    )
                    return
                with provider._lock:
                    n = len(provider.requests)
                    provider.requests.append(body)
                    provider.headers.append({k.lower(): v for k, v in self.headers.items()})
                if (
                    provider.api_key is not None
                    and self.headers.get("authorization") != f"Bearer {provider.api_key}"
                ):
                    self._json(
                        401,
                        {
                            "error": {
                                "message": "invalid key",
                                "type": "invalid_request_error",
                                "code": "invalid_api_key",
                            }
                        },
                    )
                    return
                fault = provider.fault_plan(n) if provider.fault_plan else None
                with provider._lock:
                    provider.in_flight += 1
                    provider.max_in_flight = max(provider.max_in_flight, provider.in_flight)
                try:
                    reply = fault or provider.responder(body)
                finally:
                    with provider._lock:
                        provider.in_flight -= 1
                if isinstance(reply, dict) and "fault" in reply:
                    with provider._lock:
                        provider.faults_served.append(reply["fault"])
                    self._fault(reply, body, n)
                    return
                self._json(200, _completion(reply, body.get("model", provider.model), n))

            def _fault(self, fault: dict, body: dict, n: int) -> None:
                kind = fault["fault"]
                if kind == "rate_limit":
                    self._json(
                        429,
                        {
                            "error": {
                                "message": "slow down",
                                "type": "rate_limit_error",
                                "code": "rate_limit_exceeded",
                            }
                        },
                        {"retry-after": str(fault.get("retry_after", 0))},
                    )
                elif kind == "server_error":
                    self._json(500, {"error": {"message": "boom", "type": "server_error"}})
                elif kind == "unavailable":
                    self._json(503, {"error": {"message": "overloaded", "type": "server_error"}})
                elif kind == "auth":
                    self._json(
                        401,
                        {
                            "error": {
                                "message": "bad key",
                                "type": "invalid_request_error",
                                "code": "invalid_api_key",
                            }
                        },
                    )
                elif kind == "reset":
                    self.connection.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
                    )
                    self.connection.close()
                    self.close_connection = True
                elif kind == "slow":
                    time.sleep(float(fault.get("delay", 2.0)))
                    self._json(
                        200,
                        _completion(
                            fault.get("reply", "late"), body.get("model", provider.model), n
                        ),
                    )
                elif kind == "malformed_json":
                    self._raw(200, b'{"id": "x", "choices": [', "application/json")
                elif kind == "empty_choices":
                    self._json(
                        200,
                        {
                            "id": "x",
                            "object": "chat.completion",
                            "created": 0,
                            "model": provider.model,
                            "choices": [],
                        },
                    )
                elif kind == "bad_arguments":
                    self._json(
                        200,
                        _completion(
                            {
                                "text": None,
                                "tool_calls": [
                                    {
                                        "name": fault.get("tool", "end_call"),
                                        "arguments": "{not json",
                                    }
                                ],
                            },
                            provider.model,
                            n,
                        ),
                    )
                elif kind == "unknown_tool":
                    self._json(
                        200,
                        _completion(
                            {
                                "text": None,
                                "tool_calls": [{"name": "no_such_tool", "arguments": "{}"}],
                            },
                            provider.model,
                            n,
                        ),
                    )
                else:
                    self._json(500, {"error": {"message": f"unknown fault {kind}"}})

            def _json(
                self, status: int, payload: dict, headers: dict[str, str] | None = None
            ) -> None:
                self._raw(status, json.dumps(payload).encode(), "application/json", headers)

            def _raw(
                self, status: int, data: bytes, ctype: str, headers: dict[str, str] | None = None
            ) -> None:
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            # socketserver's default backlog is 5: a burst of new connections overflows it, the
            # kernel drops
            # the SYNs and clients retry a second later (real servers listen with a backlog in the
            # thousands)
            request_queue_size = 1024

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # clients that give up mid-request (timeouts, resets) are part of the tests

        self._server = Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-provider",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
