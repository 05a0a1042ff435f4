"""The run store: one SQLite file per run (WAL mode), the source of truth for what a run has done.

A finished call is one transaction (state, trace and scorecard together), so a
kill at any moment leaves every attempt either finished, or pending/running and
re-run from scratch on resume: never half-saved, never counted twice.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import CallbenchError

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attempts (
    trace_id TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    candidate TEXT NOT NULL,
    scenario_id TEXT NOT NULL,
    repeat INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'completed', 'excluded')),
    failure_class TEXT,
    trace TEXT,
    scorecard TEXT,
    updated REAL
);
CREATE INDEX IF NOT EXISTS attempts_state ON attempts(state);
"""

FINISHED = ("completed", "excluded")


class StoreError(CallbenchError):
    pass


class RunStore:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable at checkpoint, never corrupt
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # --- meta -------------------------------------------------------------------------------
    def get_meta(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def set_meta(self, **values: Any) -> None:
        with self.db:
            self.db.execute("BEGIN")
            for key, value in values.items():
                self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))

    # --- attempts -----------------------------------------------------------------------------
    def add_attempts(self, attempts: list) -> int:
        """Register the plan; existing rows are kept as they are (resume never duplicates)."""
        with self.db:
            self.db.execute("BEGIN")
            before = self.db.total_changes
            self.db.executemany(
                "INSERT OR IGNORE INTO attempts(trace_id, position, candidate, scenario_id, repeat, state, updated) "
                "VALUES (?, ?, ?, ?, ?, 'pending', ?)",
                [(a.trace_id, i, a.candidate, a.scenario_id, a.repeat, time.time()) for i, a in enumerate(attempts)])
            return self.db.total_changes - before

    def reset_interrupted(self) -> int:
        """Calls that were running when the process died start again from scratch."""
        cur = self.db.execute("UPDATE attempts SET state = 'pending', updated = ? WHERE state = 'running'", (time.time(),))
        return cur.rowcount

    def pending(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT trace_id FROM attempts WHERE state = 'pending' ORDER BY position")]

    def mark_running(self, trace_id: str) -> None:
        self.db.execute("UPDATE attempts SET state = 'running', updated = ? WHERE trace_id = ?", (time.time(), trace_id))

    def finish(self, trace_id: str, state: str, trace_json: str, scorecard_json: str, failure_class: str | None) -> None:
        if state not in FINISHED:
            raise StoreError(f"cannot finish an attempt as '{state}'")
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("UPDATE attempts SET state = ?, failure_class = ?, trace = ?, scorecard = ?, updated = ? "
                            "WHERE trace_id = ?", (state, failure_class, trace_json, scorecard_json, time.time(), trace_id))

    def counts(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT state, COUNT(*) FROM attempts GROUP BY state").fetchall())

    def finished(self) -> Iterator[tuple[str, str, str]]:
        """(trace_id, trace JSON, scorecard JSON) of every finished attempt, in plan order, streamed."""
        cur = self.db.execute("SELECT trace_id, trace, scorecard FROM attempts WHERE state IN ('completed', 'excluded') "
                              "ORDER BY position")
        yield from cur

    # --- export -------------------------------------------------------------------------------
    def export_jsonl(self, path: str | Path) -> int:
        n = 0
        with open(path, "w", encoding="utf-8") as out:
            for _, trace, _ in self.finished():
                out.write(json.dumps(json.loads(trace), ensure_ascii=False) + "\n")
                n += 1
        return n

    def export_parquet(self, path: str | Path) -> int:
        """One row per call (ids, outcome, scores, the trace as JSON text). Needs pyarrow."""
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise StoreError("Parquet export needs pyarrow: pip install pyarrow") from exc
        rows: dict[str, list] = {k: [] for k in ("trace_id", "candidate", "scenario_id", "repeat", "outcome", "task", "conversation", "trace")}
        for trace_id, trace, card in self.finished():
            c = json.loads(card)
            rows["trace_id"].append(trace_id)
            rows["candidate"].append(c["candidate"])
            rows["scenario_id"].append(c["scenario_id"])
            rows["repeat"].append(c["repeat"])
            rows["outcome"].append(c["outcome"])
            rows["task"].append(c["task"]["score"])
            rows["conversation"].append(c["conversation"]["score"])
            rows["trace"].append(trace)
        pq.write_table(pa.table(rows), path)
        return len(rows["trace_id"])
