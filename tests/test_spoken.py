"""The spoken-value parser and `stated()`: every form a transcript produces, and the traps verifiers
fell into."""

from datetime import date, time
from decimal import Decimal

import pytest

from callbench.call.trace import Message, SuiteRef, Trace
from callbench.grading.spoken import Window, find_values, number_words
from callbench.grading.spoken_stated import stated
from callbench.grading.spoken_words import (
    GU_0_99,
    GU_VARIANTS,
    HI_0_99,
    HI_VARIANTS,
    key,
    lexicon,
)

TODAY = date(2026, 5, 1)
FIELDS = ("kind", "value", "unit", "currency")


def A(value, currency=None):
    return ("amount", Decimal(value), "currency" if currency else None, currency)


def N(value, unit=None):
    return ("number", Decimal(value), unit, None)


def ID(value):
    return ("identifier", value, None, None)


def D(y, m, d):
    return ("date", date(y, m, d), None, None)


def T(h, m=0):
    return ("time", time(h, m), None, None)


CASES = [
    # English amounts
    ("en", "$65.52", [A("65.52", "USD")]),
    ("en", "That is 65.52 dollars.", [A("65.52", "USD")]),
    ("en", "sixty-five dollars and fifty-two cents", [A("65.52", "USD")]),
    ("en", "sixty-five dollars fifty-two", [A("65.52", "USD")]),
    ("en", "65 dollars 52 cents", [A("65.52", "USD")]),
    ("en", "It comes to sixty-five fifty-two dollars", [A("65.52", "USD")]),
    (
        "en",
        "It's sixty-five fifty-two, payable in dollars",
        [A("65.52")],
    ),  # money context, no attached currency
    ("en", "fifty-two cents", [A("0.52", "USD")]),
    ("en", "one thousand two hundred", [N(1200)]),
    ("en", "twelve hundred", [N(1200)]),
    ("en", "a hundred and five dollars", [A(105, "USD")]),
    ("en", "twenty-five thousand", [N(25000)]),
    ("en", "one hundred twenty-three thousand four hundred fifty-six", [N(123456)]),
    ("en", "one million two hundred thousand", [N(1200000)]),
    ("en", "one point five", [N("1.5")]),
    ("en", "1,234.50", [N("1234.50")]),
    ("en", "Rs 500", [A(500, "INR")]),
    ("en", "Rs. 500 only", [A(500, "INR")]),
    ("en", "₹500", [A(500, "INR")]),
    ("en", "five hundred rupees", [A(500, "INR")]),
    ("en", "1,25,000 rupees", [A(125000, "INR")]),
    ("en", "₹2.5 lakh", [A(250000, "INR")]),
    ("en", "£12", [A(12, "GBP")]),
    ("en", "€12.50", [A("12.50", "EUR")]),
    ("en", "three lakh", [N(300000)]),
    ("en", "two crore", [N(20000000)]),
    ("en", "about 5k", [N(5000)]),
    # outside a money context "sixty-five fifty-two" is one number, as in years and flight numbers
    ("en", "flight sixty-five fifty-two", [N(6552)]),
    ("en", "back in nineteen ninety", [N(1990)]),
    # digits grouped by breath, said one by one
    ("en", "four four one seven", [ID("4417")]),
    ("en", "98250 41736", [ID("9825041736")]),
    ("en", "four oh two", [ID("402")]),
    ("en", "double five", [ID("55")]),
    ("en", "nine eight two five oh, four one seven three six", [ID("9825041736")]),
    ("en", "9825041736", [ID("9825041736")]),
    ("en", "+91 98250 41736", [ID("919825041736")]),
    ("en", "call 555-123-4567", [ID("5551234567")]),
    ("en", "Your PIN is four four one seven", [ID("4417")]),
    ("en", "card ending in 4417", [ID("4417")]),
    ("en", "ticket TX-4471", [ID("TX4471")]),
    # traps: a postal code, a phone number, a time are never amounts; payments are not months
    ("en", "RG1 5HQ", [ID("RG15HQ")]),
    ("en", "the postcode is RG1 5HQ and you owe £12", [ID("RG15HQ"), A(12, "GBP")]),
    ("en", "pincode 560034", [ID("560034")]),
    ("en", "PIN 380001", [ID("380001")]),
    ("en", "my zip code is 94107", [ID("94107")]),
    ("en", "three payments", [N(3, "payments")]),
    ("en", "three monthly payments of $65.52", [N(3, "payments"), A("65.52", "USD")]),
    ("en", "spread over 3 months", [N(3, "months")]),
    ("en", "a 3-month plan", [N(3, "month")]),
    ("en", "5% interest", [N(5, "percent")]),
    ("en", "call at 2 pm", [T(14)]),
    ("en", "10:40 works", [T(10, 40)]),
    ("en", "ten thirty am", [T(10, 30)]),
    ("en", "three o'clock", [T(3)]),
    # a bare ordinal is neither amount nor date: a number (the day)
    ("en", "pay $20 by the 5th", [A(20, "USD"), N(5)]),
    ("en", "on 31 February", [N(31)]),  # an impossible date is not a date
    # dates; a year inside a date is not a separate number
    ("en", "2026-11-14", [D(2026, 11, 14)]),
    ("en", "14 November 2026", [D(2026, 11, 14)]),
    ("en", "14 Nov, 2026", [D(2026, 11, 14)]),
    ("en", "November 14, 2026", [D(2026, 11, 14)]),
    ("en", "November 14th", [D(2026, 11, 14)]),
    ("en", "the fourteenth of November", [D(2026, 11, 14)]),
    ("en", "November the twenty-first", [D(2026, 11, 21)]),
    ("en", "14/11/2026", [D(2026, 11, 14)]),
    ("en", "by 14 November 2026 pay $65.52", [D(2026, 11, 14), A("65.52", "USD")]),
    ("en", "Thanks, that is all.", []),
    # whole sentences as agents say them
    (
        "en",
        "Your outstanding amount is ₹12,450.75 and the due date was 3rd October.",
        [A("12450.75", "INR"), D(2026, 10, 3)],
    ),
    (
        "en",
        "I can set up 3 EMIs of four thousand one hundred fifty rupees each.",
        [N(3, "emis"), A(4150, "INR")],
    ),
    (
        "en",
        "Your account ending 4417 owes sixty-five dollars fifty-two cents as of November 14th, "
        "2026.",
        [ID("4417"), A("65.52", "USD"), D(2026, 11, 14)],
    ),
    (
        "en",
        "In 2026 you paid $500",
        [N(2026), A(500, "USD")],
    ),  # a year is not an amount, even beside one
    ("en", "2 lakh 50 thousand rupees", [A(250000, "INR")]),
    ("en", "point five", [N("0.5")]),
    ("en", "ten thirty a.m.", [T(10, 30)]),
    ("en", "We'll call you back at 4:30 PM tomorrow.", [T(16, 30)]),
    ("en", "Please confirm your date of birth, 12/05/1988.", [D(1988, 5, 12)]),
    ("en", "The OTP is 482913.", [ID("482913")]),
    # Hindi
    ("hi", "इक्कीस", [N(21)]),
    ("hi", "पैंतालीस", [N(45)]),
    ("hi", "निन्यानवे", [N(99)]),
    ("hi", "निन्यानबे", [N(99)]),
    ("hi", "अड़तीस", [N(38)]),
    ("hi", "अडतीस", [N(38)]),  # without the nukta
    ("hi", "छः", [N(6)]),
    ("hi", "पाँच सौ रुपये", [A(500, "INR")]),
    ("hi", "पांच सौ रुपए", [A(500, "INR")]),  # anusvara for chandrabindu, रुपए for रुपये
    ("hi", "ढाई सौ", [N(250)]),
    ("hi", "डेढ़ लाख रुपये", [A(150000, "INR")]),
    ("hi", "साढ़े तीन", [N("3.5")]),
    ("hi", "साढ़े तीन हज़ार", [N(3500)]),
    ("hi", "सवा सौ", [N(125)]),
    ("hi", "पौने दो सौ", [N(175)]),
    ("hi", "बारह सौ", [N(1200)]),
    ("hi", "एक लाख पच्चीस हजार", [N(125000)]),
    ("hi", "दो करोड़", [N(20000000)]),
    ("hi", "१२३", [N(123)]),
    ("hi", "₹ 1,250", [A(1250, "INR")]),
    ("hi", "१,२५० रुपये", [A(1250, "INR")]),
    ("hi", "पैंसठ रुपये बावन पैसे", [A("65.52", "INR")]),
    ("hi", "तीन महीने", [N(3, "months")]),
    ("hi", "तीन किस्तें", [N(3, "installments")]),
    ("hi", "मेरा पिनकोड 380001 है", [ID("380001")]),
    ("hi", "नौ आठ दो पाँच शून्य", [ID("98250")]),
    ("hi", "दस पंद्रह दिन", [N(10), N(15, "days")]),  # a range, not 1015
    ("hi", "दो बजे", [T(2)]),
    ("hi", "साढ़े तीन बजे", [T(3, 30)]),
    ("hi", "14 नवंबर", [D(2026, 11, 14)]),
    (
        "hi",
        "आप तीन किश्तों में चार हज़ार एक सौ पचास रुपये दे सकते हैं।",
        [N(3, "installments"), A(4150, "INR")],
    ),
    ("hi", "मैं आपको शाम पाँच बजे कॉल करूँगी।", [T(17)]),
    ("hi", "आपका ओटीपी चार आठ दो नौ एक तीन है।", [ID("482913")]),
    ("hi", "दो महीनों", [N(2, "months")]),
    ("hi", "चौदह नवम्बर 2026", [D(2026, 11, 14)]),
    ("hi", "१४ नवंबर को ₹५०० भेजें", [D(2026, 11, 14), A(500, "INR")]),
    # Gujarati
    ("gu", "૧૨૩", [N(123)]),
    ("gu", "બાર", [N(12)]),
    ("gu", "પિસ્તાલીસ", [N(45)]),
    ("gu", "નવ્વાણું", [N(99)]),
    ("gu", "પાંચસો રૂપિયા", [A(500, "INR")]),
    ("gu", "પાંચ સો રૂપિયા", [A(500, "INR")]),
    ("gu", "બસો પચાસ", [N(250)]),
    ("gu", "અઢી લાખ", [N(250000)]),
    ("gu", "ત્રણ હજાર", [N(3000)]),
    ("gu", "બે કરોડ", [N(20000000)]),
    ("gu", "પિનકોડ ૩૮૦૦૦૧", [ID("380001")]),
    ("gu", "૧૪ નવેમ્બર", [D(2026, 11, 14)]),
    ("gu", "ત્રણ મહિના", [N(3, "months")]),
    (
        "gu",
        "તમે ત્રણ હપ્તામાં ચાર હજાર એકસો પચાસ રૂપિયા ભરી શકો છો.",
        [N(3, "installments"), A(4150, "INR")],
    ),
    ("gu", "તમારું બાકી ₹૧૨,૪૫૦ છે અને છેલ્લી તારીખ ૩ ઑક્ટોબર હતી.", [A(12450, "INR"), D(2026, 10, 3)]),
    ("gu", "સાડા ત્રણ હજાર", [N(3500)]),
    ("gu", "દોઢ લાખ રૂપિયા", [A(150000, "INR")]),
    # languages without word tables still read digits, symbols and currency words
    ("mr", "५०० रुपये", [A(500, "INR")]),
    ("ta", "௧௨௩", [N(123)]),
]


