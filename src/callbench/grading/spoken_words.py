"""The spoken-value parser's lookups, compiled from the language tables (`spoken_langs`), and
number words' inverse.

Each language is a `LanguageTable` in `spoken_langs` (Hindi and Gujarati give every number from 0
to 99 its own word, and no library we can depend on covers them: num2words has English and Indian
English only, text2num no Indian language). Here the tables become what the parser looks up: a
role per number word and language (`NUMBER_WORDS`), and the months, currencies, units and cues of
every language together (a Hindi call names months in English too). Lookups go through `key()`,
which folds the differences writers make freely (nukta, chandrabindu against anusvara, long
against short i/u, Gujarati ળ/લ: each table's `folds`), so one variant entry covers many spellings.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from .spoken_langs import TABLES, LanguageTable, table_for
from .spoken_langs import en as _en
from .spoken_langs import gu as _gu
from .spoken_langs import hi as _hi

_FOLD = str.maketrans(
    {"\u200c": None, "\u200d": None, **{k: v for t in TABLES.values() for k, v in t.folds.items()}}
)


def key(word: str) -> str:
    """The lookup form of a word: spelling differences that never change a number's meaning
    removed. Words of up to MAX_CACHED_KEY characters are cached: the parser looks up every word
    of every reply, and replies repeat words (a hostile reply's long words would only fill it)."""
    return _cached_key(word) if len(word) <= MAX_CACHED_KEY else _key(word)


def _key(word: str) -> str:
    return unicodedata.normalize("NFD", word).casefold().translate(_FOLD)


MAX_CACHED_KEY = 40
_cached_key = functools.lru_cache(maxsize=8192)(_key)

# the tables under their old names, for the tests and tools that read them
EN_SMALL, EN_TENS, EN_ORDINALS = _en.SMALL, _en.TENS, _en.ORDINALS
HI_0_99, HI_VARIANTS = _hi.ZERO_TO_99, _hi.VARIANTS
GU_0_99, GU_VARIANTS = _gu.ZERO_TO_99, _gu.VARIANTS

# role codes: d digit 0-9, n 10-99, t English tens (takes a unit), s hundred, S thousand and up,
# h hundreds written as one word, f ढाई-style fraction, p साढ़े-style adjustment,
# a English "a", point, oh, rep (double/triple)
Entry = tuple[str, Decimal]


def _ws(words: str | Sequence[str]) -> list[str]:
    """A word field's words: space-separated in a string, or already a sequence."""
    return words.split() if isinstance(words, str) else list(words)


def _roles(t: LanguageTable) -> dict[str, Entry]:
    """One table's number words with their roles, keyed by `key()`."""
    out: dict[str, Entry] = {}
    for w, n in t.numbers.items():
        out[key(w)] = ("d" if n < 10 else "n", Decimal(n))
    for role, table in (
        ("t", t.tens),
        ("s", t.hundreds),
        ("h", t.fused_hundreds),
        ("S", t.scales),
        ("f", t.fractions),
        ("p", t.adjusters),
        ("rep", t.repeat_words),
    ):
        out.update({key(w): (role, Decimal(v)) for w, v in table.items()})
    for role, table in (("h", t.fused_hundreds), ("S", t.scales)):
        # "હજારનો", "लाखाचा": a scale carrying its case ending (not the bare hundred: "સોનો" is
        # "of gold"), never over a word of its own
        for w, v in table.items():
            for e in t.case_endings if not w.isascii() else ():
                out.setdefault(key(w + e), (role, Decimal(v)))
    out.update({key(w): ("point", Decimal(0)) for w in _ws(t.point_words)})
    out.update({key(w): e for w, e in t.other_roles.items()})
    return out


def _fused(t: LanguageTable) -> dict[str, Entry]:
    """Adjusters written onto the number they adjust, as Marathi (and sometimes Gujarati and Hindi)
    writers do: "साडेतीन" is 3.5 and "साडेतीनशे" 350."""
    out: dict[str, Entry] = {}
    if not t.adjusters or t.code.isascii() and all(w.isascii() for w in t.adjusters):
        return out
    for a, adj in t.adjusters.items():
        for w, n in t.numbers.items():
            if 0 < n < 100:
                out[key(a + w)] = ("f", Decimal(n) + adj)
        for w, n in t.fused_hundreds.items():
            out[key(a + w)] = ("h", Decimal(n) + adj * 100)
    return out


def _reading(t: LanguageTable) -> dict[str, Entry]:
    """The number words read in a call in `t`'s language: its own, over those of the tables it
    reads too (English inside a Hindi call)."""
    out: dict[str, Entry] = {}
    for code in t.reads_also:
        out.update(_roles(TABLES[code]))
    out.update(_fused(t))
    out.update(_roles(t))
    return out


NUMBER_WORDS: dict[str, dict[str, Entry]] = {code: _reading(t) for code, t in TABLES.items()}
"""table code -> {key: (role, value)}; `number_roles` finds the table for any language code"""


FOREIGN_NUMBERS = frozenset(k for words in NUMBER_WORDS.values() for k in words)
"""every number word of every table: one a call's language does not read is still a number"""
LINKS = {key(w) for w in "की के का ki ke ka મહિનાની மாதம் মাসের".split()}
"""links between a month and its day: "मार्च की 23 तारीख", "ડિસેમ્બર મહિનાની ૧૦ તારીખે",
"டிசம்பர் மாதம் 20ஆம் தேதி", "নভেম্বর মাসের ২৫ তারিখে" (read only before a day word)"""


def number_roles(language: str) -> Mapping[str, Entry]:
    """The number words (with roles) read in a call in `language`; empty when no table reads it."""
    t = table_for(language)
    return NUMBER_WORDS[t.code] if t is not None else {}


COMPOUNDS: dict[str, dict[str, tuple[str, ...]]] = {
    code: {key(w): tuple(key(p) for p in ps) for w, ps in t.compounds.items()}
    for code, t in TABLES.items()
}
"""table code -> {key: the keys of the words it is written for} (`LanguageTable.compounds`)"""


def compounds_for(language: str) -> Mapping[str, tuple[str, ...]]:
    """The words of `language` read as several words (Tamil fused thousands, Bengali
    classifiers)."""
    t = table_for(language)
    return COMPOUNDS[t.code] if t is not None else {}


def _all(field: str) -> set[str]:
    """The keys of one space-separated word field over every table."""
    return {key(w) for t in TABLES.values() for w in _ws(getattr(t, field))}


def _inflected(t: LanguageTable, ws: Iterable[str]) -> dict[str, str]:
    """key of each word, and of each word with each of `t`'s case endings -> the word itself."""
    out = {key(w): w for w in ws}
    for w in ws:
        if not w.isascii():
            out.update({key(w + e): w for e in t.case_endings if key(w + e) not in out})
    return out


def _merged(field: str) -> dict:
    """One {word: meaning} field over every table, keyed by `key()`, case endings included."""
    out: dict = {}
    for t in TABLES.values():
        table = getattr(t, field)
        out.update({k: table[w] for k, w in _inflected(t, list(table)).items()})
    return out


def _set(ws: Iterable[str]) -> set[str]:
    return {key(w) for w in ws}


MONTHS: dict[str, int] = _merged("months")
"""every table's month names (a Hindi call names months in English too), case endings included"""


@dataclass(frozen=True)
class Lexicon:
    """What the parser reads in one language, compiled from its table and the tables it reads
    too: `spoken_parser` looks words up here."""

    words: Mapping[str, Entry]
    weak: frozenset[str]
    months: Mapping[str, int]
    ordinals: Mapping[str, int]
    day_words: frozenset[str]
    numeral_suffixes: frozenset[str]
    genitive: tuple[str, ...]
    every: frozenset[str]
    next: frozenset[str]


def _lexicon(t: LanguageTable) -> Lexicon:
    tables = [TABLES[c] for c in t.reads_also] + [t]
    # a function word of this language that is a month elsewhere ("मे", Hindi "in" misspelt, is
    # Marathi May) is no month here; its own months stay ("may")
    stop = {key(w) for w in _ws(t.stop_words)} - {key(w) for w in t.months}
    ordinals: dict[str, int] = {}
    days: set[str] = set()
    for u in tables:
        ordinals.update({key(w): n for w, n in u.ordinals.items()})
        days |= set(_inflected(u, _ws(u.day_words)))
    return Lexicon(
        words=NUMBER_WORDS[t.code],
        weak=frozenset(key(w) for u in tables for w in _ws(u.weak)),
        months={k: m for k, m in MONTHS.items() if k not in stop},
        ordinals=ordinals,
        day_words=frozenset(days),
        numeral_suffixes=frozenset(key(s) for u in tables for s in u.numeral_suffixes),
        genitive=tuple(key(e) for u in tables for e in _ws(u.genitive_endings)),
        every=frozenset(_inflected(t, [w for u in tables for w in _ws(u.every_words)])),
        next=frozenset(key(w) for u in tables for w in _ws(u.next_words)),
    )


LEXICONS: dict[str, Lexicon] = {code: _lexicon(t) for code, t in TABLES.items()}
_NO_LEXICON = Lexicon(
    words={},
    weak=frozenset(),
    months=MONTHS,
    ordinals=dict(_en.ORDINALS),
    day_words=frozenset(),
    numeral_suffixes=frozenset(),
    genitive=(),
    every=frozenset(),
    next=frozenset(),
)


def lexicon(language: str) -> Lexicon:
    """The parser's lookups for a language code; a language without a table reads no number
    words (suite validation refuses spoken checks in such a language)."""
    t = table_for(language)
    return LEXICONS[t.code] if t is not None else _NO_LEXICON


# -- the words around numbers: currencies, units, identifier cues (keys, as `key()` gives them),
# of every language together
SYMBOLS = {"$": "USD", "₹": "INR", "£": "GBP", "€": "EUR"}
PREFIX: dict[str, str] = _merged("currency_prefix")
MAJOR: dict[str, str] = _merged("currency_major")
MINOR: dict[str, str] = _merged("currency_minor")
AND = _all("and_words")
TIME_WORDS = _all("time_words")
UNIT_WORDS: dict[str, str] = _merged("units")
"""Indian-language unit nouns, matched as word starts: "हपतામાં" carries its postposition"""
PM_CUES = _all("pm_cues")
NIGHT_CUES = _all("night_cues")
STOP = _all("stop_words")
ADJ = _set(
    (
        "more remaining monthly weekly equal further additional extra full total consecutive "
        "separate outstanding missed overdue pending due previous last next whole straight "
        "calendar working business"
    ).split()
)
ID_CUES = _all("id_cues")
STRONG_CUES = _all("strong_cues")
ID_FILLERS = _all("id_fillers") | {"#", ":", "."}
IS = _all("is_words")
YEAR_CUES = _all("year_cues")


UNIT_SYNONYMS = {
    "instalment": "payment",
    "installment": "payment",
    "emi": "payment",
    "liter": "litre",
    "mo": "month",
    "yr": "year",
    "hr": "hour",
    "min": "minute",
    "%": "percent",
}


def unit_class(unit: str) -> str:
    """What a unit means, for comparing: singular, and instalments/EMIs are payments (but never
    months)."""
    u = unit.casefold().strip()
    if len(u) > 3 and u.endswith("s") and not u.endswith("ss"):
        u = u[:-1]
    return UNIT_SYNONYMS.get(u, u)


def number_words(n: int, language: str) -> str:
    """A whole number as a speaker of `language` would say it: Indian languages (and "en-IN")
    group by hundred, thousand, lakh and crore; English by thousand, million, billion."""
    if n < 0:
        raise ValueError("negative numbers are not spoken by this table")
    lang = language.replace("_", "-").lower()
    if lang in ("en", "en-in") or lang.startswith("en-"):
        return _en_words(n, indian=lang == "en-in")
    t = table_for(language)
    if t is None or not t.canonical:
        raise ValueError(f"no number words for language {language!r}")
    scale = {v: w for w, v in t.scales.items()}
    hundred = next(iter(t.hundreds), None)
    if hundred is None or any(s not in scale for s in (10**3, 10**5, 10**7)):
        raise ValueError(f"no number words for language {language!r}")
    return _indic_words(n, t.canonical, (hundred, scale[10**3], scale[10**5], scale[10**7]))


def _indic_words(n: int, table: Sequence[str], names: tuple[str, str, str, str]) -> str:
    if n < 100:
        return table[n]
    for size, name in ((10**7, names[3]), (10**5, names[2]), (10**3, names[1]), (100, names[0])):
        if n >= size:
            q, r = divmod(n, size)
            head = f"{table[q] if size == 100 else _indic_words(q, table, names)} {name}"
            return head + (f" {_indic_words(r, table, names)}" if r else "")
    raise AssertionError(n)


def _en_words(n: int, indian: bool) -> str:
    if n < 20:
        return EN_SMALL[n]
    if n < 100:
        t, u = divmod(n, 10)
        return EN_TENS[t] + (f"-{EN_SMALL[u]}" if u else "")
    scales = (
        ((10**7, "crore"), (10**5, "lakh"), (10**3, "thousand"))
        if indian
        else ((10**9, "billion"), (10**6, "million"), (10**3, "thousand"))
    )
    for size, name in scales + ((100, "hundred"),):
        if n >= size:
            q, r = divmod(n, size)
            return f"{_en_words(q, indian)} {name}" + (f" {_en_words(r, indian)}" if r else "")
    raise AssertionError(n)


@functools.lru_cache(maxsize=4096)
def numeric_looking(language: str, word_key: str) -> bool:
    """Whether a word this language's table does not read looks like one of its number words:
    within one edit of a number word (two for longer words), or a number word with something
    written onto it. Such a word before a scale may be an unlisted spelling of the multiplier
    (अढ़ाई for ढाई, எம்பத்தி for எண்பத்தி), so the scale is not read alone after it; any other word
    (தொகை "the amount", பணம் "money") leaves a bare scale to mean one of it."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import extractOne

    numbers = _number_keys(language)
    if not numbers:
        return True
    limit = 1 if len(word_key) <= 5 else 2
    if extractOne(word_key, numbers, scorer=Levenshtein.distance, score_cutoff=limit):
        return True
    return any(len(w) >= 3 and word_key.startswith(w) for w in numbers)


@functools.lru_cache(maxsize=64)
def _number_keys(language: str) -> tuple[str, ...]:
    return tuple(k for k in lexicon(language).words if not k.isascii() and len(k) >= 2)
