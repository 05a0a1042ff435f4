"""Script-aware text helpers shared by the scripted caller, the channel and the shortcut baseline.

Python's `\\w` splits Indic words at their vowel signs (combining marks are not
alphanumeric), so words here are runs of letters, marks and digits by Unicode
category.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

_UNSAFE = re.compile(
    "[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufeff]"
)
"""What outside text may not carry into a trace: lone UTF-16 surrogates (half an emoji; no JSON
encoder can
write them out as UTF-8), control characters other than tab and newlines (terminal escapes), and
bidirectional
embeddings, overrides and isolates (text that displays in another order than it reads)."""


def clean(text: str) -> tuple[str, bool]:
    """`text` with every unsafe character replaced by U+FFFD, and whether anything was replaced."""
    cleaned, n = _UNSAFE.subn("\ufffd", text)
    return cleaned, n > 0


def clean_json(value):
    """Every string in a parsed JSON value cleaned (a JSON "\\ud83d" escape decodes to a lone
    surrogate)."""
    if isinstance(value, str):
        return clean(value)[0]
    if isinstance(value, dict):
        return {clean_json(k): clean_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_json(v) for v in value]
    return value


def is_word_char(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LMN"


def fold(text: str) -> str:
    """Normalise for comparison: NFC, then casefold (a no-op for scripts without case)."""
    return unicodedata.normalize("NFC", text).casefold()


def words(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, word) for every run of word characters."""
    start = None
    for i, ch in enumerate(text):
        if is_word_char(ch):
            if start is None:
                start = i
        elif start is not None:
            yield start, i, text[start:i]
            start = None
    if start is not None:
        yield start, len(text), text[start:]


_MARKS = "".join(chr(c) for c in range(0x0300, 0x10000) if unicodedata.category(chr(c))[0] == "M")
_WORD_RUN = re.compile("(?:(?!_)[\\w" + re.escape(_MARKS) + "])+")
"""A run of letters, marks and digits (as `is_word_char` decides), found by the regex engine for
long texts."""


def word_count(text: str) -> int:
    """How many words `words` would yield, without a Python loop over every character."""
    return sum(1 for _ in _WORD_RUN.finditer(text))


def letter_count(word: str) -> int:
    return sum(1 for ch in word if unicodedata.category(ch)[0] in "LM")


_DIGIT_GAP = re.compile(r"(?<=\d)[:.,\s](?=\d)")


def find_cue(cue: str, text: str) -> bool:
    """True when `cue` starts a word in `text` (case- and script-aware; inflected endings
    allowed)."""
    needle, hay = fold(cue).strip(), fold(text)
    if not needle:
        return False
    if any(ch.isdigit() for ch in needle):
        # "10:40" is written 10.40, 10 40 or 1040 by a recogniser: digits are compared as digits
        needle, hay = _DIGIT_GAP.sub("", needle), _DIGIT_GAP.sub("", hay)
    # the matches re.finditer would give (leftmost, non-overlapping), without a regex per call
    at = hay.find(needle)
    while at >= 0:
        if at == 0 or not is_word_char(hay[at - 1]):
            return True
        at = hay.find(needle, at + len(needle))
    return False


def find_span(span: str, text: str) -> tuple[int, int] | None:
    """Position of `span` in `text`, exact first, then ignoring case (NFC both sides)."""
    text_n, span_n = unicodedata.normalize("NFC", text), unicodedata.normalize("NFC", span)
    at = text_n.find(span_n)
    if at >= 0:
        return at, at + len(span_n)
    m = re.search(re.escape(span_n), text_n, flags=re.IGNORECASE)
    return (m.start(), m.end()) if m else None


def script_of(text: str) -> str | None:
    """The Unicode script name of the first letter (LATIN, GUJARATI, DEVANAGARI, ...)."""
    for ch in text:
        if unicodedata.category(ch)[0] == "L":
            name = unicodedata.name(ch, "")
            return name.split(" ")[0] if name else None
    return None


def graphemes(word: str) -> list[str]:
    """Split a word into user-perceived characters: a base letter with its marks, and Indic
    conjuncts
    (consonant + virama + consonant) kept whole, so removing one never leaves a dangling vowel
    sign."""
    clusters: list[str] = []
    for ch in word:
        joins = clusters and (
            unicodedata.category(ch)[0] == "M" or ch == "\u200d" or clusters[-1].endswith(VIRAMAS)
        )
        if joins:
            clusters[-1] += ch
        else:
            clusters.append(ch)
    return clusters


VIRAMAS = tuple(
    ch for ch in map(chr, range(0x0900, 0x0DFF)) if unicodedata.name(ch, "").endswith("SIGN VIRAMA")
)
