"""Runs in hostile places: a folder another process is already running, candidate names that look
like paths,
a full disk and a read-only folder. Each ends in one line naming the folder and the cause, nothing
half-saved,
and a run that `--resume` finishes with the scores of an undisturbed one."""

import errno
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from reports_util import untimed
from typer.testing import CliRunner

from callbench.cli import app
from callbench.layout import RunLayout
from callbench.runs import Attempt, RunConfig, run_suite
from callbench.runs.executors import InlineExecutor, SimulatedCrash
from callbench.runs.store import StoreError

CONFIG = RunConfig(candidates=("oracle", "noop", "shortcut"), repeats=4, seed=9)
CLI_RUN = [
    "run",
    "--candidate",
    "oracle",
    "--candidate",
    "noop",
    "--repeats",
    "3",
    "--seed",
    "9",
    "--concurrency",
    "1",
]


def dump(out: Path) -> list:
    """Every row of the store, timestamps included: a refused sweep must not have touched one."""
    db = sqlite3.connect(out / "run.sqlite")
    try:
        return (
            db.execute("SELECT * FROM attempts ORDER BY position").fetchall()
            + db.execute("SELECT * FROM meta").fetchall()
        )
    finally:
        db.close()


def states(out: Path) -> dict[str, str]:
    db = sqlite3.connect(out / "run.sqlite")
    try:
        return dict(db.execute("SELECT trace_id, state FROM attempts ORDER BY position").fetchall())
    finally:
        db.close()


def cli(*args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*prefix, sys.executable, "-m", "callbench.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "120"},
    )


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


# ----------------------------------------------------------------- one sweep per folder


def test_a_second_sweep_on_a_folder_in_use_refuses_at_once_and_the_first_completes(
    mini_suite, tmp_path
):
    clean = run_suite(mini_suite, CONFIG, tmp_path / "clean")
    out = tmp_path / "r"
    seen: dict = {}

    def meddle(attempt, card):
        """While the first sweep is mid-way, a second process resumes the folder and a second sweep
        starts on it."""
        if seen:
            return
        before = dump(out)
        seen["resume"] = cli("run", "--resume", str(out))
        with ThreadPoolExecutor(1) as pool:
            seen["fresh"] = pool.submit(run_suite, mini_suite, CONFIG, out).exception()
        seen["untouched"] = dump(out) == before

    first = run_suite(mini_suite, CONFIG, out, on_done=meddle)
    assert seen["resume"].returncode != 0
    line = one_error_line(seen["resume"].stderr)
    assert str(out) in line and "another process" in line
    assert (
        isinstance(seen["fresh"], StoreError)
        and str(out) in str(seen["fresh"])
        and "another process" in str(seen["fresh"])
    )
    assert seen["untouched"]
    assert set(states(out).values()) == {"completed"} and len(states(out)) == 12
    assert (
        untimed(first.report) == untimed(clean.report) and first.report["store"]["completed"] == 12
    )
    # released when the sweep ends: the folder can be resumed (nothing left to do) by anyone
    again = cli("run", "--resume", str(out))
    assert again.returncode == 0, again.stderr


def test_the_folder_is_released_when_a_sweep_dies(mini_suite, tmp_path):
    out = tmp_path / "r"
    with pytest.raises(SimulatedCrash):
        run_suite(mini_suite, CONFIG, out, executor=InlineExecutor(crash_after=3))
    resumed = run_suite(mini_suite, CONFIG, out, resume=True)
    assert resumed.report["store"]["completed"] == 12


def test_resuming_a_folder_with_no_run_refuses_and_makes_nothing(mini_suite, tmp_path):
    for out in (tmp_path / "nowhere", tmp_path / "empty"):
        (tmp_path / "empty").mkdir(exist_ok=True)
        with pytest.raises(StoreError, match="no run store to resume"):
            run_suite(mini_suite, CONFIG, out, resume=True)
    assert not (tmp_path / "nowhere").exists() and not list((tmp_path / "empty").iterdir())


# ----------------------------------------------------------------- candidate names are not paths

HOSTILE = (
    "http://127.0.0.1:9/../../../../escape",
    "http://127.0.0.1:9/a/./b",
    "http://127.0.0.1:9/a/b",
    "oracle",
)


