"""Word tables for the spoken-value parser (number words, months, currencies, units, cues), and
number words' inverse.

Hindi and Gujarati give every number from 0 to 99 its own word (45 is पैंतालीस,
not "forty five"), and no library we can depend on covers them: num2words has
English and Indian English only, text2num no Indian language. So the tables
live here, canonical spelling first (the CLDR spell-out rules), common variants
after. Lookups go through `key()`, which folds the differences writers make
freely (nukta, chandrabindu against anusvara, long against short i/u, Gujarati
ળ/લ), so one variant entry covers many spellings.
"""

from __future__ import annotations

import functools
import unicodedata
from decimal import Decimal

_FOLD = str.maketrans(
    {
        "\u0901": "\u0902",
        "\u093c": None,
        "\u0940": "\u093f",
        "\u0942": "\u0941",
        "\u0908": "\u0907",
        "\u090a": "\u0909",
        "\u0911": "\u0913",
        "\u0949": "\u094b",
        "\u0a81": "\u0a82",
        "\u0abc": None,
        "\u0ac0": "\u0abf",
        "\u0ac2": "\u0ac1",
        "\u0a88": "\u0a87",
        "\u0a8a": "\u0a89",
        "\u0a91": "\u0a93",
        "\u0ac9": "\u0acb",
        "\u0ab3": "\u0ab2",
        "\u200c": None,
        "\u200d": None,
    }
)


def key(word: str) -> str:
    """The lookup form of a word: spelling differences that never change a number's meaning
    removed. Words of up to MAX_CACHED_KEY characters are cached: the parser looks up every word
    of every reply, and replies repeat words (a hostile reply's long words would only fill it)."""
    return _cached_key(word) if len(word) <= MAX_CACHED_KEY else _key(word)


def _key(word: str) -> str:
    return unicodedata.normalize("NFD", word).casefold().translate(_FOLD)


MAX_CACHED_KEY = 40
_cached_key = functools.lru_cache(maxsize=8192)(_key)


EN_SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
EN_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
EN_ORDINALS = dict(
    zip(
        (
            "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
            "thirteenth fourteenth "
            "fifteenth sixteenth seventeenth eighteenth nineteenth"
        ).split(),
        range(1, 20),
    )
)
EN_ORDINALS.update(twentieth=20, thirtieth=30)

