"""Graders read traces and specs, never live objects: deterministic checks now, judges later."""

from .actions import ActionGrader
from .base import R_OF, CodeGrader, FixedGrader, Graded, Grader, GraderFailure, ItemVerdict
from .scorecard import Pillar, Scorecard, not_measured, pillar, score_trace

__all__ = [
    "R_OF",
    "ActionGrader",
    "CodeGrader",
    "FixedGrader",
    "Graded",
    "Grader",
    "GraderFailure",
    "ItemVerdict",
    "Pillar",
    "Scorecard",
    "not_measured",
    "pillar",
    "score_trace",
]
