"""English: number words, ordinals, months, currencies and cues (Indian English's lakh and crore
included, as Indian agents say them)."""

from __future__ import annotations

from decimal import Decimal

from .table import LanguageTable, month_words, words

SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
ORDINALS = dict(
    zip(
        (
            "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
            "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth"
        ).split(),
        range(1, 20),
    )
)
ORDINALS.update(twentieth=20, thirtieth=30)

TABLE = LanguageTable(
    code="en",
    name="English",
    numbers={**{w: n for n, w in enumerate(SMALL)}, "nought": 0},
    tens={w: 10 * n for n, w in enumerate(TENS) if w},
    hundreds={"hundred": 100},
    scales={
        "thousand": 10**3,
        "lakh": 10**5,
        "lakhs": 10**5,
        "lac": 10**5,
        "lacs": 10**5,
        "crore": 10**7,
        "crores": 10**7,
        "million": 10**6,
        "billion": 10**9,
    },
    ordinals=ORDINALS,
    numeral_suffixes=("st", "nd", "rd", "th"),
    months=month_words(
        "january jan",
        "february feb",
        "march mar",
        "april apr",
        "may",
        "june jun",
        "july jul",
        "august aug",
        "september sep sept",
        "october oct",
        "november nov",
        "december dec",
    ),
    currency_prefix=words({"INR": "rs inr", "USD": "usd", "GBP": "gbp", "EUR": "eur"}),
    currency_major=words(
        {
            "USD": "dollar dollars buck bucks usd",
            "GBP": "pound pounds quid gbp",
            "EUR": "euro euros eur",
            "INR": "rupee rupees rs inr",
        }
    ),
    currency_minor=words({"USD": "cent cents", "INR": "paise paisa", "GBP": "pence penny"}),
    next_words="next",
    every_words="each every",
    and_words="and",
    point_words="point",
    repeat_words={"double": 2, "triple": 3},
    time_words="am pm",
    pm_cues="evening afternoon tonight",
    id_cues="pincode pin zip zipcode postcode postal account acct phone mobile cell reference ref "
    "order policy ticket booking pnr otp id customer member card ifsc aadhaar aadhar consumer "
    "invoice tracking serial",
    strong_cues="pincode pin zip zipcode postcode otp pnr ifsc",
    id_fillers="number no num code id ending",
    is_words="is was are",
    year_cues="in since year from until till during",
    stop_words="and or to of the a an in on at for by with from is are was were be been it its "
    "this that these those i you we he she they my your our his her their me us them so but if "
    "then than as per about around approx each every which who what when where will would can "
    "could should may might must do does did has have had not no yes ok okay please just only "
    "also too over under into off up down out now today ago before after until plus minus "
    "including excluding",
    other_roles={
        "a": ("a", Decimal(1)),
        "an": ("a", Decimal(1)),
        "oh": ("oh", Decimal(0)),
        "o": ("oh", Decimal(0)),
        "half": ("half", Decimal("0.5")),
    },
    reads_also=(),
)
