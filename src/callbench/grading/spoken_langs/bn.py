"""Bengali: a word for each of 0-99 (পঁয়তাল্লিশ is 45, as in Hindi), canonical spelling first (the
standard Bangla spell-out), spellings speakers and writers vary after; hundreds written as one word
(দুশো, তিনশো, and money counted in hundreds up to 1900: বারোশো পঞ্চাশ is 1250), fractions (দেড়,
আড়াই, সাড়ে, সোয়া, পৌনে), হাজার, লাখ/লক্ষ, কোটি; ordinal dates (পয়লা, দোসরা, তেসরা, চৌঠা, then -ই
to 18 and -এ from 19: চোদ্দই, একুশে; ১লা, ১৪ই, ২১শে); months and টাকা with their case endings
(নভেম্বরের, টাকার); and the classifier টা/টি/টে/টো written onto a number (তিনটে কিস্তি: three
instalments; পাঁচটায়: at five o'clock), read as the number, and at a clock time as the number
and "o'clock" (`compounds`).

টাকা is the rupee on Indian lines (INR); a Bangladeshi suite would need its own code.
"""

from __future__ import annotations

from decimal import Decimal

from .table import LanguageTable, month_words, words, zero_to_99

ZERO_TO_99 = (
    "শূন্য এক দুই তিন চার পাঁচ ছয় সাত আট নয় দশ এগারো বারো তেরো চোদ্দ পনেরো ষোলো সতেরো আঠারো "
    "উনিশ বিশ একুশ বাইশ তেইশ চব্বিশ পঁচিশ ছাব্বিশ সাতাশ আঠাশ ঊনত্রিশ ত্রিশ একত্রিশ বত্রিশ "
    "তেত্রিশ চৌত্রিশ পঁয়ত্রিশ ছত্রিশ সাঁইত্রিশ আটত্রিশ ঊনচল্লিশ চল্লিশ একচল্লিশ বিয়াল্লিশ "
    "তেতাল্লিশ চুয়াল্লিশ পঁয়তাল্লিশ ছেচল্লিশ সাতচল্লিশ আটচল্লিশ ঊনপঞ্চাশ পঞ্চাশ একান্ন বাহান্ন "
    "তিপ্পান্ন চুয়ান্ন পঞ্চান্ন ছাপ্পান্ন সাতান্ন আটান্ন ঊনষাট ষাট একষট্টি বাষট্টি তেষট্টি চৌষট্টি "
    "পঁয়ষট্টি ছেষট্টি সাতষট্টি আটষট্টি ঊনসত্তর সত্তর একাত্তর বাহাত্তর তিয়াত্তর চুয়াত্তর পঁচাত্তর "
    "ছিয়াত্তর সাতাত্তর আটাত্তর ঊনআশি আশি একাশি বিরাশি তিরাশি চুরাশি পঁচাশি ছিয়াশি সাতাশি "
    "অষ্টআশি ঊননব্বই নব্বই একানব্বই বিরানব্বই তিরানব্বই চুরানব্বই পঁচানব্বই ছিয়ানব্বই "
    "সাতানব্বই আটানব্বই নিরানব্বই"
).split()
VARIANTS = {
    # English digit words as callers say phone numbers and ids ("সেভেন নাইন জিরো এইট")
    0: "জিরো",
    1: "ওয়ান",
    2: "দু টু",
    3: "থ্রি",
    4: "ফোর",
    5: "ফাইভ",
    6: "ছ ছয় সিক্স",
    7: "সেভেন",
    8: "এইট",
    9: "ন নাইন",
    11: "এগার",
    13: "তের",
    14: "চৌদ্দ চোদ্দো",
    15: "পনের",
    16: "ষোল",
    17: "সতের",
    18: "আঠার",
    20: "কুড়ি",
    30: "তিরিশ",
    34: "চোত্রিশ",
    52: "বায়ান্ন",
    88: "অষ্টাশি আটাশি",
}
# বার (12) is left out: it is also "times" (তিন বার, three times)

# date ordinals: four of their own, then the number and -ই (5-18) or -এ (19-31)
_ORDINAL_WORDS = {1: "পয়লা পহেলা", 2: "দোসরা", 3: "তেসরা", 4: "চৌঠা চোঠা"}


def _ordinals() -> dict[str, int]:
    out = {w: n for n, ws in _ORDINAL_WORDS.items() for w in ws.split()}
    spellings = zero_to_99(ZERO_TO_99, VARIANTS)
    for w, n in spellings.items():
        if 5 <= n <= 18 and w not in ("ছ", "দু"):
            out[w + "ই"] = n
        elif 19 <= n <= 31 and not "\u09be" <= w[-1] <= "\u09cc":  # a consonant takes -এ
            out[w + "\u09c7"] = n
    return out


ORDINALS = _ordinals()

