"""Where evidence counts: windows anchored on actions or plan steps, and speech a person could
follow.

A spoken value, a refusal or a stated phrase is evidence only inside its window and only in an agent
turn a
caller could follow (no longer than the suite's `followable_words`). An anchor is an expected action
(its
first counted call, provided it kept the action's own ordering) or a plan step (the caller turn that
expressed it). A window whose anchor never
happened is closed: reciting a figure without ever doing the thing it belongs to earns nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..call.trace import Trace
from ..spec import Scenario, SuiteManifest
from ..speech import followable

DEFAULT_FOLLOWABLE_WORDS = 80
DEFAULT_FOLLOWABLE_FIGURES = 12


@dataclass(frozen=True)
class Span:
    """The messages of one anchoring event: a tool call and its result, or a caller turn."""

    first: int
    last: int


@dataclass(frozen=True)
class Bounds:
    lo: int | None
    hi: int | None
    closed: str | None = None
    """why no message can count (an anchor never happened), or None"""

    def holds(self, index: int) -> bool:
        return (
            self.closed is None
            and (self.lo is None or index >= self.lo)
            and (self.hi is None or index <= self.hi)
        )

    def describe(self) -> str:
        if self.closed:
            return f"closed: {self.closed}"
        lo = "start" if self.lo is None else self.lo
        hi = "end" if self.hi is None else self.hi
        return f"messages {lo}-{hi}"


def limit_of(suite: SuiteManifest | None) -> tuple[int, int | None]:
    """(words, figures) an agent turn may hold and still count as heard."""
    if suite is None:
        return DEFAULT_FOLLOWABLE_WORDS, DEFAULT_FOLLOWABLE_FIGURES
    return suite.defaults.followable_words, suite.defaults.followable_figures


def anchor_span(trace: Trace, scenario: Scenario, anchor: str) -> Span | None:
    """The first occurrence of an action (call message .. result) or of a plan step (its caller
    turn)."""
    if any(a.id == anchor for a in scenario.expected_actions):
        from .actions import first_counted

        event = first_counted(anchor, trace, scenario)
        return Span(event.call_message_index, event.index) if event is not None else None
    for turn in trace.caller_turns:
        if anchor in turn.expressed_steps and turn.message_indices:
            return Span(min(turn.message_indices), max(turn.message_indices))
    return None


def bounds(trace: Trace, scenario: Scenario, after: str | None, before: str | None) -> Bounds:
    """After an anchor: strictly after its result (or the caller turn). Before one: up to and
    including the
    message that made the call (so "the fee is $50, cancelling now" counts), or up to the caller
    turn."""
    lo = hi = None
    if after is not None:
        span = anchor_span(trace, scenario, after)
        if span is None:
            return Bounds(None, None, f"'{after}' never happened")
        lo = span.last + 1
    if before is not None:
        span = anchor_span(trace, scenario, before)
        if span is None:
            return Bounds(None, None, f"'{before}' never happened")
        is_step = not any(a.id == before for a in scenario.expected_actions)
        hi = span.first - 1 if is_step else span.first
    return Bounds(lo, hi)


def unfollowable(trace: Trace, limit: tuple[int, int | None]) -> set[int]:
    """Candidate messages in an agent turn longer than `limit` words (or holding more figures than
    it allows): no
    caller could follow that turn, so nothing in it counts as having been told to the caller."""
    words, figures = limit
    by_turn: dict[int, list] = {}
    for m in trace.messages:
        if m.role == "candidate" and m.text:
            by_turn.setdefault(m.turn, []).append(m)
    out: set[int] = set()
    for messages in by_turn.values():
        if not followable(" ".join(m.text for m in messages), words, figures):
            out.update(m.index for m in messages)
    return out
