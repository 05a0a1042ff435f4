"""The services backend: a domain plugin's real SQLite databases answer the tool calls.

A domain (the utility's billing service and loan engine, say) builds its seeded databases once per
process; every call gets its own in-memory copy of that snapshot through SQLite's backup API, so no
call's writes reach another, and a frozen clock, so due dates and arrears read the same on every
attempt. The services enforce their own rules in their own code; this module only keeps the books:

- every row a tool call inserts, changes or deletes is caught by SQLite triggers and written to
  the ledger the state graders already read (`append` for an inserted row at `<db>.<table>`, `set`
  per changed column at `<db>.<table>.<key>.<column>`, `delete`), with the ordinal of the backend
  call that made it, so no write can slip past the grader (the triggers and their change table
  live in a private copy of the snapshot made once per process, which every call's copy is taken
  from: the domain's own snapshot and its digest stay untouched);
- a tool call is a savepoint: a refusal (`Refused`) rolls back everything the call wrote;
- `replay` feeds a stored trace's calls to a fresh copy and names every difference.

A bug in a domain raises and crashes the run with its traceback, as any backend bug does.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..call.trace import Trace
from ..call.types import ToolOutcome
from ..spec import ServiceBackendSpec, make_scope
from .arguments import UNREADABLE, schema_refusal, schema_validators
from .state import ReplayReport, compare_world, digest, replay_calls


class Refused(Exception):
    """Raised by a domain's tool to answer `result` and undo whatever the call wrote."""

    def __init__(self, result: dict[str, Any]):
        super().__init__(result.get("reason", "refused"))
        self.result = result


class ServiceSession(Protocol):
    """One call's world: the domain's tools over this call's databases."""

    def handle(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]: ...

    def state(self) -> dict[str, Any]:
        """What grading reads at the end: the rows the call is about, as JSON."""
        ...


class Domain(Protocol):
    name: str
    now: dt.datetime
    """the snapshot's frozen time, used when a scenario sets no clock"""

    def snapshot(self) -> dict[str, sqlite3.Connection]:
        """The seeded, checked databases by name; built once and only ever copied from."""
        ...

    def open(
        self,
        databases: dict[str, sqlite3.Connection],
        options: Mapping[str, Any],
        now: dt.datetime,
    ) -> ServiceSession: ...


def _utility_billing() -> Domain:
    from .utility import UtilityBilling

    return UtilityBilling()


DOMAINS: dict[str, Callable[[], Domain]] = {"utility_billing": _utility_billing}
_loaded: dict[str, Domain] = {}


def domain(name: str) -> Domain:
    if name not in DOMAINS:
        raise KeyError(f"no service domain '{name}' (known: {', '.join(sorted(DOMAINS))})")
    if name not in _loaded:
        _loaded[name] = DOMAINS[name]()
    return _loaded[name]


_CHANGES = "_callbench_changes"
_TABLES = (
    f"SELECT name FROM main.sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
    f"AND name != '{_CHANGES}'"
)


def _key_column(conn: sqlite3.Connection, table: str) -> str:
    keys = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[5]]
    if len(keys) != 1:
        raise ValueError(f"table {table} needs a single-column primary key for the ledger")
    return keys[0]


def _capture(conn: sqlite3.Connection, db: str) -> None:
    """Triggers that copy every row change of the domain's tables into a change table."""
    conn.execute("BEGIN")
    conn.execute(
        f"CREATE TABLE {_CHANGES} (seq INTEGER PRIMARY KEY, db TEXT, tbl TEXT, op TEXT, "
        "old TEXT, new TEXT)"
    )
    for (t,) in conn.execute(_TABLES).fetchall():
        cols = [r[1] for r in conn.execute(f"PRAGMA table_info({t})")]
        _key_column(conn, t)

        def row(alias: str, cols: list[str] = cols) -> str:
            return "json_object(" + ", ".join(f"'{c}', {alias}.{c}" for c in cols) + ")"

        for op, old, new in (
            ("INSERT", "NULL", row("NEW")),
            ("UPDATE", row("OLD"), row("NEW")),
            ("DELETE", row("OLD"), "NULL"),
        ):
            conn.execute(
                f"CREATE TRIGGER _cb_{op.lower()}_{t} AFTER {op} ON {t} BEGIN "
                f"INSERT INTO {_CHANGES}(db, tbl, op, old, new) VALUES "
                f"('{db}', '{t}', '{op.lower()}', {old}, {new}); END"
            )
    conn.execute("COMMIT")


@dataclass
class _Template:
    databases: dict[str, sqlite3.Connection]
    keys: dict[tuple[str, str], str]
    digest: str


_templates: dict[str, _Template] = {}


def _template(name: str, source: dict[str, sqlite3.Connection]) -> _Template:
    """The domain's snapshot with the ledger's triggers and change table installed, made once per
    process; every call copies it, triggers and all, through the backup API. Creating the ~40
    triggers on every call's copy instead was most of the cost of opening a call (measured by
    benchmarks/bench_services.py). The snapshot the domain built stays untouched, and its digest
    is the call's `initial_sha256`."""
    if name not in _templates:
        digest_ = database_digest(source)
        databases = copy_snapshot(source)
        for db, conn in databases.items():
            _capture(conn, db)
        keys = {
            (db, t): _key_column(conn, t)
            for db, conn in databases.items()
            for (t,) in conn.execute(_TABLES).fetchall()
        }
        _templates[name] = _Template(databases, keys, digest_)
    return _templates[name]