def test_candidate_names_never_leave_the_run_folder_nor_share_a_folder(mini_suite, tmp_path):
    from callbench.reports.html import load_calls

    out = tmp_path / "r"
    result = run_suite(mini_suite, RunConfig(candidates=HOSTILE, infra_reruns=0), out)
    assert list(tmp_path.iterdir()) == [out]
    root = out.resolve()
    assert all(p.resolve().is_relative_to(root) for p in out.rglob("*"))
    for sub in ("traces", "scorecards"):
        folders = sorted(p.name for p in (out / sub).iterdir())
        assert len(folders) == len(HOSTILE) and "oracle" in folders
        assert all(len(p.relative_to(out / sub).parts) == 3 for p in (out / sub).rglob("*.json"))
    for name in HOSTILE:
        attempt = Attempt(name, "reschedule", 0)
        assert json.loads(RunLayout(out).trace(attempt).read_text())["candidate"] == name
        assert json.loads(RunLayout(out).scorecard(attempt).read_text())["candidate"] == name
    calls, problems = load_calls(out, result.report)  # the HTML report reads the same folders back
    assert (
        not problems
        and sorted(c["candidate"] for c in calls) == sorted(HOSTILE)
        and all(c["card"] for c in calls)
    )


def test_candidate_folders_are_single_safe_names_one_per_candidate():
    from callbench.layout import candidate_folder

    kept = (
        "oracle",
        "noop",
        "shortcut",
        "spray",
        "openai:gpt-4.1-mini",
        "json:ollama:llama3.2",
        "openai-gpt-4.1-mini",
        "python:my_pkg.agent:MyAgent",
        "anthropic:claude-3-5-haiku-latest",
    )
    hostile = (
        "..",
        ".",
        "",
        "/",
        "/a/./b",
        "/a/b",
        "a/b",
        "a//b",
        "a\\b",
        "a b",
        "a\x00b",
        "~",
        "x~1",
        "a/..",
        "-",
        "http://127.0.0.1:8080/agent",
        "http://127.0.0.1:8080/agent/",
        "https://127.0.0.1:8080/agent",
        "openai-compatible:http://127.0.0.1:9/v1#m",
        "modèle",
        "\udcff",
        "x" * 300,
        "x" * 301,
        "é" * 200,
        ".hidden",
    )
    folders = [candidate_folder(n) for n in kept + hostile]
    assert len(set(folders)) == len(folders)
    assert [candidate_folder(n) for n in kept] == list(kept)  # runs made before stay readable
    for name, folder in zip(hostile, folders[len(kept) :]):
        assert (
            folder not in (".", "..")
            and not set(folder) & {"/", "\\", "\x00"}
            and not folder.startswith(".")
        )
        assert len(folder.encode("utf-8")) <= 120, name
    assert candidate_folder("http://127.0.0.1:8080/agent").startswith("http-127.0.0.1-8080-agent~")


# ----------------------------------------------------------------- a full disk


