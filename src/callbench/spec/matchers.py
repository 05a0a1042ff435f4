"""Typed matchers: the one vocabulary used by queue entries, expected actions and state assertions.

A matcher is a one-key mapping in YAML (`{eq: evening}`, `{range: {min: 1, max: 5}}`,
`{not: {eq: 0}}`). Evaluation never raises on odd input from a model: it returns
a `MatchResult` that says what was compared and why it failed, because those
results are stored in traces and shown to people reading a failed call.

A `regex` is an author's pattern run on what a candidate sent, so it runs through `regex_search`: in
time linear in the text (RE2) wherever that engine reads the pattern as Python does, and never a
pattern with nested quantifiers on Python's backtracking engine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

from ..errors import CallbenchError
from .re2_source import Re2Source, Untranslatable, nested_quantifiers, parse_pattern

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
    def _some_bound(self) -> Bounds:
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
        if (problem := regex_problem(v)) is not None:
            raise ValueError(problem)
        return v


class Contains(_M):
    contains: Any
    """The actual list must contain this item (or every item, when given a list)."""


class Subset(_M):
    subset: dict[str, Any]
    """Every key of this object must be present in the actual object with an equal value."""


class All(_M):
    all: list[Matcher] = Field(min_length=1)


class AnyOf(_M):
    any: list[Matcher] = Field(min_length=1)


class Not(_M):
    not_: Matcher = Field(alias="not")


KINDS: dict[str, type[_M]] = {
    "eq": Eq,
    "present": Present,
    "absent": Absent,
    "one_of": OneOf,
    "range": Range,
    "regex": Regex,
    "contains": Contains,
    "subset": Subset,
    "all": All,
    "any": AnyOf,
    "not": Not,
}


def _tag(value: Any) -> str | None:
    if isinstance(value, BaseModel):
        return kind_of(value)  # type: ignore[arg-type]
    if isinstance(value, Mapping) and len(value) == 1:
        key = next(iter(value))
        return key if key in KINDS else None
    return None


if TYPE_CHECKING:
    # the union is built from KINDS at run time, which a type checker cannot follow; every member
    # is an `_M`, and code reads a matcher only through `_M` (`model_dump`, `kind_of`, `evaluate`)
    Matcher: TypeAlias = _M
else:
    Matcher = Annotated[
        Union[tuple(Annotated[cls, Tag(name)] for name, cls in KINDS.items())],  # noqa: UP007
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
    children: list[MatchResult] = Field(default_factory=list)


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
    """Check `actual` (or MISSING) against `matcher`; template values are passed through
    `resolve`."""
    kind = kind_of(matcher)

    def result(
        ok: bool, expected: Any, reason: str = "", children: list[MatchResult] | None = None
    ):
        return MatchResult(
            path=path,
            matcher=kind,
            expected=expected,
            actual=_show(actual),
            ok=ok,
            reason="" if ok else reason,
            children=children or [],
        )

    if isinstance(matcher, Present):
        return result(actual is not MISSING and actual is not None, True, "value is missing")
    if isinstance(matcher, Absent):
        return result(actual is MISSING or actual is None, True, "value is present")
    if isinstance(matcher, (All, AnyOf, Not)):
        parts = (
            [matcher.not_]
            if isinstance(matcher, Not)
            else (matcher.all if isinstance(matcher, All) else matcher.any)
        )
        children = [evaluate(m, actual, path, resolve) for m in parts]
        if isinstance(matcher, All):
            failed = [c for c in children if not c.ok]
            return result(not failed, None, f"{len(failed)} of {len(children)} failed", children)
        if isinstance(matcher, AnyOf):
            return result(
                any(c.ok for c in children), None, "none of the alternatives held", children
            )
        return result(not children[0].ok, None, "the negated matcher held", children)
    if actual is MISSING:
        return result(False, _expected(matcher, resolve), "value is missing")
    if isinstance(matcher, Eq):
        expected = resolve(matcher.eq)
        return result(same_value(actual, expected), expected, "not equal")
    if isinstance(matcher, OneOf):
        options = [resolve(o) for o in matcher.one_of]
        return result(
            any(same_value(actual, o) for o in options), options, "not one of the options"
        )
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
        try:
            found = regex_search(pattern, actual)
        except UnsafePattern as exc:
            return result(False, pattern, str(exc))
        return result(found, pattern, "pattern not found")
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


def evaluate_args(
    matchers: Mapping[str, _M],
    args: Mapping[str, Any] | None,
    prefix: str = "args",
    resolve: Resolve = _identity,
) -> list[MatchResult]:
    """One result per parameter matcher; unparseable arguments (None) fail every non-`absent`
    matcher."""
    values = args if isinstance(args, Mapping) else {}
    return [
        evaluate(m, values.get(name, MISSING), f"{prefix}.{name}", resolve)
        for name, m in matchers.items()
    ]


# --- running a pattern an author wrote on text a candidate wrote -------------------------------

MAX_REGEX_TEXT = 20_000
"""Python's own engine, where it runs an author's pattern (see `regex_search`), reads at most this
many
characters of the text, as if the text ended there: a pattern that backtracks polynomially
('.*a.*b') then
costs a bounded time. RE2 reads the whole text."""


class UnsafePattern(CallbenchError):
    """A pattern that only Python's backtracking engine could run, and that can take exponential
    time there."""


_TURKISH_I_TEXT = re.compile("[\u0130\u0131]")
_NON_ASCII_WORD = re.compile(r"[^\W\x00-\x7f]")


@dataclass(frozen=True)
class _Compiled:
    python: re.Pattern
    re2: Any
    """RE2's compiled pattern, or None when RE2 is not installed or cannot read the pattern as
    Python does"""
    boundary: bool
    nonboundary: bool
    dollar: bool
    folds: bool
    nested: bool


def _re2_module():
    try:
        import re2  # google-re2: linear-time matching, no backtracking
    except ImportError:
        return None
    return re2


@lru_cache(maxsize=1024)
def _compiled(pattern: str, ignorecase: bool) -> _Compiled:
    """Both engines' compiled forms of a pattern, with what decides which may run it on a text."""
    flags = re.IGNORECASE if ignorecase else 0
    python = re.compile(pattern, flags)
    tree = parse_pattern(pattern, flags)
    nested = nested_quantifiers(list(tree))
    engine = _re2_module()
    if engine is None:
        return _Compiled(python, None, False, False, False, False, nested)
    try:
        source = Re2Source(list(tree), tree.state.flags | flags)
        options = engine.Options()
        options.log_errors = False
        compiled = engine.compile(source.source, options=options)
    except (Untranslatable, engine.error):
        return _Compiled(python, None, False, False, False, False, nested)
    return _Compiled(
        python, compiled, source.boundary, source.nonboundary, source.dollar, source.folds, nested
    )


