"""Built-in suites, shipped as package data, and the lookup of a suite by id or path."""

from __future__ import annotations

from pathlib import Path

from ..errors import SuiteNotFound

BUILTIN_ROOT = Path(__file__).parent
DEFAULT_SUITE = "starter"


def builtin_suites() -> list[str]:
    return sorted(p.name for p in BUILTIN_ROOT.iterdir() if (p / "suite.yaml").is_file())


def locate(suite: str | Path | None) -> Path:
    """A path to a folder wins; otherwise the name of a built-in suite."""
    name = DEFAULT_SUITE if suite is None else suite
    path = Path(name)
    if path.is_dir():
        return path.resolve()
    if isinstance(name, str) and (BUILTIN_ROOT / name / "suite.yaml").is_file():
        return BUILTIN_ROOT / name
    raise SuiteNotFound(
        f"no suite folder at '{name}' and no built-in suite of that name (built-in: "
        f"{', '.join(builtin_suites()) or 'none'})"
    )


__all__ = ["BUILTIN_ROOT", "DEFAULT_SUITE", "builtin_suites", "locate"]
