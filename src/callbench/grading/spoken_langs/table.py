"""One language's words for the spoken-value parser, as data: `LanguageTable`.

A language is a table, not parser code: the parser (`spoken_parser`) reads number words through
the roles these fields give them (a word for 0-99, a tens word that takes a unit, "hundred", a
scale such as lakh, a fraction such as ढाई, an adjustment such as साढ़े) and reads months,
currencies, units and identifier cues from the sets here. Words are written as people write them;
`spoken_words.key()` folds the spelling differences that never change a meaning (nukta,
chandrabindu, long and short vowels, per-table `folds`) when the tables are compiled, so one entry
covers many spellings.

Kept apart from the parser so that a language can be added (a module beside this one, registered
in `spoken_langs.TABLES`) without touching the engine, and so that suite validation can say which
languages have tables at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType


def _frozen(m: Mapping | None = None) -> Mapping:
    return MappingProxyType(dict(m or {}))


@dataclass(frozen=True)
class LanguageTable:
    """Everything the parser needs to know about one language (or script of a language).

    Every mapping is from the written word (any spelling, folded on compilation) to what it means.
    Words of several kinds are space-separated strings where a field says "words"."""

    code: str
    """BCP 47 code the table answers to: "en", "hi", "hi-Latn", "gu", "mr", ..."""
    name: str
    numbers: Mapping[str, int] = field(default_factory=_frozen)
    """every word for a number 0-99 (canonical spellings and variants): "पैंतालीस" -> 45"""
    canonical: Sequence[str] = ()
    """the canonical words for 0-99 in order, for the number-words generator (empty: none)"""
    tens: Mapping[str, int] = field(default_factory=_frozen)
    """tens words a unit word may follow to make one number ("twenty" "one"): English-style"""
    hundreds: Mapping[str, int] = field(default_factory=_frozen)
    """words for a multiple of 100 a number word may precede ("hundred", "सौ", "शे": 100)"""
    fused_hundreds: Mapping[str, int] = field(default_factory=_frozen)
    """hundreds written as one word: "ત્રણસો" -> 300, "दोनशे" -> 200, "शंभर" -> 100"""
    scales: Mapping[str, int] = field(default_factory=_frozen)
    """thousand and up: "हज़ार" -> 1000, "लाख" -> 100000, "करोड़" -> 10**7"""
    fractions: Mapping[str, Decimal] = field(default_factory=_frozen)
    """numbers that are a fraction by themselves and may precede a scale: "ढाई" -> 2.5"""
    adjusters: Mapping[str, Decimal] = field(default_factory=_frozen)
    """words before a number that add to it: "साढ़े" -> +0.5, "सवा" -> +0.25, "पौने" -> -0.25"""
    ordinals: Mapping[str, int] = field(default_factory=_frozen)
    """day ordinals said as words: "third" -> 3, "पहली" -> 1 (English compounds come from tens)"""
    numeral_suffixes: Sequence[str] = ()
    """what follows digits to make them an ordinal ("st nd rd th", "वीं", "મી")"""
    day_words: str = ""
    """words after a day number that make it a day of the month: "२३ तारीख" (the next 23rd when no
    month is said), "मार्च की 23 तारीख" """
    weak: str = ""
    """number words that are also common words ("do", "saath", "teen"): read as a number only
    before another number word, a scale, a currency or a unit word ("do sau", "do din")"""
    months: Mapping[str, int] = field(default_factory=_frozen)
    """month names and abbreviations -> 1-12"""
    currency_prefix: Mapping[str, str] = field(default_factory=_frozen)
    """words written before an amount ("rs", "रु") -> ISO code"""
    currency_major: Mapping[str, str] = field(default_factory=_frozen)
    """"rupees", "रुपये" -> "INR" """
    currency_minor: Mapping[str, str] = field(default_factory=_frozen)
    """"paise", "cents" -> ISO code of the major unit"""
    units: Mapping[str, str] = field(default_factory=_frozen)
    """unit nouns -> unit name ("महीने" -> "month"), matched as word starts in Indic scripts"""
    case_endings: Sequence[str] = ()
    """endings written onto a month, currency or unit word ("ની", "ला", "चा"): "રૂપિયાની" is
    "રૂપિયા" + "ની". Only listed endings are stripped, longest first, from a word that is no entry
    itself."""
    every_words: str = ""
    """"each", "every", "हर", "दर": before a day of the month ("हर महीने की 10 तारीख") they make it
    a day every month (a number), not one date"""
    next_words: str = ""
    """"next", "अगले": with the word for month before a day of the month, next month's day"""
    genitive_endings: str = ""
    """endings that make a number word a possessor ("हजारांचा", "હજારનો"): the noun after it is
    what the amount is of, not its unit ("दहा हजारांचा हप्ता" is an instalment of 10,000)"""
    and_words: str = ""
    """words for "and" between parts of a number or an amount and its minor unit"""
    point_words: str = ""
    """the decimal point: "point", "दशमलव" """
    repeat_words: Mapping[str, int] = field(default_factory=_frozen)
    """"double" -> 2, "triple" -> 3 (before a digit read out in an identifier)"""
    time_words: str = ""
    """words after an hour that make it a clock time: "am pm", "बजे", "વાગ્યે" """
    pm_cues: str = ""
    """words before a clock time that put it in the afternoon or evening: "शाम" """
    night_cues: str = ""
    """words before a clock time that put 6 to 11 in the evening and 12 to 5 in the small hours:
    "রাত আটটায়" is 20:00, "রাত বারোটায়" 00:00 (a PM cue would make 2 at night 14:00)"""
    id_cues: str = ""
    """words that announce an identifier: "account", "नंबर" """
    strong_cues: str = ""
    """cues after which even "is" and fillers may stand before the digits: "pin", "otp" """
    id_fillers: str = ""
    """words between a cue and the digits: "number", "code" """
    is_words: str = ""
    year_cues: str = ""
    """words before a four-digit number that make it a year: "in", "सन्" """
    stop_words: str = ""
    """function words that are never a unit ("के", "of")"""
    folds: Mapping[str, str | None] = field(default_factory=_frozen)
    """characters folded (or, to None, dropped) in lookups, for spellings writers vary freely"""
    other_roles: Mapping[str, tuple[str, Decimal]] = field(default_factory=_frozen)
    """raw parser roles for words no field above describes (English "a", "oh")"""
    compounds: Mapping[str, tuple[str, ...]] = field(default_factory=_frozen)
    """words that are several words written as one, read as those words in a row (each span the
    whole word): Tamil "இருபத்தைந்தாயிரம்" -> ("இருபத்தைந்து", "ஆயிரம்"), Bengali "পাঁচটায়" (at
    five o'clock) -> ("পাঁচ", "টায়"). For fusions a list of entries cannot cover."""
    reads_also: Sequence[str] = ("en",)
    """codes of tables whose number words are read too (English words inside a Hindi call)"""


def zero_to_99(
    canonical: Sequence[str], variants: Mapping[int, str] | None = None
) -> dict[str, int]:
    """`numbers` for a language with a word for each of 0-99: the canonical list (100 words, in
    order) and extra spellings per number (space-separated)."""
    if len(canonical) != 100:
        raise ValueError(f"a 0-99 table has 100 words, not {len(canonical)}")
    out = {w: n for n, w in enumerate(canonical)}
    for n, ws in (variants or {}).items():
        out.update({w: n for w in ws.split()})
    return out


def words(spec: Mapping[str, str]) -> dict[str, str]:
    """{meaning: "space separated words"} -> {word: meaning}, for months' and currencies' tables."""
    return {w: meaning for meaning, ws in spec.items() for w in ws.split()}


def month_words(*names: str) -> dict[str, int]:
    """Twelve space-separated spellings lists, January first -> {word: month}."""
    if len(names) != 12:
        raise ValueError("twelve months")
    return {w: i for i, ns in enumerate(names, start=1) for w in ns.split()}
