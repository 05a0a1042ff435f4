"""Success conditions on a tool's result, in a module of their own because agent definitions
(call-ending
tools) and state worlds (verification gates) both use them, and agent definitions also carry
state tools."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from .base import SpecModel
from .matchers import Matcher


class SuccessCondition(SpecModel):
    """When a call-ending tool's *result* counts as success: the value at `path` equals or matches.

    Written as `{path: status, equals: ended}` or `{path: status, match: {one_of: [ended,
    closed]}}`.
    An ended call is a claim the backend must confirm; attempting the tool is not enough.
    """

    path: str = Field(min_length=1)
    equals: Any = None
    match: Matcher | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> SuccessCondition:
        given = [k for k in ("equals", "match") if k in self.model_fields_set]
        if len(given) != 1:
            raise ValueError("a success condition needs exactly one of 'equals' or 'match'")
        return self