FUSED_HUNDREDS = {
    **{
        w + s: 100 * n
        for w, n in zero_to_99(ZERO_TO_99, VARIANTS).items()
        if 1 <= n <= 19 and n != 10
        for s in ("শো", "শ")
    },
    "নশো": 900,
    "দেড়শো": 150,
    "দেড়শ": 150,
    "আড়াইশো": 250,
    "আড়াইশ": 250,
    "সোয়াশো": 125,
}

# the classifier on a number: তিনটে, পাঁচটা, দুটো, একটি (a count); at a clock time with the
# locative: পাঁচটায়, চারটেয়, দুটোয় (read as the number and টায়, a time word)
_COUNT = ("টা", "টি", "টে", "টো")
_AT = ("টায়", "টেয়", "টোয়")


def _compounds() -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    numbers = [w for w, n in zero_to_99(ZERO_TO_99, VARIANTS).items() if n]
    for w in (*numbers, "দেড়", "আড়াই"):
        for c in _COUNT:
            out[w + c] = (w,)
        for c in _AT:
            out[w + c] = (w, "টায়")
    return out


COMPOUNDS = _compounds()

TABLE = LanguageTable(
    code="bn",
    name="Bengali",
    numbers=zero_to_99(ZERO_TO_99, VARIANTS),
    canonical=tuple(ZERO_TO_99),
    hundreds={"শো": 100, "শ": 100},
    fused_hundreds=FUSED_HUNDREDS,
    scales={"হাজার": 10**3, "লাখ": 10**5, "লক্ষ": 10**5, "কোটি": 10**7},
    fractions={"দেড়": Decimal("1.5"), "আড়াই": Decimal("2.5")},
    adjusters={"সাড়ে": Decimal("0.5"), "সোয়া": Decimal("0.25"), "পৌনে": Decimal("-0.25")},
    ordinals=ORDINALS,
    numeral_suffixes=("লা", "রা", "ঠা", "ই", "শে"),
    # নয় (9) is also "is not" (ঠিক নয়): a number only before what it counts
    weak="নয় ন টু ওয়ান",  # also "is not", a short "nine" and the English "to", "one"
    day_words="তারিখ তারিখে তারিখের তারিখও",
    months=month_words(
        "জানুয়ারি",
        "ফেব্রুয়ারি",
        "মার্চ",
        "এপ্রিল",
        "মে",
        "জুন",
        "জুলাই",
        "আগস্ট অগাস্ট আগষ্ট",
        "সেপ্টেম্বর",
        "অক্টোবর",
        "নভেম্বর",
        "ডিসেম্বর",
    ),
    currency_prefix={"রু": "INR"},
    currency_major=words({"INR": "টাকা রুপি রুপিজ"}),
    currency_minor=words({"INR": "পয়সা"}),
    units=words(
        {
            "month": "মাস",
            "day": "দিন",
            "year": "বছর বৎসর",
            "week": "সপ্তাহ হপ্তা",
            "installment": "কিস্তি",
            "litre": "লিটার",
            "hour": "ঘণ্টা ঘন্টা",
            "minute": "মিনিট",
            "time": "বার",
            "percent": "শতাংশ পার্সেন্ট",
        }
    ),
    # written onto a month, টাকা or a unit: নভেম্বরের, ডিসেম্বরে, জানুয়ারিতে, টাকার, টাকায়
    case_endings=("ের", "র", "এর", "ে", "য়", "য়ে", "তে", "কে", "টা", "ও", "ই"),
    every_words="প্রতি প্রত্যেক",
    next_words="আগামী পরের সামনের",
    # "দশ হাজারের কিস্তি" is an instalment of 10,000 (not -র: চার ends in it)
    genitive_endings="ের",
    and_words="আর এবং",
    point_words="দশমিক",
    repeat_words={"ডাবল": 2, "ট্রিপল": 3},
    time_words="টায় বাজে",
    pm_cues="বিকেল বিকেলে বিকাল সন্ধ্যা সন্ধ্যায় সন্ধে সন্ধেয় দুপুর দুপুরে",
    night_cues="রাত রাতে রাত্রে রাত্রি",
    id_cues=("নম্বর নাম্বার মোবাইল ফোন অ্যাকাউন্ট একাউন্ট পিন পিনকোড ওটিপি আইডি কাস্টমার গ্রাহক কনজিউমার পলিসি"),
    strong_cues="পিন পিনকোড নম্বর নাম্বার ওটিপি",
    id_fillers="কোড নম্বর নাম্বার আইডি",
    is_words="হল হলো",
    year_cues="সাল সালে",
    stop_words="এর কে থেকে এবং আর কি না হ্যাঁ আছে ছিল হবে জন্য মধ্যে পর্যন্ত এই ওই",
    folds={
        "\u0981": None,
        "\u09bc": None,
        "\u09c0": "\u09bf",
        "\u09c2": "\u09c1",
        "\u0988": "\u0987",
        "\u098a": "\u0989",
    },
    compounds=COMPOUNDS,
)
