"""Romanised Hindi ("hi-Latn"), as Indian callers and agents type it: "dedh lakh", "saade teen
sau", "do sau pachaas rupaye", "pehli march", "23 tarikh". No spelling is standard, so each number
has the spellings people actually write; words that are also English or everyday Hindi ("do",
"teen", "saath" = with, "tera" = your) are `weak`: numbers only before another number, a scale, a
currency or a unit word."""

from __future__ import annotations

from decimal import Decimal

from .table import LanguageTable, words, zero_to_99

ZERO_TO_99 = (
    "shunya ek do teen chaar paanch chhah saat aath nau das gyaarah baarah terah chaudah pandrah "
    "solah satrah athaarah unnees bees ikkees baaees teis chaubees pachchees chhabbees sattaees "
    "atthaees untees tees ikattees battees taintees chautees paintees chhattees saintees adtees "
    "untaalees chaalees iktaalees bayaalees taintaalees chauvaalees paintaalees chhiyaalees "
    "saintaalees adtaalees unchaas pachaas ikyaavan baavan tirepan chauvan pachpan chhappan "
    "sattaavan atthaavan unsath saath iksath baasath tiresath chaunsath painsath chhiyaasath "
    "sadsath adsath unhattar sattar ikhattar bahattar tihattar chauhattar pachhattar chhihattar "
    "satattar athattar unaasi assi ikyaasi bayaasi tiraasi chauraasi pachaasi chhiyaasi sattaasi "
    "atthaasi navaasi nabbe ikyaanave baanave tiraanave chauraanave pachaanave chhiyaanave "
    "sattaanave atthaanave ninyaanave"
).split()
VARIANTS = {
    0: "shoonya shunya",
    3: "tin",
    4: "char chaar",
    5: "panch paanch paach",
    6: "chhe chhah chah chhay chheh",
    7: "sat",
    8: "aath aat ath",
    10: "dus dass",
    11: "gyarah gyara gyaara gyaraa igyarah",
    12: "barah bara baara baraa",
    13: "tera teraa",
    14: "chauda chaudha choudah chouda",
    15: "pandra pandhra pandhrah",
    16: "sola solaa solha",
    17: "satra sattrah satrah",
    18: "athara atharah attharah atthara",
    19: "unnis unees unis",
    20: "bis",
    21: "ikkis ikis",
    22: "bais baais baees",
    23: "teis teees teyees tees_",
    24: "chaubis chobis chobees",
    25: "pachees pachis pacchis pachchis",
    26: "chhabbis chabbis chabbees",
    27: "sattais sataais sattaais",
    28: "atthais athais atthaais",
    29: "untis unatees",
    30: "tis",
    31: "ikattis iktees iktis ikatis",
    32: "battis batis",
    33: "taintis tentis tetis",
    34: "chautis chauntis chountis",
    35: "paintis pentis",
    36: "chhattis chattis",
    37: "saintis sentis",
    38: "adtis artis adtees",
    39: "untalis unchalis untaalis",
    40: "chalis chaalis",
    41: "iktalis iktaalis",
    42: "bayalis byalis",
    43: "taintalis tentalis",
    44: "chauvalis chavalis chawalis chauwalis",
    45: "paintalis pentalis",
    46: "chhiyalis chiyalis",
    47: "saintalis sentalis",
    48: "adtalis artalis",
    49: "unchas",
    50: "pachas pachaas",
    51: "ikyavan ekyavan",
    52: "bavan",
    53: "tirpan",
    54: "chauwan chowan",
    56: "chappan",
    57: "sattavan",
    58: "athavan atthavan",
    59: "unsaath",
    61: "iksaath",
    62: "basath",
    63: "tirsath",
    64: "chausath chonsath chausath",
    65: "pensath painsath",
    66: "chhiyasath chiyasath",
    67: "sarsath",
    68: "arsath",
    75: "pachattar pachhatar",
    76: "chihattar",
    77: "sathattar satahattar",
    78: "athhattar",
    79: "unasi unyasi",
    80: "assee",
    81: "ikyasi",
    82: "bayasi",
    83: "tirasi",
    84: "chaurasi",
    85: "pachasi",
    86: "chhiyasi chiyasi",
    87: "sattasi",
    88: "atthasi athasi",
    89: "navasi",
    91: "ikyanve ikyanbe",
    92: "banve baanbe",
    93: "tiranve",
    94: "chauranve",
    95: "pachanve panchanve",
    96: "chhiyanve",
    97: "sattanve",
    98: "atthanve",
    99: "ninyanve ninnyanve",
}
VARIANTS[23] = VARIANTS[23].replace(" tees_", "")

