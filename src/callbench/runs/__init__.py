"""Planning and running sweeps, with seeds derived per episode."""

from ..play import derive_seed
from .config import RunConfig, RunFlags
from .episodes import Attempt, Cast, make_caller, run_attempt, suite_ref
from .executor_choice import make_executor
from .manifest import RunManifest
from .runner import RunResult, make_cast, plan, run_suite, run_suite_async, unheard_scenarios

__all__ = [
    "Attempt",
    "Cast",
    "make_cast",
    "make_executor",
    "RunConfig",
    "RunFlags",
    "RunManifest",
    "RunResult",
    "derive_seed",
    "make_caller",
    "plan",
    "run_attempt",
    "run_suite",
    "run_suite_async",
    "suite_ref",
    "unheard_scenarios",
]
