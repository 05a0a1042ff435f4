"""Shared test helpers for comparing reports."""

import json

TIMED = ("latency_p50_s", "latency_p90_s", "latency_p99_s")


def untimed(report):
    """A report's candidate sections without the wall-clock figures, the only ones allowed to differ
    between runs."""
    out = json.loads(json.dumps(report["candidates"]))
    for row in out.values():
        for key in TIMED:
            row["operational"].pop(key, None)
    return out
