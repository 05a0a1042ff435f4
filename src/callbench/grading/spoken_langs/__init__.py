"""The spoken-value parser's languages: one `LanguageTable` per language, registered in `TABLES`.

Add a language by writing a module beside these (a `TABLE = LanguageTable(...)`) and listing it
below; `spoken_words` compiles every registered table into the parser's lookups, and suite
validation refuses a suite whose spoken checks are in a language `table_for` does not know.
"""

from __future__ import annotations

from . import bn, en, gu, hi, hi_latn, mr, ta
from .table import LanguageTable, month_words, words, zero_to_99

__all__ = ["TABLES", "LanguageTable", "month_words", "table_for", "words", "zero_to_99"]

TABLES: dict[str, LanguageTable] = {
    t.code: t for t in (en.TABLE, hi.TABLE, hi_latn.TABLE, gu.TABLE, mr.TABLE, ta.TABLE, bn.TABLE)
}
"""code -> table; codes as BCP 47 writes them ("hi-Latn" for romanised Hindi)"""

_BY_FOLDED = {code.casefold(): t for code, t in TABLES.items()}


def table_for(language: str) -> LanguageTable | None:
    """The table for a language code: the exact code ("hi-Latn", any case, "_" for "-"), else its
    primary subtag ("en-IN" -> "en"); None when no table reads the language."""
    lang = language.replace("_", "-").casefold()
    return _BY_FOLDED.get(lang) or _BY_FOLDED.get(lang.split("-")[0])
