"""Typed matchers: the one vocabulary used by queue entries, expected actions and state assertions.

A matcher is a one-key mapping in YAML (`{eq: evening}`, `{range: {min: 1, max: 5}}`,
`{not: {eq: 0}}`). Evaluation never raises on odd input from a model: it returns
a `MatchResult` that says what was compared and why it failed, because those
results are stored in traces and shown to people reading a failed call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<missing>"})()
"""Stands for an argument or state path that is not there at all (distinct from null)."""


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Eq(_M):
    eq: Any


class Present(_M):
    present: Literal[True]


class Absent(_M):
    absent: Literal[True]


class OneOf(_M):
    one_of: list[Any] = Field(min_length=1)


class Bounds(_M):
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _some_bound(self) -> "Bounds":
        if self.min is None and self.max is None:
            raise ValueError("range needs min, max or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"range min {self.min} is greater than max {self.max}")
        return self


class Range(_M):
    range: Bounds


class Regex(_M):
    regex: str

    @field_validator("regex")
    @classmethod
    def _compiles(cls, v: str) -> str:
        try:
            re.compile(v)
        except re.error as exc:
            raise ValueError(f"regex does not compile: {exc}") from None
        return v


class Contains(_M):
    contains: Any
    """The actual list must contain this item (or every item, when given a list)."""


class Subset(_M):
    subset: dict[str, Any]
    """Every key of this object must be present in the actual object with an equal value."""


class All(_M):
    all: list["Matcher"] = Field(min_length=1)


class AnyOf(_M):
    any: list["Matcher"] = Field(min_length=1)


class Not(_M):
    not_: "Matcher" = Field(alias="not")


KINDS: dict[str, type[_M]] = {
    "eq": Eq, "present": Present, "absent": Absent, "one_of": OneOf, "range": Range,
    "regex": Regex, "contains": Contains, "subset": Subset, "all": All, "any": AnyOf, "not": Not,
}


def _tag(value: Any) -> str | None:
    if isinstance(value, BaseModel):
        return kind_of(value)  # type: ignore[arg-type]
    if isinstance(value, Mapping) and len(value) == 1:
        key = next(iter(value))
        return key if key in KINDS else None
    return None


Matcher = Annotated[
    Union[tuple(Annotated[cls, Tag(name)] for name, cls in KINDS.items())],  # type: ignore[misc]
    Discriminator(
        _tag,
        custom_error_type="matcher",
        custom_error_message=f"a matcher is a mapping with exactly one of: {', '.join(KINDS)}",
    ),
]

for _cls in (All, AnyOf, Not):
    _cls.model_rebuild()


def kind_of(matcher: _M) -> str:
    for name, cls in KINDS.items():
        if type(matcher) is cls:
            return name
    raise TypeError(f"not a matcher: {matcher!r}")


class MatchResult(BaseModel):
    """What one matcher compared and whether it held. Stored in traces, so plain JSON."""

    model_config = ConfigDict(frozen=True)

    path: str
    matcher: str
    expected: Any = None
    actual: Any = None
    ok: bool
    reason: str = ""
    children: list["MatchResult"] = Field(default_factory=list)


Resolve = Callable[[Any], Any]


def _identity(value: Any) -> Any:
    return value


def _show(actual: Any) -> Any:
    return "<missing>" if actual is MISSING else actual


def same_value(a: Any, b: Any) -> bool:
    """Equality that does not let True equal 1, and compares containers deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def evaluate(matcher: _M, actual: Any, path: str = "", resolve: Resolve = _identity) -> MatchResult:
    """Check `actual` (or MISSING) against `matcher`; template values are passed through `resolve`."""
    kind = kind_of(matcher)

    def result(ok: bool, expected: Any, reason: str = "", children: list[MatchResult] | None = None):
        return MatchResult(path=path, matcher=kind, expected=expected, actual=_show(actual), ok=ok,
                           reason="" if ok else reason, children=children or [])

    if isinstance(matcher, Present):
        return result(actual is not MISSING and actual is not None, True, "value is missing")
    if isinstance(matcher, Absent):
        return result(actual is MISSING or actual is None, True, "value is present")
    if isinstance(matcher, (All, AnyOf, Not)):
        parts = [matcher.not_] if isinstance(matcher, Not) else (matcher.all if isinstance(matcher, All) else matcher.any)
        children = [evaluate(m, actual, path, resolve) for m in parts]
        if isinstance(matcher, All):
            failed = [c for c in children if not c.ok]
            return result(not failed, None, f"{len(failed)} of {len(children)} failed", children)
        if isinstance(matcher, AnyOf):
            return result(any(c.ok for c in children), None, "none of the alternatives held", children)
        return result(not children[0].ok, None, "the negated matcher held", children)
    if actual is MISSING:
        return result(False, _expected(matcher, resolve), "value is missing")
    if isinstance(matcher, Eq):
        expected = resolve(matcher.eq)
        return result(same_value(actual, expected), expected, "not equal")
    if isinstance(matcher, OneOf):
        options = [resolve(o) for o in matcher.one_of]
        return result(any(same_value(actual, o) for o in options), options, "not one of the options")
    if isinstance(matcher, Range):
        bounds = {"min": matcher.range.min, "max": matcher.range.max}
        if isinstance(actual, bool) or not isinstance(actual, (int, float)):
            return result(False, bounds, "not a number")
        low_ok = matcher.range.min is None or actual >= matcher.range.min
        high_ok = matcher.range.max is None or actual <= matcher.range.max
        return result(low_ok and high_ok, bounds, "below min" if not low_ok else "above max")
    if isinstance(matcher, Regex):
        pattern = resolve(matcher.regex)
        if not isinstance(actual, str):
            return result(False, pattern, "not a string")
        return result(re.search(pattern, actual) is not None, pattern, "pattern not found")
    if isinstance(matcher, Contains):
        wanted = resolve(matcher.contains)
        if not isinstance(actual, list):
            return result(False, wanted, "not a list")
        items = wanted if isinstance(wanted, list) else [wanted]
        missing = [w for w in items if not any(same_value(a, w) for a in actual)]
        return result(not missing, wanted, f"list lacks {missing!r}")
    if isinstance(matcher, Subset):
        wanted = resolve(matcher.subset)
        if not isinstance(actual, Mapping):
            return result(False, wanted, "not an object")
        wrong = [k for k, v in wanted.items() if k not in actual or not same_value(actual[k], v)]
        return result(not wrong, wanted, f"keys differ: {', '.join(wrong)}")
    raise TypeError(f"unhandled matcher {kind}")  # pragma: no cover