def copy_snapshot(source: dict[str, sqlite3.Connection]) -> dict[str, sqlite3.Connection]:
    out = {}
    for name, conn in source.items():
        dst = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        conn.backup(dst)
        out[name] = dst
    return out


def database_digest(databases: Mapping[str, sqlite3.Connection]) -> str:
    return digest({n: list(c.iterdump()) for n, c in sorted(databases.items())})


@dataclass
class ServiceBackend:
    """A call's services (see the module docstring). `schemas`: the agent's tool parameter
    schemas; a call that breaks one is refused before it reaches a service, as the state backend
    does."""

    spec: ServiceBackendSpec
    knows: Mapping[str, Any]
    schemas: Mapping[str, Any] | None = None
    today: dt.date | None = None
    ledger: list[dict[str, Any]] = field(default_factory=list)
    calls: int = 0

    def __post_init__(self) -> None:
        self.validators = schema_validators(self.schemas)
        self.domain = domain(self.spec.domain)
        template = _template(self.spec.domain, self.domain.snapshot())
        self.initial_sha256 = template.digest
        self.databases = copy_snapshot(template.databases)
        self.keys = template.keys
        self.scope = make_scope(self.knows, self.spec.hidden)
        options = {k: _fill(v, self.scope) for k, v in self.spec.options.items()}
        self.session = self.domain.open(self.databases, options, self.spec.clock or self.domain.now)

    async def call(self, name: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        return self.handle(name, arguments)

    def handle(self, name: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        index = self.calls
        self.calls += 1
        if arguments is None:
            return UNREADABLE
        refusal = schema_refusal(self.validators.get(name), arguments)
        if refusal is not None:
            return refusal
        for conn in self.databases.values():
            conn.execute("SAVEPOINT tool_call")
        try:
            result = self.session.handle(name, arguments)
        except Refused as refused:
            for conn in self.databases.values():
                conn.execute("ROLLBACK TO tool_call")
                conn.execute("RELEASE tool_call")
                conn.execute(f"DELETE FROM {_CHANGES}")
            return ToolOutcome(result=refused.result, source="refused")
        for conn in self.databases.values():
            conn.execute("RELEASE tool_call")
        self.ledger += [{"call_index": index, "tool": name, **w} for w in self._drain()]
        return ToolOutcome(result=result, source="service")

    def _drain(self) -> list[dict[str, Any]]:
        changes = []
        for conn in self.databases.values():
            changes += conn.execute(
                f"SELECT seq, db, tbl, op, old, new FROM {_CHANGES} ORDER BY seq"
            ).fetchall()
            conn.execute(f"DELETE FROM {_CHANGES}")
        writes: list[dict[str, Any]] = []
        for _, db, table, op, old_text, new_text in changes:
            old = json.loads(old_text) if old_text else None
            new = json.loads(new_text) if new_text else None
            key = self.keys[(db, table)]
            if op == "insert":
                writes.append({"op": "append", "path": f"{db}.{table}", "value": new})
            elif op == "delete":
                assert old is not None
                writes.append({"op": "delete", "path": f"{db}.{table}.{old[key]}", "value": None})
            else:
                assert old is not None and new is not None
                writes += [
                    {"op": "set", "path": f"{db}.{table}.{new[key]}.{c}", "value": v}
                    for c, v in new.items()
                    if old.get(c) != v
                ]
        return writes

    def snapshot(self) -> dict[str, Any]:
        final = self.session.state()
        return {
            "kind": "service",
            "initial_sha256": self.initial_sha256,
            "final_sha256": digest(final),
            "final_state": final,
            "ledger": [dict(w) for w in self.ledger],
            "calls": self.calls,
        }

    def close(self) -> None:
        for conn in self.databases.values():
            conn.close()


def _fill(value: Any, scope: Mapping[str, Any]) -> Any:
    from ..spec import resolve

    return resolve(value, scope)


def replay(
    trace: Trace,
    spec: ServiceBackendSpec,
    knows: Mapping[str, Any],
    schemas: Mapping[str, Any] | None = None,
) -> ReplayReport:
    """Feed the trace's backend calls, in order, to a fresh copy of the snapshot and compare every
    answer, the ledger and the final state with what the trace recorded."""
    backend = ServiceBackend(spec, knows, schemas)
    report = replay_calls(trace, backend.handle)
    snap = backend.snapshot()
    compare_world(
        report, trace, snap["initial_sha256"], snap["ledger"], snap["final_state"], snap["calls"]
    )
    backend.close()
    return report


__all__ = [
    "DOMAINS",
    "Domain",
    "Refused",
    "ServiceBackend",
    "ServiceSession",
    "copy_snapshot",
    "database_digest",
    "domain",
    "replay",
]