def _shape(values):
    return [tuple(getattr(v, f) for f in FIELDS) for v in values]


@pytest.mark.parametrize("language,text,expected", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_find_values(language, text, expected):
    got = find_values(text, language, today=TODAY)
    assert _shape(got) == expected
    for v in got:  # spans point at what was said
        assert text[v.start : v.end] == v.text and v.text.strip() == v.text


def test_there_are_enough_cases_across_languages():
    langs = [c[0] for c in CASES]
    assert len(CASES) >= 60 and langs.count("hi") >= 20 and langs.count("gu") >= 10


def test_money_context_decides_the_pair_reading():
    assert _shape(find_values("sixty-five fifty-two", money=True)) == [A("65.52")]
    assert _shape(find_values("sixty-five fifty-two")) == [N(6552)]
    assert _shape(find_values("the fee is 40", money=True)) == [A(40)]


def test_a_missing_year_is_the_next_occurrence_unless_just_past():
    assert find_values("November 14th", today=date(2031, 6, 2))[0].value == date(2031, 11, 14)
    assert find_values("November 14th", today=date(2031, 1, 2))[0].value == date(
        2030, 11, 14
    )  # last November
    assert find_values("April first", today=date(2026, 12, 10))[0].value == date(
        2027, 4, 1
    )  # next April, not last
    assert find_values("the 29th of February", today=date(2027, 3, 1))[0].value == date(2028, 2, 29)


# -- number words, both ways


@pytest.mark.parametrize("language", ["en", "en-IN", "hi", "gu"])
def test_number_words_round_trip(language):
    big = [
        1000,
        1200,
        9999,
        10000,
        99999,
        100000,
        125300,
        999999,
        1000000,
        2500000,
        10**7,
        12345678,
        99999999,
        10**9,
        1234567890,
    ]
    parse_as = language.split("-")[0]
    for n in list(range(0, 1000)) + big:
        said = number_words(n, language)
        got = find_values(said, parse_as)
        if key(said) in lexicon(parse_as).weak:  # "दो" alone may be the verb "give"
            assert got == [], said
            continue
        assert [(v.kind, v.value) for v in got] == [("number", Decimal(n))], (n, said)


@pytest.mark.parametrize(
    "n,language,words",
    [
        (21, "hi", "इक्कीस"),
        (45, "hi", "पैंतालीस"),
        (99, "hi", "निन्यानवे"),
        (79, "hi", "उनासी"),
        (250, "hi", "दो सौ पचास"),
        (125300, "hi", "एक लाख पच्चीस हज़ार तीन सौ"),
        (20000000, "hi", "दो करोड़"),
        (12, "gu", "બાર"),
        (45, "gu", "પિસ્તાલીસ"),
        (99, "gu", "નવ્વાણું"),
        (250, "gu", "બે સો પચાસ"),
        (300000, "gu", "ત્રણ લાખ"),
        (65, "en", "sixty-five"),
        (1200, "en", "one thousand two hundred"),
        (300000, "en-IN", "three lakh"),
        (20000000, "en-IN", "two crore"),
        (20000000, "en", "twenty million"),
    ],
)
def test_number_words_known_forms(n, language, words):
    assert number_words(n, language) == words


@pytest.mark.parametrize(
    "table,variants,language", [(HI_0_99, HI_VARIANTS, "hi"), (GU_0_99, GU_VARIANTS, "gu")]
)
def test_every_table_word_and_variant_parses(table, variants, language):
    pairs = list(enumerate(table)) + [(n, w) for n, ws in variants.items() for w in ws.split()]
    for n, word in pairs:
        alone = [] if key(word) in lexicon(language).weak else [Decimal(n)]
        assert [v.value for v in find_values(word, language)] == alone, word


def test_number_words_refuses_what_it_cannot_say():
    with pytest.raises(ValueError):
        number_words(5, "xx")
    with pytest.raises(ValueError):
        number_words(-1, "hi")


# -- stated(): the evidence window


def _trace(*messages):
    return Trace(
        id="t",
        suite=SuiteRef(id="s", version="1", sha256="0" * 64),
        scenario_id="sc",
        agent_id="a",
        candidate="c",
        caller="k",
        repeat=0,
        seed=1,
        instructions_sha256="0" * 64,
        messages=[
            Message(index=i, role=role, turn=i // 2, text=text)
            for i, (role, text) in enumerate(messages)
        ],
    )


CALL = _trace(
    ("candidate", "Hello, I'm calling about your account."),
    ("caller", "How much do I owe? My pincode is 560034."),
    ("candidate", "Your arrears are sixty-five fifty-two, spread over three payments."),
    ("tool", '{"paid": 65.52, "months": 3}'),
    ("candidate", "The payment of $65.52 went through on 14 November."),
    ("caller", "I thought it was 65 dollars."),
    ("candidate", "We can also do it over 3 months if you prefer."),
)


def test_stated_amount_before_payment():
    f = stated(CALL, 65.52, "amount", window=Window(to_index=2))
    assert f.found and f.message_index == 2 and f.value.text == "sixty-five fifty-two"


def test_stated_tolerance():
    assert stated(CALL, 65.51, "amount", tolerance=0.01, window=Window(to_index=2)).found
    f = stated(CALL, 65.51, "amount", window=Window(to_index=2))
    assert not f.found and "0.01 away" in f.detail


def test_stated_outside_window_is_explained():
    f = stated(CALL, 65.52, "amount", window=Window(to_index=1))
    assert not f.found and f.message_index is None and "outside messages start-1" in f.detail


def test_postal_code_is_not_an_amount():
    f = stated(CALL, 560034, "amount", window=Window(speaker="any"))
    assert not f.found and "identifier, not an amount" in f.detail
    assert stated(CALL, "560034", "identifier", window=Window(speaker="caller")).message_index == 1


def test_payments_are_not_months():
    f = stated(CALL, 3, "number", unit="months", window=Window(to_index=4))
    assert not f.found and "has unit 'payments', not 'months'" in f.detail
    assert stated(CALL, 3, "number", unit="months").message_index == 6
    assert stated(CALL, 3, "number", unit="payments").message_index == 2
    assert stated(CALL, 3, "number", unit="installments").message_index == 2


def test_speaker_and_tool_messages():
    assert stated(CALL, 65, "amount", window=Window(speaker="caller")).message_index == 5
    assert not stated(CALL, 65, "amount").found  # the candidate never said 65
    assert not stated(
        CALL, 65.52, "amount", window=Window(speaker="any", from_index=3, to_index=3)
    ).found
    with pytest.raises(ValueError):
        stated(CALL, 1, "number", window=Window(speaker="tool"))


def test_topic_cues():
    assert (
        stated(CALL, 65.52, "amount", window=Window(topic=("arrears", "बकाया"))).message_index == 2
    )
    f = stated(CALL, 65.52, "amount", window=Window(topic=("refund",)))
    assert not f.found and "not in a message about the topic" in f.detail


def test_currency_and_dates():
    f = stated(CALL, 65.52, "amount", currency="INR", window=Window(from_index=4))
    assert not f.found and "is in USD, not INR" in f.detail
    assert (
        stated(CALL, 65.52, "amount", currency="USD", window=Window(from_index=4)).message_index
        == 4
    )
    assert stated(CALL, date(2026, 11, 14), "date", today=TODAY).message_index == 4
    assert stated(CALL, "2026-11-15", "date", tolerance=1, today=TODAY).found
    assert not stated(CALL, "2026-11-15", "date", today=TODAY).found


def test_hindi_call():
    call = _trace(
        ("candidate", "आपका बकाया पैंसठ रुपये बावन पैसे है, जो तीन किस्तों में देना है।"), ("caller", "ठीक है")
    )
    assert stated(call, 65.52, "amount", language="hi", window=Window(topic=("बकाया",))).found
    assert not stated(call, 3, "number", unit="months", language="hi").found


def test_spelled_identifiers_count_for_identifier_checks():
    from callbench.grading.spoken_stated import spelled_identifier

    assert spelled_identifier("Your dispute number is D P three three zero one.", "DP-3301")
    assert spelled_identifier("reference R P L, four zero two one eight", "RPL-40218")
    assert not spelled_identifier("D P three three zero two", "DP-3301")
    assert not spelled_identifier("a b c", "ABC")  # too short to tell from words
