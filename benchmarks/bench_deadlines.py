"""How far past its deadline a hostile candidate can hold a call: `python
benchmarks/bench_deadlines.py`.

Three agents that never answer in time (an async one that awaits forever, a synchronous one stuck in
a
blocking call, an HTTP server that drips one byte every 0.2 s), each given a 1 s per-message
deadline on the
one-scenario mini suite. Reported: wall seconds of the whole run and the overshoot past the deadline
(the run
also sets up the call, greets nothing and writes its files, so a few tens of milliseconds are the
floor).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from callbench.runs import RunConfig, run_suite
from callbench.suite_check import load_suite

sys.path.insert(0, str(Path(__file__).parent))
from _results import RESULTS, save  # noqa: E402

DEADLINE_S = 1.0
STOP = threading.Event()


async def never_answers(view):
    await asyncio.sleep(3600)


def blocks(view):
    STOP.wait(60)
    return {"say": "too late"}


class Drip(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-length", "100000")
        self.end_headers()
        while not STOP.is_set():
            try:
                self.wfile.write(b" ")
                self.wfile.flush()
            except OSError:
                return
            STOP.wait(0.2)

    def log_message(self, *args):
        pass


def _run(suite, name: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        run_suite(suite, RunConfig(candidates=(name,), step_timeout_s=DEADLINE_S), Path(tmp) / "r")
        return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> dict:
    sys.modules["bench_deadline_agents"] = sys.modules[__name__]
    suite = load_suite(Path(__file__).parents[1] / "tests" / "fixtures" / "mini")
    _run(suite, "noop")  # warm-up: imports and first-run costs are not the deadline's
    rows = {}
    for label, name in (
        ("async agent that never answers", "python:bench_deadline_agents:never_answers"),
        ("sync agent stuck in a blocking call", "python:bench_deadline_agents:blocks"),
    ):
        STOP.clear()
        wall = _run(suite, name)
        STOP.set()
        rows[label] = {"wall_s": round(wall, 3), "overshoot_s": round(wall - DEADLINE_S, 3)}
    STOP.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Drip)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    try:
        wall = _run(suite, f"http://127.0.0.1:{server.server_address[1]}/agent")
    finally:
        STOP.set()
        server.shutdown()
        server.server_close()
    rows["HTTP agent dripping a byte every 0.2 s"] = {
        "wall_s": round(wall, 3),
        "overshoot_s": round(wall - DEADLINE_S, 3),
    }
    result = {"deadline_s": DEADLINE_S, "agents": rows}
    save(result, RESULTS / "deadlines.json")
    return result


if __name__ == "__main__":
    main()
