"""Spoken values: amounts, counts, dates and identifiers as agents and callers actually say them.

A check such as "the agent stated the arrears within 1 cent before the payment
was made" must be decided by code, not by a judge reading "sixty-five fifty-two"
charitably. So the parser reads every form a voice transcript produces (symbols,
grouped digits, number words in every language with a table in `spoken_langs`:
English, Hindi in Devanagari and romanised, Gujarati, Marathi, ...; native-script
digits, digits said one by one) and, just as important, refuses the readings
that made other verifiers pass wrong calls: a postal code or a phone number is
an identifier and never an amount, "three payments" is not "three months", a
time is not an amount, a year inside a date is not a separate number.

Two readings depend on context, decided here once:
- "sixty-five fifty-two" (two spoken numbers of which the second has two digits)
  is 65.52 in a money context (a currency word or symbol in the message, or
  `money=True`, which `stated(kind="amount")` sets) and the number 6552
  otherwise, as in years ("nineteen ninety") and flight or room numbers.
- in a money context a number with no unit is an amount (currency None); with a
  unit ("3 payments") it stays a number.

Where a reading is ambiguous it gives no value rather than a guess: a scale after
a word the language does not read ("Dedh lakh" in English, an unknown spelling of
ढाई) is no bare lakh; a weak word ("दो", "saath") is a number only before what it
counts; a day of the month that has passed ("5 तारीख" on the 12th) is no date.
Ordinals outside dates ("the 23rd", "twenty-third of each month") are numbers.

Known blind spots, kept rather than guessed around: "pound" is always money, a
bare ordinal before a noun ("the first payment") is not read, a day of the month
still to come is this month's whatever the tense, and slash dates are read day
first unless only month first is possible.

This module is the public face: the types a check compares (`Window`, `Finding`, and
`SpokenValue`, defined in `spoken_tokens` because its pre-pass already yields values),
`find_values` with its caches, and the reading of a long text in overlapping pieces. How a text is
cut into tokens is `spoken_tokens`; how tokens become values is `spoken_parser`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from datetime import date

# the parser, its tokens and patterns and the identifier normaliser are re-exported (`x as x`) for
# the checks and tests that import them from here
from .spoken_parser import _Parser as _Parser
from .spoken_tokens import _NUM as _NUM
from .spoken_tokens import _ORD as _ORD
from .spoken_tokens import _PRE as _PRE
from .spoken_tokens import SpokenValue, _shared_tokens
from .spoken_tokens import _norm_id as _norm_id
from .spoken_tokens import _Tok as _Tok
from .spoken_words import number_words

__all__ = ["Finding", "SpokenValue", "Window", "find_values", "number_words"]


@dataclass(frozen=True)
class Window:
    """Where a statement counts: who said it, between which message indices, and near which topic.

    `topic` cues are alternatives: one of them must start a word in the same message."""

    speaker: str = "candidate"
    from_index: int | None = None
    to_index: int | None = None
    topic: tuple[str, ...] = ()
    exclude: frozenset[int] = frozenset()
    """messages that do not count as evidence (in a turn too long for a caller to follow)"""


@dataclass(frozen=True)
class Finding:
    found: bool
    message_index: int | None
    value: SpokenValue | None
    detail: str


CHUNK = 2000
"""Texts longer than this are read in pieces of about this size (cut at whitespace, overlapping by
OVERLAP characters), so a hostile megabyte costs linear time and no numeral reaches Python's
4,300-digit limit on int(). A value is read with at least OVERLAP / 2 characters of context on
either side: one said across more than that (a hundred digits read one by one) may be read as
two. `find_values` and `_cuts` read it here, where a test sets it."""
OVERLAP = 200


def find_values(
    text: str, language: str = "en", *, today: date | None = None, money: bool | None = None
) -> list[SpokenValue]:
    """Every value in one utterance, left to right. `today` places dates said without a year (the
    occurrence nearest to it; pass the call's date for reproducible grading); `money` forces (True)
    or forbids (False) the money reading, which by default follows the presence of a currency word
    or symbol anywhere in the text."""
    today = today or date.today()
    if len(text) <= CHUNK:
        return list(_find_short(text, language, today, money))
    return list(_find_values(text, language, today, money))


@functools.lru_cache(maxsize=1024)
def _find_short(
    text: str, language: str, today: date, money: bool | None
) -> tuple[SpokenValue, ...]:
    """Every spoken-value check of a scenario reads every message again (a third of the readings
    of a call repeat one); the values are immutable, so a reading is shared."""
    return tuple(_Parser(text, language, today, money).run())


@functools.lru_cache(maxsize=8)
def _find_values(
    text: str, language: str, today: date, money: bool | None
) -> tuple[SpokenValue, ...]:
    """Long texts only, and few (the cache holds them): every spoken-value check of a scenario reads
    every message again, and a hostile megabyte costs seconds each time."""
    return tuple(_read(text, language, today, money))


def clear_cache() -> None:
    """Forget every reading (benchmarks measure reading, not looking up)."""
    _find_short.cache_clear()
    _find_values.cache_clear()
    _shared_tokens.cache_clear()


def _read(text: str, language: str, today: date, money: bool | None) -> list[SpokenValue]:
    cuts = _cuts(text)
    parsers = [_Parser(text[a:b], language, today, money) for a, b in cuts]
    if money is None:  # the currency word may sit in another piece than the number
        for p in parsers:
            p.money = any(q.money for q in parsers)
    out: list[SpokenValue] = []
    for k, ((a, _), p) in enumerate(zip(cuts, parsers)):
        # a piece owns the values that start before the middle of its overlap with the next one,
        # so every value is read with at least OVERLAP / 2 characters of context on each side;
        # none is read twice
        own_end = (cuts[k + 1][0] + cuts[k][1]) // 2 if k + 1 < len(cuts) else len(text)
        done = out[-1].end if out else 0
        out += [
            replace(v, start=v.start + a, end=v.end + a)
            for v in p.run()
            if done <= v.start + a < own_end
        ]
    return out


def _cuts(text: str) -> list[tuple[int, int]]:
    """Overlapping pieces [a, b) of at most CHUNK characters; each next piece starts after a space
    in the first half of the previous one's last OVERLAP characters (or, with no space there,
    OVERLAP before its end)."""
    if CHUNK <= OVERLAP:  # each piece must move the reading on, or this never ends
        raise ValueError(f"spoken.CHUNK ({CHUNK}) must exceed OVERLAP ({OVERLAP})")
    cuts, a = [], 0
    while True:
        b = min(a + CHUNK, len(text))
        cuts.append((a, b))
        if b == len(text):
            return cuts
        space = re.compile(r"\s+").search(text, b - OVERLAP, b - OVERLAP // 2)
        a = space.end() if space else b - OVERLAP