def _fill_after(monkeypatch, writes: int, how: str) -> None:
    """The disk fills up on a scorecard file after `writes` of them were saved: the call's trace was
    written, its
    scorecard cannot be. `replace`: the temporary file was written whole, the rename fails;
    `write`: it is cut short."""
    from callbench import files

    count = {"n": 0}

    def full(path) -> bool:
        if "scorecards" not in Path(path).parts:
            return False
        count["n"] += 1
        return count["n"] > writes

    def no_space(path):
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    if how == "replace":
        real = os.replace

        def replace(src, dst, *a, **k):
            if full(dst):
                raise no_space(dst)
            return real(src, dst, *a, **k)

        monkeypatch.setattr(files.os, "replace", replace)
    else:
        real_write = Path.write_text

        def write_text(self, text, *a, **k):
            if full(self):
                real_write(self, text[: len(text) // 2], *a, **k)
                raise no_space(self)
            return real_write(self, text, *a, **k)

        monkeypatch.setattr(Path, "write_text", write_text)


def _assert_nothing_half_saved(out: Path) -> None:
    assert not list(out.rglob("*.tmp"))
    for trace_id, state in states(out).items():
        candidate, scenario, repeat = trace_id.split("/")
        attempt = Attempt(candidate, scenario, int(repeat[1:]))
        if state == "completed":
            layout = RunLayout(out)
            assert layout.trace(attempt).exists() and layout.scorecard(attempt).exists(), trace_id
        else:
            assert not RunLayout(out).scorecard(attempt).exists(), trace_id


@pytest.mark.parametrize("how", ["replace", "write"])
def test_a_full_disk_is_one_line_and_the_run_resumes(mini_path, tmp_path, monkeypatch, how):
    runner = CliRunner()
    clean = runner.invoke(
        app, [*CLI_RUN, "--suite", str(mini_path), "--out", str(tmp_path / "clean")]
    )
    assert clean.exit_code == 0, clean.output
    out = tmp_path / "r"
    with monkeypatch.context() as patch:
        _fill_after(patch, 2, how)
        res = runner.invoke(app, [*CLI_RUN, "--suite", str(mini_path), "--out", str(out)])
    assert res.exit_code != 0 and not isinstance(res.exception, OSError), res.output
    line = one_error_line(res.stderr)
    assert str(out) in line and "No space left on device" in line
    assert list(states(out).values()).count("completed") == 2
    _assert_nothing_half_saved(out)
    res = runner.invoke(app, ["run", "--resume", str(out)])
    assert res.exit_code == 0, res.output
    assert set(states(out).values()) == {"completed"}
    report = json.loads((out / "report.json").read_text())
    assert untimed(report) == untimed(json.loads((tmp_path / "clean" / "report.json").read_text()))
    assert report["store"]["completed"] == 6
    _assert_nothing_half_saved(out)


def test_a_full_store_is_one_line_and_the_run_resumes(mini_path, tmp_path, monkeypatch):
    """SQLite itself runs out of room (a real SQLITE_FULL, by capping the database's pages) on the
    third call."""
    from callbench.runs import runner as runner_module
    from callbench.runs.store import RunStore

    class FillingStore(RunStore):
        finishes = 0

        def finish(self, *args, **kwargs):
            FillingStore.finishes += 1
            if FillingStore.finishes == 3:
                pages = self.db.execute("PRAGMA page_count").fetchone()[0]
                self.db.execute(f"PRAGMA max_page_count = {pages}")
            return super().finish(*args, **kwargs)

    out = tmp_path / "r"
    with monkeypatch.context() as patch:
        patch.setattr(runner_module, "RunStore", FillingStore)
        res = CliRunner().invoke(app, [*CLI_RUN, "--suite", str(mini_path), "--out", str(out)])
    assert res.exit_code != 0 and not isinstance(res.exception, sqlite3.Error), res.output
    line = one_error_line(res.stderr)
    assert str(out) in line and "full" in line
    assert list(states(out).values()).count("completed") == 2
    _assert_nothing_half_saved(out)
    res = CliRunner().invoke(app, ["run", "--resume", str(out)])
    assert res.exit_code == 0, res.output
    assert set(states(out).values()) == {"completed"}
    _assert_nothing_half_saved(out)


# ----------------------------------------------------------------- a read-only folder


def unprivileged() -> tuple[str, ...]:
    """Root writes through any permission: run the CLI without the capabilities that let it
    (setpriv)."""
    if os.geteuid() != 0:
        return ()
    if shutil.which("setpriv") is None:
        pytest.skip(
            "running as root, and setpriv is missing to drop the capability to ignore file "
            "permissions (apt-get install util-linux)"
        )
    return (
        "setpriv",
        "--bounding-set=-dac_override,-dac_read_search",
    )


def _chmod_folders(root: Path, mode: int) -> None:
    for folder, _, _ in os.walk(root):
        os.chmod(folder, mode)


def test_a_read_only_run_folder_is_one_line_and_changes_nothing(mini_path, mini_suite, tmp_path):
    prefix = unprivileged()
    # a new run into an empty read-only folder, and into a folder that cannot be made
    empty = tmp_path / "empty"
    empty.mkdir()
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(empty, 0o555)
    os.chmod(locked, 0o555)
    try:
        for out in (empty, locked / "r"):
            res = cli(*CLI_RUN, "--suite", str(mini_path), "--out", str(out), prefix=prefix)
            assert res.returncode != 0
            line = one_error_line(res.stderr)
            assert str(out) in line and "Permission denied" in line, line
        assert not list(empty.iterdir()) and not list(locked.iterdir())
    finally:
        os.chmod(empty, 0o755)
        os.chmod(locked, 0o755)

    # a run cut short, its folder then made read-only: resuming it says so and touches nothing
    out = tmp_path / "r"
    with pytest.raises(SimulatedCrash):
        run_suite(mini_suite, CONFIG, out, executor=InlineExecutor(crash_after=5))
    before = dump(out)
    _chmod_folders(out, 0o555)
    try:
        res = cli("run", "--resume", str(out), prefix=prefix)
        assert res.returncode != 0
        line = one_error_line(res.stderr)
        assert str(out) in line
    finally:
        _chmod_folders(out, 0o755)
    assert dump(out) == before
    resumed = run_suite(mini_suite, CONFIG, out, resume=True)
    assert resumed.report["store"]["completed"] == 12
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
