"""Episode assembly: from a suite and an attempt to a played call, seeded per attempt. Below `runs`
and `suite_check`, both of which play episodes this one way."""

from .attempt import Attempt, cast_for, play_once, suite_ref
from .casting import cast_scenario, conditions
from .seeds import derive_seed

__all__ = [
    "Attempt",
    "cast_for",
    "cast_scenario",
    "conditions",
    "derive_seed",
    "play_once",
    "suite_ref",
]
