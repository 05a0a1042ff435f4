"""Gujarati: a word for each of 0-99, canonical spelling first (the CLDR spell-out rules), common
variants after; hundreds written as one word (બસો, ત્રણસો, and as Gujarati speakers count money,
બારસો for 1200 and દોઢસો for 150), fractions (દોઢ, અઢી, સાડા, સવા, પોણા), lakh and crore, ordinal
dates (પહેલી, બીજી, દસમી, ૧૫મી), months and rupees with the case endings speech puts on them
(નવેમ્બરે, રૂપિયાની), and the cues around identifiers."""

from __future__ import annotations

from decimal import Decimal

from .table import LanguageTable, month_words, words, zero_to_99

ZERO_TO_99 = (
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
VARIANTS = {
    10: "દશ",
    11: "અગિયાર અગીઆર",
    23: "ત્રેવીસ",
    26: "છવ્વીસ",
    37: "સાડત્રીસ",
    38: "આડત્રીસ",
    44: "ચુમ્માલીસ ચોમાલીસ",
    60: "સાઠ",
    69: "ઓગણસિત્તેર ઓગણોસિત્તેર",
    79: "ઓગણએંસી",
    80: "એંશી",
    96: "છન્નુ",
    25: "પચીસ",
    # -ળીસ is how many write the forties (એકતાળીસ); the table has -લીસ
    41: "એકતાળીસ",
    42: "બેતાળીસ",
    43: "તેતાલીસ ત્રેતાળીસ તેતાળીસ",
    45: "પિસ્તાળીસ",
    46: "છેતાળીસ",
    47: "સુડતાળીસ",
    48: "અડતાળીસ",
    72: "બોંતેર",
    85: "પંચ્યાસી",
    86: "છયાસી",
}

# the ordinal a date takes (તારીખ is feminine): પહેલી, બીજી, ત્રીજી, ચોથી, છઠ્ઠી, then -મી
_IRREGULAR_ORDINALS = {1: "પહેલી", 2: "બીજી", 3: "ત્રીજી", 4: "ચોથી", 6: "છઠ્ઠી છઠી"}
ORDINALS = {
    **{w: n for n, ws in _IRREGULAR_ORDINALS.items() for w in ws.split()},
    **{ZERO_TO_99[n] + "મી": n for n in range(5, 32) if n != 6},
    **{w + "મી": n for n, ws in VARIANTS.items() if n <= 31 for w in ws.split()},
}

FUSED_HUNDREDS = {
    "બસો": 200,
    "બેસો": 200,
    **{ZERO_TO_99[n] + "સો": 100 * n for n in (1, 3, 4, 5, 6, 7, 8, 9)},
    # money is counted in hundreds past a thousand: બારસો પચાસ is 1250, and traders go on past
    # 1900 (ચોવીસસો અઠ્ઠાણું is 2498, એકતાળીસસો પચાસ 4150)
    **{ZERO_TO_99[n] + "સો": 100 * n for n in range(11, 100)},
    **{w + "સો": 100 * n for n, ws in VARIANTS.items() if n > 10 for w in ws.split()},
    "અગીઆરસો": 1100,
    "દોઢસો": 150,
    "અઢીસો": 250,
    "સવાસો": 125,
}

TABLE = LanguageTable(
    code="gu",
    name="Gujarati",
    numbers=zero_to_99(ZERO_TO_99, VARIANTS),
    canonical=tuple(ZERO_TO_99),
    hundreds={"સો": 100},
    fused_hundreds=FUSED_HUNDREDS,
    scales={"હજાર": 10**3, "લાખ": 10**5, "કરોડ": 10**7, "અબજ": 10**9},
    fractions={"દોઢ": Decimal("1.5"), "અઢી": Decimal("2.5")},
    adjusters={"સાડા": Decimal("0.5"), "સવા": Decimal("0.25"), "પોણા": Decimal("-0.25")},
    ordinals=ORDINALS,
    # ૧૫મી, ૧લી, ૨જી, ૬ઠ્ઠી; not ૪થી, whose થી is also "from" (૫૦૦થી વધુ)
    numeral_suffixes=("મી", "લી", "જી", "ઠ્ઠી"),
    day_words="તારીખ તારીખે તારીખથી તારીખના તારીખની તારીખનું તા",
    months=month_words(
        "જાન્યુઆરી",
        "ફેબ્રુઆરી",
        "માર્ચ",
        "એપ્રિલ",
        "મે",
        "જૂન",
        "જુલાઈ",
        "ઑગસ્ટ",
        "સપ્ટેમ્બર સેપ્ટેમ્બર",
        "ઑક્ટોબર",
        "નવેમ્બર",
        "ડિસેમ્બર",
    ),
    currency_prefix={"રૂ": "INR"},
    currency_major=words({"INR": "રૂપિયા રૂપિયો રૂપિયે રૂ"}),
    currency_minor=words({"INR": "પૈસા પૈસો"}),
    units=words(
        {
            "month": "મહિનો મહિના મહિને",
            "day": "દિવસ",
            "year": "વર્ષ વરસ",
            "week": "અઠવાડિયું અઠવાડિયા",
            "installment": "હપ્તો હપ્તા હપ્તે",
            "payment": "ચુકવણી",
            "litre": "લિટર",
            "hour": "કલાક",
            "minute": "મિનિટ",
            "time": "વખત વાર",
            "percent": "ટકા",
        }
    ),
    # written onto a month, rupee or unit word: નવેમ્બરે, જાન્યુઆરીએ, રૂપિયાની, ડિસેમ્બરમાં
    case_endings=("ની", "નો", "નું", "ના", "નાં", "ને", "ે", "એ", "થી", "માં", "માંથી", "સુધી"),
    every_words="દર દરેક",
    next_words="આવતા આવતી આવતે આવતો",
    # "દસ હજારનો હપ્તો" is an instalment of 10,000 (છન્નું, 96, ends like નું and loses its unit)
    genitive_endings="નો ની નું ના",
    and_words="અને ને",
    point_words="દશાંશ",
    repeat_words={"ડબલ": 2, "ટ્રિપલ": 3},
    time_words="વાગ્યે વાગે વાગ્યા વાગ્યાથી વાગ્યાની",
    pm_cues="સાંજે સાંજના સાંજ બપોરે બપોરના બપોર",
    night_cues="રાત્રે રાતે રાત્રિના રાતના રાત્રિએ",
    id_cues=("પિન પિનકોડ નંબર ખાતા ખાતું મોબાઇલ ફોન ઓટીપી આઈડી ગ્રાહક સભાસદ કન્ઝ્યુમર એકાઉન્ટ પૉલિસી"),
    strong_cues="પિન પિનકોડ નંબર ઓટીપી",
    id_fillers="કોડ નંબર",
    is_words="છે હતો હતી હતું",
    year_cues="વર્ષ સન સાલ",
    stop_words="નો ની નું ના ને માં થી પર છે હતું હતી અને કે પણ જ તો સુધી માટે",
    folds={
        "\u0a81": "\u0a82",
        "\u0abc": None,
        "\u0ac0": "\u0abf",
        "\u0ac2": "\u0ac1",
        "\u0a88": "\u0a87",
        "\u0a8a": "\u0a89",
        "\u0a91": "\u0a93",
        "\u0ac9": "\u0acb",
        "\u0ab3": "\u0ab2",
    },
)
