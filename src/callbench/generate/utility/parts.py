"""The pieces one request contributes to a call, and how figures are said.

A request renders to a `Part`: the caller's line that raises it, any consent steps, the oracle's
agent turns (segments, each ending with the question for the next caller step), and what grading
needs - expected tool actions, ledger writes, spoken figures, phrases and a refusal.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

MONTHS = (
    "January February March April May June July August September October November December"
).split()


def say_money(x: Decimal | float) -> str:
    return f"${Decimal(str(x)):,.2f}"


def say_date(d: dt.date, year: bool = False) -> str:
    text = f"{MONTHS[d.month - 1]} {d.day}"
    return f"{text}, {d.year}" if year else text


def say_kwh(n: int) -> str:
    return f"{n:,} kilowatt-hours"


def spell_email(email: str) -> str:
    """An email read aloud: "denise dot okafor at example dot net"."""
    local, _, host = email.partition("@")
    return f"{local.replace('.', ' dot ')} at {host.replace('.', ' dot ')}"


@dataclass
class Entry:
    say: str | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)


def call(tool: str, **args: Any) -> dict[str, Any]:
    return {"tool": tool, "args": args}


@dataclass
class Step:
    id: str
    trigger: str
    meaning: str
    say: str
    cue: list[str]


@dataclass
class Part:
    kind: str
    ask: str
    """the caller's line raising the request"""
    ask_meaning: str
    segments: list[list[Entry]]
    """agent turns; segment k ends with the question that fires steps[k] (the last one ends the
    request and is followed by "anything else?")"""
    steps: list[Step] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    writes: list[dict[str, Any]] = field(default_factory=list)
    spoken: list[dict[str, Any]] = field(default_factory=list)
    phrases: list[dict[str, Any]] = field(default_factory=list)
    refusal: dict[str, Any] | None = None
    criteria: list[dict[str, Any]] = field(default_factory=list)
    """judged requirements code cannot decide (unmeasured without a judge)"""
    ends_call: bool = False
    knows: dict[str, Any] = field(default_factory=dict)
    """what the caller must know for this request (a card's last four, a date)"""

    def __post_init__(self) -> None:
        if len(self.segments) != len(self.steps) + 1:
            raise ValueError(
                f"{self.kind}: {len(self.segments)} segments for {len(self.steps)} steps"
            )


def amount_check(
    id: str, value: Decimal, description: str, topic: list[str] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "id": id,
        "description": description,
        "kind": "amount",
        "value": float(value),
        **({"topic": topic} if topic else {}),
        **extra,
    }


def date_check(id: str, value: dt.date, description: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": id,
        "description": description,
        "kind": "date",
        "value": value.isoformat(),
        **extra,
    }


def number_check(
    id: str, value: float | int, description: str, topic: list[str] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "id": id,
        "description": description,
        "kind": "number",
        "value": value,
        **({"topic": topic} if topic else {}),
        **extra,
    }


def proxy_of(part: Part) -> float:
    """The structural chance a request is done right (see `select` for the formula)."""
    calls = sum(len(e.calls) for seg in part.segments for e in seg)
    checks = len(part.spoken) + len(part.phrases)
    p = 0.97**calls * 0.93**checks * 0.88 ** len(part.steps)
    return p * (0.8 if part.refusal is not None else 1.0)
