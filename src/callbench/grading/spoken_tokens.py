"""Reading an utterance into tokens: the structured forms first, then words, numerals and marks.

Split from the parser (`spoken_parser`) because it is the part that must stay cheap on any text: it
touches every character of every reply, a hostile megabyte included, so it reads by regex and by
C-level translation (`str.translate`) instead of a Python step per character. Its two passes:

- the pre-pass reads the forms whose shape alone says what they are (ISO and slash dates, phone
  numbers, clock times, postcodes, identifiers that mix letters and digits). They own their digits:
  each becomes one `block` token, so no later reading takes "560034" of a pincode or the 2026 of
  "2026-11-14" for an amount.
- the tokeniser cuts the rest into numerals, words (letters, marks and joiners, in any script),
  currency symbols and punctuation, keeping the text between tokens (`gap`), which the parser reads
  to tell "sixty-five" from "sixty - five" and a breath from a comma.

Native-script digits (१, ૧, ...) are read through a shadow of the text in which each is its ASCII
digit, offsets unchanged, so every value's `text` is the original span.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass
from datetime import date, time
from decimal import Decimal
from typing import Any

from .spoken_words import SYMBOLS, key


@dataclass(frozen=True)
class SpokenValue:
    kind: str  # "amount" | "number" | "date" | "time" | "identifier"
    value: Any
    text: str
    start: int
    end: int
    unit: str | None = None
    currency: str | None = None


_NUM = re.compile(
    r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?"
)
_ORD = re.compile(r"(?:st|nd|rd|th)(?![^\W\d_])", re.I)
_PRE = (
    ("iso", re.compile(r"(?<![\d.])(\d{4})-(\d{1,2})-(\d{1,2})(?![\d-])")),
    ("dmy", re.compile(r"(?<![\d/.,-])(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/-]|\.\d)")),
    (
        "phone",
        re.compile(
            r"\+\d{1,3}[\s-]?\(?\d{1,5}\)?(?:[\s-]?\d{2,5}){1,4}(?!\d)"
            r"|(?<!\d)\(\d{2,5}\)\s?\d{3,4}[\s-]?\d{3,4}(?!\d)"
            r"|(?<![\d,.])\d{3}-\d{3}-\d{4}(?!\d)|(?<![\d,.])0\d{2,4}-\d{6,8}(?!\d)"
        ),
    ),
    (
        "time",
        re.compile(
            r"(?<![\d:.])(\d{1,2}):(\d{2})(?:\s?([ap])\.?\s?m\b\.?)?(?![\d:])"
            r"|(?<![\d.,])(\d{1,2})\s?([ap])\.?m\b\.?",
            re.I,
        ),
    ),
    (
        "postcode",
        re.compile(r"(?<![A-Za-z0-9])([A-Za-z]{1,2}\d[A-Za-z\d]?) ?(\d[A-Za-z]{2})(?![A-Za-z0-9])"),
    ),
    (
        "alnum",
        re.compile(
            r"(?<![A-Za-z0-9-])(?=[A-Za-z-]*\d)(?=[0-9-]*[A-Za-z])"
            r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?![A-Za-z0-9-])"
        ),
    ),
)
"""`alnum` matches only words that hold a digit and a letter (the two look-aheads, which read no
further than the word): an identifier needs both, and every other word was a call into Python."""
_DIGIT = re.compile(r"\d")
_NOT_ID = re.compile(
    r"^\d+(?:st|nd|rd|th|am|pm|s|k|x|kg|g|km|m|ml|l|hrs?|h|mins?|yrs?|mo|mb|gb|p)$"
    r"|^(?:rs|inr|usd|gbp|eur)\d",
    re.I,
)


def _shadow(text: str) -> str:
    """The text with every native-script digit (१, ૧, ...) replaced by its ASCII digit, offsets
    unchanged.

    One translation in C, with a table of the text's own distinct characters: a Python step per
    character cost more than all the rest of reading a reply."""
    if text.isascii():
        return text
    table = {
        ord(c): str(unicodedata.digit(c))
        for c in set(text)
        if not c.isascii() and unicodedata.category(c) == "Nd"
    }
    return text.translate(table) if table else text


_CLASS_MEMO: dict[str, str] = {}
"""character -> its class for `_classes` (' ' space, '0' ASCII digit, 'w' word, 'x' other); bounded
by MAX_CLASS_MEMO, as a hostile text may hold any number of distinct characters"""
MAX_CLASS_MEMO = 4096


def _char_class(c: str) -> str:
    if c.isspace():
        return " "
    if "0" <= c <= "9":
        return "0"
    if unicodedata.category(c)[0] in "LM" or c in "\u200c\u200d":
        return "w"
    return "x"


def _classes(s: str) -> str:
    """`s` with each character replaced by its class (`_char_class`), offsets unchanged: the
    tokeniser reads runs of a class with a regex instead of testing every character in Python."""
    memo, table = _CLASS_MEMO, {}
    for c in set(s):
        cls = memo.get(c)
        if cls is None:
            cls = _char_class(c)
            if len(memo) < MAX_CLASS_MEMO:
                memo[c] = cls
        table[ord(c)] = cls
    return s.translate(table)


_NEXT_TOKEN = re.compile(r"w+|[^ ]")
"""In the class string: the next token's start (a word is a run of word characters)."""


