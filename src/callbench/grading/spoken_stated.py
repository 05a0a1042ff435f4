"""Checking a trace for a spoken value: did the agent (or caller) say it, in which message, inside
which window.

The parser (spoken.py) reads every value an utterance carries; this module decides whether one of
them is the
expected value (with tolerance, unit and currency), and matches identifiers read out letter by
letter.
"""

from __future__ import annotations

import re
from datetime import date, time
from decimal import Decimal, InvalidOperation
from typing import Any

from ..call.trace import Trace
from ..text import find_cue
from .spoken import Finding, SpokenValue, Window, _norm_id, find_values
from .spoken_words import unit_class

__all__ = ["SPELLED_DIGITS", "spelled_identifier", "stated"]


def _expected(expected: Any, kind: str) -> Any:
    if kind in ("amount", "number"):
        try:
            return Decimal(str(expected))
        except InvalidOperation:
            raise ValueError(f"expected {kind} {expected!r} is not a number") from None
    if kind == "identifier":
        return _norm_id(expected)
    if kind == "date":
        return expected if isinstance(expected, date) else date.fromisoformat(str(expected))
    if kind == "time":
        return expected if isinstance(expected, time) else time.fromisoformat(str(expected))
    raise ValueError(f"unknown kind {kind!r} (amount, number, date, time, identifier)")


def _judge(
    v: SpokenValue, want: Any, kind: str, tol: Decimal, unit: str | None, currency: str | None
) -> tuple[bool, str]:
    """Whether `v` states the wanted value; otherwise why not, when the reason is worth
    reporting."""
    name = {"amount": "an amount", "number": "a number", "identifier": "an identifier"}
    if kind in ("amount", "number"):
        if v.kind == "identifier" and want == int(want) and v.value == str(int(want)):
            return False, f"is an identifier, not {name[kind]}"
        if v.kind not in ("amount", "number"):
            return False, ""
        off = abs(v.value - want)
        if v.kind != kind:
            return False, f"is {name[v.kind]}, not {name[kind]}" if off <= tol else ""
        if off > tol:
            return False, f"{v.value} is {off} away (tolerance {tol})"
        if (
            unit
            and unit != "currency"
            and (v.unit is None or unit_class(v.unit) != unit_class(unit))
        ):
            return (
                False,
                f"has unit {v.unit!r}, not {unit!r}" if v.unit else f"has no unit, {unit!r} wanted",
            )
        if currency and v.currency and v.currency != currency:
            return False, f"is in {v.currency}, not {currency}"
        return True, ""
    if (
        kind == "identifier"
    ):  # a bare whole number said aloud is the same digits; an amount never is
        digits = (
            v.kind == "number"
            and v.unit is None
            and v.value == int(v.value)
            and not re.search(r"[.,]", v.text)
        )
        return (v.kind == "identifier" and v.value == want) or (
            digits and str(int(v.value)) == want
        ), ""
    if v.kind != kind:
        return False, ""
    if kind == "date":
        off = abs((v.value - want).days)
        return (True, "") if off <= tol else (False, f"is {off} day(s) away")
    return (True, "") if v.value == want else (False, f"is {v.value}, not {want}")


def stated(
    trace: Trace,
    expected: Any,
    kind: str,
    *,
    tolerance: float = 0.0,
    unit: str | None = None,
    window: Window = Window(),
    language: str = "en",
    today: date | None = None,
    currency: str | None = None,
) -> Finding:
    """The first message in the window that states `expected`, with the near misses explained when
    none does.

    Amounts are parsed with the money reading on, so "sixty-five fifty-two" counts for 65.52; a
    unit,
    when given, must be said ("three payments" never satisfies a check for 3 months)."""
    if window.speaker not in ("candidate", "caller", "any"):
        raise ValueError(f"window.speaker must be candidate, caller or any, not {window.speaker!r}")
    want, tol = _expected(expected, kind), Decimal(str(tolerance))
    who = "anyone" if window.speaker == "any" else f"the {window.speaker}"
    span = (
        f"messages {'start' if window.from_index is None else window.from_index}-"
        f"{'end' if window.to_index is None else window.to_index}"
    )
    looked = (
        f"{kind} {want}"
        + (f" ±{tol}" if tol else "")
        + (f" ({unit})" if unit else "")
        + f" said by {who} in {span}"
        + (f" about {'/'.join(window.topic)}" if window.topic else "")
    )
    notes: list[str] = []
    for m in trace.messages:
        if not m.text or m.role == "tool" or window.speaker not in ("any", m.role):
            continue
        inside = (
            (window.from_index is None or m.index >= window.from_index)
            and (window.to_index is None or m.index <= window.to_index)
            and m.index not in window.exclude
        )
        on_topic = not window.topic or any(find_cue(c, m.text) for c in window.topic)
        for v in find_values(
            m.text, language, today=today, money=True if kind == "amount" else None
        ):
            ok, why = _judge(v, want, kind, tol, unit, currency)
            if ok and inside and on_topic:
                return Finding(True, m.index, v, f"{looked}: {v.text!r} at message {m.index}")
            if ok:
                why = (
                    (
                        "is in a turn too long to follow"
                        if m.index in window.exclude
                        else f"is outside {span}"
                    )
                    if not inside
                    else "is not in a message about the topic"
                )
            if why:
                notes.append(f"{v.text!r} at message {m.index} {why}")
        if (
            kind == "identifier"
            and inside
            and on_topic
            and spelled_identifier(m.text, str(expected), language)
        ):
            return Finding(True, m.index, None, f"{looked}: spelled out at message {m.index}")
    more = f"; {len(notes) - 6} more" if len(notes) > 6 else ""
    return Finding(
        False,
        None,
        None,
        f"{looked}: not found" + ("; " + "; ".join(notes[:6]) + more if notes else ""),
    )


SPELLED_DIGITS = {
    "zero": "0",
    "oh": "0",
    "o": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
}


_TOKEN = re.compile(r"[^\s\-.,;:!?\u0964\u0965\"'()\[\]/]+")


def _spelled(token: str, language: str) -> str:
    """One token as identifier characters: a letter or a run of letters and digits as written, an
    English digit word, a native digit, a digit word of `language`, or an Indian-script name of a
    Latin letter (वी, சி, ডি)."""
    import unicodedata

    from .spoken_letters import letter_named
    from .spoken_words import key, lexicon

    folded = token.casefold()
    if folded in SPELLED_DIGITS:
        return SPELLED_DIGITS[folded]
    if folded.isascii():
        return folded.upper()
    if all(ch.isdigit() for ch in token):
        return "".join(str(unicodedata.digit(ch)) for ch in token)
    if (letter := letter_named(token)) is not None:
        return letter
    role, value = lexicon(language).words.get(key(token), (None, None))
    if role == "d" and value is not None and 0 <= value <= 9 and value == int(value):
        return str(int(value))
    return token


def spelled_identifier(text: str, identifier: str, language: str = "en") -> bool:
    """True when consecutive whole tokens (letters, digits, digit words, letter names) spell the
    identifier: "D P three three zero one" is DP-3301, as an agent reads a code aloud, and so is
    "डी पी तीन तीन शून्य एक" in Hindi. Identifiers shorter than four characters are left to the
    parser: spelled, they would match ordinary words."""
    want = re.sub(r"[^0-9A-Z]", "", identifier.upper())
    if len(want) < 4:
        return False
    tokens = [_spelled(t, language) for t in _TOKEN.findall(text)]
    for i in range(len(tokens)):
        acc = ""
        for tok in tokens[i:]:
            acc += tok
            if not want.startswith(acc):
                break
            if acc == want:
                return True
    return False