HI_0_99 = (
    "शून्य एक दो तीन चार पाँच छह सात आठ नौ दस ग्यारह बारह तेरह चौदह पन्द्रह सोलह सत्रह अठारह "
    "उन्नीस "
    "बीस इक्कीस बाईस तेईस चौबीस पच्चीस छब्बीस सत्ताईस अट्ठाईस उनतीस तीस इकतीस बत्तीस तैंतीस चौंतीस "
    "पैंतीस छत्तीस सैंतीस अड़तीस उनतालीस चालीस इकतालीस बयालीस तैंतालीस चौवालीस पैंतालीस छियालीस "
    "सैंतालीस अड़तालीस उनचास पचास इक्यावन बावन तिरेपन चौवन पचपन छप्पन सत्तावन अट्ठावन उनसठ साठ "
    "इकसठ बासठ तिरेसठ चौंसठ पैंसठ छियासठ सड़सठ अड़सठ उनहत्तर सत्तर इकहत्तर बहत्तर तिहत्तर चौहत्तर "
    "पचहत्तर छिहत्तर सतहत्तर अठहत्तर उनासी अस्सी इक्यासी बयासी तिरासी चौरासी पचासी छियासी सत्तासी "
    "अट्ठासी नवासी नब्बे इक्यानवे बानवे तिरानवे चौरानवे पचानवे छियानवे सत्तानवे अट्ठानवे निन्यानवे"
).split()
HI_VARIANTS = {
    6: "छः छ छै",
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
HI_VARIANTS.update(
    {n: HI_VARIANTS.get(n, "") + " " + HI_0_99[n].replace("नवे", "नबे") for n in range(91, 100)}
)
HI_VARIANTS[95] += " पंचानबे"

GU_0_99 = (
    "શૂન્ય એક બે ત્રણ ચાર પાંચ છ સાત આઠ નવ દસ અગિયાર બાર તેર ચૌદ પંદર સોળ સત્તર અઢાર ઓગણીસ "
    "વીસ એકવીસ બાવીસ તેવીસ ચોવીસ પચ્ચીસ છવીસ સત્તાવીસ અઠ્ઠાવીસ ઓગણત્રીસ ત્રીસ એકત્રીસ બત્રીસ "
    "તેત્રીસ "
    "ચોત્રીસ પાંત્રીસ છત્રીસ સડત્રીસ અડત્રીસ ઓગણચાલીસ ચાલીસ એકતાલીસ બેતાલીસ ત્રેતાલીસ ચુંમાલીસ "
    "પિસ્તાલીસ છેતાલીસ સુડતાલીસ અડતાલીસ ઓગણપચાસ પચાસ એકાવન બાવન ત્રેપન ચોપન પંચાવન છપ્પન સત્તાવન "
    "અઠ્ઠાવન ઓગણસાઠ સાઈઠ એકસઠ બાસઠ ત્રેસઠ ચોસઠ પાંસઠ છાસઠ સડસઠ અડસઠ અગણોસિત્તેર સિત્તેર એકોતેર "
    "બોતેર તોતેર ચુમોતેર પંચોતેર છોતેર સિત્યોતેર ઇઠ્યોતેર ઓગણાએંસી એંસી એક્યાસી બ્યાસી ત્યાસી "
    "ચોર્યાસી પંચાસી છ્યાસી સિત્યાસી ઈઠ્યાસી નેવ્યાસી નેવું એકાણું બાણું ત્રાણું ચોરાણું પંચાણું "
    "છન્નું "
    "સત્તાણું અઠ્ઠાણું નવ્વાણું"
).split()
GU_VARIANTS = {
    10: "દશ",
    11: "અગિયાર અગીઆર",
    23: "ત્રેવીસ",
    26: "છવ્વીસ",
    37: "સાડત્રીસ",
    38: "આડત્રીસ",
    43: "તેતાલીસ",
    44: "ચુમ્માલીસ ચોમાલીસ",
    60: "સાઠ",
    69: "ઓગણસિત્તેર ઓગણોસિત્તેર",
    79: "ઓગણએંસી",
    80: "એંશી",
    96: "છન્નુ",
}

assert len(HI_0_99) == 100 and len(GU_0_99) == 100

# role codes: d digit 0-9, n 10-99, t English tens (takes a unit), s hundred, S thousand and up,
# h Gujarati hundreds written as one word, f ढाई-style fraction, p साढ़े-style adjustment,
# a English "a", point, oh, rep (double/triple)
Entry = tuple[str, Decimal]
_EN: dict[str, Entry] = {w: ("d" if n < 10 else "n", Decimal(n)) for n, w in enumerate(EN_SMALL)}
_EN.update({w: ("t", Decimal(10 * n)) for n, w in enumerate(EN_TENS) if w})
_EN.update(
    nought=("d", Decimal(0)),
    hundred=("s", Decimal(100)),
    a=("a", Decimal(1)),
    an=("a", Decimal(1)),
    point=("point", Decimal(0)),
    oh=("oh", Decimal(0)),
    o=("oh", Decimal(0)),
    double=("rep", Decimal(2)),
    triple=("rep", Decimal(3)),
)
for _w, _v in (
    ("thousand", 10**3),
    ("lakh", 10**5),
    ("lakhs", 10**5),
    ("lac", 10**5),
    ("lacs", 10**5),
    ("crore", 10**7),
    ("crores", 10**7),
    ("million", 10**6),
    ("billion", 10**9),
):
    _EN[_w] = ("S", Decimal(_v))


def _indic(
    table: tuple[str, ...] | list[str], variants: dict[int, str], extra: dict[str, Entry]
) -> dict[str, Entry]:
    out: dict[str, Entry] = {}
    for n, w in list(enumerate(table)) + [(n, v) for n, vs in variants.items() for v in vs.split()]:
        out[key(w)] = ("d" if n < 10 else "n", Decimal(n))
    out.update({key(w): e for w, e in extra.items()})
    return out


_HI = _indic(
    HI_0_99,
    HI_VARIANTS,
    {
        "सौ": ("s", Decimal(100)),
        "हज़ार": ("S", Decimal(10**3)),
        "लाख": ("S", Decimal(10**5)),
        "करोड़": ("S", Decimal(10**7)),
        "अरब": ("S", Decimal(10**9)),
        "डेढ़": ("f", Decimal("1.5")),
        "ढाई": ("f", Decimal("2.5")),
        "साढ़े": ("p", Decimal("0.5")),
        "सवा": ("p", Decimal("0.25")),
        "पौने": ("p", Decimal("-0.25")),
        "दशमलव": ("point", Decimal(0)),
        "डबल": ("rep", Decimal(2)),
        "ट्रिपल": ("rep", Decimal(3)),
    },
)
_GU = _indic(
    GU_0_99,
    GU_VARIANTS,
    {
        "સો": ("s", Decimal(100)),
        "હજાર": ("S", Decimal(10**3)),
        "લાખ": ("S", Decimal(10**5)),
        "કરોડ": ("S", Decimal(10**7)),
        "અબજ": ("S", Decimal(10**9)),
        "દોઢ": ("f", Decimal("1.5")),
        "અઢી": ("f", Decimal("2.5")),
        "સાડા": ("p", Decimal("0.5")),
        "સવા": ("p", Decimal("0.25")),
        "પોણા": ("p", Decimal("-0.25")),
        "દશાંશ": ("point", Decimal(0)),
        "ડબલ": ("rep", Decimal(2)),
        "બસો": ("h", Decimal(200)),
        "બેસો": ("h", Decimal(200)),
        **{GU_0_99[n] + "સો": ("h", Decimal(100 * n)) for n in (1, 3, 4, 5, 6, 7, 8, 9)},
    },
)

NUMBER_WORDS = {"en": _EN, "hi": {**_EN, **_HI}, "gu": {**_EN, **_GU}}

MONTHS: dict[str, int] = {}
for _i, _names in enumerate(
    (
        "january jan जनवरी જાન્યુઆરી",
        "february feb फ़रवरी ફેબ્રુઆરી",
        "march mar मार्च માર્ચ",
        "april apr अप्रैल अप्रेल એપ્રિલ",
        "may मई મે",
        "june jun जून જૂન",
        "july jul जुलाई જુલાઈ",
        "august aug अगस्त ઑગસ્ટ",
        "september sep sept सितंबर सितम्बर સપ્ટેમ્બર",
        "october oct अक्टूबर अक्तूबर ઑક્ટોબર",
        "november nov नवंबर नवम्बर નવેમ્બર",
        "december dec दिसंबर दिसम्बर ડિસેમ્બર",
    ),
    start=1,
):
    MONTHS.update({key(w): _i for w in _names.split()})


# -- the words around numbers: currencies, units, identifier cues (keys, as `key()` gives them)


def _keys(spec: dict[str, str]) -> dict[str, str]:
    return {key(w): code for code, words in spec.items() for w in words.split()}


SYMBOLS = {"$": "USD", "₹": "INR", "£": "GBP", "€": "EUR"}
PREFIX = _keys({"INR": "rs inr रु રૂ", "USD": "usd", "GBP": "gbp", "EUR": "eur"})
MAJOR = _keys(
    {
        "USD": "dollar dollars buck bucks usd",
        "GBP": "pound pounds quid gbp",
        "EUR": "euro euros eur",
        "INR": "rupee rupees rs inr रुपये रुपए रुपया रुपयों रु रुपैया રૂપિયા રૂપિયો રૂ",
    }
)
MINOR = _keys({"USD": "cent cents", "INR": "paise paisa पैसे पैसा પૈસા", "GBP": "pence penny"})
AND = {key(w) for w in "and और અને".split()}
TIME_WORDS = {key(w) for w in "am pm बजे વાગ્યે વાગે".split()}
UNIT_WORDS = _keys(
    {  # Indian-language unit nouns, matched as word starts: "हपतામાં" carries its postposition
        "month": "महीना महीने महीनों माह मास મહિનો મહિના મહિને",
        "day": "दिन દિવસ",
        "year": "साल वर्ष बरस વર્ષ વરસ",
        "week": "हफ़्ता हफ़्ते हफ़्तों सप्ताह અઠવાડિયું અઠવાડિયા",
        "installment": "किस्त किश्त હપ્તો હપ્તા",
        "payment": "भुगतान ચુકવણી",
        "litre": "लीटर લિટર",
        "hour": "घंटा घंटे घंटों કલાક",
        "minute": "मिनट મિનિટ",
        "time": "बार વખત",
        "percent": "प्रतिशत ટકા",
    }
)
PM_CUES = {key(w) for w in "evening afternoon tonight शाम दोपहर સાંજે બપોરે".split()}
STOP = {
    key(w)
    for w in (
        "and or to of the a an in on at for by with from is are was were be been it its this that "
        "these those i you "
        "we he she they my your our his her their me us them so but if then than as per about "
        "around approx each "
        "every which who what when where will would can could should may might must do does did "
        "has have had not no "
        "yes ok okay please just only also too over under into off up down out now today ago "
        "before after until "
        "का की के को में से पर है हैं था थी थे और या तक ने भी ही तो जी हाँ नहीं कि लिए "
        "નો ની નું ના ને માં થી પર છે હતું હતી અને કે પણ જ તો સુધી માટે"
    ).split()
}
ADJ = {
    key(w)
    for w in (
        "more remaining monthly weekly equal further additional extra full total consecutive "
        "separate outstanding missed overdue pending due previous last next whole straight "
        "calendar working business"
    ).split()
}
ID_CUES = {
    key(w)
    for w in (
        "pincode pin zip zipcode postcode postal account acct phone mobile cell reference ref "
        "order policy ticket booking pnr otp id customer member card ifsc aadhaar aadhar "
        "consumer invoice tracking serial पिन पिनकोड नंबर नम्बर खाता मोबाइल फ़ोन ओटीपी "
        "आईडी પિન પિનકોડ નંબર ખાતા ખાતું મોબાઇલ ફોન"
    ).split()
}
STRONG_CUES = {
    key(w)
    for w in "pincode pin zip zipcode postcode otp pnr ifsc पिन पिनकोड नंबर नम्बर ओटीपी "
    "પિન પિનકોડ નંબર".split()
}
ID_FILLERS = {key(w) for w in "number no num code id ending संख्या नंबर कोड કોડ".split()} | {
    "#",
    ":",
    ".",
}
IS = {key(w) for w in "is was are है છે".split()}
YEAR_CUES = {key(w) for w in "in since year from until till during सन् साल વર્ષ".split()}


UNIT_SYNONYMS = {
    "instalment": "payment",
    "installment": "payment",
    "emi": "payment",
    "liter": "litre",
    "mo": "month",
    "yr": "year",
    "hr": "hour",
    "min": "minute",
    "%": "percent",
}


def unit_class(unit: str) -> str:
    """What a unit means, for comparing: singular, and instalments/EMIs are payments (but never
    months)."""
    u = unit.casefold().strip()
    if len(u) > 3 and u.endswith("s") and not u.endswith("ss"):
        u = u[:-1]
    return UNIT_SYNONYMS.get(u, u)


def number_words(n: int, language: str) -> str:
    """A whole number as a speaker of `language` would say it: Indian languages (and "en-IN")
    group by hundred, thousand, lakh and crore; English by thousand, million, billion."""
    if n < 0:
        raise ValueError("negative numbers are not spoken by this table")
    lang = language.replace("_", "-").lower()
    if lang in ("hi", "gu") or lang.startswith(("hi-", "gu-")):
        hi = lang.startswith("hi")
        return _indic_words(
            n,
            HI_0_99 if hi else GU_0_99,
            ("सौ", "हज़ार", "लाख", "करोड़") if hi else ("સો", "હજાર", "લાખ", "કરોડ"),
        )
    if lang in ("en", "en-in") or lang.startswith("en-"):
        return _en_words(n, indian=lang == "en-in")
    raise ValueError(f"no number words for language {language!r}")


def _indic_words(n: int, table: list[str], names: tuple[str, str, str, str]) -> str:
    if n < 100:
        return table[n]
    for size, name in ((10**7, names[3]), (10**5, names[2]), (10**3, names[1]), (100, names[0])):
        if n >= size:
            q, r = divmod(n, size)
            head = f"{table[q] if size == 100 else _indic_words(q, table, names)} {name}"
            return head + (f" {_indic_words(r, table, names)}" if r else "")
    raise AssertionError(n)


def _en_words(n: int, indian: bool) -> str:
    if n < 20:
        return EN_SMALL[n]
    if n < 100:
        t, u = divmod(n, 10)
        return EN_TENS[t] + (f"-{EN_SMALL[u]}" if u else "")
    scales = (
        ((10**7, "crore"), (10**5, "lakh"), (10**3, "thousand"))
        if indian
        else ((10**9, "billion"), (10**6, "million"), (10**3, "thousand"))
    )
    for size, name in scales + ((100, "hundred"),):
        if n >= size:
            q, r = divmod(n, size)
            return f"{_en_words(q, indian)} {name}" + (f" {_en_words(r, indian)}" if r else "")
    raise AssertionError(n)
