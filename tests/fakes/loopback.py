"""The scaffolding the loopback fakes of hosted voice services share (realtime_fake.py,
gemini_fake.py): a websockets server on a free loopback port, served from a thread of its own
(the sync server, so the call under test keeps its own event loop) and shut down when the `with`
block ends. A fake adds only its protocol: `handle`, called once per connection, and `path`, the
endpoint path its `url` names.

`refuse_with` set to an HTTP status makes the server refuse every handshake with it (before any
protocol is spoken), as a service does a bad key or an exhausted quota."""

from __future__ import annotations

import threading
from typing import Any, ClassVar, Self

from websockets.http11 import Request, Response
from websockets.sync.server import Server, ServerConnection, serve

MAX_MESSAGE_BYTES = 2**26


class LoopbackServer:
    path: ClassVar[str] = "/"

    def __init__(self) -> None:
        self.server: Server | None = None
        self.refuse_with: int | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.socket.getsockname()[:2]
        return f"ws://{host}:{port}{self.path}"

    def __enter__(self) -> Self:
        self.server = serve(
            self.handle,
            "127.0.0.1",
            0,
            max_size=MAX_MESSAGE_BYTES,
            process_request=self._process_request,
        )
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self.server is not None
        self.server.shutdown()

    def _process_request(self, ws: ServerConnection, request: Request) -> Response | None:
        if self.refuse_with is None:
            return None
        return ws.respond(self.refuse_with, "refused by the loopback fake\n")

    def handle(self, ws: ServerConnection) -> None:
        """One client connection, spoken to in the fake's protocol until either side closes."""
        raise NotImplementedError
