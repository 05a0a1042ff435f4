"""What the services backend costs per call, beside the JSON state backend (issue 14).

`python benchmarks/bench_services.py` measures, in one process, and writes
benchmarks/results/services.json:

1. Backend alone, per call, the two kinds interleaved (ABAB..., the order flipped every repeat, so
   drift and the neighbours' load on a shared machine fall on both alike):
   - services: open a `ServiceBackend` on `utility_billing` (in-memory copy of the seeded snapshot
     with the ledger's triggers, through the backup API, and the session), play a fixed call of
     eight tool calls on the account in arrears 3287895358 (verify_caller, get_account,
     get_payment_arrangement, quote_payment_arrangement, create_payment_arrangement, make_payment,
     set_paperless_billing, end_call), then `snapshot()` and `close()`;
   - state: a `StateBackend` on the customer-service scenario `telecom-upgrade-unlimited-prorated`,
     playing the nine tool calls its oracle makes (taken from one oracle episode before timing),
     then `snapshot()`. It is the comparable state call: the same shape (verify, read the account,
     quote, change, and four writes in the ledger), and its world is the largest of the suite's
     state worlds (about 5 KB of JSON; the state backend deep-copies the world on every tool call,
     so a larger world costs it more). Its first change_plan meets the scenario's injected
     failure (a lost reply) and the oracle retries, as in the suite. The services world is bigger
     by construction: both databases, all 24 accounts, are copied for every call; the sizes are
     reported.
   Both are built by `build_backend` with the agent's tool schemas, as a run builds them. Reported:
   wall and CPU ms per call (median over repeats) and per phase, their services/state ratios, and
   the memory of N concurrently open backends / N: the Python heap by tracemalloc (peak) and, for
   the services, SQLite's own heap (`sqlite3_memory_used`, which tracemalloc cannot see: SQLite
   allocates its pages with its own malloc), and the growth of the resident set (coarse: memory
   freed earlier in the process is reused first, so a small figure can read 0). On a loaded
   machine the wall figures swing with the neighbours, the services' more than the state's
   (probably because SQLite's allocator makes system calls, where the kernel switches the process
   out): CPU is the figure to compare; the minimum wall is given beside the median.
2. Harness per whole call: `run_suite` with `RunConfig(candidates=("oracle",))` in-process, as
   `callbench run` plays it (episode, grading, run store, report), on 30 utility-billing calls and
   30 customer-service calls spread evenly over each suite, the two suites alternated over a few
   rounds after a warm-up round; CPU ms per call (median of rounds), and the share of a utility
   call's CPU spent inside the services backend (its `__init__`, `call` and `snapshot` wrapped
   with a CPU clock), with the state backend's share beside it.
3. The one-off cost of building the seeded snapshot (`backends.utility.seed.build()`: the first
   build in a fresh interpreter, median of three, and later builds) and of its digest, which the
   backend computes once per process.

No timed assertion anywhere: figures are reported, never checked against a bound.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import ctypes.util
import gc
import json
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from callbench.backends.queue import build_backend
from callbench.backends.service import ServiceBackend, database_digest, domain
from callbench.backends.state import StateBackend
from callbench.backends.utility import seed
from callbench.call.trace import backend_events
from callbench.runs import Attempt, RunConfig, run_attempt, run_suite
from callbench.spec import ServiceBackendSpec
from callbench.suite_check import load_suite

sys.path.insert(0, str(Path(__file__).parent))
from _results import RESULTS, save  # noqa: E402

ACCOUNT = "3287895358"
"""Hiroshi Nakamura: bills 2-3 unpaid, income at 300% FPL; every tool below succeeds on it."""
SERVICE_CALLS: list[tuple[str, dict[str, Any]]] = [
    (
        "verify_caller",
        {"account_number": ACCOUNT, "full_name": "Hiroshi Nakamura", "postal_code": "15228"},
    ),
    ("get_account", {}),
    ("get_payment_arrangement", {}),
    ("quote_payment_arrangement", {"months": 12}),
    ("create_payment_arrangement", {"quote_id": "q_001", "card_last4": "6036"}),
    ("make_payment", {"amount": 25.0, "card_last4": "6036", "toward": "arrangement"}),
    ("set_paperless_billing", {"enabled": True, "confirmed_email": "h.nakamura@example.org"}),
    ("end_call", {"outcome": "resolved"}),
]
STATE_SCENARIO = "telecom-upgrade-unlimited-prorated"


# --- 1. the backend alone ------------------------------------------------------------------------
class Side:
    """One backend kind: how to open it and the tool calls one call plays on it."""

    def __init__(self, name: str, open_: Callable[[], Any], calls: list[tuple[str, dict]]):
        self.name, self.open, self.calls = name, open_, calls

    def play(self) -> dict[str, float]:
        """One call; wall and CPU seconds per phase."""
        w0, c0 = time.perf_counter(), time.process_time()
        backend = self.open()
        w1, c1 = time.perf_counter(), time.process_time()
        for name, arguments in self.calls:
            backend.handle(name, dict(arguments))
        w2, c2 = time.perf_counter(), time.process_time()
        backend.snapshot()
        if hasattr(backend, "close"):
            backend.close()
        w3, c3 = time.perf_counter(), time.process_time()
        return {
            "wall_open": w1 - w0,
            "wall_tools": w2 - w1,
            "wall_end": w3 - w2,
            "wall_total": w3 - w0,
            "cpu_open": c1 - c0,
            "cpu_tools": c2 - c1,
            "cpu_end": c3 - c2,
            "cpu_total": c3 - c0,
        }


def sides() -> tuple[Side, Side, dict[str, Any]]:
    utility = load_suite("utility-billing")
    u_agent = utility.agent_for(next(iter(utility.scenarios.values())))
    spec = ServiceBackendSpec(
        kind="service", domain="utility_billing", options={"account": ACCOUNT}
    )

    def open_service() -> Any:
        return build_backend(spec, {}, u_agent.definition.tools)

    cs = load_suite("customer-service")
    scenario = cs.scenarios[STATE_SCENARIO]
    agent = cs.agent_for(scenario)
    trace = asyncio.run(run_attempt(cs, Attempt("oracle", STATE_SCENARIO, 0), 0))
    state_calls = [(e.name, dict(e.arguments or {})) for e in backend_events(trace)]

    def open_state() -> Any:
        return build_backend(
            scenario.backend,
            scenario.caller.knows,
            agent.definition.tools,
            scenario.caller.datetime.date(),
        )

    # the sequences must do what they claim: every call answered by the world, not refused
    checks = {}
    for side_name, opener, calls, ok in (
        ("services", open_service, SERVICE_CALLS, {"service"}),
        ("state", open_state, state_calls, {"state", "injected_failure"}),
    ):
        backend = opener()
        sources = [backend.handle(n, dict(a)).source for n, a in calls]
        bad = [f"{n}: {s}" for (n, _), s in zip(calls, sources, strict=True) if s not in ok]
        if bad:
            raise RuntimeError(f"the {side_name} call does not play as intended: {bad}")
        snap = backend.snapshot()
        checks[side_name] = {
            "tool_calls": len(calls),
            "tools": [n for n, _ in calls],
            "ledger_writes": len(snap["ledger"]),
            "final_state_json_bytes": len(json.dumps(snap["final_state"])),
        }
        if isinstance(backend, ServiceBackend):
            pristine = domain("utility_billing").snapshot()
            checks[side_name]["world_copied_per_call_bytes"] = len(
                "\n".join(line for c in pristine.values() for line in c.iterdump())
            )
            checks[side_name]["world_note"] = (
                "both seeded databases (all 24 accounts) as SQL text; each call copies them"
            )
            backend.close()
        else:
            checks[side_name]["world_copied_per_call_bytes"] = len(
                json.dumps(scenario.backend.initial)
            )
            checks[side_name]["world_note"] = (
                "the scenario's initial state as JSON; deep-copied on every tool call"
            )
    return (
        Side("services", open_service, SERVICE_CALLS),
        Side("state", open_state, state_calls),
        checks,
    )


def _ms(x: float) -> float:
    return round(1000 * x, 3)


def backend_alone(services: Side, state: Side, repeats: int) -> dict[str, Any]:
    for side in (services, state):  # warm: imports, the snapshot, its digest, validators
        for _ in range(5):
            side.play()
    samples: dict[str, list[dict[str, float]]] = {"services": [], "state": []}
    gc.collect()
    for r in range(repeats):
        for side in (services, state) if r % 2 == 0 else (state, services):
            samples[side.name].append(side.play())
    out: dict[str, Any] = {}
    for name, runs in samples.items():
        tools = len(services.calls if name == "services" else state.calls)
        med = {k: statistics.median(s[k] for s in runs) for k in runs[0]}
        out[name] = {
            "repeats": len(runs),
            "wall_ms_per_call": _ms(med["wall_total"]),
            "cpu_ms_per_call": _ms(med["cpu_total"]),
            "cpu_ms_open": _ms(med["cpu_open"]),
            "cpu_ms_tools": _ms(med["cpu_tools"]),
            "cpu_ms_per_tool_call": _ms(med["cpu_tools"] / tools),
            "cpu_ms_snapshot_and_close": _ms(med["cpu_end"]),
            "wall_ms_min_per_call": _ms(min(s["wall_total"] for s in runs)),
            "wall_ms_p90_per_call": _ms(
                statistics.quantiles([s["wall_total"] for s in runs], n=10)[-1]
            ),
        }
    s, t = out["services"], out["state"]
    out["ratio_services_to_state"] = {
        "wall_per_call": round(s["wall_ms_per_call"] / t["wall_ms_per_call"], 2),
        "cpu_per_call": round(s["cpu_ms_per_call"] / t["cpu_ms_per_call"], 2),
        "cpu_per_tool_call": round(s["cpu_ms_per_tool_call"] / t["cpu_ms_per_tool_call"], 2),
    }
    return out


def _sqlite_memory_used() -> Callable[[], int] | None:
    """SQLite's own heap counter, from the library the sqlite3 module is linked against (None when
    it cannot be found, e.g. a statically linked build)."""
    path = ctypes.util.find_library("sqlite3")
    if path is None:
        return None
    try:
        lib = ctypes.CDLL(path)
        fn = lib.sqlite3_memory_used
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_int64
    return lambda: int(fn())


def _rss_bytes() -> int | None:
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


def memory(side: Side, n: int, play: bool) -> dict[str, Any]:
    """Memory per open call with `n` backends open at once (each after its tool calls when `play`,
    so the call's writes and ledger are counted)."""
    sqlite_used = _sqlite_memory_used()
    gc.collect()
    rss0 = _rss_bytes()
    sq0 = sqlite_used() if sqlite_used else None
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    backends = []
    for _ in range(n):
        b = side.open()
        if play:
            for name, arguments in side.calls:
                b.handle(name, dict(arguments))
        backends.append(b)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    sq1 = sqlite_used() if sqlite_used else None
    rss1 = _rss_bytes()
    out: dict[str, Any] = {
        "open_at_once": n,
        "after_tool_calls": play,
        "python_heap_kib_per_call_peak": round((peak - base) / n / 1024, 1),
        "python_heap_kib_per_call_held": round((current - base) / n / 1024, 1),
    }
    if sq0 is not None and sq1 is not None:
        out["sqlite_heap_kib_per_call"] = round((sq1 - sq0) / n / 1024, 1)
    if rss0 is not None and rss1 is not None:
        out["rss_kib_per_call"] = round((rss1 - rss0) / n / 1024, 1)
    for b in backends:
        if hasattr(b, "close"):
            b.close()
    return out


# --- 2. the harness per whole call ---------------------------------------------------------------
class BackendClock:
    """CPU seconds spent inside a backend class's `__init__`, `call` and `snapshot` while installed
    (asyncio runs one coroutine at a time, and `call` does not await, so the spans never
    overlap)."""

    def __init__(self, cls: type):
        self.cls = cls
        self.seconds = {"open": 0.0, "call": 0.0, "snapshot": 0.0}
        self.tool_calls = 0
        self.originals = {m: getattr(cls, m) for m in ("__init__", "call", "snapshot")}

    def __enter__(self) -> BackendClock:
        clock = self
        init, call, snap = (self.originals[m] for m in ("__init__", "call", "snapshot"))

        def timed_init(obj: Any, *a: Any, **k: Any) -> None:
            c0 = time.process_time()
            init(obj, *a, **k)
            clock.seconds["open"] += time.process_time() - c0

        async def timed_call(obj: Any, *a: Any, **k: Any) -> Any:
            c0 = time.process_time()
            out = await call(obj, *a, **k)
            clock.seconds["call"] += time.process_time() - c0
            clock.tool_calls += 1
            return out

        def timed_snapshot(obj: Any) -> Any:
            c0 = time.process_time()
            out = snap(obj)
            clock.seconds["snapshot"] += time.process_time() - c0
            return out

        self.cls.__init__ = timed_init  # type: ignore[misc]
        self.cls.call = timed_call  # type: ignore[method-assign]
        self.cls.snapshot = timed_snapshot  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        for m, f in self.originals.items():
            setattr(self.cls, m, f)


def spread(ids: list[str], n: int) -> tuple[str, ...]:
    """`n` ids spread evenly over the suite (its calls are ordered by kind and length)."""
    if len(ids) <= n:
        return tuple(ids)
    return tuple(ids[round(i * len(ids) / n)] for i in range(n))


def one_run(suite: Any, ids: tuple[str, ...], backend_cls: type, root: Path) -> dict[str, float]:
    config = RunConfig(candidates=("oracle",), scenarios=ids)
    out = root / f"r{len(list(root.iterdir()))}"
    with BackendClock(backend_cls) as clock:
        c0, w0 = time.process_time(), time.perf_counter()
        result = run_suite(suite, config, out)
        c1, w1 = time.process_time(), time.perf_counter()
    del result
    return {
        "cpu": c1 - c0,
        "wall": w1 - w0,
        "tool_calls": clock.tool_calls,
        **{f"backend_{k}": v for k, v in clock.seconds.items()},
    }


def harness(calls: int, rounds: int) -> dict[str, Any]:
    suites = {
        "utility-billing": (load_suite("utility-billing"), ServiceBackend),
        "customer-service": (load_suite("customer-service"), StateBackend),
    }
    picked = {name: spread(sorted(s.scenarios), calls) for name, (s, _) in suites.items()}
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in suites}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, (suite, cls) in suites.items():  # warm-up round, not counted
            one_run(suite, picked[name], cls, root)
        for r in range(rounds):
            order = list(suites) if r % 2 == 0 else list(reversed(suites))
            for name in order:
                suite, cls = suites[name]
                gc.collect()
                samples[name].append(one_run(suite, picked[name], cls, root))
    out: dict[str, Any] = {}
    for name, runs in samples.items():
        n = len(picked[name])
        med = {k: statistics.median(s[k] for s in runs) for k in runs[0]}
        inside = med["backend_open"] + med["backend_call"] + med["backend_snapshot"]
        out[name] = {
            "backend": suites[name][1].__name__,
            "calls": n,
            "rounds": len(runs),
            "cpu_ms_per_call": _ms(med["cpu"] / n),
            "wall_ms_per_call": _ms(med["wall"] / n),
            "backend_cpu_ms_per_call": _ms(inside / n),
            "backend_call_cpu_ms_per_call": _ms(med["backend_call"] / n),
            "tool_calls_per_call": round(med["tool_calls"] / n, 1),
            "backend_cpu_ms_per_tool_call": _ms(med["backend_call"] / med["tool_calls"]),
            "share_in_backend_call": round(med["backend_call"] / med["cpu"], 3),
            "share_in_backend_all": round(inside / med["cpu"], 3),
        }
    out["ratio_cpu_per_call_utility_to_customer_service"] = round(
        out["utility-billing"]["cpu_ms_per_call"] / out["customer-service"]["cpu_ms_per_call"], 2
    )
    return out


