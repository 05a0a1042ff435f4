"""The declarative state world and how its outcome is graded: a JSON document is the world.

The backend half (`StateBackendSpec`) lets an author describe tools by what
they read, what must hold before they act, and what they change, so a
scenario tests whether the agent changed the world correctly rather than
whether it said the right words to a queue. The grading half (`expected_state`,
`expected_changes`, `refusal`, `gates`) is read only by graders.

Paths are dotted (`orders.{order_id}.status`). A segment may contain
`{arg}` (an argument of the call), `{id:prefix}` (a deterministic id, the same
within one call), `{date:0}` / `{date:+30}` (the call's date, or days from it) and `${hidden.x}` /
`${caller.knows.x}` templates. Dots inside
braces do not split segments, and an argument's value is always one segment,
so a caller-supplied "a.b" can never reach into another part of the state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from ..errors import CallbenchError
from .base import Identifier, SpecModel
from .conditions import SuccessCondition
from .matchers import MISSING, Matcher

Weight = Annotated[int, Field(ge=1, le=3)]
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ID_REF = re.compile(r"^id:([A-Za-z][A-Za-z0-9_]*)$")
DATE_REF = re.compile(r"^date:([+-]?\d{1,4})$")
"""`{date:0}` is the call's date (the caller's `datetime`), `{date:+30}` thirty days later, as
YYYY-MM-DD. The
colon is required: a bare `{date}` is a tool argument named `date`, as in a flight search."""
REF = re.compile(r"\$\{([^{}]+)\}|\{([^{}$]+)\}")
"""`${template}` (group 1) or `{placeholder}` (group 2), found in one pass so neither is read
twice."""
ID_FORMAT = re.compile(r"^[^{}]*\{n(?::0?\d{1,2}d)?\}[^{}]*$")


class PathError(CallbenchError):
    """A path template is malformed (unbalanced braces, an empty segment)."""


def split_path(template: str) -> list[str]:
    """Segments of a path template; dots inside `{...}` / `${...}` belong to the reference, not the
    path."""
    segments, current, depth = [], "", 0
    for ch in template:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                raise PathError(f"unbalanced '}}' in path {template!r}")
        if ch == "." and depth == 0:
            segments.append(current)
            current = ""
        else:
            current += ch
    segments.append(current)
    if depth:
        raise PathError(f"unbalanced '{{' in path {template!r}")
    if any(not s.strip() for s in segments):
        raise PathError(f"path {template!r} has an empty segment")
    return segments


def _path(value: str) -> str:
    """Checked as the suite loads; pydantic reports only a ValueError as the field's problem."""
    try:
        split_path(value)
    except PathError as exc:
        raise ValueError(str(exc)) from None
    return value


PathText = Annotated[str, AfterValidator(_path)]


def placeholders(value: Any) -> list[str]:
    """Every `{...}` placeholder (not `${...}` template) in a value, keys included."""
    if isinstance(value, str):
        return [m.group(2).strip() for m in REF.finditer(value) if m.group(2) is not None]
    if isinstance(value, Mapping):
        return [r for k, v in value.items() for r in placeholders(k) + placeholders(v)]
    if isinstance(value, list):
        return [r for v in value for r in placeholders(v)]
    return []


def interpolate(value: Any, fill: Callable[[str, bool], Any]) -> Any:
    """Replace references; `fill(ref, is_template)` supplies each value. A string that is exactly
    one
    reference keeps the value's type (a number stays a number); inside longer text it becomes
    text."""
    if isinstance(value, str):

        def one(m: re.Match) -> Any:
            return (
                fill(m.group(1).strip(), True)
                if m.group(1) is not None
                else fill(m.group(2).strip(), False)
            )

        whole = REF.fullmatch(value)
        return one(whole) if whole else REF.sub(lambda m: _text(one(m)), value)
    if isinstance(value, Mapping):
        return {
            _text(interpolate(k, fill)): interpolate(v, fill) for k, v in value.items()
        }  # JSON keys are text
    if isinstance(value, list):
        return [interpolate(v, fill) for v in value]
    return value


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def get_path(document: Any, segments: list[str]) -> Any:
    """The value at concrete `segments`, or MISSING. Numeric segments index lists (negative from the
    end)."""
    node = document
    for part in segments:
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif (
            isinstance(node, list)
            and re.fullmatch(r"-?\d+", part)
            and -len(node) <= int(part) < len(node)
        ):
            node = node[int(part)]
        else:
            return MISSING
    return node


