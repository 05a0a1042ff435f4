"""`${caller.knows.x}` / `${hidden.x}` references inside fixture values and matchers.

A scenario authors its fixtures once and lets them point at the caller's facts
and the hidden backend state, so the two cannot drift apart. A string that is
exactly one reference is replaced by the referenced value itself (keeping its
type: a number stays a number); a reference inside a longer string is
interpolated as text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..errors import CallbenchError

REFERENCE = re.compile(r"\$\{([^{}]+)\}")
ROOTS = ("caller.knows", "hidden")


class TemplateError(CallbenchError):
    """A `${...}` reference does not resolve; `reference` is the text inside the braces."""

    def __init__(self, reference: str, reason: str):
        self.reference = reference
        super().__init__(f"${{{reference}}} {reason}")


def make_scope(knows: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    return {"caller": {"knows": dict(knows)}, "hidden": dict(hidden)}


def lookup(reference: str, scope: Mapping[str, Any]) -> Any:
    """Follow a dotted reference (`hidden.accounts.0.id`) through dicts and lists."""
    if not any(reference == r or reference.startswith(r + ".") for r in ROOTS):
        raise TemplateError(reference, f"must start with one of: {', '.join(ROOTS)}")
    node: Any = scope
    for part in reference.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise TemplateError(reference, f"does not resolve: no '{part}'")
    return node


def resolve(value: Any, scope: Mapping[str, Any]) -> Any:
    """Return `value` with every reference replaced; raises TemplateError on the first bad one."""
    if isinstance(value, str):
        whole = REFERENCE.fullmatch(value.strip())
        if whole and value.strip() == value:
            return lookup(whole.group(1).strip(), scope)
        return REFERENCE.sub(lambda m: _as_text(lookup(m.group(1).strip(), scope)), value)
    if isinstance(value, Mapping):
        return {k: resolve(v, scope) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, scope) for v in value]
    return value


def references(value: Any) -> list[str]:
    """Every reference in a value, in order, for validation."""
    if isinstance(value, str):
        return [m.group(1).strip() for m in REFERENCE.finditer(value)]
    if isinstance(value, Mapping):
        return [r for v in value.values() for r in references(v)]
    if isinstance(value, list):
        return [r for v in value for r in references(v)]
    return []


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
