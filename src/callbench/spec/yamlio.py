"""YAML reading that protects authors: YAML 1.2 scalars, no duplicate keys, line numbers kept.

PyYAML follows YAML 1.1, where `no` is False and `0412` is octal 266: a member
id or a Norwegian country code would silently change. Here only `true`/`false`
are booleans and numbers with leading zeros stay strings, and every field path
remembers its line so errors can point at it. Unquoted dates stay strings too (YAML
1.2 has no timestamp type): a `2026-11-19` in a tool result or a caller fact must
survive into JSON traces and tool arguments; typed fields such as
`caller.datetime` are parsed by the models.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from ..errors import Problem

MAX_DEPTH = 100
"""Levels of nesting a document may have, aliases expanded; real suite files stay under 10.

PyYAML's composer recurses once per level, so a few hundred `[` would end in a
RecursionError traceback; so would the walks below on a chain of aliases."""
MAX_NODES = 100_000
"""Values a document may hold once every alias is expanded; the largest real suite file holds about
1,200.

Aliases let 12 KB of `&a [*b, *b, ...]` stand for a billion values ("billion
laughs"); every walk of the data (duplicate keys, pydantic, JSON traces) pays
for the expansion, so it is measured, never built, before anything walks it."""


class _Refused(Exception):
    """A document refused for its shape rather than its syntax: one problem, with a line when
    known."""

    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.line = line


class _Composer(yaml.composer.Composer):
    """PyYAML's composer, in Python over either parser's events, refusing a level past
    MAX_DEPTH before recursing into it and noting whether the document defines an anchor."""

    _depth = 0
    anchored = False
    """Whether the document defines an anchor; without one there is no alias, and nothing to
    expand."""

    def compose_node(self, parent, index):
        event = self.peek_event()
        if self._depth >= MAX_DEPTH:
            raise _Refused(f"nested deeper than {MAX_DEPTH} levels", event.start_mark.line + 1)
        if event.anchor is not None:
            self.anchored = True
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Resolver(yaml.resolver.Resolver):
    """YAML 1.2 scalars: only true/false are booleans, no octal, no sexagesimal, no timestamps."""


_Resolver.yaml_implicit_resolvers = {
    k: [
        (tag, rx)
        for tag, rx in v
        if tag
        not in (
            "tag:yaml.org,2002:bool",
            "tag:yaml.org,2002:int",
            "tag:yaml.org,2002:float",
            "tag:yaml.org,2002:timestamp",
        )
    ]
    for k, v in yaml.resolver.Resolver.yaml_implicit_resolvers.items()
}
_Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?(?:0|[1-9][0-9]*))$"), list("-+0123456789")
)
_Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)


class _Loader(
    yaml.reader.Reader,
    yaml.scanner.Scanner,
    yaml.parser.Parser,
    _Composer,
    yaml.constructor.SafeConstructor,
    _Resolver,
):
    """The pure-Python loader: used when PyYAML was built without libyaml, and to word the
    error of a document the C parser refused (so a message and its line never depend on which
    parser is installed)."""

    def __init__(self, stream: str):
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        _Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        _Resolver.__init__(self)


_CParser: type | None
try:
    from yaml._yaml import CParser as _CParser
except ImportError:  # PyYAML built without libyaml
    _CParser = None

_FastLoader: type | None = None
if _CParser is not None:

    class _CLoader(_Composer, _CParser, yaml.constructor.SafeConstructor, _Resolver):  # type: ignore[misc,valid-type]
        """libyaml scans and parses (a suite of 90 files loads in a fifth of the time), the
        same composer (`_Composer`: the depth and alias refusals), constructor and resolver
        build the data. Only libyaml's event stream is used, never its composer: that one
        recurses in C with no depth limit."""

        def __init__(self, stream: str):
            _CParser.__init__(self, stream)  # type: ignore[misc]
            _Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            _Resolver.__init__(self)

    _FastLoader = _CLoader


class YamlDocument:
    """Parsed data plus a map from field paths (tuples of keys/indices) to 1-based line numbers."""

    def __init__(self, data: Any, lines: dict[tuple, int]):
        self.data = data
        self.lines = lines

    def line_of(self, loc: tuple) -> int | None:
        """The line of the deepest known prefix of `loc` (a missing key points at its parent)."""
        for end in range(len(loc), -1, -1):
            if loc[:end] in self.lines:
                return self.lines[loc[:end]]
        return None


def read_yaml(path: Path, label: str) -> tuple[YamlDocument | None, list[Problem]]:
    """Parse one YAML file; on failure return the problems (one line each), never raise."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, [Problem(label, "", "file not found")]
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(label, "", f"cannot read file: {exc.__class__.__name__}")]
    loaded = None
    if _FastLoader is not None:
        try:
            loaded = _compose(_FastLoader(text), label)
        except yaml.YAMLError:
            loaded = None  # the pure loader words the error, as it always did
    if loaded is None:
        try:
            loaded = _compose(_Loader(text), label)
        except yaml.YAMLError as exc:
            return None, [_malformed(exc, label)]
    lines, data, problems = loaded
    if problems:
        return None, problems
    foreign = _foreign(data, ())
    if foreign:
        doc = YamlDocument(data, lines)
        return None, [
            Problem(
                label,
                _dotted(loc),
                f"a {kind} value is not allowed: suite files hold plain JSON data (drop the "
                "explicit !! tag)",
                doc.line_of(loc),
            )
            for loc, kind in foreign
        ]
    return YamlDocument(data, lines), []


