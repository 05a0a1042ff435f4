"""Gujarati, Tamil and Bengali spoken values: how their tables are built, and the small engine hooks
they needed (words written as several words, night-time cues, thousands followed by digits, a
month linked to its day). The phrase tables themselves are read by test_spoken_tables.py."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, time
from decimal import Decimal

import pytest

from callbench.grading.spoken import find_values, number_words
from callbench.grading.spoken_langs import TABLES, bn, ta
from callbench.grading.spoken_words import compounds_for, key, number_roles

TODAY = date(2026, 11, 12)


def values(text: str, language: str, money: bool | None = None) -> list[tuple]:
    return [(v.kind, v.value) for v in find_values(text, language, today=TODAY, money=money)]


# -- Tamil: numbers composed by sandhi


@pytest.mark.parametrize(
    "word,n",
    [
        ("இருபத்தொன்று", 21),
        ("இருபத்திரண்டு", 22),
        ("இருபத்துமூன்று", 23),
        ("இருபத்தைந்து", 25),
        ("இருபத்தஞ்சு", 25),
        ("முப்பத்திரண்டு", 32),
        ("நாற்பத்தெட்டு", 48),
        ("எழுபத்தைந்து", 75),
        ("தொண்ணூற்றொன்பது", 99),
    ],
)
def test_tamil_tens_and_units_fuse_by_sandhi(word, n):
    assert ta.NUMBERS[word] == n
    assert values(word, "ta") == [("number", Decimal(n))]


def test_tamil_has_every_number_to_99():
    assert set(ta.NUMBERS.values()) == set(range(100))


@pytest.mark.parametrize(
    "text,n",
    [
        ("இருபத்தைந்தாயிரம் ரூபாய்", 25000),
        ("இரண்டாயிரத்து ஐந்நூறு ரூபாய்", 2500),
        ("மூவாயிரம் ரூபாய்", 3000),
        ("ஒரு லட்சத்து இருபத்தைந்தாயிரத்து ஐநூறு ரூபாய்", 125500),
        ("முந்நூற்றைம்பது ரூபாய்", 350),
        ("ஆயிரத்து இருநூற்று ஐம்பது ரூபாய்", 1250),
        ("ஒன்றரை லட்சம் ரூபாய்", 150000),
        ("ஒன்றே கால் லட்சம் ரூபாய்", 125000),
    ],
)
def test_tamil_fused_thousands_hundreds_and_fractions(text, n):
    got = find_values(text, "ta", today=TODAY)
    assert [(v.kind, v.value, v.currency) for v in got] == [("amount", Decimal(n), "INR")]
    assert got[0].text == text  # a word read as two words is spanned whole


def test_tamil_has_no_generator_rather_than_a_wrong_one():
    with pytest.raises(ValueError):
        number_words(300, "ta")  # "மூன்று நூறு" is not Tamil; முந்நூறு is


# -- Bengali: classifiers written onto numbers, ordinal dates


def test_bengali_classifier_is_a_count_and_with_the_locative_a_clock_time():
    assert values("তিনটে কিস্তিতে দিতে পারবেন", "bn") == [("number", Decimal(3))]
    assert values("বিকেল পাঁচটায় ফোন করব", "bn") == [("time", time(17, 0))]
    assert values("দুপুর দেড়টায়", "bn") == [("time", time(13, 30))]
    assert values("সকাল সোয়া এগারোটায়", "bn") == [("time", time(11, 15))]


@pytest.mark.parametrize(
    "word,n", [("পয়লা", 1), ("দোসরা", 2), ("চৌঠা", 4), ("চোদ্দই", 14), ("একুশে", 21)]
)
def test_bengali_date_ordinals(word, n):
    assert bn.ORDINALS[word] == n


def test_bengali_twelve_is_never_the_word_for_times():
    assert ("number", Decimal(12)) not in values("আমি তিন বার ফোন করেছি", "bn")


# -- the hooks


def test_night_cues_put_evening_hours_at_night_and_midnight_at_zero():
    assert values("রাত আটটায়", "bn") == [("time", time(20, 0))]
    assert values("রাত বারোটায়", "bn") == [("time", time(0, 0))]
    assert values("রাত দুটোয়", "bn") == [("time", time(2, 0))]
    assert values("રાત્રે આઠ વાગ્યે", "gu") == [("time", time(20, 0))]
    assert values("இரவு எட்டு மணிக்கு", "ta") == [("time", time(20, 0))]


@pytest.mark.parametrize(
    "text,language",
    [
        ("૧૨ હજાર ૪૫૦ રૂપિયા", "gu"),
        ("১২ হাজার ৪৫০ টাকা", "bn"),
        ("12 ஆயிரத்து 450 ரூபாய்", "ta"),
        ("12 हज़ार 450 रुपये", "hi"),
    ],
)
def test_digits_after_a_scale_word_are_its_rest(text, language):
    assert values(text, language) == [("amount", Decimal(12450))]


def test_a_small_number_after_a_scale_word_stays_apart():
    assert values("5 thousand, 3 payments", "en") == [
        ("number", Decimal(5000)),
        ("number", Decimal(3)),
    ]
    assert values("5 हज़ार 3 किस्तों में", "hi") == [
        ("number", Decimal(5000)),
        ("number", Decimal(3)),
    ]


@pytest.mark.parametrize(
    "text,language",
    [
        ("டிசம்பர் மாதம் 20ஆம் தேதி", "ta"),
        ("ડિસેમ્બર મહિનાની ૨૦ તારીખે", "gu"),
        ("ডিসেম্বর মাসের ২০ তারিখে", "bn"),
    ],
)
def test_a_month_linked_to_its_day(text, language):
    assert values(text, language) == [("date", date(2026, 12, 20))]


def test_compounds_only_in_their_language():
    assert compounds_for("ta") and compounds_for("bn") and not compounds_for("hi")
    assert values("পাঁচটায়", "hi") == []  # a Hindi call does not read Bengali


# -- table hygiene


@pytest.mark.parametrize("code", ["gu", "ta", "bn"])
def test_no_word_means_two_things(code):
    t, meanings = TABLES[code], defaultdict(set)
    for field in (
        "numbers",
        "tens",
        "hundreds",
        "fused_hundreds",
        "scales",
        "fractions",
        "adjusters",
        "repeat_words",
        "other_roles",
    ):
        for w, v in getattr(t, field).items():
            meanings[key(w)].add((field, str(v)))
    assert {k: m for k, m in meanings.items() if len(m) > 1} == {}
    roles = number_roles(code)
    assert not set(compounds_for(code)) & set(roles)  # a compound is never also a word
    time_words = {key(w) for w in t.time_words.split()}
    unknown = {p for ps in compounds_for(code).values() for p in ps} - set(roles) - time_words
    assert unknown == set()
