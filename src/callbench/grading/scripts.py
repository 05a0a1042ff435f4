"""Languages and their scripts, and the language detector setting, for the conversation checks.

Which Unicode scripts a reply in each language may be written in (`LANGUAGE_SCRIPTS`), the share of
a reply's letters in them (`script_share`), and the optional detector that tells apart languages
sharing a script (`language_detector`: "script" or "lingua"). The rules and why are in the doc of
`callbench.grading.conversation_checks`.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, Literal, get_args

from ..errors import CallbenchError
from ..text import is_word_char

# --- languages and scripts
# -------------------------------------------------------------------------

LANGUAGE_SCRIPTS: dict[str, frozenset[str]] = {
    **{
        code: frozenset({"LATIN"})
        for code in (
            "en",
            "fr",
            "de",
            "es",
            "it",
            "pt",
            "nl",
            "sv",
            "da",
            "no",
            "nb",
            "nn",
            "fi",
            "pl",
            "cs",
            "sk",
            "ro",
            "hu",
            "tr",
            "id",
            "ms",
            "vi",
            "sw",
            "tl",
            "fil",
            "ca",
            "eu",
            "gl",
            "ga",
            "cy",
            "et",
            "lv",
            "lt",
            "sl",
            "hr",
            "sq",
            "af",
            "zu",
            "xh",
            "yo",
            "ig",
            "ha",
            "so",
            "uz",
            "az",
            "mt",
            "is",
        )
    },
    "hi": frozenset({"DEVANAGARI"}),
    "mr": frozenset({"DEVANAGARI"}),
    "ne": frozenset({"DEVANAGARI"}),
    "sa": frozenset({"DEVANAGARI"}),
    "kok": frozenset({"DEVANAGARI"}),
    "mai": frozenset({"DEVANAGARI"}),
    "gu": frozenset({"GUJARATI"}),
    "ta": frozenset({"TAMIL"}),
    "bn": frozenset({"BENGALI"}),
    "as": frozenset({"BENGALI"}),
    "te": frozenset({"TELUGU"}),
    "kn": frozenset({"KANNADA"}),
    "ml": frozenset({"MALAYALAM"}),
    "pa": frozenset({"GURMUKHI"}),
    "or": frozenset({"ORIYA"}),
    "si": frozenset({"SINHALA"}),
    "ur": frozenset({"ARABIC"}),
    "ar": frozenset({"ARABIC"}),
    "fa": frozenset({"ARABIC"}),
    "he": frozenset({"HEBREW"}),
    "ru": frozenset({"CYRILLIC"}),
    "uk": frozenset({"CYRILLIC"}),
    "bg": frozenset({"CYRILLIC"}),
    "el": frozenset({"GREEK"}),
    "th": frozenset({"THAI"}),
    "ka": frozenset({"GEORGIAN"}),
    "hy": frozenset({"ARMENIAN"}),
    "ko": frozenset({"HANGUL"}),
    "zh": frozenset({"CJK"}),
    "ja": frozenset({"HIRAGANA", "KATAKANA", "CJK"}),
}
"""Unicode script names (the first word of `unicodedata.name`) a reply in each language may be
written in."""

SCRIPT_SHARE = 0.6
"""a reply passes `script` when at least this share of its letters (letters and marks) is in the
language's script"""

ACRONYM = re.compile(r"^[A-Z]{2,5}s?$")
"""Latin words ignored inside non-Latin speech: SMS, OTP, UPI, ATM, KYC, PINs — said as letters in
every Indian language"""


def primary_language(language: str) -> str:
    return language.replace("_", "-").split("-")[0].lower()


def char_script(ch: str) -> str | None:
    """The Unicode script of a letter or mark, from its name ('GUJARATI LETTER KA' ->
    'GUJARATI')."""
    name = unicodedata.name(ch, "")
    if not name:
        return None
    first = name.split(" ")[0]
    return None if first in ("COMBINING", "MODIFIER", "ZERO") else first


def _is_letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM"