def _norm_id(s: str) -> str:
    return re.sub(r"[^0-9A-Z]", "", _shadow(str(s)).upper())


@dataclass(slots=True)
class _Tok:
    start: int
    end: int
    kind: str  # num | word | punct | sym | block | end
    k: str  # lookup key for words, digits for numerals, the character for punct and symbols
    gap: str  # the original text between the previous token and this one
    ordinal: bool = False
    plain: bool = True  # a numeral without grouping commas or a decimal point
    value: SpokenValue | None = None


def _at(text: str, kind: str, value: Any, a: int, b: int) -> SpokenValue:
    return SpokenValue(kind, value, text[a:b], a, b)


def prepass(text: str, shadow: str, today: date) -> list[SpokenValue]:
    """The structured forms of `text` (read in `shadow`, its ASCII-digit copy), left to right.

    The patterns are tried in the order of `_PRE`, and a match overlapping a form already read is
    dropped: a date is read before a phone number can take its digits."""
    found: list[SpokenValue] = []
    if not _DIGIT.search(shadow):
        return found  # every form holds a digit; most replies say their numbers in words
    starts: list[int] = []  # of `found`, kept sorted (spans never overlap): a match in log time
    for name, rx in _PRE:
        for m in rx.finditer(shadow):
            i = bisect.bisect_left(starts, m.end())
            if (i == 0 or found[i - 1].end <= m.start()) and (
                v := _structured(name, m, text, today)
            ) is not None:
                starts.insert(i, v.start)
                found.insert(i, v)
    return found


def _structured(name: str, m: re.Match, text: str, today: date) -> SpokenValue | None:
    a, b, g, s = m.start(), m.end(), m.groups(), m.group()
    try:
        if name == "iso":
            return _at(text, "date", date(int(g[0]), int(g[1]), int(g[2])), a, b)
        if name == "dmy":
            d, mo, y = int(g[0]), int(g[2]), int(g[3])
            if len(g[3]) != 4:  # "12/05/88"
                y += 2000 if 2000 + y <= today.year + 10 else 1900
            d, mo = (mo, d) if mo > 12 >= d else (d, mo)  # day first unless only month first can be
            return _at(text, "date", date(y, mo, d), a, b)
    except ValueError:
        return None
    if name == "time":
        h, mi, ap = (int(g[0]), int(g[1]), g[2]) if g[0] else (int(g[3]), 0, g[4])
        return clock(text, h, Decimal(mi) / 60, ap, a, b)
    if name == "postcode" and re.fullmatch(r"\d(?:st|nd|rd|th|am|pm)", g[1], re.I):
        return None
    if name == "alnum":
        mixed = [bool(re.search(r"\d", p) and re.search(r"[A-Za-z]", p)) for p in s.split("-")]
        if (
            _NOT_ID.match(s)
            or not re.search(r"\d", s)
            or not re.search(r"[A-Za-z]", s)
            or not any(mixed)
            and not any(p.isalpha() and p.isupper() and len(p) <= 4 for p in s.split("-"))
        ):
            return None  # "3-month" is a number and a unit, "TX-4471" an identifier
    return _at(text, "identifier", _norm_id(s), a, b)


