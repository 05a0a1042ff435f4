"""Latin letters and digits as agents say them in the suite languages' own scripts.

An identifier such as VC-41170 is read aloud letter by letter: "वी सी चार एक एक सात शून्य" in
Hindi, "வி சி நாலு ஒன்னு ஒன்னு ஏழு சைபர்" in Tamil. A spoken check must accept that reading as
it accepts "V C four one one seven zero" in English, or it marks down an agent for speaking its
own language. The letter names are the ones Indian speakers use for the English alphabet, in
each script, with the common variants.
"""

from __future__ import annotations

LETTER_NAMES: dict[str, str] = {
    "A": "ए એ এ ஏ",
    "B": "बी બી বি বী பி பீ",
    "C": "सी સી সি সী சி சீ",
    "D": "डी ડી ডি ডী டி டீ",
    "E": "ई ઈ ই ঈ ஈ இ",
    "F": "एफ એફ এফ எஃப் எப்",
    "G": "जी જી জি জী ஜி ஜீ",
    "H": "एच एच्च એચ এইচ এচ ஹெச் எச்",
    "I": "आई આઈ আই ஐ",
    "J": "जे જે জে ஜே",
    "K": "के કે কে கே",
    "L": "एल એલ এল எல்",
    "M": "एम એમ এম எம்",
    "N": "एन એન এন என்",
    "O": "ओ ઓ ও ஓ",
    "P": "पी પી পি পী பி பீ",
    "Q": "क्यू क्यु ક્યૂ ક્યુ কিউ க்யூ கியூ",
    "R": "आर આર আর ஆர்",
    "S": "एस એસ এস எஸ்",
    "T": "टी ટી টি টী டி டீ",
    "U": "यू યૂ યુ ইউ யூ",
    "V": "वी વી ভি ভী வி வீ",
    "W": "डब्ल्यू डबल्यू ડબલ્યુ ડબલ્યૂ ডব্লিউ ডাবলিউ டபிள்யூ டபுள்யூ",
    "X": "एक्स એક્સ এক্স எக்ஸ்",
    "Y": "वाई वाय વાય વાઈ ওয়াই ওয়াই வை ஒய்",
    "Z": "ज़ेड जेड ज़ी ઝેડ জেড இசட் ஜெட்",
}
"""letter -> its names in Devanagari (Hindi, Marathi), Gujarati, Bengali and Tamil script"""

_BY_NAME: dict[str, str] = {
    name: letter for letter, names in LETTER_NAMES.items() for name in names.split()
}
# a letter name only counts inside a run that spells the whole identifier, so a name that is also
# a word ("ए", Hindi "hey") cannot spell one alone; the Tamil "இ" is too short to read as E
_BY_NAME.pop("இ", None)


def letter_named(word: str) -> str | None:
    """The Latin letter `word` names, if it is a letter's name in an Indian script."""
    return _BY_NAME.get(word)
