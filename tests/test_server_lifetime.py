"""A run's lifetime: local model servers die with the process that started them, however it ends,
and a
run whose output is not a terminal still says how far it got while its calls take minutes.

The server here is a stand-in (a script that ignores SIGTERM and serves nothing), started through
the same
`spawn_server` that `models/local.py` starts llama.cpp's server with."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")

STANDIN = textwrap.dedent("""
    import os, signal, sys, time
    if sys.argv[2] == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with open(sys.argv[1], "w") as f:
        f.write(str(os.getpid()))
    while True:
        time.sleep(1)
""")

PARENT = textwrap.dedent("""
    import sys, time
    from callbench.models.local import spawn_server
    standin, pidfile, how = sys.argv[1], sys.argv[2], sys.argv[3]
    server = spawn_server([sys.executable, standin, pidfile, "stubborn"], grace_s=1.0)
    while True:  # the stand-in has started (and set SIGTERM aside) once it wrote its pid
        try:
            if open(pidfile).read().strip():
                break
        except OSError:
            pass
        time.sleep(0.02)
    print("ready", flush=True)
    if how == "exit":
        sys.exit(0)
    if how == "raise":
        raise RuntimeError("the run failed")
    time.sleep(120)  # until a signal
""")


def alive(pid: int) -> bool:
    """Running (a zombie, which an init that never reaps may keep around, is not running)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return not alive(pid)


@pytest.fixture
def standin(tmp_path):
    path = tmp_path / "standin.py"
    path.write_text(STANDIN)
    return path


def read_pid(pidfile: Path, timeout: float = 10.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            text = pidfile.read_text().strip()
            if text:
                return int(text)
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    raise AssertionError("the stand-in server never started")


def _default_signals() -> None:
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def start_parent(tmp_path, standin, how):
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    pidfile = tmp_path / "server.pid"
    parent = subprocess.Popen(
        [sys.executable, str(script), str(standin), str(pidfile), how],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # the parent stands for a run started from a terminal: a test run launched in the
        # background (`nohup ... &`) would hand down SIGINT and SIGHUP ignored, and an ignored
        # signal is one callbench rightly leaves alone
        preexec_fn=_default_signals,
    )
    child = read_pid(pidfile)
    return parent, child


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "SIGHUP", "SIGKILL"])
def test_a_server_ignoring_sigterm_dies_with_the_process_that_started_it(tmp_path, standin, how):
    parent, child = start_parent(tmp_path, standin, "wait")
    try:
        assert parent.stdout.readline().strip() == "ready"
        assert alive(child)
        assert os.getsid(child) != os.getsid(
            parent.pid
        )  # its own session: a terminal's signals do not reach it
        parent.send_signal(getattr(signal, how))
        parent.wait(timeout=10)
        assert gone_within(child, 6.0), f"the server outlived its run ({how})"
        if how in ("SIGTERM", "SIGHUP"):
            assert parent.returncode == -getattr(
                signal, how
            )  # the parent still died of the signal it got
    finally:
        if parent.poll() is None:
            parent.kill()
        if alive(child):
            os.kill(child, signal.SIGKILL)


@pytest.mark.parametrize("how", ["exit", "raise"])
def test_a_server_dies_when_the_run_ends_normally_or_by_an_exception(tmp_path, standin, how):
    parent, child = start_parent(tmp_path, standin, how)
    try:
        parent.wait(timeout=15)
        assert parent.returncode == (0 if how == "exit" else 1)
        assert gone_within(child, 3.0)
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)


def test_stop_escalates_to_sigkill_after_the_grace_period_and_is_quick_for_a_willing_server(
    tmp_path, standin
):
    from callbench.models.local import spawn_server

    for behaviour, most in (("stubborn", 4.0), ("willing", 1.0)):
        pidfile = tmp_path / f"{behaviour}.pid"
        server = spawn_server([sys.executable, str(standin), str(pidfile), behaviour], grace_s=1.0)
        child = read_pid(pidfile)
        try:
            assert server.poll() is None and alive(child)
            started = time.monotonic()
            server.stop()
            took = time.monotonic() - started
            assert not alive(child) and server.process.returncode is not None
            assert took < most, (behaviour, took)
            if behaviour == "stubborn":
                assert took >= 0.9  # it was given its grace period before SIGKILL
            server.stop()  # idempotent
        finally:
            if alive(child):
                os.kill(child, signal.SIGKILL)


def test_a_server_that_exits_by_itself_reports_its_code(tmp_path):
    from callbench.models.local import spawn_server

    server = spawn_server([sys.executable, "-c", "import sys; sys.exit(3)"])
    deadline = time.monotonic() + 10
    while server.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.poll() == 3
    server.stop()


# --- progress when the output is not a terminal
# ---------------------------------------------------------------


def card(outcome="completed", passed=True, tokens=(100, 10)):
    return SimpleNamespace(
        outcome=outcome,
        deterministic_passed=passed,
        models={"candidate": "m"},
        usage={
            "candidate": SimpleNamespace(
                prompt_tokens=tokens[0], completion_tokens=tokens[1], cached_tokens=0
            )
        },
    )


def test_without_a_terminal_progress_lines_come_at_a_steady_interval_and_at_the_end():
    from rich.console import Console

    from callbench.reports.progress import RunProgress

    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=200)
    now = [1000.0]
    with RunProgress(console, total=4, interval_s=0.05, clock=lambda: now[0]) as progress:
        progress.update(None, card())
        progress.update(None, card(outcome="excluded"))
        now[0] += 75.0
        time.sleep(0.4)  # a long call: no call finishes, the lines keep coming
        heartbeat = out.getvalue().splitlines()
        progress.update(None, card(passed=False))
        now[0] += 3600.0
    lines = out.getvalue().splitlines()
    assert len(heartbeat) >= 3
    assert heartbeat[-1] == "calls 2/4  failed 0  excluded 1  elapsed 0:01:15  tokens 220"
    assert lines[-1] == "calls 3/4  failed 1  excluded 1  elapsed 1:01:15  tokens 330"
    assert "\x1b" not in out.getvalue()  # plain text: no terminal escapes in a log


def test_without_a_terminal_a_quick_run_still_prints_its_final_line_and_stops_its_ticker():
    from rich.console import Console

    from callbench.reports.progress import RunProgress

    out = io.StringIO()
    with RunProgress(
        Console(file=out, force_terminal=False, width=200), total=1, prices={"m": {}}
    ) as progress:
        progress.update(None, card())
    assert out.getvalue().splitlines() == [
        "calls 1/1  failed 0  excluded 0  elapsed 0:00:00  tokens 110  $0.0000"
    ]
    assert progress._ticker is not None and not progress._ticker.is_alive()


def test_on_a_terminal_the_live_bar_is_kept():
    from rich.console import Console

    from callbench.reports.progress import RunProgress

    out = io.StringIO()
    with RunProgress(Console(file=out, force_terminal=True, width=120), total=2) as progress:
        progress.update(None, card())
    assert progress.progress is not None and progress._ticker is None
    assert "calls 1/2  failed" not in out.getvalue()
