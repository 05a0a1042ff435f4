"""The readings of a token stream: dates said with a month name, identifiers, amounts and counts.

Where the context-dependent decisions of `spoken` are made, token by token, on what
`spoken_tokens` produced: a structured form arrives as one `block` token and is taken as it is;
every other value is read here from words and numerals. `_Parser.run` tries, at each token where a
value may start, a date ("the 3rd of March", "November fourteenth twenty twenty-six"), then an
identifier announced by a cue ("PIN is four four one seven"), then a quantity (a number in digits or
words with its currency, minor unit, unit word or clock words), and moves past whatever it read.

Number words are read through the per-language tables (`spoken_langs`, compiled by `spoken_words`
into a `Lexicon`): each word has a role (a
digit, a tens word, "hundred", a scale such as lakh or thousand, a fraction such as ढाई) and
`_phrase` does the arithmetic, so a language is mostly a table, not parser code.

Separate from `spoken_tokens` because the two are written for different costs: the tokeniser
touches every character and so works by regex and translation tables, while this part is plain
Python and runs only at the tokens where a value may start (`_value_starts`).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from typing import Any

from .spoken_dates import _Reading
from .spoken_tokens import SpokenValue, _Tok, clock, prepass, read_tokens
from .spoken_words import (
    ADJ,
    AND,
    FOREIGN_NUMBERS,
    ID_CUES,
    ID_FILLERS,
    IS,
    MAJOR,
    MINOR,
    NIGHT_CUES,
    PM_CUES,
    PREFIX,
    STOP,
    STRONG_CUES,
    SYMBOLS,
    TIME_WORDS,
    UNIT_WORDS,
    YEAR_CUES,
    compounds_for,
    key,
    lexicon,
    numeric_looking,
)

RANGE = {key(w) for w in "to से se ते".split()}
"""words between the ends of a range: "दो से पाँच बजे" says two"""
DAY_CUES = {
    key(w)
    for w in "on by until till from before after since due monday tuesday wednesday thursday "
    "friday saturday sunday".split()
}
"""words before "the" + an ordinal that make the ordinal a day ("on the fifteenth")"""


def _tidy(v: Decimal) -> Decimal:
    """Whole results of word arithmetic (ढाई सौ = 2.5 x 100) without the stray ".0" of the
    fraction."""
    return Decimal(int(v)) if v == v.to_integral_value() else v


@functools.lru_cache(maxsize=64)
def _value_starts(language: str) -> frozenset[str]:
    """The keys of word and punctuation tokens at which a value may start, for a language code;
    `_Parser.run` skips every other word without trying each reading (a date, a cued
    identifier, a quantity), which is where the time went.

    Exact, not a heuristic: at a word or punctuation token each reading needs the token's key in
    one of these tables (`_date`: "the", a month, an ordinal or a number word; `_cued`: a cue;
    `_quantity`: a currency prefix or a number word), and a failed reading changes nothing."""
    lex = lexicon(language)
    return frozenset({"the", *lex.months, *lex.ordinals, *ID_CUES, *PREFIX, *lex.words})


def _split(toks: list[_Tok], compounds: Mapping[str, tuple[str, ...]]) -> list[_Tok]:
    """`toks` with each word that is several words written as one (`compounds_for`) replaced by
    those words, each spanning the whole word and, after the first, read as spaced from the one
    before. New tokens: the tokeniser's are shared between readings and never changed."""
    if not any(t.k in compounds for t in toks if t.kind == "word"):
        return toks
    out: list[_Tok] = []
    for t in toks:
        pieces = compounds.get(t.k) if t.kind == "word" else None
        if not pieces:
            out.append(t)
            continue
        out.extend(
            _Tok(t.start, t.end, "word", k, t.gap if n == 0 else " ") for n, k in enumerate(pieces)
        )
    return out


