"""Which code measured (issue 13, finding 4): the distribution's version always, our commit only
from our own checkout; never the commit of a user's project that callbench is installed in."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import callbench
from callbench.provenance import code_version, own_checkout, package_version

PACKAGE = Path(callbench.__file__).resolve().parent
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
GIT = ["git", "-c", "user.email=user@example.com", "-c", "user.name=user"]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        [*GIT, "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def user_project(root: Path, package_at: str, name: str = "their-app") -> tuple[Path, str]:
    """A user's git repository with a copy of callbench at `package_at`; its commit."""
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "{name}"\nversion = "9.9"\n')
    shutil.copytree(PACKAGE, root / package_at, ignore=shutil.ignore_patterns("__pycache__"))
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "their code")
    return root / package_at, _git(root, "rev-parse", "HEAD")


@pytest.mark.parametrize(
    "package_at",
    ["venv/lib/python3.11/site-packages/callbench", "src/callbench"],
    ids=["installed-in-their-venv", "their-src-layout"],
)
def test_inside_another_repository_no_commit_of_theirs_is_recorded(tmp_path, package_at):
    package, theirs = user_project(tmp_path / "proj", package_at)
    info = code_version(package)
    assert own_checkout(package) is None
    assert info == {"package": package_version()} and theirs not in json.dumps(info)


def test_a_copy_imported_from_their_project_records_only_the_version(tmp_path):
    """The whole path: Python imports the copy (as from their virtualenv) and writes its version."""
    package, theirs = user_project(tmp_path / "proj", "venv/lib/site-packages/callbench")
    env = {**os.environ, "PYTHONPATH": str(package.parent)}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, callbench, callbench.provenance as p; "
            "print(json.dumps([callbench.__file__, p.code_version()]))",
        ],
        env=env,
        cwd=tmp_path / "proj",
        check=True,
        capture_output=True,
        text=True,
    )
    imported, info = json.loads(out.stdout)
    assert Path(imported).resolve().is_relative_to(package.resolve())
    assert "commit" not in info and "dirty" not in info and theirs not in out.stdout


def test_the_version_is_the_installed_distributions():
    try:
        expected = metadata.version("callbench")
    except metadata.PackageNotFoundError:
        expected = callbench.__version__
    assert code_version()["package"] == expected


def test_from_our_checkout_our_commit_is_recorded():
    root = PACKAGE.parents[1]
    if not (root / ".git").exists():
        pytest.skip("not running from a git checkout of callbench (an installed copy)")
    info = code_version()
    assert own_checkout() == root
    assert info["commit"] == _git(root, "rev-parse", "HEAD")
    assert isinstance(info["dirty"], bool)


def test_a_checkout_named_callbench_elsewhere_is_not_ours(tmp_path):
    """The pyproject must name callbench *and* be the folder the package was imported from."""
    package, _ = user_project(tmp_path / "fork", "src/callbench", name="callbench")
    assert own_checkout(package) == (tmp_path / "fork").resolve()
    stray = tmp_path / "fork" / "lib" / "callbench"
    shutil.copytree(package, stray)
    assert own_checkout(stray) is None
