"""What cannot be spoken as written: markdown, bullets, URLs, tables, emoji, long runs without a
space (`unspeakable`), and number formats a text-to-speech voice misreads (`unspoken_numbers`).

Every pattern runs in time linear in the reply, whatever the reply; the rules and why are in the
doc of `callbench.grading.conversation_checks`.
"""

from __future__ import annotations

import re
import unicodedata

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
