"""Word and character error rates of a recognised turn against the words the speaker intended.

Both sides are normalised the same way before they are compared, so that only what a listener
would call a mishearing counts: case-folded (NFC), punctuation dropped (words are runs of letters,
marks and digits in any script, `callbench.text.words`), native digits (४७२, ৪৭২, ...) read as
ASCII, and numbers spoken in words turned into digits — "four seven two", "472" and "four hundred
seventy-two" all become the digits 4 7 2. Every digit is one token, so a phone number misheard in
one digit costs one error, not the whole number.

The number reader here is deliberately small (digit words, English compounds, the Indic scale
words): grading's spoken-value reader (grading/spoken.py) is a layer above `call` and cannot be
imported from it. A number the small reader cannot read stays words on both sides, which is still
a fair comparison when the recogniser writes it the same way; when one side has digits and the
other an unread word form it counts as an error.

Character error rate is for scripts where a recogniser's word boundaries are unreliable (Tamil's
agglutinated words, Indic compounds written joined or apart): spaces are dropped and the
normalised texts are compared character by character.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ...text import fold, words

UNITS: dict[str, dict[str, int]] = {
    "en": {
        "zero": 0,
        "oh": 0,
        "one": 1,
        "two": 2,
        "three": 3,
        "four": 4,
        "five": 5,
        "six": 6,
        "seven": 7,
        "eight": 8,
        "nine": 9,
        "ten": 10,
        "eleven": 11,
        "twelve": 12,
        "thirteen": 13,
        "fourteen": 14,
        "fifteen": 15,
        "sixteen": 16,
        "seventeen": 17,
        "eighteen": 18,
        "nineteen": 19,
        "twenty": 20,
        "thirty": 30,
        "forty": 40,
        "fifty": 50,
        "sixty": 60,
        "seventy": 70,
        "eighty": 80,
        "ninety": 90,
    },
    "hi": {
        "शून्य": 0,
        "एक": 1,
        "दो": 2,
        "तीन": 3,
        "चार": 4,
        "पांच": 5,
        "पाँच": 5,
        "छह": 6,
        "छः": 6,
        "छे": 6,
        "सात": 7,
        "आठ": 8,
        "नौ": 9,
        "दस": 10,
    },
    "mr": {
        "शून्य": 0,
        "एक": 1,
        "दोन": 2,
        "तीन": 3,
        "चार": 4,
        "पाच": 5,
        "सहा": 6,
        "सात": 7,
        "आठ": 8,
        "नऊ": 9,
        "दहा": 10,
    },
    "gu": {
        "શૂન્ય": 0,
        "એક": 1,
        "બે": 2,
        "ત્રણ": 3,
        "ચાર": 4,
        "પાંચ": 5,
        "છ": 6,
        "સાત": 7,
        "આઠ": 8,
        "નવ": 9,
        "દસ": 10,
    },
    "bn": {
        "শূন্য": 0,
        "এক": 1,
        "দুই": 2,
        "তিন": 3,
        "চার": 4,
        "পাঁচ": 5,
        "ছয়": 6,
        "সাত": 7,
        "আট": 8,
        "নয়": 9,
        "দশ": 10,
    },
    "ta": {
        "பூஜ்ஜியம்": 0,
        "சுழியம்": 0,
        "ஒன்று": 1,
        "ஒண்ணு": 1,
        "இரண்டு": 2,
        "ரெண்டு": 2,
        "மூன்று": 3,
        "நான்கு": 4,
        "ஐந்து": 5,
        "ஆறு": 6,
        "ஏழு": 7,
        "எட்டு": 8,
        "ஒன்பது": 9,
        "பத்து": 10,
    },
}
"""Number words read as values, per language (units everywhere; English's teens and tens too —
Indic 11-99 are single irregular words, left to grading's full tables)."""

HUNDRED = {"hundred", "सौ", "शंभर", "સો", "শ", "শো", "நூறு"}
SCALES: dict[str, int] = {
    "thousand": 1000,
    "million": 1_000_000,
    "हज़ार": 1000,
    "हजार": 1000,
    "લાખ": 100_000,
    "હજાર": 1000,
    "হাজার": 1000,
    "ஆயிரம்": 1000,
    "लाख": 100_000,
    "লাখ": 100_000,
    "करोड़": 10_000_000,
    "कोटी": 10_000_000,
    "કરોડ": 10_000_000,
    "কোটি": 10_000_000,
}
SCALES = {unicodedata.normalize("NFC", k): v for k, v in SCALES.items()}
HUNDRED = {unicodedata.normalize("NFC", k) for k in HUNDRED}
FILLER = {"and", "a"}
"""Words that may sit inside an English number ("one hundred and two", "a hundred") without
ending it (only when a number word follows)."""


def _units(language: str) -> dict[str, int]:
    table = UNITS.get(language.split("-")[0].lower(), {})
    return {unicodedata.normalize("NFC", k): v for k, v in table.items()}


def _ascii_digits(word: str) -> str:
    """Native decimal digits (Devanagari, Bengali, Gujarati, Tamil, ...) as ASCII."""
    if word.isascii():
        return word
    return "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in word)


class _Reader:
    """Folds a run of number words into digit strings: a new number starts whenever a word cannot
    extend the one being read ("four seven two" -> 4, 7, 2 -> "472"; "twenty twenty six" ->
    "2026"; "four hundred seventy two" -> "472")."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.big = 0
        self.small: int | None = None
        self.free = 0  # how many low digits of `small` may still be filled
        self.scaled = False

    def flush(self) -> None:
        if self.small is not None or self.scaled:
            self.out.append(str(self.big + (self.small or 0)))
        self.big, self.small, self.free, self.scaled = 0, None, 0, False

    def value(self, v: int) -> None:
        width = 1 if v < 10 else 2
        fits = self.free >= width and (self.small is not None or self.scaled) and v > 0
        if not fits:
            self.flush()
            self.small = v
        else:
            self.small = (self.small or 0) + v
        self.free = 1 if v >= 20 and v % 10 == 0 else 0

    def hundred(self) -> None:
        # a hundred multiplies a number ending in a unit or teen ("four hundred", "twelve
        # hundred"), never one already scaled by a hundred
        if self.small is not None and 1 <= self.small <= 99 and self.free == 0:
            self.small *= 100
        else:
            self.flush()
            self.small = 100
        self.free = 2

    def scale(self, n: int) -> None:
        if self.scaled and self.small is None:
            self.flush()
        self.big += (self.small or 1) * n
        self.small, self.scaled = None, True
        self.free = len(str(n)) - 1

    def digits(self) -> str:
        self.flush()
        joined = "".join(self.out)
        self.out = []
        return joined


ORDINALS: dict[str, int] = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}  # fmt: skip
"""English ordinals, read as the number they end ("March twelfth" and "March 12th" are one date
to a listener; "twenty-first" is 21). "second" is a unit of time as often as an ordinal, so it is
read as 2 only after a tens word."""
_ORDINAL_DIGITS = re.compile(r"^(\d+)(?:st|nd|rd|th)$")


def _pieces(text: str, language: str) -> list[tuple[int, int, str, bool]]:
    """(start, end, token, is_number) over the folded text: words, and each number (digits as
    written, or a run of number words read into one digit string) as one piece."""
    units = _units(language)
    english = language.split("-")[0].lower() == "en"
    raw = [(a, b, _ascii_digits(w)) for a, b, w in words(fold(text))]
    out: list[tuple[int, int, str, bool]] = []
    reader = _Reader()
    begun: int | None = None  # where the number being read began
    last_end = 0

    def end_number() -> None:
        nonlocal begun
        if begun is not None:
            out.append((begun, last_end, reader.digits(), True))
            begun = None

    for i, (a, b, word) in enumerate(raw):
        nxt = raw[i + 1][2] if i + 1 < len(raw) else ""
        is_number = word in units or word in HUNDRED or word in SCALES
        ordinal = ORDINALS.get(word) if english else None
        if ordinal == 2 and not (begun is not None and reader.free):
            ordinal = None  # "a second" is time; "twenty-second" is 22
        suffixed = _ORDINAL_DIGITS.match(word) if english else None
        if word.isdigit() or suffixed:
            end_number()
            out.append((a, b, suffixed.group(1) if suffixed else word, True))
        elif ordinal is not None:
            if begun is None:
                begun = a
            reader.value(ordinal)
            last_end = b
            end_number()  # an ordinal ends its number
        elif is_number and not (word == "oh" and begun is None and not _numeric(nxt, units)):
            if begun is None:
                begun = a
            if word in HUNDRED:
                reader.hundred()
            elif word in SCALES:
                reader.scale(SCALES[word])
            else:
                reader.value(units[word])
            last_end = b
        elif word in FILLER and begun is not None and _numeric(nxt, units):
            continue
        elif word == "a" and nxt in HUNDRED | set(SCALES):
            continue  # "a hundred" reads as "one hundred"
        else:
            end_number()
            out.append((a, b, word, False))
    end_number()
    return out


def normalize(text: str, language: str) -> list[str]:
    """The comparison tokens of `text`: folded words, numbers as single-digit tokens."""
    tokens: list[str] = []
    for _, _, token, number in _pieces(text, language):
        if number:
            tokens.extend(token)
        else:
            tokens.append(token)
    return tokens


_JOINS = frozenset(":.-/ ")
_SENTENCE_END = frozenset(".?!।॥？！\n")
_CURRENCY = {"£": "gbp", "$": "usd", "€": "eur", "₹": "inr"}
_SYMBOL_AMOUNT = re.compile(r"([£$€₹])\s?(\d[\d,.]*\d|\d)")
BOUNDARY = "|"
"""Where a sentence ended in the heard form: no cue is found across it."""


def heard_form(text: str, language: str) -> str:
    """`text` as a listener hears it, for finding words in it: folded, punctuation dropped, and
    every number as its digits whichever way it was written — "ten forty", "10:40", "10.40" and
    "10 40" are all "1040", "three thirty" and "3.30" both "330", "March twelfth" "march 12".

    A recogniser writes what it heard in its own style (digits, its own grouping); a listener is
    not misled by the writing. Two numbers are one when a single separator stands between them
    (a time, a grouped identifier) or when both are single digits read one by one ("5, 1, 2, 7");
    otherwise they stay apart ("March 12, 10:40" keeps 12 and 1040). What punctuation still
    means is kept: a sentence end is a `BOUNDARY` no cue spans, and a currency symbol stays with
    its amount ("£4" is "4 gbp", never a bare 4)."""
    text = _SYMBOL_AMOUNT.sub(lambda m: f"{m.group(2)} {_CURRENCY[m.group(1)]}", text)
    folded = fold(text)
    parts: list[str] = []
    previous: tuple[int, str] | None = None  # (end, digits) of the number just written
    last_end = 0
    for start, end, token, number in _pieces(text, language):
        gap = folded[last_end:start]
        last_end = end
        if number and previous is not None:
            single = len(previous[1]) == 1 and len(token) == 1
            if (len(gap) <= 1 and set(gap) <= _JOINS) or (
                single and len(gap) <= 2 and set(gap) <= _JOINS | {","}
            ):
                parts[-1] += token
                previous = (end, token)
                continue
        if parts and _SENTENCE_END & set(gap):
            parts.append(BOUNDARY)
        parts.append(token)
        previous = (end, token) if number else None
    return " ".join(parts)


def _numeric(word: str, units: dict[str, int]) -> bool:
    return word in units or word in HUNDRED or word in SCALES


@dataclass(frozen=True)
class WerResult:
    """An alignment's edit counts; `rate` is their sum over the reference length (a rate above 1
    is possible when the hypothesis adds many words; an empty reference gives 0 for an empty
    hypothesis and 1 otherwise)."""

    substitutions: int
    deletions: int
    insertions: int
    reference_length: int

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def rate(self) -> float:
        if self.reference_length == 0:
            return 0.0 if self.errors == 0 else 1.0
        return self.errors / self.reference_length


def align(reference: Sequence[str], hypothesis: Sequence[str]) -> WerResult:
    """Levenshtein alignment counting substitutions, deletions and insertions (ties prefer a
    substitution, then a deletion: the usual convention of WER tools)."""
    n, m = len(reference), len(hypothesis)
    # each cell: (cost, subs, dels, ins)
    prev = [(j, 0, 0, j) for j in range(m + 1)]
    for i in range(1, n + 1):
        cur = [(i, 0, i, 0)]
        for j in range(1, m + 1):
            if reference[i - 1] == hypothesis[j - 1]:
                cur.append(prev[j - 1])
                continue
            s, d, a = prev[j - 1], prev[j], cur[j - 1]
            options = [
                (s[0] + 1, s[1] + 1, s[2], s[3]),
                (d[0] + 1, d[1], d[2] + 1, d[3]),
                (a[0] + 1, a[1], a[2], a[3] + 1),
            ]
            cur.append(min(options, key=lambda o: o[0]))
        prev = cur
    _, subs, dels, ins = prev[m]
    return WerResult(subs, dels, ins, n)


def word_errors(reference: str, hypothesis: str, language: str) -> WerResult:
    return align(normalize(reference, language), normalize(hypothesis, language))


def word_error_rate(reference: str, hypothesis: str, language: str) -> float:
    """Word-level edit distance over the reference's word count, after normalisation."""
    return word_errors(reference, hypothesis, language).rate


def character_errors(reference: str, hypothesis: str, language: str) -> WerResult:
    ref = "".join(normalize(reference, language))
    hyp = "".join(normalize(hypothesis, language))
    return align(list(ref), list(hyp))


def character_error_rate(reference: str, hypothesis: str, language: str) -> float:
    """Character-level edit distance (spaces and punctuation dropped) over the reference's
    characters, after the same normalisation as the word rate."""
    return character_errors(reference, hypothesis, language).rate