# --- 3. the snapshot, once per process ----------------------------------------------------------
COLD = """
import time
from callbench.backends.service import database_digest
from callbench.backends.utility import seed
c0 = time.process_time()
dbs = seed.build()
c1 = time.process_time()
database_digest(dbs)
c2 = time.process_time()
print(c1 - c0, c2 - c1)
"""


def snapshot_build(repeats: int) -> dict[str, Any]:
    """The first build in a fresh interpreter (reading the manifest, the usage model's weather
    series: what a run pays once), and later builds in this process (those inputs cached)."""
    cold = []
    for _ in range(3):
        done = subprocess.run(
            [sys.executable, "-c", COLD], capture_output=True, text=True, check=True
        )
        cold.append(tuple(float(x) for x in done.stdout.split()))
    builds, digests = [], []
    for _ in range(repeats):
        c0 = time.process_time()
        dbs = seed.build()
        c1 = time.process_time()
        database_digest(dbs)
        c2 = time.process_time()
        builds.append(c1 - c0)
        digests.append(c2 - c1)
    rows = {
        name: sum(
            conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            for (t,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
            ).fetchall()
        )
        for name, conn in dbs.items()
    }
    return {
        "cpu_ms_first_build_fresh_process": _ms(statistics.median(c[0] for c in cold)),
        "cpu_ms_digest_fresh_process": _ms(statistics.median(c[1] for c in cold)),
        "cpu_ms_later_build": _ms(statistics.median(builds)),
        "cpu_ms_later_digest": _ms(statistics.median(digests)),
        "repeats": repeats,
        "rows": rows,
    }


