"""Finding a value inside text the way a person hears it: word-aligned, ignoring case, spacing and
punctuation between its parts ("3105 7248 190" says 31057248190, "$52.99" says 5299 cents), but
never inside a longer word or number ("123" is not in "41235")."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

from ..text import fold, words


def leaves(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, scalar) for every scalar inside nested dicts and lists."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, path + (i,))
    else:
        yield path, value


def value_text(value: Any) -> str | None:
    """The text a scalar is said as, or None for what is not a said value (booleans, null,
    containers)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float, str)):
        return str(value)
    if isinstance(value, (dict, list)):
        return None
    return json.dumps(value, default=str)


def parts(text: str) -> list[str]:
    """The folded words of `text`, every script's digits as ASCII digits ("૯૮૨૫૦" -> "98250")."""
    return [_ascii_digits(w) for _, _, w in words(fold(text))]


def _ascii_digits(word: str) -> str:
    if word.isascii():
        return word
    return "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in word)


def compact(text: str) -> str:
    return "".join(parts(text))


class Haystack:
    """Texts searched many times for values: folded into words once."""

    def __init__(self, texts: Iterable[str] = ()):
        self._texts: list[list[str]] = []
        self.add(texts)

    def add(self, texts: Iterable[str]) -> None:
        self._texts += [p for p in (parts(t) for t in texts if t) if p]

    def says(self, value: Any) -> bool:
        text = value_text(value)
        return text is not None and any(_aligned(compact(text), ws) for ws in self._texts)


def says(text: str, value: Any) -> bool:
    return Haystack([text]).says(value)


def _aligned(needle: str, ws: list[str]) -> bool:
    """Is `needle` a concatenation of consecutive words of `ws`?"""
    if not needle:
        return False
    for i, first in enumerate(ws):
        if not needle.startswith(first):
            continue
        joined = first
        j = i + 1
        while len(joined) < len(needle) and j < len(ws) and needle.startswith(joined + ws[j]):
            joined += ws[j]
            j += 1
        if joined == needle:
            return True
    return False
