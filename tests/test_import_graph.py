"""No back-arrow between callbench's top-level packages: a layer imports only layers below it.

Edges are read from every module's source (every import statement, function-level ones included,
so an import moved into a function to hide a cycle is still seen), never from what happens to be
loaded at run time.
"""

import ast
from pathlib import Path

import callbench

ROOT = Path(callbench.__file__).parent

LAYERS: list[set[str]] = [
    {
        "errors",
        "_version",
        "jsontext",
        "text",
        "threads",
        "pricing",
        "stats",
        "layout",
    },
    {"provenance", "files"},  # the package's version; whole-or-nothing writes of run files
    {"speech", "importers"},
    {"spec"},
    {"suites"},
    {"models"},
    {"call"},
    {"backends"},
    {"grading"},
    # the spray baseline reads spoken values the way the spoken checks do (candidates -> grading)
    {"callers", "candidates"},
    {"play"},  # episode assembly: shared by the sweep and the suite's reference proof
    {"recital_check", "reference_check"},
    {"suite_check"},
    # the audit proves suites with validate, the oracle and the text helpers; the gameability figure
    # (a sweep) is attached by the command above it, so generate can audit what it writes
    {"audit"},
    # report.json is built from scorecards and the suite alone; the sweep, re-scoring and
    # `callbench report` (runs/rebuild.py) build it, so reports sit below runs
    {"reports"},
    {"sealing"},  # seals suites and marks reports official; nothing below runs needs it
    {"runs"},
    {"gameability", "generate"},  # generate proves its suites with the loader and reads stored runs
    {"cli_generate", "cli_suites"},  # command groups mounted by cli
    {"cli", "__init__", "testing"},
    {"__main__"},  # `python -m callbench` runs the cli
]
"""Lowest first. Packages in one layer may not import each other."""

PENDING: set[tuple[str, str]] = set()
"""Back-arrows known and being removed elsewhere; each names who removes it."""


def _rank() -> dict[str, int]:
    rank = {}
    for i, layer in enumerate(LAYERS):
        for name in layer:
            rank[name] = i
    return rank


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def edges() -> list[tuple[str, str, str, int]]:
    """(from package, to package, file, line) for every import of another top-level package."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        module = _module_name(path)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    stem = ".".join(base)
                    if node.module:
                        targets = [f"{stem}.{node.module}"]
                    else:
                        targets = [f"{stem}.{a.name}" for a in node.names]
                elif node.module:
                    targets = [node.module]
            for target in targets:
                if not target.startswith("callbench"):
                    continue
                src, dst = _top(module), _top(target)
                if src != dst:
                    found.append((src, dst, str(path.relative_to(ROOT.parent)), node.lineno))
    return found


def test_every_package_has_a_layer():
    packages = {
        p.stem if p.is_file() else p.name
        for p in ROOT.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists())
    }
    assert packages - set(_rank()) == set(), "give each new package a place in LAYERS"


def test_no_back_arrow_between_top_level_packages():
    rank = _rank()
    found = edges()
    assert found, "the import scan found no imports at all"
    bad = [
        f"{file}:{line}: {src} imports {dst} (layer {rank[src]} -> {rank[dst]})"
        for src, dst, file, line in found
        if rank[dst] >= rank[src] and (src, dst) not in PENDING
    ]
    assert bad == [], "back-arrows:\n" + "\n".join(bad)


def test_the_scan_sees_function_level_and_relative_imports():
    """The scan itself: a function-level relative import of a higher layer is an edge."""
    found = {(s, d) for s, d, _, _ in edges()}
    assert ("runs", "suite_check") in found  # `from ..suite_check import load_suite`
    assert ("cli", "runs") in found  # the CLI's imports are all inside its commands


def test_pending_back_arrows_are_still_there():
    """When a pending back-arrow is gone, drop it from PENDING, so it cannot come back unseen."""
    found = {(s, d) for s, d, _, _ in edges()}
    assert PENDING <= found, f"no longer found, remove from PENDING: {PENDING - found}"


def _calls(name: str) -> list[str]:
    """Where, in runs/, a function of that name is called: file::innermost enclosing function."""
    sites = set()

    class Visitor(ast.NodeVisitor):
        def __init__(self, file: str):
            self.file, self.stack = file, ["<module>"]

        def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
            self.stack.append(node.name)
            self.generic_visit(node)
            self.stack.pop()

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Call(self, node: ast.Call) -> None:
            if isinstance(node.func, ast.Name) and node.func.id == name:
                sites.add(f"{self.file}::{self.stack[-1]}")
            self.generic_visit(node)

    for path in sorted((ROOT / "runs").glob("*.py")):
        Visitor(path.name).visit(ast.parse(path.read_text(encoding="utf-8")))
    return sorted(sites)


def test_one_attempt_is_played_and_scored_in_one_place():
    """Every executor (this process, worker processes, Ray tasks) goes through `play_and_score`;
    only re-scoring grades without playing."""
    assert _calls("run_attempt") == ["executors.py::play_and_score"]
    assert _calls("score_off_loop") == ["executors.py::play_and_score", "rescore.py::rescore_async"]
    assert _calls("play_and_score") == [
        "executors.py::__call__",
        "process_executor.py::one_worker",
        "ray_executor.py::play",
    ]


def test_python_dash_m_runs_the_command():
    """`python -m callbench` is the `callbench` command (it was missing: the package had no
    __main__)."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "callbench", "list"],
        capture_output=True,
        text=True,
        cwd=ROOT.parent,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT.parent)},
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "utility-billing" in out.stdout
