"""Hindi in Devanagari: a word for each of 0-99 (45 is पैंतालीस, not "forty five"), canonical
spelling first (the CLDR spell-out rules), common variants after; fractions (डेढ़, ढाई, साढ़े,
सवा, पौने), lakh and crore, ordinal days (पहली मार्च, 23 तारीख), months, rupees and the cues around
identifiers. A Hindi call reads romanised Hindi too ("dedh lakh"): agents type both."""

from __future__ import annotations

from decimal import Decimal

from .table import LanguageTable, month_words, words, zero_to_99

ZERO_TO_99 = (
    "शून्य एक दो तीन चार पाँच छह सात आठ नौ दस ग्यारह बारह तेरह चौदह पन्द्रह सोलह सत्रह अठारह "
    "उन्नीस "
    "बीस इक्कीस बाईस तेईस चौबीस पच्चीस छब्बीस सत्ताईस अट्ठाईस उनतीस तीस इकतीस बत्तीस तैंतीस चौंतीस "
    "पैंतीस छत्तीस सैंतीस अड़तीस उनतालीस चालीस इकतालीस बयालीस तैंतालीस चौवालीस पैंतालीस छियालीस "
    "सैंतालीस अड़तालीस उनचास पचास इक्यावन बावन तिरेपन चौवन पचपन छप्पन सत्तावन अट्ठावन उनसठ साठ "
    "इकसठ बासठ तिरेसठ चौंसठ पैंसठ छियासठ सड़सठ अड़सठ उनहत्तर सत्तर इकहत्तर बहत्तर तिहत्तर चौहत्तर "
    "पचहत्तर छिहत्तर सतहत्तर अठहत्तर उनासी अस्सी इक्यासी बयासी तिरासी चौरासी पचासी छियासी सत्तासी "
    "अट्ठासी नवासी नब्बे इक्यानवे बानवे तिरानवे चौरानवे पचानवे छियानवे सत्तानवे अट्ठानवे निन्यानवे"
).split()
VARIANTS = {
    0: "ज़ीरो जीरो सुन्न सुन्ना",
    # English digit words as callers read out phone numbers ("नाइन एट सेवन")
    1: "वन",
    2: "टू",
    3: "थ्री",
    4: "फोर फ़ोर",
    5: "फाइव फ़ाइव",
    7: "सेवन",
    8: "एट",
    9: "नाइन",
    6: "छः छ छै सिक्स",
    15: "पंद्रह",
    27: "सताईस",
    28: "अठ्ठाईस अठाईस",
    29: "उन्नतीस",
    32: "बतीस",
    36: "छतीस",
    34: "चौतीस",
    39: "उन्तालीस",
    43: "तेतालीस",
    44: "चवालीस चौंतालीस चौआलीस",
    53: "तिरपन",
    54: "चौव्वन",
    58: "अठ्ठावन अठावन",
    63: "तिरसठ",
    67: "सरसठ",
    79: "उन्यासी उनयासी",
    87: "सतासी",
    88: "अठासी अठ्ठासी",
    95: "पंचानवे",
}
# 91-99 are written with -नवे and -नबे alike (CLDR uses -नबे)
VARIANTS.update(
    {n: VARIANTS.get(n, "") + " " + ZERO_TO_99[n].replace("नवे", "नबे") for n in range(91, 100)}
)
VARIANTS[95] += " पंचानबे"

TABLE = LanguageTable(
    code="hi",
    name="Hindi",
    numbers=zero_to_99(ZERO_TO_99, VARIANTS),
    canonical=tuple(ZERO_TO_99),
    weak="दो वन टू एट",  # also "give", "forest", "to", "ate": a number only before what it counts
    hundreds={"सौ": 100},
    scales={"हज़ार": 10**3, "लाख": 10**5, "करोड़": 10**7, "अरब": 10**9},
    fractions={
        "डेढ़": Decimal("1.5"),
        "ढाई": Decimal("2.5"),
        "अढ़ाई": Decimal("2.5"),
        "पौन": Decimal("0.75"),
    },
    adjusters={"साढ़े": Decimal("0.5"), "सवा": Decimal("0.25"), "पौने": Decimal("-0.25")},
    ordinals={
        **dict.fromkeys("पहली पहला पहले".split(), 1),
        **dict.fromkeys("दूसरी दूसरा दूसरे".split(), 2),
        **dict.fromkeys("तीसरी तीसरा तीसरे".split(), 3),
        **dict.fromkeys("चौथी चौथा चौथे".split(), 4),
        "पाँचवीं": 5,
        "पांचवी": 5,
        "छठी": 6,
        "छठवीं": 6,
        "सातवीं": 7,
        "आठवीं": 8,
        "नौवीं": 9,
        "दसवीं": 10,
    },
    numeral_suffixes=("वीं", "वां", "वें", "ली", "ला"),
    day_words="तारीख तारिख तरीख",
    months=month_words(
        "जनवरी",
        "फ़रवरी",
        "मार्च",
        "अप्रैल अप्रेल",
        "मई",
        "जून",
        "जुलाई",
        "अगस्त",
        "सितंबर सितम्बर",
        "अक्टूबर अक्तूबर",
        "नवंबर नवम्बर",
        "दिसंबर दिसम्बर",
    ),
    currency_prefix={"रु": "INR"},
    currency_major=words({"INR": "रुपये रुपए रुपया रुपयों रु रुपैया"}),
    currency_minor=words({"INR": "पैसे पैसा"}),
    units=words(
        {
            "month": "महीना महीने महीनों माह मास",
            "day": "दिन",
            "year": "साल वर्ष बरस",
            "week": "हफ़्ता हफ़्ते हफ़्तों सप्ताह",
            "installment": "किस्त किश्त",
            "payment": "भुगतान",
            "litre": "लीटर",
            "hour": "घंटा घंटे घंटों",
            "minute": "मिनट",
            "time": "बार",
            "percent": "प्रतिशत",
        }
    ),
    next_words="अगले अगली अगला",
    every_words="हर प्रत्येक",
    and_words="और",
    point_words="दशमलव",
    repeat_words={"डबल": 2, "ट्रिपल": 3},
    time_words="बजे",
    pm_cues="शाम दोपहर",
    id_cues="पिन पिनकोड नंबर नम्बर खाता मोबाइल फ़ोन ओटीपी आईडी",
    strong_cues="पिन पिनकोड नंबर नम्बर ओटीपी",
    id_fillers="संख्या नंबर कोड",
    is_words="है",
    year_cues="सन् साल",
    stop_words="सिर्फ़ सिर्फ केवल लगभग करीब तकरीबन कुल बस मात्र पूरे मे का की के को में से पर है "
    "हैं था थी थे और या तक ने भी ही तो जी हाँ नहीं कि लिए",
    folds={
        "\u0901": "\u0902",
        "\u093c": None,
        "\u0940": "\u093f",
        "\u0942": "\u0941",
        "\u0908": "\u0907",
        "\u090a": "\u0909",
        "\u0911": "\u0913",
        "\u0949": "\u094b",
    },
    reads_also=("en", "hi-Latn"),
)