class _Parser(_Reading):
    """One reading of one text (or one piece of a long text): tokenised on construction, read by
    `run`. `money` is public to `spoken._read`, which shares the money context across pieces."""

    def __init__(self, text: str, language: str, today: date, money: bool | None):
        self.text, self.today = text, today
        self.language = language
        self.lex = lexicon(language)
        self.words = self.lex.words
        self.out: list[SpokenValue] = []
        self.shadow, self.toks = read_tokens(text, today)
        if compounds := compounds_for(language):
            self.toks = _split(self.toks, compounds)
        self.money = (
            money
            if money is not None
            else any(
                t.kind == "sym"
                or (t.k in PREFIX or t.k in MAJOR or t.k in MINOR)
                and t.kind == "word"
                and not (t.k == "cent" and self.toks[i - 1].k == "per")
                for i, t in enumerate(self.toks)
            )
        )

    def run(self) -> list[SpokenValue]:
        i, toks, starts = 0, self.toks, _value_starts(self.language)
        while (t := toks[i]).kind != "end":
            if t.kind == "block":
                self.out.append(t.value)  # type: ignore[arg-type]
                i += 1
            elif t.kind in ("word", "punct") and t.k not in starts:
                i += 1  # most words: no value can start at them (`_value_starts`)
            else:
                i = self._date(i) or self._cued(i) or self._quantity(i) or i + 1
        return sorted(self.out, key=lambda v: v.start)

    # -- structured forms first: they own their digits, so nothing re-reads them as amounts
    def _prepass(self) -> list[SpokenValue]:
        return prepass(self.text, self.shadow, self.today)

    # -- identifiers announced by a cue: "pincode 560034", "PIN is four four one seven"
    def _cued(self, i: int) -> int | None:
        if not self._word(i, ID_CUES):
            return None
        strong, j = self.toks[i].k in STRONG_CUES, i + 1
        while j - i < 5 and (
            (word := self._tok(j).k) in ID_FILLERS
            or (word == "in" and self._tok(j - 1).k == "ending")
            or (word in IS and strong)
        ):
            strong, j = strong or word in ID_FILLERS, j + 1
        digits, k = self._numeral_run(j, 1)
        if not digits and (seq := self._digits(j, 1)):
            digits, k = seq
        if not digits and (p := self._phrase(j)) and p[0] == int(p[0]):
            digits, k = str(int(p[0])), p[1]
        if not digits:
            return None
        self.out.append(self._value("identifier", digits, self.toks[j].start, self.toks[k - 1].end))
        return k

    def _numeral_run(self, i: int, min_groups: int) -> tuple[str, int]:
        """Plain numerals separated only by spaces, the way a phone or account number is read in
        breaths."""
        j = i
        while (
            (t := self._tok(j)).kind == "num"
            and t.plain
            and not t.ordinal
            and (j == i or self._spaced(j))
        ):
            j += 1
        return ("".join(t.k for t in self.toks[i:j]), j) if j - i >= min_groups else ("", i)

    def _digits(self, i: int, min_len: int = 3) -> tuple[str, int] | None:
        """Digit words said one by one ("four four one seven", "four oh two", "double five")."""
        out, special, j = "", False, i
        while (t := self._tok(j)).kind != "end":
            role, v = self._role(j)
            if (
                t.kind == "punct"
                and t.k in ",-"
                and len(out) > 1
                and self._role(j + 1)[0] in ("d", "rep")
            ):
                j += 1
                continue
            if t.kind != "word" or (j > i and t.gap and not t.gap.isspace()):
                break
            if role == "d":
                out += str(int(v))
            elif role == "oh" and out and "d" in (self._role(j + 1)[0], self._role(j + 2)[0]):
                out, special = out + "0", True
            elif role == "rep" and self._role(j + 1)[0] == "d":
                out, special, j = out + str(int(self._role(j + 1)[1])) * int(v), True, j + 1
            else:
                break
            j += 1
        return (out, j) if len(out) >= min_len or (special and len(out) >= 2) else None

    def _phrase(self, i: int) -> tuple[Decimal, int, bool] | None:
        """A number said in words: (value, next token, plain) where plain means one chunk below
        100."""
        if self._role(i)[0] is None:  # no branch below reads a first token without a role
            return None
        total, cur, last, big, adj, roles, j = Decimal(0), None, None, None, Decimal(0), [], i
        while (t := self._tok(j)).kind != "end":
            role, v = self._role(j)
            if (
                t.k == "-"
                and not t.gap
                and last == "t"
                and self._role(j + 1)[0] == "d"
                and not self._tok(j + 1).gap
            ):
                assert cur is not None  # a tens word ("sixty") set it
                cur, last, j = cur + self._role(j + 1)[1], "d", j + 2  # "sixty-five"
                roles.append("d")
                continue
            if t.kind != "word" or (j > i and not self._spaced(j)):
                break
            nxt = self._role(j + 1)[0]
            if (half := self._half(j, cur, last)) is not None:  # "four and a half", "half a lakh"
                cur, last, j = half[0], "f", half[1]
                roles.append("f")
                continue
            if t.k in AND and last in ("s", "S", "h") and nxt in ("d", "n", "t"):
                last, j = "and", j + 1
                continue
            if role in ("d", "n", "t") and (
                cur is None or last in ("s", "h", "and") and cur % 100 == 0
            ):
                cur, adj = (cur or 0) + v + adj, Decimal(0)
            elif role == "d" and last == "t" and 0 < v < 10:
                assert cur is not None  # a tens word ("sixty") set it
                cur += v
            elif (
                role in ("f", "h")
                and cur is None
                or role == "a"
                and cur is None
                and nxt in ("s", "S")
            ):
                cur, adj = (v + adj * 100 if role == "h" else v), Decimal(0)  # "સાડા ત્રણસો"
            elif role == "p" and cur is None and not adj and nxt in ("d", "n", "s", "S", "h"):
                adj = v
            elif role == "s" and (
                cur is not None
                and 0 < cur < 100
                or cur is None
                and (adj or j == i or last == "S")  # "ரெண்டாயிரத்து நூத்தி இருபது" (2,120)
            ):
                cur, adj = (cur if cur is not None else 1 + adj) * 100, Decimal(0)
            elif (
                role == "S"
                and (cur is not None or adj or j == i or big is not None and v > big)
                and v != big
            ):
                c = cur if cur is not None else (1 + adj if adj or j == i else Decimal(0))
                total = (
                    (total + c) * v if big is not None and v > big else total + c * v
                )  # "एक हज़ार करोड़"
                cur, adj, big = None, Decimal(0), v
            elif role == "point" and self._role(j + 1)[0] in ("d", "oh"):
                frac, j = "", j + 1
                while self._role(j)[0] in ("d", "oh") and self._spaced(j):
                    frac, j = frac + str(int(self._role(j)[1])), j + 1
                said = (cur or 0) + Decimal("0." + frac)
                if not total and self._role(j)[0] == "S" and self._spaced(j):
                    return _tidy(said * self._role(j)[1]), j + 1, False  # "three point five lakh"
                return total + said, j, False
            else:
                break
            roles.append(role)
            last, j = role, j + 1
        if not roles or (cur is None and not total) or adj:
            return None
        if len(roles) == 1 and self._tok(i).k in self.lex.weak and not self._counted(j):
            return None  # "do" (give), "saath" (with): a number only before what it counts
        if roles[0] in ("s", "S") and self._foreign_before(i):
            return None  # "Dedh lakh" read without "dedh" would be 100000, not 150000
        value = _tidy(total + (cur or 0))
        return value, j, set(roles) <= {"d", "n", "t"} and value == int(value) and 0 < value < 100

    def _half(self, j: int, cur: Decimal | None, last: str | None) -> tuple[Decimal, int] | None:
        """(value, next token) of English "and a half" after a number below 100, or of "half a"
        before a scale; None elsewhere."""
        t = self._tok(j)
        if t.kind != "word" or not all(self._spaced(j + n) for n in (1, 2)):
            return None
        if (
            t.k in AND
            and last in ("d", "n", "t")
            and cur is not None
            and 0 < cur < 100
            and self._word(j + 1, {"a", "an"})
            and self._word(j + 2, {"half"})
        ):
            return cur + Decimal("0.5"), j + 3
        if (
            t.k == "half"
            and cur is None
            and self._word(j + 1, {"a", "an"})
            and self._role(j + 2)[0] in ("s", "S")
        ):
            return Decimal("0.5"), j + 2
        return None

    def _counted(self, j: int) -> bool:
        """Whether token `j` is what a number counts or names: a currency, a unit, a month, a day
        of the month, a clock word."""
        t = self._tok(j)
        if t.kind != "word" or not self._spaced(j):
            return False
        if t.k in RANGE and self._spaced(j + 1):  # "दो से पाँच बजे"
            return self._tok(j + 1).kind == "num" or self._role(j + 1)[0] is not None
        return (
            any(t.k in s for s in (MAJOR, MINOR, TIME_WORDS, self.lex.months, self.lex.day_words))
            or t.k in UNIT_WORDS
            or not t.k.isascii()
            and any(t.k.startswith(w) for w in UNIT_WORDS if not w.isascii())
        )

    def _foreign_before(self, i: int) -> bool:
        """Whether a number word this language does not read stands right before token `i`: a
        scale after it ("Dedh lakh" read as English) would be read without its multiplier."""
        if i == 0 or not self._spaced(i):
            return False
        t = self.toks[i - 1]
        if t.kind != "word" or t.k in self.words:
            return False
        # in an Indian script, a word that looks like a number word of the language: "अढ़ाई हज़ार"
        # with an unknown spelling of ढाई must not be read as a thousand, while "தொகை ஆயிரம்
        # ரூபா" (the amount: a thousand rupees) must
        return (
            t.k in FOREIGN_NUMBERS
            or not t.k.isascii()
            and not any(t.k in s for s in (STOP, AND, PREFIX, MAJOR, MINOR, self.lex.every))
            and not self._counted(i - 1)  # "हर महीने हज़ार रुपये"
            and numeric_looking(self.language, t.k)
        )

    # -- amounts and counts
    def _number(self, i: int, allow_id: bool, money: bool = False) -> tuple[str, Any, int] | None:
        """(what, value, next token) of the number at token `i`: "value", "id" (digits read out),
        "pair" ("sixty-five fifty-two": whole and hundredths in money, else hundreds and the
        rest) or "ordinal" ("twenty-third", a day or a place, never an amount). `money` is the
        money reading of the phrase (a currency before it, or the text's context)."""
        t = self._tok(i)
        if t.kind == "num" and not t.ordinal:
            run, k = self._numeral_run(i, 2)
            groups = [g.k for g in self.toks[i:k]]
            if (
                allow_id
                and len(run) >= 6
                and (
                    all(len(g) >= 3 for g in groups)
                    or len(groups) >= 3
                    and all(len(g) >= 2 for g in groups)
                )
            ):
                return "id", run, k
            if (
                allow_id
                and t.plain
                and (len(t.k) >= 7 or len(t.k) >= 2 and t.k[0] == "0")
                and not self._word(i + 1, MAJOR)
            ):
                return "id", t.k, i + 1
            value, k = Decimal(t.k), i + 1
            if (r := self._role(k))[0] in ("s", "S") and self._spaced(k):
                value, k, big = _tidy(value * r[1]), k + 1, r[1]
                while (
                    (n := self._tok(k)).kind == "num"
                    and n.plain
                    and self._spaced(k)
                    and self._spaced(k + 1)
                    and (r := self._role(k + 1))[0] in ("s", "S")
                    and r[1] < big
                ):
                    value, k, big = (
                        value + _tidy(Decimal(n.k) * r[1]),
                        k + 2,
                        r[1],
                    )  # "1 lakh 25 thousand"
                if (
                    (n := self._tok(k)).kind == "num"
                    and n.plain
                    and not n.ordinal
                    and self._spaced(k)
                    and 100 <= int(n.k) < big
                    and n.k[0] != "0"
                ):
                    value, k = value + Decimal(n.k), k + 1  # "12 हज़ार 450": the rest in digits
            if self._word(k, {"k"}) and not self._tok(k).gap:
                value, k = value * 1000, k + 1
            return "value", value, k
        if t.kind == "num" or self._bare_ordinal(i):  # "23rd", "on the fifteenth."
            return (
                ("ordinal", Decimal(int(t.k)), i + 1)
                if t.kind == "num"
                else (
                    "ordinal",
                    Decimal(self.lex.ordinals[t.k]),
                    i + 1,
                )
            )
        if allow_id and (seq := self._digits(i)):
            return "id", seq[0], seq[1]
        if (p := self._phrase(i)) is None:
            return None
        if (o := self._compound_ordinal(i, p)) is not None:
            return "ordinal", *o
        if (
            not p[2]
            and money
            and p[0] == int(p[0])
            and p[0] % 100
            and t.k.isascii()
            and self._spaced(p[1])
            and (q := self._phrase(p[1]))
            and q[2]
            and q[0] >= 10
            and self._compound_ordinal(p[1], q) is None
        ):  # "nine hundred forty-eight seventy-five" is $948.75 where money is meant
            return "pair", (p[0], q[0]), q[1]
        if (
            p[2] and t.k.isascii() and self._spaced(p[1])
        ):  # Hindi "दस पंद्रह दिन" is a range, not 1015
            if (q := self._phrase(p[1])) and q[2] and q[0] >= 10:
                return "pair", (p[0], q[0]), q[1]
            if (
                self._role(p[1])[0] == "oh"
                and self._role(p[1] + 1)[0] == "d"
                and self._spaced(p[1] + 1)
            ):
                return "pair", (p[0], self._role(p[1] + 1)[1]), p[1] + 2
        return "value", p[0], p[1]

    def _bare_ordinal(self, i: int) -> bool:
        """An ordinal word said as a day: "on the fifteenth.", "Monday the sixteenth", "the third
        of each month". Elsewhere ("the first payment", "from the first to the second") it may be
        a place in a list, and is left unread."""
        t, after = self._tok(i), self._tok(i + 1)
        return (
            t.kind == "word"
            and t.k in self.lex.ordinals
            and self._word(i - 1, {"the"})
            and self._word(i - 2, DAY_CUES)
            and (
                after.kind in ("punct", "end")
                or self._word(i + 1, {"of"})
                and self._word(i + 2, self.lex.every | self.lex.next | {"this"})
            )
        )

    def _compound_ordinal(self, i: int, p: tuple[Decimal, int, bool]) -> tuple[Decimal, int] | None:
        """("twenty-third" = 23, next token) when the phrase `p` read at `i` is a tens word that an
        ordinal ends ("twenty-third", "thirty first"): read as 20, it would be a wrong value."""
        k = p[1]
        if not p[2] or self._role(k - 1)[0] != "t":
            return None
        if self._tok(k).k == "-" and not self._tok(k).gap and not self._tok(k + 1).gap:
            k += 1
        elif not self._spaced(k):
            return None
        o = self._ordinal_unit(k)
        return (p[0] + o, k + 1) if o is not None else None

    def _quantity(self, i: int) -> int | None:
        t, currency, j = self.toks[i], None, i
        if t.kind == "sym" or t.kind == "word" and t.k in PREFIX:
            currency, j = (
                SYMBOLS.get(t.k) or PREFIX[t.k],
                i + (2 if self._tok(i + 1).k == "." else 1),
            )
        if (num := self._number(j, currency is None, bool(currency) or self.money)) is None:
            return None
        (what, value, k), first = num, self.toks[i].start
        if what == "ordinal":  # a day or a place, never an amount
            self.out.append(self._value("number", value, first, self.toks[k - 1].end))
            return k
        if what == "id":
            self.out.append(self._value("identifier", value, first, self.toks[k - 1].end))
            return k
        if what == "pair":
            a, b = value
            if (end := self._time_after(k, a, Decimal(b) / 60, first)) is not None:
                return end
            money = bool(currency) or self.money or self._word(k, MAJOR)
            value = a + Decimal(b) / 100 if money else a * 100 + b
        elif (
            currency is None and (end := self._time_after(k, value, Decimal(0), first)) is not None
        ):
            return end
        if self._word(k, MAJOR) or self._tok(k).kind == "sym" and self._tok(k + 1).kind != "num":
            currency, k = currency or MAJOR.get(self.toks[k].k) or SYMBOLS[self.toks[k].k], k + 1
            c = k + (1 if self._word(k, AND) or self._tok(k).k == "," else 0)
            minor = self._number(c, allow_id=False)
            if minor and minor[0] == "value" and minor[1] == int(minor[1]) and 0 <= minor[1] < 100:
                after = minor[2]
                if self._word(after, MINOR):  # "sixty-five dollars and fifty-two cents"
                    value, k = value + minor[1] / 100, after + 1
                elif (
                    not self._word(after, MAJOR)
                    and self._role(after)[0] is None
                    and self._unit(after, minor[1])[0] is None
                ):  # "sixty-five dollars fifty-two"
                    value, k = value + minor[1] / 100, after
        elif self._word(k, MINOR):
            value, currency, k = value / 100, currency or MINOR[self.toks[k].k], k + 1
        owner = self._tok(k - 1).k
        if currency is None and not (owner.endswith(self.lex.genitive) and not owner.isascii()):
            unit, k = self._unit(k, value)
        else:  # "दहा हजारांचा हप्ता": an instalment of 10,000, not 10,000 instalments
            unit = None
        year_like = (
            t.kind == "num"
            and t.plain
            and len(t.k) == 4
            and 1900 <= int(t.k) < 2100
            and self._tok(i - 1).k in YEAR_CUES
            and i > 0
        )  # "in 2026 you paid $500": 2026 is no amount
        kind = "amount" if currency or self.money and unit is None and not year_like else "number"
        self.out.append(
            self._value(
                kind, value, first, self.toks[k - 1].end, "currency" if currency else unit, currency
            )
        )
        return k

    def _time_after(self, k: int, hour: Decimal, frac: Decimal, first: int) -> int | None:
        t, end, ampm = self._tok(k), None, None
        if not self._spaced(k):
            return None
        if t.k in TIME_WORDS:  # "शाम पाँच बजे" is five in the evening
            before, end = [self._start(first) - back for back in (1, 2)], k + 1
            if t.k in ("am", "pm"):
                ampm = t.k
            elif any(self._word(b, PM_CUES) for b in before):
                ampm = "pm"
            elif any(self._word(b, NIGHT_CUES) for b in before):
                ampm = "pm" if 6 <= hour < 12 else "am"  # "রাত আটটায়" 20:00, "রাত বারোটায়" 00:00
        elif t.k in ("a", "p") and self._tok(k + 1).k == "." and self._word(k + 2, {"m"}):  # "a.m."
            ampm, end = (
                t.k,
                k + (4 if self._tok(k + 3).k == "." and not self._tok(k + 3).gap else 3),
            )
        elif t.k == "o" and self._tok(k + 1).k in ("'", "’") and self._word(k + 2, {"clock"}):
            end = k + 3
        v = clock(self.text, hour, frac, ampm, first, self.toks[end - 1].end) if end else None
        if v is not None:
            self.out.append(v)
        return end if v is not None else None

    def _unit(self, k: int, value: Decimal) -> tuple[str | None, int]:
        t, start = self._tok(k), k
        if t.k == "%" and (not t.gap or t.gap.isspace()):
            return "percent", k + 1
        if t.k == "per" and self._word(k + 1, {"cent"}):
            return "percent", k + 2
        if t.k == "-" and not t.gap and not self._tok(k + 1).gap:
            k += 1  # "3-month"
        elif not self._spaced(k):
            return None, start
        while self._word(k, ADJ) and self._spaced(k + 1) and k - start < 2:
            k += 1
        t = self._tok(k)
        if (
            t.kind != "word"
            or len(t.k) < 2
            or any(t.k in s for s in (STOP, self.words, self.lex.months, MAJOR, MINOR, TIME_WORDS))
        ):
            return None, start
        stems = [w for w in UNIT_WORDS if t.k.startswith(w) and (w == t.k or not t.k.isascii())]
        if stems:
            name = UNIT_WORDS[max(stems, key=len)]
            return (name if value == 1 or name == "percent" else name + "s"), k + 1
        return unicodedata.normalize("NFC", self.text[t.start : t.end]).casefold(), k + 1
