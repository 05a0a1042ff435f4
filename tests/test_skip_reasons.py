"""Every skip in the test suite says why, so that `pytest -ra` in CI names what is missing.

A test that skips silently on a clean checkout (as the OpenVoiceCS importer tests once did, when
their sample lived outside the repository) looks like a pass. Each `pytest.skip`, `importorskip`
and `skipif` must carry a reason; for a missing package the reason should say how to install it.
"""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _has_reason(call: ast.Call, positional: int) -> bool:
    """A non-empty reason given by keyword, or as the `positional`-th argument."""
    given = [k.value for k in call.keywords if k.arg in ("reason", "msg")]
    if len(call.args) > positional:
        given.append(call.args[positional])
    return any(not (isinstance(v, ast.Constant) and not v.value) for v in given)


def skips_without_reason(source: str, filename: str) -> list[str]:
    """`file:line` of each skip in `source` that gives no reason."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        if name.endswith("importorskip"):
            ok = _has_reason(node, 2)  # importorskip(modname, minversion, reason)
        elif name.endswith("mark.skipif"):
            ok = _has_reason(node, 99)  # the reason of skipif is keyword-only in effect
        elif name in ("pytest.skip", "skip") or name.endswith("mark.skip"):
            ok = _has_reason(node, 0)
        else:
            continue
        if not ok:
            found.append(f"{filename}:{node.lineno}")
    return found


def test_the_checker_finds_a_skip_without_a_reason():
    bare = (
        "import pytest\n"
        "np = pytest.importorskip('numpy')\n"
        "@pytest.mark.skipif(True)\n"
        "def test_a():\n"
        "    pytest.skip()\n"
    )
    assert skips_without_reason(bare, "x.py") == ["x.py:2", "x.py:3", "x.py:5"]
    explained = (
        "import pytest\n"
        "np = pytest.importorskip('numpy', reason='pip install numpy')\n"
        "@pytest.mark.skipif(True, reason='POSIX only')\n"
        "def test_a():\n"
        "    pytest.skip('chromium is missing')\n"
    )
    assert skips_without_reason(explained, "x.py") == []


def test_every_skip_in_the_suite_says_why():
    missing = [
        where
        for path in sorted(TESTS.rglob("*.py"))
        for where in skips_without_reason(path.read_text(encoding="utf-8"), path.name)
    ]
    assert not missing, f"skips without a reason (pytest -ra prints it in CI): {missing}"
