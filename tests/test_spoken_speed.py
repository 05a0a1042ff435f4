"""The spoken-value parser's fast paths read exactly what the plain ones read.

Reading a reply used to test every character in Python (its class, then its digit value) and to try
every reading (a date, a cued identifier, a quantity) at every word: most of the CPU of scoring a
call. The tokeniser now reads runs of a class with a regex over a class string, and `run` skips the
words at which no value can start. Each is checked here against the plain way on texts mixing
scripts, native digits, marks, joiners, numerals, number words and structured values."""

from __future__ import annotations

import random
import unicodedata
from datetime import date

import pytest

from callbench.grading import spoken, spoken_parser
from callbench.grading.spoken import _Parser, _Tok, clear_cache, find_values
from callbench.grading.spoken_words import SYMBOLS, key

TODAY = date(2026, 11, 20)
PIECES = (
    "the first of March 2026 twenty-first sixty-five fifty-two dollars rupees Rs. 500 INR 300 "
    "50 USD pin is code number 4417 TX-4471 SW1A 1AA a.m. pm o'clock 3rd 14/11/2026 2026-11-14 "
    "+91 98250 41736 lakh thousand hundred and point five oh double seven 10:30 per cent 3-month "
    "पाँच सौ रुपये हज़ार ढाई બે હજાર ૧૨ १९ क्षमा ਸਤ ² ½ Ⅻ 一 é \u0301 \u200c \u200d _ * # | ( ) , . - "
    "$ ₹ £ € % ' ’ @ \n \t"
).split(" ")