def script_counts(text: str, ignore_acronyms: bool = False) -> dict[str, int]:
    """Letters and marks per script. Word splitting follows callbench.text: marks stay with their
    letters.

    Every letter or mark belongs to exactly one word, so the letters are counted over the whole text
    at once
    (one pass in C, then one name look-up per distinct character), not word by word in Python; only
    the
    acronyms to ignore are found word by word."""
    if ignore_acronyms:
        kept, at = [], 0
        for start, end in _acronyms(text):
            kept.append(text[at:start])
            at = end
        if kept:
            text = "".join(kept) + text[at:]
    counts: dict[str, int] = {}
    # first-occurrence order, so scripts keep the order words gave them
    for ch, n in Counter(text).items():
        script = _letter_script(ch)
        if script:
            counts[script] = counts.get(script, 0) + n
    return counts


@lru_cache(maxsize=4096)
def _letter_script(ch: str) -> str | None:
    """`char_script` of a letter or mark, None for any other character; cached, as every reply
    asks again about the same few dozen characters."""
    return char_script(ch) if _is_letter(ch) else None


_ACRONYM_RUN = re.compile(r"[A-Z]{2,5}s?")


def _acronyms(text: str) -> list[tuple[int, int]]:
    """Spans of the words (as `callbench.text.words` splits them) that are acronyms (`ACRONYM`)."""
    out = []
    for m in _ACRONYM_RUN.finditer(text):
        start, end = m.span()
        if (start == 0 or not is_word_char(text[start - 1])) and (
            end == len(text) or not is_word_char(text[end])
        ):
            out.append((start, end))
    return out


def script_share(text: str, expected: frozenset[str]) -> tuple[float | None, dict[str, int]]:
    """(share of counted letters in `expected`, counts); share is None when the text has no letters
    to count."""
    counts = script_counts(text, ignore_acronyms="LATIN" not in expected)
    total = sum(counts.values())
    if not total:
        return None, counts
    return sum(n for s, n in counts.items() if s in expected) / total, counts


# --- Hindi vs Marathi: the language detector, an explicit setting
# ---------------------------------------------------

Detector = Callable[[str, Sequence[str]], "tuple[str, float] | None"]
"""(text, candidate ISO 639-1 codes) -> (detected code, confidence 0-1), or None when undecided"""

DETECT_MIN_WORDS = 4
DETECT_MIN_CONFIDENCE = 0.6

LanguageDetector = Literal["script", "lingua"]
LANGUAGE_DETECTORS: tuple[str, ...] = get_args(LanguageDetector)
"""The settings of `ConversationChecks(language_detector=...)`:

``script`` (the default, needs nothing beyond callbench): the script alone decides; languages that
share a script (Hindi and Marathi) are not told apart, and the `script` verdict says so.
``lingua``: lingua-language-detector tells them apart; it is an optional extra, and asking for it
without it installed is an error, never a silent fall-back (scores must not depend on what happens
to be installed)."""

LINGUA_HINT = (
    "language_detector 'lingua' needs the lingua-language-detector package: "
    "pip install 'callbench[lingua]' (or pip install lingua-language-detector), "
    "or use language_detector 'script'"
)


class GradingSetupError(CallbenchError):
    """A grading setting that cannot be honoured here (an unknown setting, a missing extra)."""


@lru_cache(maxsize=16)
def _lingua_detector(codes: tuple[str, ...]) -> Any:
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    languages = [Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in codes]
    return LanguageDetectorBuilder.from_languages(*languages).build()


def lingua_available() -> bool:
    try:
        import lingua  # noqa: F401
    except ImportError:
        return False
    return True


def lingua_detect(text: str, codes: Sequence[str]) -> tuple[str, float] | None:
    """The lingua-language-detector hook (an optional extra, not a dependency of callbench)."""
    from lingua import IsoCode639_1

    usable = tuple(sorted(c for c in codes if hasattr(IsoCode639_1, c.upper())))
    if len(usable) < 2:
        return None
    values = _lingua_detector(usable).compute_language_confidence_values(text)
    if not values:
        return None
    top = values[0]
    return top.language.iso_code_639_1.name.lower(), float(top.value)


def language_detector_function(language_detector: str) -> Detector | None:
    """The detector a setting names (None for "script"); raises GradingSetupError for an unknown
    setting, or for "lingua" when lingua-language-detector is not installed."""
    if language_detector not in LANGUAGE_DETECTORS:
        raise GradingSetupError(
            f"unknown language_detector {language_detector!r}: use one of "
            f"{', '.join(LANGUAGE_DETECTORS)}"
        )
    if language_detector == "script":
        return None
    if not lingua_available():
        raise GradingSetupError(LINGUA_HINT)
    return lingua_detect