def regex_problem(pattern: str, ignorecase: bool = False) -> str | None:
    """Why `pattern` cannot be run safely on text a candidate wrote, or None. Only a pattern with
    nested quantifiers that RE2 cannot run (RE2 not installed, or the pattern uses look-arounds or
    back-references) is refused: Python's engine could take time exponential in the text."""
    try:
        c = _compiled(pattern, ignorecase)
    except re.error:
        return None  # not a pattern at all: the caller's own check says so
    if c.nested and c.re2 is None:
        why = "google-re2 is not installed" if _re2_module() is None else "RE2 cannot run it"
        return (
            f"pattern {pattern!r} nests quantifiers (a repeated group holding a repeat, like "
            "(\\d+)+), which can "
            f"take exponential time on Python's regex engine, and {why}; write it without the "
            "nesting "
            f"(\\d+ for (\\d+)+)"
        )
    return None


def regex_search(pattern: str, text: str, *, ignorecase: bool = False) -> bool:
    """Does `pattern` (an author's) match somewhere in `text` (a candidate's), in time linear in
    the text?

    RE2 (google-re2, when installed) runs every pattern it can write with Python's meaning — all but
    look-arounds, back-references and possessive or atomic groups — on every text where it reads
    the pattern as Python does: not where \\b meets a non-ASCII letter or digit, \\B a non-ASCII
    text, an ignore-case pattern meets İ or ı, a `$` meets a final newline, or \\B meets the empty
    text (see `Re2Source`). Python's engine runs the rest on the first `MAX_REGEX_TEXT` characters
    of the text, except a pattern with nested quantifiers, which never runs there: RE2 reads it
    with its own word boundary and case folding, or, with no RE2 to run it, it is refused
    (`UnsafePattern`)."""
    c = _compiled(pattern, ignorecase)
    if c.re2 is not None and text:
        exact = (
            (not c.boundary or _NON_ASCII_WORD.search(text) is None)
            and (not c.nonboundary or text.isascii())
            and (not c.folds or _TURKISH_I_TEXT.search(text) is None)
            and (not c.dollar or not text.endswith("\n"))
        )
        if exact or c.nested:
            try:
                return c.re2.search(text) is not None
            except UnicodeEncodeError:  # lone surrogates: no UTF-8 for RE2
                if c.nested:
                    return c.re2.search(_SURROGATE.sub("\ufffd", text)) is not None
    if c.nested:
        raise UnsafePattern(
            regex_problem(pattern, ignorecase) or f"pattern {pattern!r} nests quantifiers"
        )
    return c.python.search(text, 0, MAX_REGEX_TEXT) is not None


_SURROGATE = re.compile("[\ud800-\udfff]")

# --- agreement with JSON Schema types -------------------------------------------------------

_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        isinstance(v, int) and not isinstance(v, bool) or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, Mapping),
    "null": lambda v: v is None,
}
_APPLIES: dict[str, set[str] | None] = {
    "range": {"integer", "number"},
    "regex": {"string"},
    "contains": {"array"},
    "subset": {"object"},
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


def type_problems(
    matcher: _M, schema: Mapping[str, Any], resolve: Resolve = _identity
) -> list[str]:
    """Why `matcher` can never hold for values of `schema` (empty when it agrees)."""
    kind = kind_of(matcher)
    types = schema_types(schema)
    if isinstance(matcher, (All, AnyOf)):
        return [
            p
            for m in (matcher.all if isinstance(matcher, All) else matcher.any)
            for p in type_problems(m, schema, resolve)
        ]
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
            problems.append(
                f"matcher '{kind}' value {v!r} is not in the parameter's enum {schema['enum']!r}"
            )
    return problems


__all__ = [
    "MAX_REGEX_TEXT",
    "MISSING",
    "Absent",
    "All",
    "AnyOf",
    "Contains",
    "Eq",
    "KINDS",
    "MatchResult",
    "Matcher",
    "Not",
    "OneOf",
    "Present",
    "Range",
    "Regex",
    "Subset",
    "UnsafePattern",
    "evaluate",
    "same_value",
    "evaluate_args",
    "kind_of",
    "regex_problem",
    "regex_search",
    "schema_types",
    "type_problems",
]