def _compose(loader: Any, label: str) -> tuple[dict[tuple, int], Any, list[Problem]]:
    """(lines, data, problems) of the one document; a YAMLError propagates (the caller words
    it)."""
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, None, [Problem(label, "", "file is empty")]
        if loader.anchored:
            _check_expansion(node)
        lines: dict[tuple, int] = {(): node.start_mark.line + 1}
        dupes: list[tuple[tuple, str, int]] = []
        _walk(node, (), lines, dupes)
        if dupes:
            return (
                {},
                None,
                [
                    Problem(label, _dotted(loc + (key,)), f"duplicate key '{key}'", line)
                    for loc, key, line in dupes
                ],
            )
        return lines, loader.construct_document(node), []
    except _Refused as exc:
        return {}, None, [Problem(label, "", str(exc), exc.line)]
    finally:
        loader.dispose()


def _malformed(exc: yaml.YAMLError, label: str) -> Problem:
    mark = getattr(exc, "problem_mark", None)
    # PyYAML's context and problem read as one sentence ("expected a single document in the
    # stream, but found another document"); the problem alone is often cryptic.
    parts = [getattr(exc, "context", None), getattr(exc, "problem", None)]
    reason = ", ".join(p for p in parts if p) or str(exc).splitlines()[0]
    if reason == "mapping values are not allowed here":
        reason += " (a ': ' inside an unquoted value? quote the value)"
    return Problem(label, "", f"malformed YAML: {reason}", mark.line + 1 if mark else None)


def _foreign(value: Any, loc: tuple) -> list[tuple[tuple, str]]:
    """Values an explicit tag (`!!binary`, `!!set`, `!!timestamp`) builds but JSON cannot hold.

    Fixtures flow into tool arguments and traces, which are JSON; such a value would
    otherwise crash the reference check or a run instead of being reported here.
    """
    if isinstance(value, dict):
        return [
            f
            for k, v in value.items()
            for f in (
                [(loc + (k,), type(k).__name__)]
                if not isinstance(k, (str, int, float, bool))
                else _foreign(v, loc + (k,))
            )
        ]
    if isinstance(value, list):
        return [f for i, v in enumerate(value) for f in _foreign(v, loc + (i,))]
    return (
        []
        if value is None or isinstance(value, (str, int, float, bool))
        else [(loc, type(value).__name__)]
    )


def _check_expansion(root: yaml.Node) -> None:
    """Raise _Refused when the document, aliases expanded, is too large, too deep or contains
    itself.

    An alias is the very node its anchor names, so the composed document is a
    graph: small even when its expansion is astronomical, and cyclic when an
    alias sits inside its own anchor. Size and depth are computed once per node
    of that graph, without recursion, so the check costs one pass over the file.
    """
    measured: dict[
        int, tuple[int, int]
    ] = {}  # id(node) -> (values, levels) of its expansion; a scalar is (1, 1)
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, list | None]] = [(root, None)]
    while stack:
        node, kids = stack.pop()
        key = id(node)
        if kids is None:  # first visit: measure the children first
            if key in open_nodes:
                raise _Refused(
                    "an alias refers to a value that contains it: suite files cannot hold "
                    "recursive data",
                    node.start_mark.line + 1,
                )
            if key not in measured:
                kids = _children(node)
                open_nodes.add(key)
                stack.append((node, kids))
                stack.extend((k, None) for k in kids if not isinstance(k, yaml.ScalarNode))
            continue
        open_nodes.discard(key)
        size, depth = 1, 0
        for k in kids:
            s, d = measured.get(id(k), (1, 1))
            size += s
            depth = max(depth, d)
        measured[key] = (size, depth + 1)
        if size > MAX_NODES:
            raise _Refused(
                f"more than {MAX_NODES} values once aliases are expanded (an alias bomb?): "
                "refused so that loading stays bounded",
                node.start_mark.line + 1,
            )
        if depth + 1 > MAX_DEPTH:
            raise _Refused(
                f"nested deeper than {MAX_DEPTH} levels once aliases are expanded",
                node.start_mark.line + 1,
            )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return node.value if isinstance(node, yaml.SequenceNode) else []


def _walk(
    node: yaml.Node, loc: tuple, lines: dict[tuple, int], dupes: list[tuple[tuple, str, int]]
) -> None:
    """One walk for the line of every field path (`lines`) and the duplicate keys (`dupes`, in
    document order). Recursive: the composer and `_check_expansion` bound the depth."""
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode):
                continue  # a list or mapping as a key: construction rejects it with a clear message
            if key.value in seen:
                dupes.append((loc, key.value, key.start_mark.line + 1))
            seen.add(key.value)
            k = loc + (key.value,)
            _walk(value, k, lines, dupes)
            lines[k] = key.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            k = loc + (i,)
            lines[k] = item.start_mark.line + 1
            _walk(item, k, lines, dupes)


def _dotted(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


dotted = _dotted