def path_matches(pattern: str, path: str) -> bool:
    """`*` matches exactly one segment; a trailing `**` matches the rest of the path. Both are
    concrete
    (templates already resolved), so they split on every dot."""
    want, have = pattern.split("."), path.split(".")
    if want and want[-1] == "**":
        return len(have) >= len(want) - 1 and all(w in ("*", h) for w, h in zip(want[:-1], have))
    return len(want) == len(have) and all(w in ("*", h) for w, h in zip(want, have))


# --- the backend ----------------------------------------------------------------------------------


class ReadSpec(SpecModel):
    """A projection of the state returned to the agent: the object at `path` (its `fields` only,
    when
    given), or with `where` the entries of a list or object whose fields match. Missing or empty is
    `not_found` unless `optional`."""

    path: PathText
    fields: list[str] | None = None
    where: dict[str, Matcher] = Field(default_factory=dict)
    optional: bool = False


class Precondition(SpecModel):
    """Must hold on the state before any effect; the first that fails makes the call a typed
    refusal."""

    name: Identifier
    path: PathText
    match: Matcher | None = None
    at_least: Any = None
    at_most: Any = None
    message: str = Field(default="", description="told to the agent in the refusal")
    reported_as: Identifier | None = Field(
        default=None,
        description="the name the refusal gives (default: `name`); give several checks the same "
        "one "
        "so the agent cannot tell which failed, e.g. which verification detail was wrong",
    )

    @model_validator(mode="after")
    def _some_test(self) -> Precondition:
        if self.match is None and self.at_least is None and self.at_most is None:
            raise ValueError("a precondition needs 'match', 'at_least' or 'at_most'")
        return self


class _Effect(SpecModel):
    path: PathText


class SetEffect(_Effect):
    op: Literal["set"]
    value: Any


class MergeEffect(_Effect):
    op: Literal["merge"]
    value: dict[str, Any]


class AppendEffect(_Effect):
    op: Literal["append"]
    value: Any


class IncrementEffect(_Effect):
    op: Literal["increment"]
    by: Any = 1
    negate: bool = Field(
        default=False, description="subtract `by` (so an argument amount can be taken off)"
    )
    floor: Any = Field(
        default=None,
        description="the result never goes below this (a number or '{arg}'): a payment "
        "larger than the past-due figure brings it to 0, not below",
    )
    ceiling: Any = Field(default=None, description="the result never goes above this")


class DeleteEffect(_Effect):
    op: Literal["delete"]


Effect = Annotated[
    SetEffect | MergeEffect | AppendEffect | IncrementEffect | DeleteEffect,
    Field(discriminator="op"),
]
OPS = ("set", "merge", "append", "increment", "delete")


class InjectedFailure(SpecModel):
    """The `on_call`-th call to the tool (1-based, every call counts) fails. With `applied: true`
    the
    effects still happen and only the answer is lost: the case that punishes a blind retry."""

    on_call: int = Field(ge=1)
    kind: Literal["timeout", "outage", "rate_limited", "error"] = "timeout"
    retryable: bool = True
    applied: bool = False
    message: str = ""


class StateTool(SpecModel):
    reads: dict[str, PathText | ReadSpec] = Field(
        default_factory=dict, description="a path, or a ReadSpec"
    )
    preconditions: list[Precondition] = Field(default_factory=list)
    effects: list[Effect] = Field(default_factory=list)
    respond: dict[str, Any] = Field(default_factory=lambda: {"status": "ok"})
    failures: list[InjectedFailure] = Field(default_factory=list)
    unavailable: bool = Field(
        default=False,
        description="the agent's tool does not exist on this call (an imported scenario that does "
        "not "
        "declare it): calling it is a model error that ends the call",
    )
    defaults: dict[str, Any] = Field(
        default_factory=dict,
        description="argument values the system fills in when a call leaves them out (system-"
        "assigned fields); a call that gives another value is judged on that value",
    )
    lock_after: int | None = Field(
        default=None,
        ge=1,
        description="after this many refused calls the tool is locked for the rest of the call: "
        "every later call answers {status: refused, reason: locked}, even with the "
        "right details (a verification that allows three attempts)",
    )

    @field_validator("reads")
    @classmethod
    def _reads(cls, v: dict) -> dict:
        return {
            k: ReadSpec.model_construct(path=r) if isinstance(r, str) else r for k, r in v.items()
        }


