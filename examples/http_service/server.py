"""A loopback service that speaks callbench's `http` backend protocol (see docs/services.md).

It stands in for a team's staging system: each `POST /calls` opens a fresh world (here one
in-process `ServiceBackend` of a callbench domain, a private copy of its seeded databases), tool
calls are answered from that world with the writes they made, `GET .../state` reports the final
state and `DELETE /calls/{call_id}` throws the world away. A domain's refusal is answered 409 with
the refusal as `result`, the way a real service would say no.

    python examples/http_service/server.py --port 8765 --domain utility_billing
    CALLBENCH_SERVICE_TOKEN=... python examples/http_service/server.py --token-env \\
        CALLBENCH_SERVICE_TOKEN     # then every request needs `Authorization: Bearer <token>`

Every database touch runs on one worker thread: SQLite connections belong to the thread that
made them, and the HTTP server answers each request on a thread of its own.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import threading
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from callbench.backends.service import ServiceBackend
from callbench.spec import ServiceBackendSpec


class Worlds:
    """The open calls by id, and how often each hook was used (tests read `counts`)."""

    def __init__(self, domain: str, token: str | None = None):
        self.domain = domain
        self.token = token
        self.calls: dict[str, ServiceBackend] = {}
        self.counts: Counter[str] = Counter()
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="worlds")

    def run(self, fn: Any, *args: Any) -> Any:
        return self.worker.submit(fn, *args).result()

    def open(self, options: dict[str, Any], clock: str | None) -> str:
        spec = ServiceBackendSpec(
            kind="service",
            domain=self.domain,
            options=options,
            clock=dt.datetime.fromisoformat(clock) if clock else None,
        )
        backend = ServiceBackend(spec, {})
        call_id = uuid.uuid4().hex
        self.calls[call_id] = backend
        self.counts["setup"] += 1
        return call_id

    def tool(self, call_id: str, name: str, arguments: dict[str, Any]) -> tuple[int, Any]:
        backend = self.calls[call_id]
        before = len(backend.ledger)
        outcome = backend.handle(name, arguments)
        self.counts["tool"] += 1
        if outcome.source == "refused":
            return 409, {"result": outcome.result}
        writes = [
            {"op": w["op"], "path": w["path"], "value": w["value"]} for w in backend.ledger[before:]
        ]
        return 200, {"result": outcome.result, "writes": writes}

    def state(self, call_id: str) -> dict[str, Any]:
        snap = self.calls[call_id].snapshot()
        self.counts["state"] += 1
        return {"final_state": snap["final_state"], "initial_sha256": snap["initial_sha256"]}

    def reset(self, call_id: str) -> None:
        self.calls.pop(call_id).close()
        self.counts["reset"] += 1


def _handler(worlds: Worlds) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def handle_one_request(self) -> None:
            """A bug in a domain answers 500 (the harness then excludes the attempt) with its
            traceback on this server's stderr, instead of a dropped connection."""
            try:
                super().handle_one_request()
            except Exception:
                import traceback

                traceback.print_exc()
                try:
                    self._send(500, {"error": "internal error"})
                except OSError:  # the connection is gone too
                    pass

        def log_message(self, format: str, *args: Any) -> None:  # quiet: tests run many calls
            pass

        def _send(self, status: int, body: Any = None) -> None:
            data = b"" if body is None else json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> Any:
            length = int(self.headers.get("content-length") or 0)
            return json.loads(self.rfile.read(length) or b"null")

        def _allowed(self) -> bool:
            if worlds.token and self.headers.get("authorization") != f"Bearer {worlds.token}":
                self._send(401, {"error": "unauthorised"})
                return False
            return True

        def _parts(self) -> list[str]:
            return [p for p in self.path.split("?")[0].split("/") if p]

        def do_POST(self) -> None:
            if not self._allowed():
                return
            parts = self._parts()
            try:
                body = self._body()
            except (json.JSONDecodeError, UnicodeDecodeError):
                self._send(400, {"error": "the body is not JSON"})
                return
            if parts == ["calls"]:
                body = body if isinstance(body, dict) else {}
                call_id = worlds.run(worlds.open, body.get("options") or {}, body.get("clock"))
                self._send(200, {"call_id": call_id})
            elif len(parts) == 4 and parts[0] == "calls" and parts[2] == "tools":
                if parts[1] not in worlds.calls:
                    self._send(404, {"error": "no such call"})
                elif not isinstance(body, dict):
                    self._send(400, {"error": "the arguments must be a JSON object"})
                else:
                    self._send(*worlds.run(worlds.tool, parts[1], parts[3], body))
            else:
                self._send(404, {"error": "no such endpoint"})

        def do_GET(self) -> None:
            if not self._allowed():
                return
            parts = self._parts()
            if len(parts) == 3 and parts[0] == "calls" and parts[2] == "state":
                if parts[1] not in worlds.calls:
                    self._send(404, {"error": "no such call"})
                else:
                    self._send(200, worlds.run(worlds.state, parts[1]))
            else:
                self._send(404, {"error": "no such endpoint"})

        def do_DELETE(self) -> None:
            if not self._allowed():
                return
            parts = self._parts()
            if len(parts) == 2 and parts[0] == "calls" and parts[1] in worlds.calls:
                worlds.run(worlds.reset, parts[1])
                self._send(204)
            else:
                self._send(404, {"error": "no such call"})

    return Handler


class ServiceServer(ThreadingHTTPServer):
    daemon_threads = True
    worlds: Worlds


def serve(
    port: int = 0, domain: str = "utility_billing", token: str | None = None
) -> tuple[ServiceServer, threading.Thread]:
    """Serve on 127.0.0.1:`port` (0: any free port, read `server.server_address[1]`) from a daemon
    thread; stop with `server.shutdown(); server.server_close()`."""
    worlds = Worlds(domain, token)
    server = ServiceServer(("127.0.0.1", port), _handler(worlds))
    server.worlds = worlds
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--domain", default="utility_billing")
    parser.add_argument(
        "--token-env", help="require `Authorization: Bearer` with this variable's value"
    )
    args = parser.parse_args()
    token = os.environ[args.token_env] if args.token_env else None
    server, thread = serve(args.port, args.domain, token)
    print(f"serving {args.domain} on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        thread.join()
    except KeyboardInterrupt:
        server.shutdown()


if __name__ == "__main__":
    main()
