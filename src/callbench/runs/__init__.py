"""Planning and running sweeps, with seeds derived per episode."""

from .episodes import Attempt, Cast, make_caller, run_attempt, suite_ref
from .runner import RunConfig, RunResult, make_cast, plan, run_suite, run_suite_async
from .seeds import derive_seed

__all__ = [
    "Attempt",
    "Cast",
    "make_cast",
    "RunConfig",
    "RunResult",
    "derive_seed",
    "make_caller",
    "plan",
    "run_attempt",
    "run_suite",
    "run_suite_async",
    "suite_ref",
]
