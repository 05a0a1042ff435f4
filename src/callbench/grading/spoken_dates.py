"""The token helpers of the spoken-value parser and its reading of dates said with words: "the
3rd of March", "November fourteenth twenty twenty-six", "पहली मार्च", "मार्च की 23 तारीख",
"२३ तारीख" (a day of the month alone).

A base class of `spoken_parser._Parser`, split from it to keep each file readable: the dates need
the parser's number phrases (`_phrase`, defined there) and nothing else of it.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from .spoken_tokens import SpokenValue, _Tok
from .spoken_words import EN_ORDINALS, LINKS, UNIT_WORDS, Lexicon

_NO_ROLE: tuple[str | None, Decimal] = (None, Decimal(0))

PAST_DATE_DAYS = 92
"""How far back a date said without a year may lie before it is taken as the next occurrence
instead."""


class _Reading:
    """What one reading holds (set by `_Parser.__init__`), the token helpers, and dates."""

    text: str
    today: date
    toks: list[_Tok]
    out: list[SpokenValue]
    lex: Lexicon

    def _phrase(self, i: int) -> tuple[Decimal, int, bool] | None:
        """A number said in words (the parser's; see `_Parser._phrase`)."""
        raise NotImplementedError

    def _value(
        self,
        kind: str,
        value: Any,
        a: int,
        b: int,
        unit: str | None = None,
        currency: str | None = None,
    ) -> SpokenValue:
        return SpokenValue(kind, value, self.text[a:b], a, b, unit, currency)

    # -- token helpers; past the end there is always the "end" token
    def _tok(self, i: int) -> _Tok:
        try:
            return self.toks[i]
        except IndexError:
            return self.toks[-1]

    def _role(self, i: int) -> tuple[str | None, Decimal]:
        """(role, value) of a number word; (None, 0) for anything else (no caller reads the value
        of a token without a role)."""
        t = self._tok(i)
        return self.lex.words.get(t.k, _NO_ROLE) if t.kind == "word" else _NO_ROLE

    def _word(self, i: int, keys) -> bool:
        return self._tok(i).kind in ("word", "sym") and self._tok(i).k in keys

    def _start(self, offset: int) -> int:
        return next(i for i, t in enumerate(self.toks) if t.start >= offset)

    def _spaced(self, i: int) -> bool:
        return bool(self._tok(i).gap) and self._tok(i).gap.isspace()

    # -- dates said with a month name
    def _date(self, i: int) -> int | None:
        j = i + 1 if self._word(i, {"the"}) else i
        if (day := self._day(j)) is not None:
            said = day[1] + (1 if self._word(day[1], self.lex.day_words) else 0)
            k = said + (1 if self._word(said, {"of"}) else 0)
            if (mon := self._month(k)) is not None:
                return self._emit_date(j, day[0], *mon)
            if k > said and self._word(k, self.lex.next) and self._month_unit(k + 1):
                return self._emit_day_of_month(j, day[0], k + 2, ahead=1)  # "5th of next month"
            if said > day[1] and self._next_month_before(j):  # "अगले महीने की पहली तारीख"
                return self._emit_day_of_month(j, day[0], said, ahead=1)
            if said > day[1] and any(self._word(j - b, self.lex.every) for b in (1, 2, 3)):
                # "हर महीने की 10 तारीख": a day every month, not one date
                self.out.append(
                    self._value(
                        "number", Decimal(day[0]), self.toks[j].start, self.toks[said - 1].end
                    )
                )
                return said
            if said > day[1]:  # "23 तारीख": a day of the month, no month said
                return self._emit_day_of_month(j, day[0], said)
        if (mon := self._month(i)) is not None:
            k = mon[1] + (1 if self._word(mon[1], {"the"}) else 0)
            linked = k + (1 if self._word(k, LINKS) else 0)  # "मार्च की 23 तारीख"
            if (day := self._day(k)) is not None:
                return self._emit_date(i, day[0], mon[0], day[1])
            if (
                linked > k
                and (day := self._day(linked)) is not None
                and self._word(day[1], self.lex.day_words)
            ):
                return self._emit_date(i, day[0], mon[0], day[1] + 1)
        return None

    def _month_unit(self, i: int) -> bool:
        """Whether token `i` is the word "month" in any language ("महीने", "mahine")."""
        t = self._tok(i)
        return t.kind == "word" and (
            t.k == "month"
            or UNIT_WORDS.get(t.k) == "month"
            or not t.k.isascii()
            and any(t.k.startswith(w) for w, u in UNIT_WORDS.items() if u == "month")
        )

    def _next_month_before(self, j: int) -> bool:
        """ "next month" in the three tokens before token `j` ("अगले महीने की 1 तारीख")."""
        return any(
            j - b >= 0 and self._word(j - b, self.lex.next) and self._month_unit(j - b + 1)
            for b in (2, 3)
        )

    def _emit_day_of_month(self, first: int, d: int, k: int, ahead: int = 0) -> int | None:
        """A day of the month said without its month ("23 तारीख को", "पहली तारीख"): this month's,
        when it is still to come (as a due date is said). None once it has passed: "5 तारीख" on the
        12th is last week's in "5 तारीख को भरा था" and next month's in "5 तारीख तक भरिए", and
        the parser does not read tense."""
        y, m = self.today.year, self.today.month
        if ahead:  # "next month's 1st"
            y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        elif d < self.today.day:
            return None
        try:
            value = date(y, m, d)
        except ValueError:
            return None
        self.out.append(self._value("date", value, self.toks[first].start, self.toks[k - 1].end))
        return k

    def _emit_date(self, first: int, d: int, m: int, k: int) -> int | None:
        year, k = self._year(k)
        value: date | None
        if year is not None:
            try:
                value = date(year, m, d)
            except ValueError:
                return None
        else:
            value = self._nearest(m, d)
        if value is None:
            return None
        self.out.append(self._value("date", value, self.toks[first].start, self.toks[k - 1].end))
        return k

    def _nearest(self, m: int, d: int) -> date | None:
        """A date said without a year is its next occurrence from the call's date, unless it passed
        within the last three months: said in December, "April first" is next April and "November
        third" last month; said in May, "November fourteenth" is this November."""
        options = []
        for y in range(self.today.year - 1, self.today.year + 5):  # 29 February needs a leap year
            try:
                options.append(date(y, m, d))
            except ValueError:
                continue
        recent = [v for v in options if 0 < (self.today - v).days <= PAST_DATE_DAYS]
        upcoming = [v for v in options if v >= self.today]
        return recent[-1] if recent else upcoming[0] if upcoming else None

    def _month(self, i: int) -> tuple[int, int] | None:
        if self._tok(i).kind != "word" or self._tok(i).k not in self.lex.months:
            return None
        abbreviated = (
            len(self._tok(i).k) <= 4 and self._tok(i + 1).k == "." and not self._tok(i + 1).gap
        )
        return self.lex.months[self._tok(i).k], i + (
            2 if abbreviated else 1
        )  # "Nov." but not the full stop of "June."

    def _ordinal_unit(self, j: int) -> int | None:
        """ "first" to "ninth" ending a compound ordinal ("twenty-first", "thirty first")."""
        t = self._tok(j)
        v = EN_ORDINALS.get(t.k) if t.kind == "word" else None
        return v if v is not None and v < 10 else None

    def _day(self, i: int) -> tuple[int, int] | None:
        t = self._tok(i)
        if t.kind == "num":
            if not t.plain or not 1 <= int(t.k) <= 31:
                return None
            suffix = self._word(i + 1, self.lex.numeral_suffixes) and not self._tok(i + 1).gap
            return int(t.k), i + (2 if suffix else 1)  # "23वीं", "૧૫મી"
        if t.kind == "word" and t.k in self.lex.ordinals:
            return self.lex.ordinals[t.k], i + 1
        role, v = self._role(i)
        if role == "t" and v in (20, 30):  # "twenty-first"
            j = i + (2 if self._tok(i + 1).k == "-" else 1)
            if (o := self._ordinal_unit(j)) is not None:
                return int(v) + o, j + 1
        p = self._phrase(i)
        return (int(p[0]), p[1]) if p and p[2] and 1 <= p[0] <= 31 else None

    def _year(self, k: int) -> tuple[int | None, int]:
        j = k + (1 if self._tok(k).k == "," else 0)
        t = self._tok(j)
        if t.kind == "num" and t.plain and len(t.k) == 4 and 1900 <= int(t.k) < 2200:
            return int(t.k), j + 1
        shift = {"this": 0, "last": -1, "next": 1}.get(t.k) if t.kind == "word" else None
        if shift is not None and self._word(j + 1, {"year"}):  # "the first of May this year"
            return self.today.year + shift, j + 2
        p = self._phrase(j)
        if p and p[2] and (q := self._phrase(p[1])) and q[2] and q[0] >= 10 and self._spaced(p[1]):
            p = (p[0] * 100 + q[0], q[1], True)  # "twenty twenty-six"
        return (int(p[0]), p[1]) if p and p[0] == int(p[0]) and 1900 <= p[0] < 2200 else (None, k)
