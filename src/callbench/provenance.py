"""Which callbench measured: the installed distribution's version, and our git commit only when the
package runs from our own checkout.

Asking git in the package's parent folders is wrong once callbench is installed inside someone
else's project (a virtualenv under their repository, a vendored copy): git walks up and answers
with *their* commit, which then sits in every report as if it named our code. So the commit is
recorded only when the imported package is `src/callbench` of a git top-level whose
pyproject.toml names the project "callbench".

This module sits below every layer (it imports only the standard library), so `runs` can record it
in run.json and `reports` in report.json.
"""

from __future__ import annotations

import subprocess
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

from ._version import __version__

DISTRIBUTION = "callbench"
PACKAGE_DIR = Path(__file__).resolve().parent


def package_version() -> str:
    """The installed distribution's version; the source tree's own when it is not installed (run
    from a checkout with PYTHONPATH)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return __version__


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):  # no git, or it hung: no commit to record
        return None
    return done.stdout if done.returncode == 0 else None


def _names_callbench(pyproject: Path) -> bool:
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    project = data.get("project")
    return isinstance(project, dict) and project.get("name") == DISTRIBUTION


def own_checkout(package_dir: Path = PACKAGE_DIR) -> Path | None:
    """The root of our git checkout when `package_dir` is its src/callbench, else None."""
    root = package_dir.resolve().parents[1]
    if (root / "src" / "callbench").resolve() != package_dir.resolve():
        return None
    if not _names_callbench(root / "pyproject.toml"):
        return None
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top.strip()).resolve() != root.resolve():
        return None
    return root


def code_version(package_dir: Path = PACKAGE_DIR) -> dict[str, Any]:
    """{"package": version} plus "commit" and "dirty" (uncommitted changes under src/) when run from
    our own checkout."""
    info: dict[str, Any] = {"package": package_version()}
    root = own_checkout(package_dir)
    if root is None:
        return info
    commit = _git(root, "rev-parse", "HEAD")
    if commit is None:  # a checkout with no commit yet
        return info
    info["commit"] = commit.strip()
    status = _git(root, "status", "--porcelain", "--", "src")
    info["dirty"] = bool(status and status.strip())
    return info
