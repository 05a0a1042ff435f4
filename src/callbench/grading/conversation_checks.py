"""Deterministic conversation checks: what code can decide about how the agent *spoke*.

Five checks, one verdict each (kind "check", pillar "conversation", weight 1):

``speakable``       (diagnostic speakable_replies) no markdown, bullets, URLs, tables or emoji in
speech
``numbers_spoken``  (diagnostic speakable_replies) no digit strings a text-to-speech voice would
misread
``script``          (diagnostic language_and_script) each reply is in the script of the agent's
language
``tool_speech``     (diagnostic speech_around_tools) no turn runs tools without the agent saying
anything
``goodbye``         (diagnostic closing) the last thing the agent said before the call ended was a
goodbye

Scoring. ``speakable``, ``numbers_spoken`` and ``script`` count violating *messages*;
``tool_speech``
counts violating *turns*: none is met (r=1), exactly one is partial (r=0.5), two or more is not met
(r=0). ``goodbye`` looks at one moment of the call, so it is met or not met, never partial. A check
that found nothing to object to is met (a call without tool calls cannot leave the caller in silence
across one) — with one exception: **a candidate that never spoke fails every check**. Silence is not
speakable, not in any script, leaves the caller in silence and says no goodbye; a check that a
silent
agent could pass would reward doing nothing.

A check is ``not_measured`` (r=None, it enters no sum) only when code genuinely cannot decide: the
agent's language has no known script (``script``) or no known goodbye words (``goodbye``), or the
harness itself cut the call (infrastructure failure; ``goodbye`` only).

Evidence is the trace indices of the violating messages (for ``tool_speech``, the tool-call messages
of
the silent turn); when met, the indices that were checked (at most ``MAX_EVIDENCE``).

The rules, and why
------------------
``speakable`` flags markdown (bold, italics, strikethrough, code, headings, links, quotes, rules),
bullets (a line starting with -, *, +, • …, or a bullet character anywhere), numbered lists (two or
more
lines starting "1." / "2)", or one in a multi-line reply), tables (a line with two pipes, or a
``|---|---|`` rule), URLs, bare web domains and email addresses, emoji, and a run of more than
``MAX_UNBROKEN`` (60) characters without a space. A voice reads markup literally ("asterisk
asterisk") or
silently drops the structure it carried, and a caller can neither click a link nor see a table; no
voice says
a 61-character word (a URL or an address has its own finding instead; Chinese, Japanese, Thai, Lao,
Khmer,
Myanmar and Tibetan, written without spaces, are not held to it).

``numbers_spoken`` flags four formats a text-to-speech voice misreads:
  1. a standalone run of 5+ digits ("9825041736", "EMG-40517", "10000"): voices read a digit string
  as
     one cardinal ("nine hundred eighty-two crore …"), and the caller cannot write it down. Four
     digits
     (years, "1912", "SR-0412") read fine. Numbers grouped by spaces or hyphens pass while every
     group has
     at most 5 digits: Indian mobile numbers are said 5+5 ("98250 41736"). Comma-grouped amounts,
     Western
     or Indian ("10,000", "1,00,000"), pass: voices read them as amounts.
  2. all-numeric dates ("14/11/2026", "2026-11-14"): the day/month order is ambiguous and voices
  read
     them as fractions or digit soup; a person says "the fourteenth of November".
  3. currency codes or abbreviations glued to a number ("Rs. 300", "INR 300", "50 USD"): voices
  spell
     the letters; a person says "three hundred rupees". Currency *symbols* ($ £ € ₹) are not
     flagged:
     current voices normalise them.
  4. digits of a script that is neither ASCII nor the agent language's own (Gujarati digits in a
  Hindi
     reply): no voice for the language reads them.
  Whether the number said was *right* is not this check's business (spoken-value checks decide
  that).
  A reply's long numbers are listed up to ``MAX_NUMBER_FINDINGS`` (then "and more"), each cut to 40
  characters.

Time. A candidate controls what it says, so every check takes time linear in the reply, whatever the
reply
(a megabyte without a space is graded in a fraction of a second; benchmarks/bench_grading.py): no
pattern
rescans a long word from each of its characters, and the two that did (URLs, markdown links) are
scans that
find exactly what those patterns found.

``script`` passes a reply when at least 60% of its letters (letters and combining marks, so Indic
vowel
signs count) are in the script of ``scenario.language`` (``LANGUAGE_SCRIPTS``). In non-Latin speech,
all-capital Latin words of 2-5 letters (SMS, OTP, UPI, KYC) are not counted: they are said as
letters in
every Indian language. Hindi written in Latin letters fails: the reply must be in the language's
script.
Replies without letters (only "1912") are skipped; if no reply has letters, the check fails.
Languages sharing a script (Hindi and Marathi) are
told apart only by a language detector, an explicit setting (``language_detector``: "script", the
default, does not tell them apart; "lingua" uses lingua-language-detector, an optional extra, and
fails loudly when it is not installed — scores never depend on what happens to be installed),
restricted to the suite's own languages that share the script, so it runs only when a suite declares
both; a reply of 4+ words is flagged when the detector names another of those languages with
confidence >= 0.6. The ``script`` verdict names the setting whenever it decided anything.

``tool_speech`` groups candidate messages by ``Message.turn`` (the caller turn they follow) and
flags a
turn with tool calls but no candidate speech anywhere in it, before or after the chain (a
call-ending
tool's concluding message counts as speech). A silent hang-up is a silent turn too.

``goodbye`` takes the last candidate speech at or before ``trace.end.after_message`` (whatever ended
the
call: the agent's end tool, the caller hanging up, the turn limit) and looks for a goodbye word with
``callbench.text.find_cue`` (word-start, case-folded, inflections allowed). The words are the
suite's
``defaults.caller_phrases[lang].goodbye`` — exactly what the scripted caller itself takes as the
agent's
goodbye, so grader and simulator agree — plus a small built-in list per language
(``GOODBYE_WORDS``), so a
suite without phrases for a language is still checked. When the call ended through a hand-off tool
(a name with transfer/handoff/escalate/forward/connect_to), announcing the hand-off ("transferring
you", "stay on the
line": ``HANDOFF_WORDS``) is the right close and counts. Thanks alone is not a goodbye (see
``GOODBYE_WORDS``): "धन्यवाद, नमस्ते" passes on its farewell, "આભાર, મેં નોંધી લીધું છે" does not.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from itertools import islice
from typing import Any, Literal, get_args

from ..call.trace import Message, Trace
from ..errors import CallbenchError
from ..spec import Scenario, SuiteManifest
from ..text import find_cue, is_word_char, words
from .base import R_OF, ItemVerdict, Label

MAX_EVIDENCE = 10
"""met verdicts cite at most this many checked indices (the detail gives the full count)"""

CHECK_IDS = ("speakable", "numbers_spoken", "script", "tool_speech", "goodbye")

DIAGNOSTIC = {
    "speakable": "speakable_replies",
    "numbers_spoken": "speakable_replies",
    "script": "language_and_script",
    "tool_speech": "speech_around_tools",
    "goodbye": "closing",
}


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


# --- speakable: markdown, bullets, URLs, tables, emoji --------------------------------------------

_MARKDOWN = [
    ("markdown bold", re.compile(r"\*\*[^*\n]+?\*\*|__[^_\n]+?__")),
    # (?<![\w*])\*… written \*(?<![\w*]\*)…: the same test, and a pattern that starts with its
    # character is
    # searched for by that character, five times faster on a long reply
    (
        "markdown italic",
        re.compile(
            r"\*(?<![\w*]\*)(?![\s*])[^*\n]+?(?<![\s*])\*(?![\w*])"
            r"|_(?<![\w_]_)(?![\s_])[^_\n]+?(?<![\s_])_(?![\w_])"
        ),
    ),
    ("markdown strikethrough", re.compile(r"~~[^~\n]+~~")),
    ("markdown code", re.compile(r"```|`[^`\n]+`")),
    ("markdown heading", re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t]+\S")),
    ("markdown link", None),  # `_markdown_link`: a scan, as the regex for it rescans a long line
    ("markdown quote", re.compile(r"(?m)^[ \t]*>[ \t]")),
    ("markdown rule", re.compile(r"(?m)^[ \t]*(?:-{3,}|\*{3,}|_{3,})[ \t]*$")),
]
"""Each pattern runs in time linear in the reply, whatever the reply: a candidate controls the text,
and one
reply of a megabyte must not stall grading (benchmarks/bench_grading.py measures replies of up to 1
MB).
Where a plain regex would rescan — from every start to the end of a long line — the pattern says why
it does
not (possessive quantifiers, a look-behind that lets a match start only where a run starts), or a
short scan
replaces it and finds exactly what the regex found."""
_BULLET_LINE = re.compile(r"(?m)^[ \t]*[-*+•◦▪‣●][ \t]+\S")
_BULLET_CHAR = re.compile(r"[•◦▪‣]")
_NUMBERED_LINE = re.compile(r"(?m)^[ \t]*\d{1,2}[.)][ \t]+\S")
_TABLE_ROW = re.compile(r"(?m)^[^\n|]*\|[^\n|]*\|.*$")
# ^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$ with every run possessive
# (each must take
# all it can for the rest to match): as written, a line of 10,000 tabs took a second to reject
_TABLE_RULE = re.compile(
    r"(?m)^[ \t]*+\|?[ \t]*+:?-{3,}+:?[ \t]*+(?:\|[ \t]*+:?-{3,}+:?[ \t]*+)+\|?[ \t]*+$"
)
_URL_SCHEME = re.compile(r"(?i)\bhttps?://\S+|\bwww\.\S+")
_TLD = "com|org|net|in|co|io|gov|edu|uk|info|biz|app|ai"
_URL_HOST = re.compile(rf"(?i)[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:{_TLD})\b(?:/\S*)?")
_HOST_START = re.compile(r"(?i)\b[a-z0-9]")
_DOT_TLD = re.compile(rf"(?i)\.(?:{_TLD})\b")
_CHAIN_BREAK = re.compile(r"(?i)[^a-z0-9.-]|\.\.")
"""What ends a chain of host-name parts, looked for in the reversed text (backwards from a top-level
domain)."""
# [\w.+-]+@[\w-]+(?:\.[\w-]+)+, started only where a run of [\w.+-] starts (a match from inside a
# run is also one
# from its start, so the leftmost match is the same): otherwise every character of a long word is a
# start
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]++@[\w-]+(?:\.[\w-]+)+")
_EMOJI_RANGES = ((0x1F000, 0x1FAFF), (0x2600, 0x27BF), (0x2B00, 0x2BFF), (0x2300, 0x23FF))
_EMOJI_CANDIDATE = re.compile(
    "[\ufe0f" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _EMOJI_RANGES) + "]"
)

MAX_UNBROKEN = 60
"""A run of more characters than this without a space is unspeakable: no voice says it as words."""
_UNSPACED = (
    "\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\u200b\u2e80-\u2fdf\u3000-\u312f"
    "\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua980-\ua9ff\uaa60-\uaa7f\uf900-\ufaff\uff00-\uffef"
    "\U00020000-\U0003134f"
)
"""Scripts written without spaces between words (Thai, Lao, Tibetan, Myanmar, Khmer, Chinese,
Japanese, Javanese)
and the zero-width space that separates their words: their characters break a run instead of
lengthening it."""
_UNBROKEN = re.compile(rf"(?<![^\s{_UNSPACED}])[^\s{_UNSPACED}]{{{MAX_UNBROKEN + 1},}}")


def is_emoji(ch: str) -> bool:
    cp = ord(ch)
    if cp == 0xFE0F:  # emoji presentation selector
        return True
    return any(lo <= cp <= hi for lo, hi in _EMOJI_RANGES) and unicodedata.category(ch).startswith(
        "S"
    )


def _snip(s: str, width: int = 40) -> str:
    s = " ".join(s.split())
    return s if len(s) <= width else s[: width - 1] + "…"


def _clip(s: str, width: int = 40) -> str:
    """`s` cut to `width` characters (whitespace kept as it is, unlike `_snip`)."""
    return s if len(s) <= width else s[: width - 1] + "…"


_LINK_TARGET_END = re.compile(r"[)\s]")


def _markdown_link(text: str) -> str | None:
    r"""The leftmost markdown link, exactly what `\[[^\]\n]+\]\([^)\s]+\)` finds, in one pass.

    The regex rescans: from every '[' to the next ']' ('[[[[…' on one line), and from every '](' to
    the next ')'
    ('[a](b[a](b…'). Here every '](' is looked at once: its link text can only start at the first
    '[' after the
    last ']' or newline before it, and the end of its target is found once for all the '](' it
    spans."""
    target_end = -1
    at = text.find("](")
    while at >= 0:
        close = text.rfind("]", 0, at)
        segment = max(close, text.rfind("\n", close + 1, at)) + 1
        opening = text.find("[", segment, at - 1) if at >= 2 else -1  # the link text is not empty
        if opening >= 0:
            if target_end < at + 2:
                m = _LINK_TARGET_END.search(text, at + 2)
                target_end = m.start() if m else len(text)
            if at + 2 < target_end < len(text) and text[target_end] == ")":
                return text[opening : target_end + 1]
        at = text.find("](", at + 1)
    return None


def _url(text: str) -> re.Match | None:
    r"""The leftmost URL or bare web domain: `\bhttps?://\S+`, `\bwww\.\S+`, or a host name
    ending in a known top-level domain (`_URL_HOST`), tried in that order at each place, exactly
    as the one alternation `_URL_SCHEME|\b_URL_HOST` would find it.

    That alternation, tried at every word start, read the rest of a chain of host-name parts from
    each
    ('a-a-a-…', 'a.a.a.…'): quadratic. A host name needs a '.tld' ahead in its chain; so each '.tld'
    is taken
    in turn, the chain it ends is found by looking back to the last character no host name holds (or
    '..'), and
    the first place a host name may start in that chain is the leftmost match, if any there is.
    Every character
    is read a bounded number of times."""
    scheme = _URL_SCHEME.search(text)
    limit = scheme.start() if scheme else len(text)
    pos, backwards, n = 0, None, len(text)
    while pos < limit and (tld := _DOT_TLD.search(text, pos)) is not None:
        dot = tld.start()
        if dot > pos and text[dot - 1] != ".":
            if backwards is None:
                backwards = text[::-1]
            brk = _CHAIN_BREAK.search(backwards, n - dot, n - pos)
            start = _HOST_START.search(text, n - brk.start() if brk else pos, dot)
            if start is not None and start.start() >= limit:
                break
            if start is not None and (host := _URL_HOST.match(text, start.start())) is not None:
                return host  # (it always is: the chain holds this '.tld')
        pos = dot + 1
    return scheme


def unspeakable(text: str) -> list[str]:
    """What in `text` cannot be spoken as written: markdown, bullets and numbered lists, URLs and
    email
    addresses, tables, emoji, and runs of more than `MAX_UNBROKEN` characters without a space. Each
    finding is
    'kind: snippet'."""
    found: list[str] = []
    for kind, pattern in _MARKDOWN:
        hit = (
            _markdown_link(text)
            if pattern is None
            else (m.group() if (m := pattern.search(text)) else None)
        )
        if hit is not None:
            found.append(f"{kind}: {_snip(hit)!r}")
    m = _BULLET_LINE.search(text) or _BULLET_CHAR.search(text)
    if m:
        found.append(f"bullet: {_snip(m.group())!r}")
    numbered = _NUMBERED_LINE.findall(text)
    if len(numbered) >= 2 or (numbered and "\n" in text.strip()):
        found.append(f"numbered list: {_snip(numbered[0])!r}")
    m = _TABLE_RULE.search(text) or _TABLE_ROW.search(text)
    if m:
        found.append(f"table: {_snip(m.group())!r}")
    m = ("@" in text and _EMAIL.search(text)) or _url(text)
    if m:
        found.append(f"{'email address' if '@' in m.group() else 'URL'}: {_snip(m.group())!r}")
    emoji = [ch for ch in dict.fromkeys(_EMOJI_CANDIDATE.findall(text)) if is_emoji(ch)]
    if emoji:
        found.append(f"emoji: {''.join(emoji)!r}")
    if not m and (run := _UNBROKEN.search(text)):  # a URL or an address has its own finding
        found.append(f"{len(run.group())} characters without a space: {_snip(run.group())!r}")
    return found


# --- numbers spoken
# ----------------------------------------------------------------------------------

LONG_RUN = 5
"""a standalone run of this many digits or more is unspeakable as written"""
MAX_GROUP = 5
"""inside a grouped number ('98250 41736', '2207 4451 9036', '617-555-0193') groups may have up to
this many digits"""

_SEPARATORS = r"[ \u00a0\u2009\u202f\-\u2010\u2011]"
_LONG_SEQUENCE = re.compile(
    rf"(?<!\d)(?<!\d{_SEPARATORS})(?=(?:\d{{1,4}}+{_SEPARATORS}(?=\d))*+\d{{{LONG_RUN}}})"
    rf"\d+(?:{_SEPARATORS}(?=\d)\d+)*"
)
"""A number as written (digit groups joined by single spaces or hyphens, from where the digits
before cannot
carry on to the end of the last group) that holds a run of `LONG_RUN` digits or more: only such a
number can be
a finding, so a reply of a million short numbers is not walked number by number in Python. The
look-ahead
reads each number once."""
_FIVE_DIGITS = re.compile(rf"\d{{{LONG_RUN}}}")
_NUMERIC_DATE = re.compile(
    r"(?<![\d/.\-])(?:\d{1,2}([/.\-])\d{1,2}\1(?:\d{4}|\d{2})|\d{4}([/.\-])\d{1,2}\2\d{1,2})"
    r"(?![\d/\-]|\.\d)"
)
_CURRENCY_CODE = re.compile(
    r"(?<![A-Za-z])(?:[Rr][Ss]\.?|INR|USD|GBP|EUR)[ \u00a0]?\d|\d[ "
    r"\u00a0]?(?:INR|USD|GBP|EUR)(?![A-Za-z])"
)
_NATIVE_DIGIT = re.compile(r"[^\D0-9]")
MAX_NUMBER_FINDINGS = 5
"""A reply's long numbers are listed up to this many (then "and more"), so a detail stays short."""


