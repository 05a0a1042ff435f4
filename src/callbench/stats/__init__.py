"""Statistics on stored results: agreement, hierarchical bootstrap, paired comparison, intervals,
slices.

Nothing here imports numpy at import time; the functions that need it import
it when called, so the CLI starts without it.
"""

from .agreement import Agreement, agreement, cohens_kappa
from .bootstrap import Interval, Nested, hierarchical_bootstrap, point_estimate, seed_for
from .intervals import pass_at_k, pass_hat_k, wilson_interval
from .paired import Paired, paired_comparison
from .slices import slice_scores

__all__ = [
    "Agreement",
    "agreement",
    "cohens_kappa",
    "Interval",
    "Nested",
    "hierarchical_bootstrap",
    "point_estimate",
    "seed_for",
    "Paired",
    "paired_comparison",
    "pass_at_k",
    "pass_hat_k",
    "wilson_interval",
    "slice_scores",
]
