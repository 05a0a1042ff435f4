"""callbench: evaluate phone and voice agents on whole simulated calls.

The public API is re-exported here lazily (importing `callbench` costs nothing
until a name is used), so `callbench --help` stays fast and library users get
one flat namespace:

    from callbench import load_suite, run_suite, RunConfig, read_trace
"""

from __future__ import annotations

import importlib
from typing import Any

from ._version import __version__

_EXPORTS = {
    "check_suite": "callbench.suite_check",
    "load_suite": "callbench.suite_check",
    "SuiteCheck": "callbench.suite_check",
    "RunConfig": "callbench.runs",
    "RunResult": "callbench.runs",
    "run_suite": "callbench.runs",
    "run_suite_async": "callbench.runs",
    "run_attempt": "callbench.runs",
    "Attempt": "callbench.runs",
    "Trace": "callbench.call",
    "read_trace": "callbench.call",
    "run_episode": "callbench.call",
    "score_trace": "callbench.grading",
    "Scorecard": "callbench.grading",
    "render_transcript": "callbench.reports.transcript",
    "CallbenchError": "callbench.errors",
    "SuiteError": "callbench.errors",
    "Problem": "callbench.errors",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'callbench' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