def digit_script(ch: str) -> str | None:
    """'DIGIT' for ASCII 0-9, else the script of a native digit ('GUJARATI DIGIT NINE' ->
    'GUJARATI')."""
    name = unicodedata.name(ch, "")
    return name.split(" ")[0] if name else None


def unspoken_numbers(text: str, expected: frozenset[str] | None = None) -> list[str]:
    """Number formats a text-to-speech voice would misread (the module doc gives the reasons):

    1. a standalone run of 5+ digits ('9825041736', 'EMG-40517'); in a grouped number ('98250
    41736',
       '617-555-0193') any group of 6+ digits. Comma-grouped amounts ('10,000', '1,00,000') are
       fine.
    2. an all-numeric date ('14/11/2026', '2026-11-14', '14.11.26').
    3. a currency code or abbreviation glued to a number ('Rs. 500', 'INR 500', '500 USD').
    4. digits of a script that is neither ASCII nor the language's own ('૧૨' in a Hindi reply).
    """
    found: list[str] = []
    for m in _LONG_SEQUENCE.finditer(text) if _FIVE_DIGITS.search(text) else ():
        groups = re.findall(r"\d+", m.group())
        if len(groups) == 1 and len(groups[0]) >= LONG_RUN:
            finding = f"{len(groups[0])} digits written solid: {_clip(m.group())!r}"
        elif len(groups) > 1 and max(len(g) for g in groups) > MAX_GROUP:
            finding = f"a group of {max(len(g) for g in groups)} digits: {_clip(m.group())!r}"
        else:
            continue
        if len(found) == MAX_NUMBER_FINDINGS:
            found.append("and more")
            break
        found.append(finding)
    date_m = _NUMERIC_DATE.search(text)
    if date_m:
        found.append(f"numeric date: {date_m.group()!r}")
    code_m = _CURRENCY_CODE.search(text)
    if code_m:
        found.append(f"currency code with a number: {code_m.group()!r}")
    if expected is not None:
        foreign = sorted(
            {
                ch
                for ch in set(_NATIVE_DIGIT.findall(text))
                if digit_script(ch) not in ("DIGIT", *expected)
            }
        )
        if foreign:
            found.append(f"digits of another script: {''.join(foreign)!r}")
    return found


