"""The run store: one SQLite file per run (WAL mode), the source of truth for what a run has done.

A finished call is one transaction (state, trace and scorecard together), so a
kill at any moment leaves every attempt either finished, or pending/running and
re-run from scratch on resume: never half-saved, never counted twice. One
process at a time sweeps a run folder (`run_lock`), and a write the disk refuses
(full, read-only) is a StoreError naming the folder, never a half-written row.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

if sys.platform != "win32":
    import fcntl

from ..errors import CallbenchError
from ..layout import STORE, RunLayout

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


def cause(exc: BaseException) -> str:
    """What went wrong, in the system's words ("No space left on device", "database or disk is
    full")."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or exc.__class__.__name__


def unwritable(folder: Path, exc: BaseException) -> StoreError:
    """A full disk or a read-only folder is the environment's fault, not a bug: one line, no
    traceback."""
    return StoreError(f"cannot write to the run folder {folder}: {cause(exc)}")


@contextmanager
def run_lock(folder: Path) -> Iterator[None]:
    """Held by the process sweeping `folder` from before it touches anything there until it is done.
    Two sweeps
    of one folder would each run every call they see pending (thousands of requests for a few
    hundred calls), so
    the second refuses at once. The kernel drops the lock when the process ends, however it ends: a
    killed run
    never leaves its folder locked. The file stays (deleting it would let a third process lock a
    new one)."""
    try:
        fd = os.open(RunLayout(folder).lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise unwritable(folder, exc) from None
    try:
        _lock(fd, folder)
        yield
    finally:
        os.close(fd)  # releases the lock


def _lock(fd: int, folder: Path) -> None:
    if sys.platform == "win32":  # pragma: no cover - Windows
        import msvcrt  # Windows only

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            raise StoreError(
                f"{folder}: another process is running this run; wait for it to end, or stop it"
            ) from None
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        who = f" (pid {holder})" if holder.isdigit() else ""
        raise StoreError(
            f"{folder}: another process{who} is running this run; wait for it to end, or stop it"
        ) from None
    try:  # who holds it, for the message above; only a courtesy, so a full disk here is no error
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
    except OSError:
        pass


class RunStore:
    db: sqlite3.Connection
    """set once the store is open (absent while it opens: nothing for `_saving` to roll back)"""

    def __init__(self, path: str | Path, *, create: bool = True):
        """`create=False`: open an existing store only (resume), never leave an empty one behind."""
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise StoreError(
                f"{self.path.parent}: no run store to resume ({STORE} missing or empty)"
            )
        with self._saving():
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(
                "PRAGMA synchronous=NORMAL"
            )  # WAL + NORMAL: durable at checkpoint, never corrupt
            self.db.executescript(SCHEMA)

    @contextmanager
    def _saving(self) -> Iterator[None]:
        """SQLite's own failures to write (disk full, read-only folder, cannot open) as a StoreError
        naming the
        folder; an open transaction is rolled back, so a row is never left half-updated."""
        try:
            yield
        except (
            sqlite3.OperationalError
        ) as exc:  # not IntegrityError and the like: those are harness bugs
            db = getattr(self, "db", None)
            if db is not None and db.in_transaction:
                try:
                    db.rollback()
                except sqlite3.Error:
                    pass
            raise unwritable(self.path.parent, exc) from None

    def close(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            db.close()

    # --- meta -------------------------------------------------------------------------------
    def get_meta(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def set_meta(self, **values: Any) -> None:
        with self._saving(), self.db:
            self.db.execute("BEGIN")
            for key, value in values.items():
                self.db.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                    (key, json.dumps(value, sort_keys=True)),
                )

    # --- attempts -----------------------------------------------------------------------------
    def add_attempts(self, attempts: list) -> int:
        """Register the plan; existing rows are kept as they are (resume never duplicates)."""
        with self._saving(), self.db:
            self.db.execute("BEGIN")
            before = self.db.total_changes
            self.db.executemany(
                "INSERT OR IGNORE INTO attempts(trace_id, position, candidate, scenario_id, "
                "repeat, state, updated) "
                "VALUES (?, ?, ?, ?, ?, 'pending', ?)",
                [
                    (a.trace_id, i, a.candidate, a.scenario_id, a.repeat, time.time())
                    for i, a in enumerate(attempts)
                ],
            )
            return self.db.total_changes - before

    def reset_interrupted(self) -> int:
        """Calls that were running when the process died start again from scratch."""
        with self._saving():
            cur = self.db.execute(
                "UPDATE attempts SET state = 'pending', updated = ? WHERE state = 'running'",
                (time.time(),),
            )
        return cur.rowcount

    def pending(self) -> list[str]:
        return [
            r[0]
            for r in self.db.execute(
                "SELECT trace_id FROM attempts WHERE state = 'pending' ORDER BY position"
            )
        ]

    def mark_running(self, trace_id: str) -> None:
        with self._saving():
            self.db.execute(
                "UPDATE attempts SET state = 'running', updated = ? WHERE trace_id = ?",
                (time.time(), trace_id),
            )

    def finish(
        self,
        trace_id: str,
        state: str,
        trace_json: str,
        scorecard_json: str,
        failure_class: str | None,
    ) -> None:
        if state not in FINISHED:
            raise StoreError(f"cannot finish an attempt as '{state}'")
        with self._saving(), self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(
                "UPDATE attempts SET state = ?, failure_class = ?, trace = ?, scorecard = ?, "
                "updated = ? "
                "WHERE trace_id = ?",
                (state, failure_class, trace_json, scorecard_json, time.time(), trace_id),
            )

    def counts(self) -> dict[str, int]:
        return dict(
            self.db.execute("SELECT state, COUNT(*) FROM attempts GROUP BY state").fetchall()
        )

    def finished(self) -> Iterator[tuple[str, str, str]]:
        """(trace_id, trace JSON, scorecard JSON) of every finished attempt, in plan order,
        streamed."""
        cur = self.db.execute(
            "SELECT trace_id, trace, scorecard FROM attempts WHERE state IN ('completed', "
            "'excluded') "
            "ORDER BY position"
        )
        yield from cur

    # --- export -------------------------------------------------------------------------------
    def export_jsonl(self, path: str | Path) -> int:
        """Written to a temporary file and renamed, so a failed export never leaves half a file
        behind."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        n = 0
        try:
            with open(tmp, "w", encoding="utf-8") as out:
                for _, trace, _ in self.finished():
                    out.write(json.dumps(json.loads(trace), ensure_ascii=False) + "\n")
                    n += 1
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return n

    def export_parquet(self, path: str | Path) -> int:
        """One row per call (ids, outcome, scores, the trace as JSON text). Needs pyarrow."""
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise StoreError("Parquet export needs pyarrow: pip install pyarrow") from exc
        rows: dict[str, list] = {
            k: []
            for k in (
                "trace_id",
                "candidate",
                "scenario_id",
                "repeat",
                "outcome",
                "task",
                "conversation",
                "trace",
            )
        }
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