class IdFormat(SpecModel):
    format: str = Field(default="", description="e.g. 'CS-{n:04d}'; default '<prefix>_{n:04d}'")
    start: int = Field(default=1, ge=0)

    @field_validator("format")
    @classmethod
    def _fmt(cls, v: str) -> str:
        if v and not ID_FORMAT.match(v):
            raise ValueError(
                "an id format holds exactly one '{n}' or '{n:0Kd}' and no other braces"
            )
        return v

    def render(self, prefix: str, n: int) -> str:
        return (self.format or prefix + "_{n:04d}").format(n=n)


class StateBackendSpec(SpecModel):
    kind: Literal["state"]
    hidden: dict[str, Any] = Field(default_factory=dict)
    initial: dict[str, Any] = Field(default_factory=dict)
    tools: dict[str, StateTool] = Field(default_factory=dict)
    ids: dict[str, IdFormat] = Field(default_factory=dict)


# --- grading --------------------------------------------------------------------------------------


class StateExpectation(SpecModel):
    """Matchers over the final state, one per concrete path (templates allowed, placeholders
    not)."""

    paths: dict[str, Matcher] = Field(min_length=1)
    weight: Weight = 3


class ExpectedWrite(SpecModel):
    """One ledger write: `path` may use `*` for one segment (generated ids); `value` matches the
    operand (the set value, merged object, appended item, signed increment)."""

    op: Literal["set", "merge", "append", "increment", "delete"]
    path: PathText
    value: Matcher | None = None
    tool: Identifier | None = None


class ExpectedChanges(SpecModel):
    """Exactly these successful writes: a missing one and an extra one are both named failures."""

    writes: list[ExpectedWrite] = Field(default_factory=list)
    ordered: bool = False
    ignore: list[str] = Field(
        default_factory=list, description="path patterns whose writes are not graded"
    )
    weight: Weight = 3


class Refusal(SpecModel):
    """Two verdicts. `refusal` (earned): the agent refused out loud - one of `cues` and a `topic`
    word in the
    same sentence of a turn a person could follow - or made an accepted call to `tool`, after
    `after` (an
    expected action or the plan step where the caller asked; required). `refusal_no_write` (a
    guard): no
    writes at any point except by `tool`, under `allow_writes` or under
    `expected_changes.ignore`."""

    cues: list[str] = Field(default_factory=list)
    topic: list[str] = Field(default_factory=list)
    tool: Identifier | None = None
    after: Identifier | None = None
    allow_writes: list[str] = Field(default_factory=list)
    weight: Weight = 3

    @model_validator(mode="after")
    def _explicit(self) -> Refusal:
        if not self.cues and self.tool is None:
            raise ValueError("a refusal needs 'cues' or a 'tool': inaction alone must never pass")
        if self.cues and not self.topic:
            raise ValueError(
                "a refusal with cues needs 'topic' words: 'I can't' alone refuses nothing in "
                "particular"
            )
        return self


class ProtectedFact(SpecModel):
    id: Identifier
    kind: Literal["amount", "number", "date", "identifier", "text"]
    value: Any


class Gates(SpecModel):
    """Protected tools may be called, and protected facts spoken, only once the agent has seen a
    successful result of the verification tool (a call made in the same message as the verification
    call is early: the agent could not know the outcome). Facts the caller said first are free."""

    verification_tool: Identifier
    verification_success: SuccessCondition
    protected_tools: list[Identifier] = Field(default_factory=list)
    protected_facts: list[ProtectedFact] = Field(default_factory=list)
    weight: Weight = 3

    @model_validator(mode="after")
    def _something(self) -> Gates:
        if not self.protected_tools and not self.protected_facts:
            raise ValueError("gates need protected_tools, protected_facts or both")
        return self


STATE_ITEM_IDS = (
    "expected_state",
    "expected_changes",
    "refusal",
    "refusal_no_write",
    "verification_gate",
    "disclosure_gate",
)
"""Verdict ids of the state checks; scenario items may not reuse them."""
