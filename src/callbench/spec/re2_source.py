"""A Python regular expression written out in RE2's syntax with Python's meaning, and the test for
nested quantifiers.

`matchers.regex_search` runs an author's pattern on a candidate's text on RE2 (linear time) where
the translation here says RE2 reads it as Python does, and refuses to run a pattern with nested
quantifiers on Python's backtracking engine. Both decisions read Python's own parse tree, so they
agree with what Python would have run.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

# the parser `re` itself uses (Python 3.11+); typeshed does not describe these private modules, so
# they are loaded as plain modules rather than imported by name
_sre = importlib.import_module("re._constants")
_sre_parse = importlib.import_module("re._parser")


def parse_pattern(pattern: str, flags: int) -> Any:
    """Python's own parse tree of `pattern`: what Python's engine will run, construct by
    construct."""
    return _sre_parse.parse(pattern, flags)


_REPEATS = (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT)
_SPACES = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""Python's `\\s` on text (str.isspace), which RE2's `\\s` ([\\t\\n\\f\\r ]) is not."""
_TURKISH_I = (0x130, 0x131)
"""İ and ı: the one place the two engines' ignore-case differ (Python matches both with i and I,
RE2 neither); found by comparing both on every character that has a case."""


class Untranslatable(Exception):
    """A construct RE2 cannot express with Python's meaning: the pattern stays with Python's
    engine."""


def _x(cp: int) -> str:
    return f"\\x{{{cp:x}}}"


def _spaces_class(negated: bool) -> str:
    points: list[tuple[int, int]] = []
    for part in re.findall(r".-.|.", _SPACES, re.S):
        lo, hi = (ord(part[0]), ord(part[2])) if len(part) == 3 else (ord(part), ord(part))
        points.append((lo, hi))
    if not negated:
        return "".join(_x(lo) if lo == hi else f"{_x(lo)}-{_x(hi)}" for lo, hi in points)
    out, at = [], 0
    for lo, hi in points:
        if lo > at:
            out.append(f"{_x(at)}-{_x(lo - 1)}")
        at = hi + 1
    return "".join(out) + f"{_x(at)}-{_x(0x10FFFF)}"


_IN_CLASS = {
    _sre.CATEGORY_DIGIT: r"\p{Nd}",
    _sre.CATEGORY_NOT_DIGIT: r"\P{Nd}",
    _sre.CATEGORY_WORD: r"\p{L}\p{N}_",
    _sre.CATEGORY_SPACE: _spaces_class(False),
    _sre.CATEGORY_NOT_SPACE: _spaces_class(True),
}