def texts(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = [rng.choice(PIECES) for _ in range(rng.randint(1, 40))]
        seps = [rng.choice(("", " ", " ", "  ", "\n", ",", "-")) for _ in parts]
        out.append("".join(p + s for p, s in zip(parts, seps)))
    return out


def plain_tokenise(parser: _Parser, blocks) -> list[_Tok]:
    """The tokeniser as it was: one Python test per character."""
    s, out, i, prev = parser.shadow, [], 0, 0
    blocks, nb = sorted(blocks, key=lambda v: v.start), 0

    def is_word(c: str) -> bool:
        return unicodedata.category(c)[0] in "LM" or c in "\u200c\u200d"

    while i < len(s):
        limit = blocks[nb].start if nb < len(blocks) else len(s)
        c = s[i]
        if i == limit:
            v, nb = blocks[nb], nb + 1
            tok = _Tok(v.start, v.end, "block", "", parser.text[prev:i], value=v)
        elif c.isspace():
            i += 1
            continue
        elif "0" <= c <= "9":
            m = spoken._NUM.match(s, i, limit)
            assert m is not None
            tok = _Tok(
                i,
                m.end(),
                "num",
                m.group().replace(",", ""),
                parser.text[prev:i],
                plain=not any(ch in ".," for ch in m.group()),
            )
            if tok.plain and (o := spoken._ORD.match(s, m.end(), limit)):
                tok.end, tok.ordinal = o.end(), True
        elif is_word(c):
            j = i
            while j < limit and is_word(s[j]):
                j += 1
            tok = _Tok(i, j, "word", key(parser.text[i:j]), parser.text[prev:i])
        else:
            tok = _Tok(i, i + 1, "sym" if c in SYMBOLS else "punct", c, parser.text[prev:i])
        out.append(tok)
        i = prev = tok.end
    return out + [_Tok(len(s), len(s), "end", "", " ")]


def plain_shadow(text: str) -> str:
    return "".join(
        str(unicodedata.digit(c)) if not c.isascii() and unicodedata.category(c) == "Nd" else c
        for c in text
    )


@pytest.mark.parametrize("language", ["en", "hi", "gu"])
def test_the_tokeniser_reads_what_the_per_character_loop_read(language):
    for text in texts(400):
        parser = _Parser(text, language, TODAY, None)
        assert parser.shadow == plain_shadow(text)
        assert parser.toks == plain_tokenise(parser, parser._prepass()), text


class Everything(frozenset):
    def __contains__(self, item: object) -> bool:
        return True


@pytest.mark.parametrize("language", ["en", "hi", "gu"])
def test_skipping_words_no_value_starts_at_changes_no_reading(language, monkeypatch):
    corpus = texts(400, seed=5)
    fast = [find_values(t, language, today=TODAY, money=m) for t in corpus for m in (None, True)]
    clear_cache()
    monkeypatch.setattr(spoken_parser, "_value_starts", lambda language: Everything())
    plain = [find_values(t, language, today=TODAY, money=m) for t in corpus for m in (None, True)]
    clear_cache()
    assert sum(map(len, fast)) > 1000  # the corpus holds values to read
    assert fast == plain


def test_the_identifier_pre_pass_reads_only_words_with_a_digit_and_a_letter():
    rx = dict(spoken._PRE)["alnum"]
    found = [m.group() for m in rx.finditer("call TX-4471 or 4471 or ab-cd, 3-month SW1A x9 9")]
    assert found == ["TX-4471", "3-month", "SW1A", "x9"]


def test_readings_are_shared_and_cannot_be_changed_through_a_result():
    text = "your balance is sixty-five dollars fifty-two, due on the 3rd of December"
    first = find_values(text, today=TODAY)
    first.clear()  # a caller's list is its own
    assert find_values(text, today=TODAY) and find_values(text, today=TODAY) == find_values(
        text, today=TODAY
    )


def test_ordinary_words_are_not_tried_as_values(monkeypatch):
    """The cause of most of scoring's CPU: every word of every reply was tried as a date, a cued
    identifier and a quantity. Now only words in the tables (numbers, months, cues) are."""
    tried = []
    real = _Parser._date
    monkeypatch.setattr(_Parser, "_date", lambda self, i: tried.append(i) or real(self, i))
    text = "we have looked at your account and the change will show on your next bill " * 20
    values = _Parser(text + "of sixty-five dollars", "en", TODAY, None).run()
    assert [(v.kind, str(v.value)) for v in values] == [("amount", "65")]
    assert len(tried) < 50  # "the" and the number words, not each of the 300 words


def test_find_cue_finds_what_the_regex_found():
    """`find_cue` runs for every cue of every caller turn; it now walks `str.find` instead of
    compiling a regex per call, keeping the regex's leftmost, non-overlapping matches."""
    import re

    from callbench.text import find_cue, fold, is_word_char

    def by_regex(cue: str, text: str) -> bool:
        needle, hay = fold(cue).strip(), fold(text)
        if not needle:
            return False
        return any(
            m.start() == 0 or not is_word_char(hay[m.start() - 1])
            for m in re.finditer(re.escape(needle), hay)
        )

    rng = random.Random(3)
    cues = ["a a", "aa", "a-a", "take care", "bye", "नमस्ते", "ÉTÉ", " ", "", "a"]
    for _ in range(3000):
        text = "".join(rng.choice("aa -xÉtéé ") for _ in range(rng.randint(0, 12)))
        for cue in cues:
            assert find_cue(cue, text) == by_regex(cue, text), (cue, text)
    assert not find_cue("a a", "xa a a") and find_cue("bye", "Good bye!")


@pytest.mark.parametrize(
    "text",
    [
        "the 3rd\u0301 of May",  # an ordinal ends before a mark: the word run found before it
        "21st\u0301x and 5th\u200dyy",  # starts inside the ordinal, read on from the ordinal's end
        "1,250.50abc 2026-11-14word 10:30pm£5",  # numerals and blocks abutting words and symbols
        "TX-4471, 14/11/2026.",
        "",
        "   ",
        "९९ rupees ૧૨th",
    ],
)
def test_the_tokeniser_walk_reads_what_a_search_per_token_read(text):
    """The tokeniser walks each stretch between blocks with one `finditer`; where a numeral or an
    ordinal ends inside a word run it must restart there, as the per-token search did."""
    parser = _Parser(text, "en", TODAY, None)
    assert parser.toks == plain_tokenise(parser, parser._prepass())


def test_the_settings_of_a_reading_share_one_tokenisation():
    """Reading a text under another money context or language tokenises it once; `clear_cache`
    forgets the tokens with the readings."""
    clear_cache()
    text = "sixty-five fifty-two on the 3rd of March, ref TX-4471"
    first = _Parser(text, "en", TODAY, True).toks
    assert _Parser(text, "en", TODAY, None).toks is first
    assert _Parser(text, "hi", TODAY, False).toks is first
    assert _Parser(text, "en", date(2026, 1, 1), None).toks is not first  # today is in the key
    clear_cache()
    assert _Parser(text, "en", TODAY, True).toks is not first
    assert _Parser(text, "en", TODAY, True).toks == first