# --- output --------------------------------------------------------------------------------------
def table(result: dict[str, Any]) -> str:
    b, h, s = result["backend_alone"], result["harness_per_call"], result["snapshot"]
    m = result["memory"]
    lines = [
        "backend alone, one call (median)   wall ms    CPU ms  CPU ms/tool   open  tools  end",
    ]
    for name in ("services", "state"):
        r = b[name]
        lines.append(
            f"  {name:<32} {r['wall_ms_per_call']:>7.2f} {r['cpu_ms_per_call']:>9.2f} "
            f"{r['cpu_ms_per_tool_call']:>12.3f} {r['cpu_ms_open']:>6.2f} "
            f"{r['cpu_ms_tools']:>6.2f} {r['cpu_ms_snapshot_and_close']:>4.2f}"
        )
    ratio = b["ratio_services_to_state"]
    lines.append(
        f"  services/state                   {ratio['wall_per_call']:>7.2f} "
        f"{ratio['cpu_per_call']:>9.2f} {ratio['cpu_per_tool_call']:>12.2f}"
    )
    lines.append("memory per open call (KiB)         Python peak  Python held  SQLite   RSS")
    for name in ("services", "state"):
        r = m[name]
        lines.append(
            f"  {name:<32} {r['python_heap_kib_per_call_peak']:>11.1f} "
            f"{r['python_heap_kib_per_call_held']:>12.1f} "
            f"{r.get('sqlite_heap_kib_per_call', float('nan')):>7.1f} "
            f"{r.get('rss_kib_per_call', float('nan')):>5.0f}"
        )
    lines.append(
        "whole call (run_suite, oracle)     CPU ms/call  in backend  share(call)  share(all)"
    )
    for name in ("utility-billing", "customer-service"):
        r = h[name]
        lines.append(
            f"  {name:<32} {r['cpu_ms_per_call']:>11.2f} {r['backend_cpu_ms_per_call']:>11.2f} "
            f"{r['share_in_backend_call']:>12.1%} {r['share_in_backend_all']:>11.1%}"
        )
    lines.append(
        f"seeded snapshot, once per process: build {s['cpu_ms_first_build_fresh_process']:.1f} "
        f"ms CPU (later builds {s['cpu_ms_later_build']:.1f}), digest "
        f"{s['cpu_ms_digest_fresh_process']:.1f} ms CPU"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=300, help="backend-alone calls per kind")
    parser.add_argument("--open", type=int, default=200, help="backends open at once (memory)")
    parser.add_argument("--calls", type=int, default=30, help="calls per suite in the harness")
    parser.add_argument("--rounds", type=int, default=5, help="harness rounds per suite")
    parser.add_argument("--out", type=Path, default=RESULTS / "services.json")
    args = parser.parse_args(argv)
    services, state, worlds = sides()
    result: dict[str, Any] = {
        "calls_played": worlds,
        "backend_alone": backend_alone(services, state, args.repeats),
        "memory": {
            "services": memory(services, args.open, play=True),
            "state": memory(state, args.open, play=True),
        },
        "harness_per_call": harness(args.calls, args.rounds),
        "snapshot": snapshot_build(5),
        "environment": {
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "machine": platform.machine(),
            "note": "a shared 2-core machine: compare the ratios, not the absolute figures",
        },
    }
    save(result, args.out)
    print("\n" + table(result))
    return result


if __name__ == "__main__":
    main()
