"""The `http` services backend against the loopback example service (examples/http_service) and a
faulty one: the hooks, isolation, who is blamed for what, and that header secrets go nowhere."""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib.util
import json
import socket
import sqlite3
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from callbench.backends import build_backend
from callbench.backends.http_service import HttpServiceBackend, HttpServiceError
from callbench.backends.service import DOMAINS, Refused
from callbench.call.trace import WorldRecord
from callbench.errors import InfrastructureError
from callbench.spec import HttpBackendSpec

EXAMPLE = Path(__file__).parents[1] / "examples" / "http_service" / "server.py"
SECRET = "s3cret-token-value-7731"
NOW = dt.datetime(2026, 9, 10, 0, 59, 9, tzinfo=dt.UTC)


# --- a tiny domain: one counter row, two tools (and the call-ending tool) ----------------------
class CounterSession:
    def __init__(self, db: sqlite3.Connection, options: Mapping[str, Any], now: dt.datetime):
        self.db, self.now, self.name = db, now, options.get("counter", "main")

    def handle(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == "get_counter":
            (value,) = self.db.execute(
                "SELECT value FROM counters WHERE name = ?", (self.name,)
            ).fetchone()
            return {"status": "ok", "value": value}
        if name == "add":
            if arguments["amount"] > 10:
                self.db.execute("UPDATE counters SET value = -1 WHERE name = ?", (self.name,))
                raise Refused({"status": "refused", "reason": "precondition_failed", "max": 10})
            self.db.execute(
                "UPDATE counters SET value = value + ?, updated = ? WHERE name = ?",
                (arguments["amount"], self.now.isoformat(), self.name),
            )
            return self.handle("get_counter", {})
        if name == "end_call":
            return {"status": "ended"}
        raise Refused({"status": "error", "reason": "unsupported", "message": f"no tool {name}"})

    def state(self) -> dict[str, Any]:
        rows = self.db.execute("SELECT name, value, updated FROM counters ORDER BY name")
        return {"counters": [{"name": n, "value": v, "updated": u} for n, v, u in rows]}


class CounterDomain:
    name = "test_counter"
    now = NOW

    def __init__(self) -> None:
        self._snapshot: dict[str, sqlite3.Connection] | None = None

    def snapshot(self) -> dict[str, sqlite3.Connection]:
        if self._snapshot is None:
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            conn.execute(
                "CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER, updated TEXT)"
            )
            conn.execute("INSERT INTO counters VALUES ('main', 0, '')")
            self._snapshot = {"counter": conn}
        return self._snapshot

    def open(
        self, databases: dict[str, sqlite3.Connection], options: Mapping[str, Any], now: dt.datetime
    ) -> CounterSession:
        return CounterSession(databases["counter"], options, now)


DOMAINS["test_counter"] = CounterDomain

SCHEMAS = {
    "get_counter": {"type": "object", "properties": {}},
    "add": {
        "type": "object",
        "properties": {"amount": {"type": "integer", "minimum": 1}},
        "required": ["amount"],
    },
    "end_call": {"type": "object", "properties": {"reason": {"type": "string"}}},
}


def load_example():
    spec = importlib.util.spec_from_file_location("http_service_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def example_server():
    servers = []

    def start(domain: str = "test_counter", token: str | None = None):
        server, _ = load_example().serve(port=0, domain=domain, token=token)
        servers.append(server)
        return server, f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def backend(url: str, **spec: Any) -> HttpServiceBackend:
    return HttpServiceBackend(HttpBackendSpec(kind="http", url=url, **spec), {}, SCHEMAS)


async def play(b: HttpServiceBackend, *calls: tuple[str, dict | None]) -> list:
    outcomes = [await b.call(name, args) for name, args in calls]
    await b.finish()
    return outcomes


# --- the hooks, the ledger and the world record -------------------------------------------------
def test_each_call_opens_and_resets_its_own_world_once(example_server):
    server, url = example_server()
    b = backend(url, clock=dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC))
    outcomes = asyncio.run(
        play(b, ("get_counter", {}), ("add", {"amount": 3}), ("add", {"amount": 2}))
    )
    assert [o.result["value"] for o in outcomes] == [0, 3, 5]
    assert {o.source for o in outcomes} == {"service"}
    assert dict(server.worlds.counts) == {"setup": 1, "tool": 3, "state": 1, "reset": 1}
    assert server.worlds.calls == {}  # the reset hook threw the world away
    world = WorldRecord.model_validate(b.snapshot())
    assert world.kind == "http" and world.calls == 3 and len(world.initial_sha256) == 64
    assert world.final_state == {
        "counters": [{"name": "main", "value": 5, "updated": "2026-01-02T03:04:05+00:00"}]
    }
    assert [(e.call_index, e.tool, e.op, e.path, e.value) for e in world.ledger] == [
        (1, "add", "set", "counter.counters.main.value", 3),
        (1, "add", "set", "counter.counters.main.updated", "2026-01-02T03:04:05+00:00"),
        (2, "add", "set", "counter.counters.main.value", 5),
    ]


def test_a_call_without_tool_calls_still_records_the_untouched_world(example_server):
    server, url = example_server()
    b = backend(url, options={"since": dt.date(2026, 1, 1)})  # YAML reads dates as dates
    asyncio.run(play(b))
    assert dict(server.worlds.counts) == {"setup": 1, "state": 1, "reset": 1}
    snap = b.snapshot()
    assert snap["final_state"] == {"counters": [{"name": "main", "value": 0, "updated": ""}]}
    assert snap["ledger"] == [] and snap["calls"] == 0


def test_no_reset_hook_leaves_the_world_open(example_server):
    server, url = example_server()
    asyncio.run(play(backend(url, reset=None), ("add", {"amount": 1})))
    assert server.worlds.counts["reset"] == 0 and len(server.worlds.calls) == 1


def test_two_concurrent_calls_see_nothing_of_each_other(example_server):
    server, url = example_server()
    a, b = backend(url), backend(url)

    async def both():
        return await asyncio.gather(
            play(a, ("add", {"amount": 1}), ("add", {"amount": 1}), ("get_counter", {})),
            play(b, ("add", {"amount": 7}), ("get_counter", {})),
        )

    out_a, out_b = asyncio.run(both())
    assert out_a[-1].result["value"] == 2 and out_b[-1].result["value"] == 7
    assert a.snapshot()["final_state"]["counters"][0]["value"] == 2
    assert b.snapshot()["final_state"]["counters"][0]["value"] == 7
    assert a.call_id != b.call_id
    assert server.worlds.counts["setup"] == 2 and server.worlds.counts["reset"] == 2


# --- the candidate's mistakes and the service's refusals ----------------------------------------
def test_arguments_that_break_the_schema_are_refused_before_anything_is_sent(example_server):
    server, url = example_server()
    b = backend(url)

    async def go():
        return await b.call("add", {"amount": "three"}), await b.call("add", None)

    bad, unreadable = asyncio.run(go())
    assert bad.source == "invalid_arguments" and bad.result["reason"] == "invalid_arguments"
    assert "amount" in bad.result["errors"][0]
    assert unreadable.result["status"] == "error" and unreadable.source == "invalid_arguments"
    assert server.worlds.counts == {}  # not even the setup hook: nothing reached the service
    assert b.calls == 2


def test_a_4xx_with_a_result_is_the_services_refusal_and_writes_nothing(example_server):
    _, url = example_server()
    b = backend(url)
    refused, after = asyncio.run(play(b, ("add", {"amount": 11}), ("get_counter", {})))
    assert refused.source == "refused"
    assert refused.result == {"status": "refused", "reason": "precondition_failed", "max": 10}
    assert after.result["value"] == 0 and b.snapshot()["ledger"] == []


# --- a faulty service -------------------------------------------------------------------------
class Faulty(BaseHTTPRequestHandler):
    """Opens worlds, then answers tool calls as `mode` says; records the headers it got."""

    protocol_version = "HTTP/1.1"
    mode = "ok"
    state_status = 200
    seen: list[dict[str, str]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        Faulty.seen.append(dict(self.headers))
        if self.path == "/calls":
            self._send(200, b'{"call_id": "c/1"}')
        elif self.mode == "500":
            self._send(500, b'{"error": "boom"}')
        elif self.mode == "badjson":
            self._send(200, b"<html>not json</html>")
        elif self.mode == "nowrites":
            self._send(200, b'{"result": {"ok": true}, "writes": [{"op": "upsert", "path": "x"}]}')
        elif self.mode == "404":
            auth = self.headers.get("authorization", "").split()[-1]  # the bare token
            self._send(404, json.dumps({"message": f"no such account (you sent {auth})"}).encode())
        elif self.mode == "422":
            self._send(422, b"plain text")
        elif self.mode == "401":
            self._send(401, b"{}")
        elif self.mode == "slow":
            threading.Event().wait(2)
            self._send(200, b'{"result": {}}')

    def do_GET(self) -> None:
        if self.state_status != 200:
            self._send(self.state_status, b"")
        else:
            self._send(200, b'{"final_state": {"n": 1}, "initial_sha256": "abc"}')

    def do_DELETE(self) -> None:
        Faulty.seen.append({"DELETE": self.path})
        self._send(204, b"")


@pytest.fixture
def faulty():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Faulty)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Faulty.seen, Faulty.state_status = [], 200
    yield server, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def secret_env(monkeypatch):
    monkeypatch.setenv("CB_TEST_SERVICE_TOKEN", f"Bearer {SECRET}")
    return {"Authorization": "CB_TEST_SERVICE_TOKEN"}


def fail(b: HttpServiceBackend, name: str = "get_counter") -> HttpServiceError:
    with pytest.raises(InfrastructureError) as info:
        asyncio.run(b.call(name, {}))
    exc = info.value
    assert isinstance(exc, HttpServiceError)
    assert SECRET not in str(exc) and SECRET not in repr(exc)
    assert exc.__cause__ is None  # no chained transport error
    assert exc.__context__ is None or exc.__suppress_context__
    return exc


@pytest.mark.parametrize(
    ("mode", "says", "retryable"),
    [
        ("500", "answered POST /calls/c/1/tools/get_counter with HTTP 500", True),
        ("badjson", "HTTP 200 and a body that is not JSON", True),
        ("nowrites", "is not a list of writes", True),
        ("401", "with HTTP 401", False),
    ],
)
def test_a_failing_service_is_infrastructure_and_names_no_secret(
    faulty, secret_env, mode, says, retryable
):
    server, url = faulty
    Faulty.mode = mode
    exc = fail(backend(url + "/", headers_env=secret_env))
    assert says in str(exc) and exc.retryable is retryable
    assert "127.0.0.1" not in str(exc)  # the path, never the host or a query


def test_an_unreachable_or_slow_service_is_infrastructure(faulty, secret_env):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exc = fail(backend(f"http://user:pw@127.0.0.1:{port}", headers_env=secret_env))
    assert "could not be reached for POST /calls" in str(exc) and "pw" not in str(exc)
    _, url = faulty
    Faulty.mode = "slow"
    exc = fail(backend(url, headers_env=secret_env, timeout_seconds=0.3))
    assert "did not answer POST /calls/c/1/tools/get_counter within 0.3 s" in str(exc)


def test_a_plain_4xx_is_a_typed_result_with_any_echoed_secret_masked(faulty, secret_env):
    _, url = faulty
    b = backend(url, headers_env=secret_env)
    Faulty.mode = "404"
    missing = asyncio.run(b.call("get_counter", {}))
    assert missing.source == "not_found"
    assert missing.result["status"] == "not_found" and missing.result["http_status"] == 404
    assert missing.result["message"] == "no such account (you sent [redacted])"
    Faulty.mode = "422"
    bad = asyncio.run(b.call("get_counter", {}))
    assert bad.source == "refused" and bad.result["reason"] == "invalid_argument"
    assert bad.result["message"] == "the service answered HTTP 422"


def test_headers_are_read_from_the_environment_and_sent(faulty, secret_env, monkeypatch):
    _, url = faulty
    Faulty.mode = "422"
    b = backend(url, headers_env=secret_env)
    asyncio.run(b.call("get_counter", {}))
    assert [h.get("Authorization") for h in Faulty.seen] == [f"Bearer {SECRET}"] * 2
    monkeypatch.setenv("CB_TEST_SERVICE_TOKEN", "Bearer rotated-token")  # read at call time
    asyncio.run(b.call("get_counter", {}))
    assert Faulty.seen[-1]["Authorization"] == "Bearer rotated-token"
    monkeypatch.delenv("CB_TEST_SERVICE_TOKEN")
    exc = fail(b)
    assert "CB_TEST_SERVICE_TOKEN" in str(exc) and not exc.retryable


def test_the_reset_hook_runs_even_when_reading_the_state_fails(faulty):
    _, url = faulty
    Faulty.mode = "422"
    b = backend(url)

    Faulty.state_status = 503

    async def go():
        await b.call("get_counter", {})
        await b.finish()

    with pytest.raises(HttpServiceError, match="GET /calls/c/1/state with HTTP 503"):
        asyncio.run(go())
    assert {"DELETE": "/calls/c%2F1"} in Faulty.seen
    assert b.snapshot()["final_state"] is None  # unknown, and the attempt is excluded


def test_the_example_service_checks_the_token(example_server, secret_env, monkeypatch):
    server, url = example_server(token=SECRET)
    b = backend(url, headers_env=secret_env)
    outcomes = asyncio.run(play(b, ("add", {"amount": 4})))
    assert outcomes[0].result["value"] == 4 and server.worlds.counts["reset"] == 1
    monkeypatch.setenv("CB_TEST_SERVICE_TOKEN", "Bearer wrong")
    exc = fail(backend(url, headers_env=secret_env))
    assert "POST /calls with HTTP 401" in str(exc)


# --- through an episode -----------------------------------------------------------------------
def counter_suite(tmp_path: Path, url: str, headers_env: dict[str, str]):
    import shutil

    import yaml

    from callbench.suite_check import load_suite

    root = tmp_path / "suite"
    shutil.copytree(Path(__file__).parent / "fixtures" / "state-mini", root)
    agent_file = root / "agents" / "order-desk" / "agent.yaml"
    agent = yaml.safe_load(agent_file.read_text())
    end_call = next(t for t in agent["tools"] if t["name"] == "end_call")
    agent["tools"] = [
        {
            "name": "get_counter",
            "description": "Read the counter.",
            "parameters": SCHEMAS["get_counter"],
        },
        {"name": "add", "description": "Add to the counter.", "parameters": SCHEMAS["add"]},
        end_call,
    ]
    agent_file.write_text(yaml.safe_dump(agent))
    scenarios = root / "scenarios" / "order-desk"
    scenario = yaml.safe_load((scenarios / "cancel-order.yaml").read_text())
    for f in scenarios.iterdir():
        f.unlink()
    for key in ("expected_actions", "expected_state", "expected_changes", "gates"):
        scenario.pop(key, None)
    scenario["reference"] = [
        {"say": "Hello, how can I help?"},
        {"say": "I have added two.", "calls": [{"tool": "add", "args": {"amount": 2}}]},
        {
            "same_turn": True,
            "say": "Thank you, goodbye!",
            "calls": [{"tool": "end_call", "args": {"reason": "resolved"}}],
        },
    ]
    scenario["tags"] = ["http"]
    scenario["caller"]["plan"] = scenario["caller"]["plan"][:1]
    scenario["backend"] = {
        "kind": "http",
        "url": url,
        "options": {"counter": "main"},
        "headers_env": headers_env,
    }
    (scenarios / "count.yaml").write_text(yaml.safe_dump({**scenario, "id": "count"}))
    return load_suite(root)


def test_an_episode_records_the_http_world_and_no_secret(
    example_server, tmp_path, secret_env, monkeypatch
):
    from callbench.call import CandidateStep
    from callbench.callers import LineCaller
    from callbench.candidates import ScriptedCandidate, call
    from callbench.runs import Attempt, run_attempt

    server, url = example_server(token=SECRET)
    suite = counter_suite(tmp_path, url, secret_env)
    assert isinstance(build_backend(suite.scenarios["count"].backend, {}, []), HttpServiceBackend)

    def attempt():
        steps = [
            CandidateStep(speech="Hello.", tool_calls=(call("add", amount=2),)),
            CandidateStep(speech="Done.", tool_calls=(call("end_call", reason="resolved"),)),
        ]
        return asyncio.run(
            run_attempt(
                suite,
                Attempt("fake", "count", 0),
                1,
                candidate=ScriptedCandidate(steps),
                caller=LineCaller(hang_up_after=1),
            )
        )

    # loading the suite proved the reference solvable against the service: one call of its own
    assert dict(server.worlds.counts) == {"setup": 1, "tool": 2, "state": 1, "reset": 1}
    server.worlds.counts.clear()
    trace = attempt()
    assert trace.failure is None and trace.end.reason == "end_tool"
    world = trace.world
    assert world is not None and world.kind == "http" and world.calls == 2
    assert world.final_state["counters"][0]["value"] == 2
    assert [(e.call_index, e.tool, e.path) for e in world.ledger] == [
        (0, "add", "counter.counters.main.value"),
        (0, "add", "counter.counters.main.updated"),
    ]
    assert dict(server.worlds.counts) == {"setup": 1, "tool": 2, "state": 1, "reset": 1}
    assert SECRET not in trace.model_dump_json()

    # a service that stops answering mid-call: the attempt is excluded, no secret recorded
    monkeypatch.setenv("CB_TEST_SERVICE_TOKEN", "Bearer wrong-token-4410")
    trace = attempt()
    assert trace.outcome == "excluded" and trace.failure is not None
    assert trace.failure.failure_class == "infrastructure" and "HTTP 401" in trace.failure.detail
    assert trace.world is not None and trace.world.final_state is None
    assert "wrong-token-4410" not in trace.model_dump_json()


def test_a_service_failing_at_the_end_excludes_an_otherwise_clean_call(
    example_server, faulty, tmp_path
):
    from callbench.call import CandidateStep
    from callbench.callers import LineCaller
    from callbench.candidates import ScriptedCandidate, call
    from callbench.runs import Attempt, run_attempt

    _, good = example_server()
    suite = counter_suite(tmp_path, good, {})
    scenario = suite.scenarios["count"]
    _, bad = faulty
    backend_spec = scenario.backend.model_copy(update={"url": bad})
    suite = suite.model_copy(
        update={"scenarios": {"count": scenario.model_copy(update={"backend": backend_spec})}}
    )
    Faulty.mode, Faulty.state_status = "422", 500
    trace = asyncio.run(
        run_attempt(
            suite,
            Attempt("fake", "count", 0),
            1,
            candidate=ScriptedCandidate([CandidateStep(tool_calls=(call("add", amount=1),))]),
            caller=LineCaller(hang_up_after=1),
        )
    )
    assert trace.tool_events[0].response_source == "refused"  # the 422 reached the candidate
    assert trace.outcome == "excluded" and trace.failure is not None
    assert trace.failure.kind == "HttpServiceError" and trace.failure.retryable
    assert "GET /calls/c/1/state with HTTP 500" in trace.failure.detail
    assert trace.end is not None and trace.end.reason == "infrastructure"
    assert {"DELETE": "/calls/c%2F1"} in Faulty.seen  # the world was still thrown away


# --- the same calls in-process and over HTTP ----------------------------------------------------
def test_the_example_service_answers_exactly_as_the_in_process_backend(example_server):
    import yaml

    import callbench.backends.utility as utility
    from callbench.backends.service import ServiceBackend
    from callbench.spec import ServiceBackendSpec

    manifest = Path(utility.__file__).parent / "accounts.yaml"
    account = next(  # an account with paperless off and a card that pays
        a
        for a in yaml.safe_load(manifest.read_text())["accounts"]
        if not a["paperless"] and not a["cards"][0].get("declines")
    )
    number = account["account_number"]
    calls: list[tuple[str, dict | None]] = [
        ("get_account", {}),  # refused: not verified yet
        (
            "verify_caller",
            {
                "account_number": number,
                "full_name": account["full_name"],
                "postal_code": account["postal_code"],
            },
        ),
        ("get_account", {}),
        ("make_payment", {"amount": 25.5, "card_last4": account["cards"][0]["last4"]}),
        ("set_paperless_billing", {"enabled": True, "confirmed_email": account["email"]}),
    ]
    options = {"account": number}
    local = ServiceBackend(
        ServiceBackendSpec(kind="service", domain="utility_billing", options=options), {}
    )
    expected = [local.handle(name, args) for name, args in calls]
    want = local.snapshot()
    local.close()
    assert any(w["op"] == "append" for w in want["ledger"])  # the sequence writes something

    server, url = example_server(domain="utility_billing")
    remote = backend(url, options=options)
    got = asyncio.run(play(remote, *calls))
    have = remote.snapshot()
    assert [(o.source, o.result) for o in got] == [(o.source, o.result) for o in expected]
    assert [o.source for o in got][:2] == ["refused", "service"]
    assert have["ledger"] == want["ledger"]
    assert have["final_state"] == want["final_state"]
    assert have["initial_sha256"] == want["initial_sha256"]
    assert have["final_sha256"] == want["final_sha256"]
    assert dict(server.worlds.counts) == {"setup": 1, "tool": 5, "state": 1, "reset": 1}