def _expected(matcher: _M, resolve: Resolve) -> Any:
    if isinstance(matcher, Eq):
        return resolve(matcher.eq)
    if isinstance(matcher, OneOf):
        return [resolve(o) for o in matcher.one_of]
    if isinstance(matcher, Range):
        return {"min": matcher.range.min, "max": matcher.range.max}
    value = getattr(matcher, kind_of(matcher), None)
    return resolve(value)


def evaluate_args(matchers: Mapping[str, _M], args: Mapping[str, Any] | None,
                  prefix: str = "args", resolve: Resolve = _identity) -> list[MatchResult]:
    """One result per parameter matcher; unparseable arguments (None) fail every non-`absent` matcher."""
    values = args if isinstance(args, Mapping) else {}
    return [evaluate(m, values.get(name, MISSING), f"{prefix}.{name}", resolve) for name, m in matchers.items()]


# --- agreement with JSON Schema types -------------------------------------------------------

_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, Mapping),
    "null": lambda v: v is None,
}
_APPLIES: dict[str, set[str] | None] = {
    "range": {"integer", "number"}, "regex": {"string"}, "contains": {"array"}, "subset": {"object"},
}


def schema_types(schema: Mapping[str, Any]) -> set[str] | None:
    """The JSON types a schema admits, or None when it does not say."""
    t = schema.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return set(t)
    if "enum" in schema:
        return {name for v in schema["enum"] for name, ok in _JSON_TYPES.items() if ok(v)}
    return None


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def type_problems(matcher: _M, schema: Mapping[str, Any], resolve: Resolve = _identity) -> list[str]:
    """Why `matcher` can never hold for values of `schema` (empty when it agrees)."""
    kind = kind_of(matcher)
    types = schema_types(schema)
    if isinstance(matcher, (All, AnyOf)):
        return [p for m in (matcher.all if isinstance(matcher, All) else matcher.any) for p in type_problems(m, schema, resolve)]
    if isinstance(matcher, Not):
        return type_problems(matcher.not_, schema, resolve)
    if types is None or isinstance(matcher, (Present, Absent)):
        return []
    wanted = _APPLIES.get(kind)
    if wanted is not None and not wanted & types:
        return [f"matcher '{kind}' cannot apply to {_a('/'.join(sorted(types)))} parameter"]
    values: list[Any] = []
    if isinstance(matcher, Eq):
        values = [resolve(matcher.eq)]
    elif isinstance(matcher, OneOf):
        values = [resolve(v) for v in matcher.one_of]
    problems = []
    for v in values:
        if not any(_JSON_TYPES[t](v) for t in types if t in _JSON_TYPES):
            problems.append(f"matcher '{kind}' value {v!r} is not {_a('/'.join(sorted(types)))}")
        elif "enum" in schema and not any(same_value(v, e) for e in schema["enum"]):
            problems.append(f"matcher '{kind}' value {v!r} is not in the parameter's enum {schema['enum']!r}")
    return problems


__all__ = [
    "MISSING", "Absent", "All", "AnyOf", "Contains", "Eq", "KINDS", "MatchResult", "Matcher", "Not",
    "OneOf", "Present", "Range", "Regex", "Subset", "evaluate", "same_value", "evaluate_args", "kind_of", "schema_types",
    "type_problems",
]