def clock(
    text: str, hour: int | Decimal, frac: Decimal, ampm: str | None, a: int, b: int
) -> SpokenValue | None:
    """The time `text[a:b]` says: `hour` (its fraction counts, "ढाई बजे" is 2:30) plus `frac` of an
    hour, in the afternoon when `ampm` starts with "p"; None for an impossible clock time."""
    h = int(hour)
    minutes = int((Decimal(hour) - h + frac) * 60)
    if ampm and 1 <= h <= 12:
        h = h % 12 + (12 if ampm.lower().startswith("p") else 0)
    elif ampm:
        return None
    return (
        _at(text, "time", time(h, minutes), a, b) if 0 <= h <= 23 and 0 <= minutes <= 59 else None
    )


def tokenise(text: str, shadow: str, blocks: list[SpokenValue]) -> list[_Tok]:
    """The tokens of `text` around the pre-pass's `blocks`, closed by an "end" token (which the
    parser reads at every index past the last token).

    Between two blocks the class string is walked by one `finditer`, not a `search` per token
    (that call was a third of reading a reply): a match is the token the search from the end of
    the previous token would find, unless a numeral or ordinal took its start (skipped) or the
    start of a word run past its own end (the walk restarts there)."""
    s, prev, out = shadow, 0, list[_Tok]()
    classes = _classes(s)
    blocks = sorted(blocks, key=lambda v: v.start)
    append, word_class, symbols = out.append, "w", SYMBOLS
    for nb in range(len(blocks) + 1):
        limit = blocks[nb].start if nb < len(blocks) else len(s)
        walk = _NEXT_TOKEN.finditer(classes, prev, limit)
        while (m := next(walk, None)) is not None:
            a, b = m.span()
            if a < prev:
                if b > prev:  # a word run begun inside the last token: read on from its end
                    walk = _NEXT_TOKEN.finditer(classes, prev, limit)
                continue
            cls = classes[a]
            if cls == word_class:
                tok = _Tok(a, b, "word", key(text[a:b]), text[prev:a])
            elif cls == "0":
                n = _NUM.match(s, a, limit)
                assert n is not None  # a digit starts a numeral
                digits = n.group()
                tok = _Tok(
                    a,
                    n.end(),
                    "num",
                    digits.replace(",", ""),
                    text[prev:a],
                    plain="." not in digits and "," not in digits,
                )
                if tok.plain and (o := _ORD.match(s, n.end(), limit)):
                    tok.end, tok.ordinal = o.end(), True
            else:
                c = s[a]
                tok = _Tok(a, b, "sym" if c in symbols else "punct", c, text[prev:a])
            append(tok)
            prev = tok.end
        if nb < len(blocks):
            v = blocks[nb]
            append(_Tok(v.start, v.end, "block", "", text[prev:limit], value=v))
            prev = v.end
    append(_Tok(len(s), len(s), "end", "", " "))
    return out


MAX_SHARED_TOKENS = 2000
"""Texts up to this length share their tokens (`read_tokens`); a hostile megabyte's pieces are no
longer, so the cache's size bounds its memory."""


def read_tokens(text: str, today: date) -> tuple[str, list[_Tok]]:
    """(shadow, tokens) of `text`. Every setting of a reading (language, money context) starts from
    the same tokens, and the checks of a call read a quarter of its texts under a second setting, so
    a short text's tokens are kept; nothing mutates a token once the tokeniser returns it."""
    if len(text) <= MAX_SHARED_TOKENS:
        return _shared_tokens(text, today)
    return _tokens(text, today)


def _tokens(text: str, today: date) -> tuple[str, list[_Tok]]:
    shadow = _shadow(text)
    return shadow, tokenise(text, shadow, prepass(text, shadow, today))


_shared_tokens = functools.lru_cache(maxsize=128)(_tokens)
"""At most 128 texts of at most MAX_SHARED_TOKENS characters: a call's distinct texts, and a long
text's pieces read under a second money context."""