# --- goodbyes
# ----------------------------------------------------------------------------------------

GOODBYE_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("bye", "goodbye", "take care", "have a good day"),
    "hi": ("नमस्ते", "अलविदा"),
    "gu": ("આવજો",),
}
"""Built in, added to the suite's `defaults.caller_phrases[lang].goodbye` (the words the scripted
caller
itself takes as the agent's goodbye), so a suite without phrases for a language is still checked.
Thanks (धन्यवाद, આભાર, "thank you") are not farewells: agents thank callers all through a call, and
a
do-nothing agent whose filler began "આભાર" earned the check when the caller hung up on it."""

HANDOFF_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("transfer", "connect", "put you through", "stay on the line", "hold the line"),
    "hi": ("ट्रांसफर", "जोड़", "लाइन पर बने"),
    "gu": ("ટ્રાન્સફર", "જોડ", "લાઇન પર રહ"),
}
"""When the call ended by a hand-off tool (a warm transfer), announcing the transfer is the right
close."""

_HANDOFF_TOOL = re.compile(r"transfer|handoff|hand_off|escalat|forward|connect_to", re.IGNORECASE)


def goodbye_words(language: str, suite: SuiteManifest | None) -> list[str]:
    found: list[str] = []
    phrases = suite.defaults.caller_phrases if suite is not None else {}
    for key in dict.fromkeys((language, primary_language(language))):
        if key in phrases:
            found += phrases[key].goodbye
    found += GOODBYE_WORDS.get(primary_language(language), ())
    return list(dict.fromkeys(w for w in found if w.strip()))


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