class Re2Source:
    """A parsed Python pattern written out in RE2's syntax, with Python's meaning for every
    construct RE2 can express; `Untranslatable` for the others (look-arounds, back-references,
    possessive or atomic groups).

    `boundary`: it holds \\b or \\B, which RE2 decides with ASCII letters and digits only, and \\B
    byte by byte (inside a character of two or more bytes of UTF-8, RE2 finds a \\B): for \\B,
    ASCII text only. `dollar`: it holds a `$` outside multi-line mode, which in Python also matches
    before a final newline. `folds`: it ignores case somewhere (RE2 does not match İ or ı with i).
    \\d, \\w and \\s are written as the Unicode classes Python gives them (RE2's own are ASCII).
    RE2's Unicode tables are newer than Python 3.11's: scripts encoded since (Kawi, Nag Mundari, CJK
    extension H) are letters and digits to RE2 and unassigned to Python."""

    def __init__(self, tree, flags: int):
        self.boundary = self.nonboundary = self.dollar = self.folds = False
        ignorecase = bool(flags & _sre.SRE_FLAG_IGNORECASE)
        if flags & (_sre.SRE_FLAG_ASCII | _sre.SRE_FLAG_LOCALE):
            raise Untranslatable("ASCII or LOCALE flag")
        head = ("(?i)" if ignorecase else "") + ("(?s)" if flags & _sre.SRE_FLAG_DOTALL else "")
        self.source = head + self._seq(tree, bool(flags & _sre.SRE_FLAG_MULTILINE), ignorecase)

    def _seq(self, items, multiline: bool, ignorecase: bool) -> str:
        return "".join(self._one(op, av, multiline, ignorecase) for op, av in items)

    def _one(self, op, av, multiline: bool, ignorecase: bool) -> str:
        if ignorecase and op in (_sre.LITERAL, _sre.NOT_LITERAL, _sre.IN):
            self.folds = True
        if op is _sre.LITERAL or op is _sre.NOT_LITERAL:
            self._fold_check(av, av, ignorecase)
            return _x(av) if op is _sre.LITERAL else f"[^{_x(av)}]"
        if op is _sre.ANY:
            return "."
        if op is _sre.IN:
            return self._class(av, ignorecase)
        if op is _sre.AT:
            if av is _sre.AT_BOUNDARY:
                self.boundary = True
                return r"\b"
            if av is _sre.AT_NON_BOUNDARY:
                self.boundary = self.nonboundary = True
                return r"\B"
            if av is _sre.AT_BEGINNING:
                return "(?m:^)" if multiline else "^"
            if av is _sre.AT_END:
                if not multiline:
                    self.dollar = True
                return "(?m:$)" if multiline else "$"
            if av is _sre.AT_BEGINNING_STRING:
                return r"\A"
            if av is _sre.AT_END_STRING:
                return r"\z"
            raise Untranslatable(str(av))
        if op is _sre.BRANCH:
            return "(?:" + "|".join(self._seq(alt, multiline, ignorecase) for alt in av[1]) + ")"
        if op is _sre.SUBPATTERN:
            _, add, remove, body = av
            if (add | remove) & (_sre.SRE_FLAG_ASCII | _sre.SRE_FLAG_LOCALE):
                raise Untranslatable("ASCII or LOCALE flag")
            on = "".join(
                f
                for bit, f in ((_sre.SRE_FLAG_IGNORECASE, "i"), (_sre.SRE_FLAG_DOTALL, "s"))
                if add & bit
            )
            off = "".join(
                f
                for bit, f in ((_sre.SRE_FLAG_IGNORECASE, "i"), (_sre.SRE_FLAG_DOTALL, "s"))
                if remove & bit
            )
            multiline = (
                multiline or bool(add & _sre.SRE_FLAG_MULTILINE)
            ) and not remove & _sre.SRE_FLAG_MULTILINE
            ignorecase = (
                ignorecase or bool(add & _sre.SRE_FLAG_IGNORECASE)
            ) and not remove & _sre.SRE_FLAG_IGNORECASE
            flags = f"{on}-{off}" if off else on
            return f"(?{flags}:" + self._seq(body, multiline, ignorecase) + ")"
        if op is _sre.MAX_REPEAT or op is _sre.MIN_REPEAT:
            lo, hi, body = av
            count = f"{{{lo},}}" if hi == _sre.MAXREPEAT else f"{{{lo},{hi}}}"
            return (
                "(?:"
                + self._seq(body, multiline, ignorecase)
                + ")"
                + count
                + ("?" if op is _sre.MIN_REPEAT else "")
            )
        raise Untranslatable(str(op))

    def _fold_check(self, lo: int, hi: int, ignorecase: bool) -> None:
        if ignorecase and any(lo <= cp <= hi for cp in _TURKISH_I):
            raise Untranslatable("İ or ı under ignore-case")

    def _class(self, items, ignorecase: bool) -> str:
        negate = bool(items) and items[0][0] is _sre.NEGATE
        items = items[1:] if negate else items
        if len(items) == 1 and items[0] == (_sre.CATEGORY, _sre.CATEGORY_NOT_WORD):
            return r"[\p{L}\p{N}_]" if negate else r"[^\p{L}\p{N}_]"
        parts = []
        for op, av in items:
            if op is _sre.LITERAL:
                self._fold_check(av, av, ignorecase)
                parts.append(_x(av))
            elif op is _sre.RANGE:
                self._fold_check(av[0], av[1], ignorecase)
                parts.append(f"{_x(av[0])}-{_x(av[1])}")
            elif op is _sre.CATEGORY and av in _IN_CLASS:
                parts.append(_IN_CLASS[av])
            else:
                raise Untranslatable(f"{op} {av} in a class")
        return "[" + ("^" if negate else "") + "".join(parts) + "]"


def nested_quantifiers(items: list[Any]) -> bool:
    """Does a repeat (max > 1) hold another repeat of variable count ((\\d+)+, (a|b*)*,
    (x{1,3}){5})? On a backtracking engine such a pattern can take time exponential in the text."""

    def repeats(items, inside: bool) -> bool:
        for op, av in items:
            if op in _REPEATS:
                lo, hi, body = av
                if inside and hi > 1 and lo != hi:
                    return True
                if repeats(body, inside or hi > 1):
                    return True
            else:
                for sub in _children(op, av):
                    if repeats(sub, inside):
                        return True
        return False

    return repeats(items, False)


def _children(op, av) -> list:
    if op is _sre.BRANCH:
        return list(av[1])
    if op is _sre.SUBPATTERN:
        return [av[3]]
    if op in (_sre.ASSERT, _sre.ASSERT_NOT):
        return [av[1]]
    if op is _sre.ATOMIC_GROUP:
        return [av]
    if op is _sre.GROUPREF_EXISTS:
        return [b for b in av[1:] if b is not None]
    return []
