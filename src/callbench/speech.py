"""What a person on the phone can follow: sentences, questions and requests, and how long a turn may
run.

Shared by the scripted caller (which answers only what the agent's turn ends by asking) and by the
graders
(which take a spoken value, a refusal or a read-back as evidence only from a turn a person could
follow).
A leaf module: it imports only `text`.
"""

from __future__ import annotations

import re

from .text import find_cue, fold
from .text import word_count as _word_count

SENTENCE_END = re.compile(r"(?<=[.?!।॥？！])\s+|\n+")
ASK_MARKERS = {
    "en": [
        "please",
        "could you",
        "can you",
        "would you",
        "will you",
        "tell me",
        "give me",
        "let me know",
        "may i have",
        "can i have",
        "read me",
        "spell it",
        "i'll need your",
        "i will need your",
        "i need your",
    ],
    "hi": ["कृपया", "बताइए", "बताइये", "बताएं", "बताएँ", "बताओ", "दीजिए", "दीजिये", "बोलिए", "बोलिये"],
    "gu": ["કૃપા કરી", "મહેરબાની", "કહો", "કહેશો", "આપો", "આપશો", "જણાવો", "જણાવશો", "બોલો"],
    "mr": ["कृपया", "सांगा", "सांगाल", "द्या", "द्याल"],
    "ta": ["தயவுசெய்து", "சொல்லுங்கள்", "சொல்லுங்க", "கொடுங்கள்", "கொடுங்க"],
    "bn": ["অনুগ্রহ করে", "দয়া করে", "বলুন", "বলবেন", "দিন", "দেবেন"],
}
"""Request words that make a sentence an ask without a question mark ("Please give me the account
number.").
Questions are recognised by their question mark: a written agent writes one, and a wh-word alone
("What I
can do is...") does not make a question."""

SHORT_TAIL = 4
"""A sentence this short after the ask ("Thanks.", "Take your time.") does not take the end of the
turn from it."""


def word_count(text: str) -> int:
    return _word_count(text)


ABBREVIATIONS = {
    "dr",
    "mr",
    "mrs",
    "ms",
    "st",
    "no",
    "vs",
    "jr",
    "sr",
    "prof",
    "mt",
    "ft",
    "approx",
    "etc",
    "a.m",
    "p.m",
    "e.g",
    "i.e",
    "ave",
    "rd",
    "apt",
    "dept",
}
"""Words whose full stop does not end a sentence ("with Dr. Lindqvist?")."""


def sentences(text: str) -> list[str]:
    parts: list[str] = []
    start = 0
    text = text.strip()
    for m in SENTENCE_END.finditer(text):
        before = text[start : m.start()]
        last = before.rsplit(None, 1)[-1] if before.split() else ""
        if last.endswith(".") and last[:-1].casefold().lstrip("(\"'") in ABBREVIATIONS:
            continue  # an abbreviation, not the end of the sentence
        parts.append(before)
        start = m.end()
    parts.append(text[start:])
    return [p.strip() for p in parts if p and p.strip()]


def is_ask(sentence: str, language: str) -> bool:
    """A question (ends with a question mark) or a request (opens with or holds a request word)."""
    plain = sentence.strip().rstrip("\"'”’)»").strip()
    if plain.endswith(("?", "？")):
        return True
    markers = ASK_MARKERS.get(language.split("-")[0].lower(), []) + ["please"]
    return any(find_cue(m, plain) for m in markers)


def closing_ask(turn: str, language: str) -> str | None:
    """The question or request that ends a turn: its last sentence, or the one before a short
    courtesy."""
    parts = sentences(turn)
    if not parts:
        return None
    if is_ask(parts[-1], language):
        return parts[-1]
    if len(parts) >= 2 and word_count(parts[-1]) <= SHORT_TAIL and is_ask(parts[-2], language):
        return parts[-2]
    return None


FIGURE = re.compile(r"\d+(?:[.,:/-]\d+)*")
"""A figure written in digits: 249.99, 02:07, 2026-11-24 and 6023 are one each."""


def figure_count(text: str) -> int:
    return sum(1 for _ in FIGURE.finditer(text))


def followable(turn: str, limit: int, figures: int | None = None) -> bool:
    """No longer than `limit` words and, when `figures` is given, holding no more than that many
    figures: a person follows a few amounts read out, not a dump of every value a tool returned."""
    return followable_size((word_count(turn), figure_count(turn)), limit, figures)


def followable_size(size: tuple[int, int], limit: int, figures: int | None = None) -> bool:
    """`followable` for a turn measured already as (words, figures): the caller measures what the
    agent said, which through a recogniser is not the text it heard."""
    return size[0] <= limit and (figures is None or size[1] <= figures)


def same_sentence(text: str, first: list[str], second: list[str]) -> str | None:
    """The first sentence holding a word from each list (cues start words, case-folded), or None."""
    for s in sentences(text):
        if any(find_cue(a, s) for a in first) and any(find_cue(b, s) for b in second):
            return s
    return None


__all__ = [
    "ASK_MARKERS",
    "closing_ask",
    "figure_count",
    "fold",
    "followable",
    "followable_size",
    "is_ask",
    "same_sentence",
    "sentences",
    "word_count",
]