# --- the grader
# ----------------------------------------------------------------------------------------


class ConversationChecks:
    """Deterministic checks of the agent's speech (see the module doc for every rule and why).

    `language_detector` ("script" or "lingua", see LANGUAGE_DETECTORS) decides whether languages
    sharing a script (Hindi and Marathi) are told apart; the `script` verdict's detail names the
    detector that graded it. `detector`, a callable `(text, codes) -> (code, confidence) | None`,
    replaces the named one (tests use a fake); it is recorded as "custom".
    """

    name = "conversation_checks"

    def __init__(
        self, language_detector: LanguageDetector = "script", detector: Detector | None = None
    ):
        chosen = language_detector_function(language_detector)
        self.detector: Detector | None = detector if detector is not None else chosen
        self.language_detector: str = (
            language_detector
            if detector is None or detector is chosen
            else "lingua"
            if detector is lingua_detect
            else "custom"
        )
        """The setting that graded, recorded in the `script` verdict when it decides anything."""

    def grade(
        self, trace: Trace, scenario: Scenario, suite: SuiteManifest | None = None
    ) -> list[ItemVerdict]:
        language = scenario.language
        speech = [m for m in trace.messages if m.role == "candidate" and m.text and m.text.strip()]
        silent = not speech
        out = [
            self._speakable(speech, silent),
            self._numbers(speech, silent, language),
            self._script(speech, silent, language, suite),
            self._tool_speech(trace, silent),
            self._goodbye(trace, speech, silent, language, suite),
        ]
        return out

    # each check -----------------------------------------------------------------------------------

    def _per_message(
        self,
        check: str,
        speech: list[Message],
        silent: bool,
        find: Callable[[str], list[str]],
        what: str,
    ) -> ItemVerdict:
        if silent:
            return self._silent(check)
        bad = [(m.index, found) for m in speech if (found := find(m.text or ""))]
        if not bad:
            return self._met(
                check, [m.index for m in speech], f"{len(speech)} replies checked, {what}"
            )
        detail = "; ".join(f"#{i}: {', '.join(f)}" for i, f in bad)
        return self._counted(
            check, [i for i, _ in bad], f"{len(bad)} of {len(speech)} replies: {detail}"
        )

    def _speakable(self, speech: list[Message], silent: bool) -> ItemVerdict:
        return self._per_message(
            "speakable", speech, silent, unspeakable, "no markdown, bullets, URLs, tables or emoji"
        )

    def _numbers(self, speech: list[Message], silent: bool, language: str) -> ItemVerdict:
        expected = LANGUAGE_SCRIPTS.get(primary_language(language))
        return self._per_message(
            "numbers_spoken",
            speech,
            silent,
            lambda t: unspoken_numbers(t, expected),
            "no digit strings a voice would misread",
        )

    def _script(
        self, speech: list[Message], silent: bool, language: str, suite: SuiteManifest | None
    ) -> ItemVerdict:
        lang = primary_language(language)
        expected = LANGUAGE_SCRIPTS.get(lang)
        if expected is None:
            return self._verdict(
                "script", "not_measured", [], f"no script is known for language '{language}'"
            )
        if silent:
            return self._silent("script")
        checked: list[int] = []
        bad: list[tuple[int, str]] = []
        for m in speech:
            share, counts = script_share(m.text or "", expected)
            if share is None:
                continue
            checked.append(m.index)
            if share < SCRIPT_SHARE:
                mix = ", ".join(
                    f"{s} {n}" for s, n in sorted(counts.items(), key=lambda kv: -kv[1])
                )
                bad.append((m.index, f"{share:.0%} {'/'.join(sorted(expected))} ({mix})"))
        if not checked:
            return self._verdict(
                "script",
                "not_met",
                [m.index for m in speech][:MAX_EVIDENCE],
                "no reply had any letters to check",
            )
        note, wrong_language = self._language_subcheck(
            speech, lang, expected, suite, {i for i, _ in bad}
        )
        bad += wrong_language
        bad.sort()
        if not bad:
            return self._met(
                "script",
                checked,
                f"{len(checked)} replies checked, each at least {SCRIPT_SHARE:.0%} "
                f"{'/'.join(sorted(expected))}{note}",
            )
        detail = "; ".join(f"#{i}: {d}" for i, d in bad)
        return self._counted(
            "script",
            [i for i, _ in bad],
            f"{len(bad)} of {len(checked)} replies not in '{lang}' ({'/'.join(sorted(expected))}): "
            f"{detail}{note}",
        )

    def _language_subcheck(
        self,
        speech: list[Message],
        lang: str,
        expected: frozenset[str],
        suite: SuiteManifest | None,
        already: set[int],
    ) -> tuple[str, list[tuple[int, str]]]:
        """Languages sharing the agent's script (Hindi and Marathi): told apart by the detector,
        among the
        suite's own languages only. Skipped, and said so, when there is no detector or nothing to
        tell apart."""
        siblings = sorted(
            {
                primary_language(c)
                for c in (suite.languages if suite else [])
                if LANGUAGE_SCRIPTS.get(primary_language(c)) == expected
            }
            | {lang}
        )
        if len(siblings) < 2:
            return "", []
        if self.detector is None:
            return (
                f"; {'/'.join(siblings)} not told apart (no language detector: language_detector "
                f"{self.language_detector!r}; 'lingua' tells them apart)",
                [],
            )
        found: list[tuple[int, str]] = []
        for m in speech:
            text = m.text or ""
            if (
                m.index in already
                or next(islice(words(text), DETECT_MIN_WORDS - 1, None), None) is None
            ):
                continue
            result = self.detector(text, siblings)
            if result is None:
                continue
            code, confidence = result
            if code != lang and code in siblings and confidence >= DETECT_MIN_CONFIDENCE:
                found.append(
                    (m.index, f"reads as '{code}', not '{lang}' (confidence {confidence:.2f})")
                )
        return (
            f"; language told apart among {'/'.join(siblings)} "
            f"(language_detector {self.language_detector!r})",
            found,
        )

    def _tool_speech(self, trace: Trace, silent: bool) -> ItemVerdict:
        turns: dict[int, list[Message]] = {}
        for m in trace.messages:
            if m.role == "candidate":
                turns.setdefault(m.turn, []).append(m)
        tool_turns = {t: ms for t, ms in turns.items() if any(m.tool_calls for m in ms)}
        if silent:
            return self._silent(
                "tool_speech", [m.index for ms in tool_turns.values() for m in ms if m.tool_calls]
            )
        silent_turns = {
            t: ms for t, ms in tool_turns.items() if not any(m.text and m.text.strip() for m in ms)
        }
        if not silent_turns:
            checked = [m.index for ms in tool_turns.values() for m in ms if m.tool_calls]
            what = (
                f"{len(tool_turns)} turns with tool calls, each with speech"
                if tool_turns
                else "no tool calls"
            )
            return self._met("tool_speech", checked, what)
        evidence = [m.index for ms in silent_turns.values() for m in ms if m.tool_calls]
        detail = "; ".join(
            f"turn {t}: "
            + ", ".join(
                f"#{m.index} {'+'.join(c.name for c in m.tool_calls)}" for m in ms if m.tool_calls
            )
            for t, ms in sorted(silent_turns.items())
        )
        return self._counted(
            "tool_speech",
            evidence,
            f"{len(silent_turns)} of {len(tool_turns)} turns ran tools with no speech: {detail}",
            violations=len(silent_turns),
        )

    def _goodbye(
        self,
        trace: Trace,
        speech: list[Message],
        silent: bool,
        language: str,
        suite: SuiteManifest | None,
    ) -> ItemVerdict:
        if trace.end is not None and trace.end.reason == "infrastructure":
            return self._verdict(
                "goodbye", "not_measured", [], "the harness cut the call (infrastructure failure)"
            )
        goodbyes = goodbye_words(language, suite)
        if not goodbyes:
            return self._verdict(
                "goodbye",
                "not_measured",
                [],
                f"no goodbye words are known for language '{language}'",
            )
        if silent:
            return self._silent("goodbye")
        end_at = (
            trace.end.after_message
            if trace.end is not None and trace.end.after_message is not None
            else None
        )
        before_end = [m for m in speech if end_at is None or m.index <= end_at]
        if not before_end:
            return self._verdict(
                "goodbye", "not_met", [], "the agent said nothing before the call ended"
            )
        last = before_end[-1]
        ending = next((e for e in reversed(trace.tool_events) if e.ended_call), None)
        handoff = ending is not None and bool(_HANDOFF_TOOL.search(ending.name))
        accepted = goodbyes + (
            list(HANDOFF_WORDS.get(primary_language(language), ())) if handoff else []
        )
        hit = next((w for w in accepted if find_cue(w, last.text or "")), None)
        how = f"call ended by {trace.end.reason}" if trace.end else "call ended"
        if handoff:
            how += f" (hand-off via {ending.name})"  # type: ignore[union-attr]
        if hit:
            return self._met(
                "goodbye", [last.index], f"last reply #{last.index} says {hit!r}; {how}"
            )
        return self._verdict(
            "goodbye",
            "not_met",
            [last.index],
            f"last reply #{last.index} before the end has no goodbye "
            f"({_snip(last.text or '', 60)!r}); "
            f"{how}; accepted: {', '.join(accepted)}",
        )

    # verdict helpers
    # ----------------------------------------------------------------------------------

    def _verdict(
        self, check: str, label: Label, evidence: Iterable[int], detail: str
    ) -> ItemVerdict:
        return ItemVerdict(
            id=check,
            kind="check",
            pillar="conversation",
            weight=1,
            label=label,
            r=R_OF.get(label),
            grader=self.name,
            diagnostic=DIAGNOSTIC[check],
            evidence=list(evidence),
            detail=detail,
        )

    def _met(self, check: str, checked: list[int], detail: str) -> ItemVerdict:
        return self._verdict(check, "met", checked[:MAX_EVIDENCE], detail)

    def _counted(
        self, check: str, violating: list[int], detail: str, violations: int | None = None
    ) -> ItemVerdict:
        n = len(violating) if violations is None else violations
        return self._verdict(check, "partial" if n == 1 else "not_met", violating, detail)

    def _silent(self, check: str, evidence: Iterable[int] = ()) -> ItemVerdict:
        return self._verdict(
            check,
            "not_met",
            evidence,
            "the agent never spoke: silence passes no conversation check",
        )