TABLE = LanguageTable(
    code="hi-Latn",
    name="Hindi (romanised)",
    numbers=zero_to_99(ZERO_TO_99, VARIANTS),
    canonical=tuple(ZERO_TO_99),
    weak="do teen tin char chaar sat saat saath sath das dus bees bis tees tis tera bara chhe "
    "aat ath sola ek assi nau",
    hundreds={"sau": 100},
    scales={
        "hazaar": 10**3,
        "hazar": 10**3,
        "hajar": 10**3,
        "hajaar": 10**3,
        "lakh": 10**5,
        "laakh": 10**5,
        "lac": 10**5,
        "lakhs": 10**5,
        "crore": 10**7,
        "karod": 10**7,
        "karor": 10**7,
        "crores": 10**7,
        "arab": 10**9,
    },
    fractions={
        **dict.fromkeys("dedh derh dedhh dhedh".split(), Decimal("1.5")),
        **dict.fromkeys("dhai dhaai adhai adhaai arhai dhaayi".split(), Decimal("2.5")),
        **dict.fromkeys("paun pon".split(), Decimal("0.75")),
    },
    adjusters={
        **dict.fromkeys("saade saadhe sadhe sade saare saarhe".split(), Decimal("0.5")),
        **dict.fromkeys("sava savaa sawa sawaa".split(), Decimal("0.25")),
        **dict.fromkeys("paune pone poune paune".split(), Decimal("-0.25")),
    },
    ordinals={
        **dict.fromkeys("pehli pahli pehla pahla pehle pahle".split(), 1),
        **dict.fromkeys("doosri dusri doosra dusra".split(), 2),
        **dict.fromkeys("teesri tisri teesra".split(), 3),
        **dict.fromkeys("chauthi chautha".split(), 4),
        **dict.fromkeys("paanchvi panchvi paanchvin".split(), 5),
        **dict.fromkeys("chhathi chhati chhatthi".split(), 6),
        **dict.fromkeys("saatvi satvi".split(), 7),
        **dict.fromkeys("aathvi athvi".split(), 8),
        **dict.fromkeys("nauvi nauvin".split(), 9),
        **dict.fromkeys("dasvi dasvin".split(), 10),
    },
    day_words="tarikh tareekh taarikh taareekh tarik tareek",
    currency_prefix={},
    currency_major=words({"INR": "rupaye rupaiye rupay rupaye rupya rupaya rupiya rupye rupiye"}),
    currency_minor=words({"INR": "paise paisa pese"}),
    units=words(
        {
            "month": "mahina mahine mahino mahinon maheena maheene",
            "day": "din dino dinon",
            "year": "saal varsh baras",
            "week": "hafta hafte hafton",
            "installment": "kisht kishte kishton kist",
            "hour": "ghanta ghante ghanton",
            "time": "baar",
            "percent": "pratishat",
        }
    ),
    next_words="agle agli agla",
    every_words="har pratyek",
    and_words="aur",
    point_words="dashamlav",
    time_words="baje bajey",
    pm_cues="shaam sham dopahar dopehar",
    id_cues="khata khaata",
    id_fillers="sankhya nambar",
    is_words="hai",
    year_cues="san",
    stop_words="ka ki ke ko mein me se par hai hain tha thi the aur ya tak ne bhi hi to ji haan "
    "nahi nahin ki liye aapka aapki aapke",
    reads_also=("en", "hi"),
)
