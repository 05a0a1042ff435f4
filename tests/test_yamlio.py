"""Suite YAML is read by libyaml when PyYAML has it, and the pure-Python loader otherwise: the data,
the line of every field, the refusals and the wording of every error must not depend on which."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from callbench.spec import yamlio

SUITES = Path(yamlio.__file__).parents[1] / "suites"

HOSTILE = {
    "deep": "deep: " + "[" * 600 + "]" * 600 + "\n",
    "alias chain": "\n".join(
        ["link0: &link0 [end]"] + [f"link{i}: &link{i} [*link{i - 1}]" for i in range(1, 300)]
    ),
    "alias bomb": "a: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdef", "bcdefg")),
    "recursive": "loop: &loop [1, *loop]\n",
    "duplicate": "a: 1\nb:\n  c: 2\n  c: 3\na: 4\n",
    "unclosed": "id: x\ntags: [ordering\ntitle: y\n",
    "tab": "id: x\nitems:\n\t- one\n",
    "colon": "statement: Ends with: a goodbye.\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "list key": "? [a, b]\n: c\n",
    "binary": "blob: !!binary aGVsbG8=\n",
    "yaml 1.2 scalars": "no: no\nzip: 0412\nwhen: 2026-11-19\nyes: true\nf: 1.5\nn: -3\n",
    "empty": "",
    "control character": "a: b\x07\n",
}


def read_both(path: Path, monkeypatch) -> tuple:
    fast = yamlio.read_yaml(path, path.name)
    with monkeypatch.context() as m:
        m.setattr(yamlio, "_FastLoader", None)
        pure = yamlio.read_yaml(path, path.name)
    return fast, pure


def same(a, b) -> bool:
    (doc_a, problems_a), (doc_b, problems_b) = a, b
    if (doc_a is None) != (doc_b is None) or problems_a != problems_b:
        return False
    return doc_a is None or (doc_a.data == doc_b.data and doc_a.lines == doc_b.lines)


def test_the_c_parser_is_used_when_pyyaml_has_it():
    assert yaml.__with_libyaml__, "this machine's PyYAML should have libyaml (the CI image does)"
    assert yamlio._FastLoader is not None
    loader = yamlio._FastLoader("a: [1, 2]\n")
    assert isinstance(loader, yaml.cyaml.CParser)


def test_every_built_in_suite_file_reads_the_same_with_either_loader(monkeypatch):
    files = sorted(SUITES.rglob("*.yaml"))
    assert len(files) > 20
    for path in files:
        fast, pure = read_both(path, monkeypatch)
        assert fast[1] == [] and same(fast, pure), path


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_refusals_and_errors_read_the_same_with_either_loader(name, tmp_path, monkeypatch):
    path = tmp_path / "doc.yaml"
    path.write_text(HOSTILE[name], encoding="utf-8")
    fast, pure = read_both(path, monkeypatch)
    assert same(fast, pure), (fast[1], pure[1])
    if name not in ("yaml 1.2 scalars",):
        assert fast[0] is None and fast[1], "this document must be refused"


def test_refusals_keep_their_message_and_line(tmp_path):
    path = tmp_path / "doc.yaml"
    path.write_text("id: x\n" + HOSTILE["deep"], encoding="utf-8")
    [problem] = yamlio.read_yaml(path, "doc.yaml")[1]
    assert "nested deeper than 100 levels" in problem.message and problem.line == 2
    path.write_text("id: x\nstatement: Ends with: a goodbye.\n", encoding="utf-8")
    [problem] = yamlio.read_yaml(path, "doc.yaml")[1]
    assert "quote the value" in problem.message and problem.line == 2
    path.write_text(HOSTILE["duplicate"], encoding="utf-8")
    problems = yamlio.read_yaml(path, "doc.yaml")[1]
    assert [(p.path, p.line) for p in problems] == [("b.c", 4), ("a", 5)]


def test_yaml_1_2_scalars_with_the_c_parser(tmp_path):
    path = tmp_path / "doc.yaml"
    path.write_text(HOSTILE["yaml 1.2 scalars"], encoding="utf-8")
    doc, problems = yamlio.read_yaml(path, "doc.yaml")
    assert problems == []
    assert doc.data == {
        "no": "no",
        "zip": "0412",
        "when": "2026-11-19",
        "yes": True,
        "f": 1.5,
        "n": -3,
    }
    assert doc.line_of(("n",)) == 6 and doc.line_of(("missing",)) == 1
