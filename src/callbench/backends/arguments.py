"""What every backend refuses before a tool runs: arguments that are not a JSON object, and
arguments that break the agent's parameter schema (a negative quantity where the minimum is 1, a
value outside an enum), as a real service would refuse them. One shape for every backend, so a
grader and a reader tell a refused argument from a refused action the same way everywhere."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..call.types import ToolOutcome

UNREADABLE = ToolOutcome(
    result={
        "status": "error",
        "reason": "invalid_arguments",
        "retryable": True,
        "message": "the arguments could not be read as a JSON object",
    },
    source="invalid_arguments",
)


def schema_validators(schemas: Mapping[str, Any] | None) -> dict[str, Any]:
    """A validator per tool from the agent's parameter schemas (jsonschema imported lazily)."""
    from jsonschema import Draft202012Validator

    return {n: Draft202012Validator(s) for n, s in (schemas or {}).items() if s is not None}


def schema_refusal(validator: Any, arguments: Mapping[str, Any]) -> ToolOutcome | None:
    """The typed refusal for arguments that break the tool's schema (its first three errors, each
    naming the argument), or None when they fit."""
    if validator is None:
        return None
    errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    return ToolOutcome(
        result={
            "status": "refused",
            "reason": "invalid_arguments",
            "errors": [
                f"{'.'.join(map(str, e.absolute_path)) or 'arguments'}: {e.message}"
                for e in errors[:3]
            ],
        },
        source="invalid_arguments",
    )
