"""Who is to blame when something raises (issue 13, finding 1).

A bug in callbench (the turn loop, a backend, the scripted caller, a grader) fails the run with its
traceback and a non-zero exit; it is never excluded as if a provider had failed. Only third-party
code is wrapped: what a user's Python agent raises is its own scored error, and an HTTP agent that
answers 5xx or breaks off mid-answer is an attributed infrastructure exclusion. Bad user input is
still one line without a traceback.
"""

from __future__ import annotations

import http.server
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

import callbench
from callbench.call import read_trace
from callbench.cli import app
from callbench.errors import CallbenchError
from callbench.runs import RunConfig, run_suite

SRC = Path(callbench.__file__).resolve().parents[1]

# Runs the real CLI in a fresh interpreter with a bug planted after the suite is loaded (loading
# runs the reference solutions, which would meet the bug first).
PREAMBLE = """
import sys
import callbench.suite_check as _suite_check

_planted = []


def plant(owner, name, value):
    _planted.append((owner, name, value))


_load = _suite_check.load_suite


def _load_then_plant(*args, **kwargs):
    suite = _load(*args, **kwargs)
    for owner, name, value in _planted:
        setattr(owner, name, value)
    return suite


_suite_check.load_suite = _load_then_plant
"""

RUN_CLI = """
from callbench.cli import app

sys.argv[0] = "callbench"
app()
"""


def cli_with_bug(tmp_path: Path, mini_path: Path, bug: str, *args: str):
    script = tmp_path / "cli_with_bug.py"
    script.write_text(PREAMBLE + textwrap.dedent(bug) + RUN_CLI, encoding="utf-8")
    out = tmp_path / "run"
    argv = ["run", "--suite", str(mini_path), "--out", str(out), "--candidate", "oracle", *args]
    done = subprocess.run(
        [sys.executable, str(script), *argv],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )
    return done, out


def assert_crashed_in_the_run(done, out: Path, exception: str) -> None:
    """Non-zero exit, the traceback shown (through the run, not the suite check), nothing
    scored."""
    assert done.returncode not in (0, 2), done.stdout + done.stderr
    assert "Traceback (most recent call last)" in done.stderr, done.stderr
    assert "run_suite" in done.stderr, done.stderr  # the bug met in the run itself
    assert done.stderr.rstrip().splitlines()[-1].startswith(exception), done.stderr
    assert "error: " not in done.stderr  # not dressed as a one-line user error
    assert not (out / "report.json").exists()
    assert not list(out.glob("traces/**/*.json"))  # no trace saved as an exclusion


def test_a_keyerror_in_the_queue_backend_fails_the_run_with_its_traceback(tmp_path, mini_path):
    bug = """
    from callbench.backends.queue import QueueBackend

    async def call(self, name, arguments):
        return {}["no such key"]

    plant(QueueBackend, "call", call)
    """
    done, out = cli_with_bug(tmp_path, mini_path, bug)
    assert_crashed_in_the_run(done, out, "KeyError")
    assert "in call" in done.stderr and "QueueBackend" not in done.stdout


def test_a_bug_in_the_scripted_caller_fails_the_run_with_its_traceback(tmp_path, mini_path):
    bug = """
    from callbench.callers import ScriptedCaller

    async def respond(self, view):
        return self.no_such_attribute

    plant(ScriptedCaller, "respond", respond)
    """
    done, out = cli_with_bug(tmp_path, mini_path, bug)
    assert_crashed_in_the_run(done, out, "AttributeError")


def test_an_exception_in_a_grader_fails_the_run_with_its_traceback(tmp_path, mini_path):
    bug = """
    from callbench.grading.conversation_checks import ConversationChecks

    def grade(self, trace, scenario, suite):
        return [1 / 0]

    plant(ConversationChecks, "grade", grade)
    """
    done, out = cli_with_bug(tmp_path, mini_path, bug)
    assert_crashed_in_the_run(done, out, "ZeroDivisionError")


def test_a_valueerror_from_a_bug_is_not_shown_as_a_one_line_input_error(tmp_path, mini_path):
    """The CLI catches only deliberate errors: a ValueError from a bug is not user input."""
    bug = """
    from callbench.backends.queue import QueueBackend

    async def call(self, name, arguments):
        raise ValueError("a bug, not bad input")

    plant(QueueBackend, "call", call)
    """
    done, out = cli_with_bug(tmp_path, mini_path, bug)
    assert_crashed_in_the_run(done, out, "ValueError: a bug, not bad input")


def test_the_suite_check_meets_a_bug_with_its_traceback_not_as_an_invalid_suite(
    tmp_path, mini_path
):
    script = tmp_path / "validate_with_bug.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            from callbench.backends.queue import QueueBackend

            async def call(self, name, arguments):
                return {}["no such key"]

            QueueBackend.call = call
            from callbench.cli import app

            sys.argv[0] = "callbench"
            app()
            """
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script), "validate", str(mini_path)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )
    assert done.returncode not in (0, 2) and "Traceback" in done.stderr, done.stderr
    assert done.stderr.rstrip().splitlines()[-1].startswith("KeyError")
    assert "reference solution" not in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--scenario", "no-such-scenario"], "unknown scenario(s): no-such-scenario"),
        (["--caller", "no-such-caller"], "unknown caller 'no-such-caller'"),
        (["--candidate", "python:no_such_module_xyz:Agent"], "cannot import module"),
        (["--candidate", "python:no_such_module_xyz:Agent", "--dry-run"], "cannot import module"),
    ],
)
def test_bad_input_is_still_one_line(mini_path, tmp_path, flags, message):
    res = CliRunner().invoke(
        app, ["run", "--suite", str(mini_path), "--out", str(tmp_path / "x"), *flags]
    )
    assert res.exit_code == 2, res.output
    assert f"error: {message}" in res.output and "Traceback" not in res.output


def test_the_deliberate_errors_are_callbench_errors_not_valueerrors():
    from callbench.callers import ScriptedCallerUnavailable
    from callbench.candidates import UnknownCandidate
    from callbench.candidates.python_agent import PythonAgentError
    from callbench.importers import ImportFormatError
    from callbench.spec import TemplateError
    from callbench.spec.matchers import UnsafePattern
    from callbench.spec.state import PathError

    for cls in (
        ScriptedCallerUnavailable,
        UnsafePattern,
        PathError,
        TemplateError,
        UnknownCandidate,
        PythonAgentError,
        ImportFormatError,
    ):
        assert issubclass(cls, CallbenchError) and not issubclass(cls, ValueError), cls


def test_a_malformed_state_path_is_still_a_field_error_of_the_suite(tmp_path):
    """PathError is raised inside a pydantic validator, which reports only ValueErrors: the
    validator converts it, so the author gets the file and the field, not a crash."""
    import shutil

    from pydantic import ValidationError

    from callbench.errors import SuiteError
    from callbench.spec.state import ReadSpec
    from callbench.suite_check import load_suite

    with pytest.raises(ValidationError, match="empty segment"):
        ReadSpec.model_validate({"path": "orders..status"})
    root = tmp_path / "state-mini"
    shutil.copytree(Path(__file__).parent / "fixtures" / "state-mini", root)
    scenario = root / "scenarios" / "order-desk" / "cancel-shipped.yaml"
    text = scenario.read_text(encoding="utf-8")
    assert "path: session.verified, value:" in text
    scenario.write_text(
        text.replace("path: session.verified, value:", "path: session..verified, value:"),
        encoding="utf-8",
    )
    with pytest.raises(SuiteError) as caught:
        load_suite(root)
    problem = caught.value.problems[0]
    assert problem.file.endswith("cancel-shipped.yaml") and "path" in problem.path
    assert "empty segment" in problem.message


# --- third-party code stays wrapped ---------------------------------------------------------------


class AgentThatCannotStart:
    created = 0

    def __init__(self):
        type(self).created += 1
        raise RuntimeError("no licence key")

    def step(self, view):  # pragma: no cover - never reached
        return {"say": "hello"}


def agent_with_a_bug(view):
    return {}["the agent's own KeyError"]


def test_a_python_agents_exceptions_are_its_own_scored_errors(mini_suite, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "errs_agents", sys.modules[__name__])
    monkeypatch.setattr(AgentThatCannotStart, "created", 0)
    names = ("python:errs_agents:AgentThatCannotStart", "python:errs_agents:agent_with_a_bug")
    result = run_suite(mini_suite, RunConfig(candidates=names), tmp_path / "r")
    for name in names:
        trace = read_trace(tmp_path / f"r/traces/{name}/reschedule/r0.json")
        assert trace.outcome == "completed" and trace.failure is None
        errors = [m.error for m in trace.messages if m.role == "candidate"]
        assert errors and all(e and e.startswith("agent raised") for e in errors)
        assert result.report["candidates"][name]["coverage"] == 1.0
    # the class is tried once per call; its failure is replayed on every later message
    assert AgentThatCannotStart.created == 1


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


def serve(answer):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            answer(self)

        def log_message(self, *args):
            pass

    server = _Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def server_error(handler):
    handler.send_response(500)
    handler.send_header("content-length", "0")
    handler.end_headers()


def cut_short(handler):
    """Promises 1000 bytes, sends 10, and hangs up: the agent's server died mid-answer."""
    handler.send_response(200)
    handler.send_header("content-length", "1000")
    handler.end_headers()
    handler.wfile.write(b'{"say": "h')
    handler.wfile.flush()
    handler.close_connection = True


def not_http(handler):
    handler.wfile.write(b"hello there\r\n\r\n")
    handler.close_connection = True


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        (server_error, "ProviderServerError"),
        (cut_short, "ProviderTransportError"),
        (not_http, "ProviderTransportError"),
    ],
)
def test_an_http_agent_that_fails_or_dies_is_an_attributed_exclusion(
    mini_suite, tmp_path, answer, kind
):
    server = serve(answer)
    url = f"http://127.0.0.1:{server.server_address[1]}/agent"
    try:
        result = run_suite(
            mini_suite,
            RunConfig(
                candidates=(url,), infra_reruns=1, candidate_options={"http": {"max_retries": 0}}
            ),
            tmp_path / "r",
        )
    finally:
        server.shutdown()
        server.server_close()
    card = result.scorecards[0]
    assert card.outcome == "excluded" and card.failure.failure_class == "infrastructure"
    assert card.failure.kind == kind and card.reruns == 1
    assert result.report["candidates"][url]["excluded"] == {kind: 1}


PLANTED = """
from callbench.backends.queue import QueueBackend


async def call(self, name, arguments):
    return {}["no such key"]


QueueBackend.call = call  # importing this agent plants the bug in whichever process runs it


def agent(view):
    lookup = {"name": "lookup_parcel", "arguments": {"tracking_id": "SP-0412"}}
    return {"say": "Hello, let me look.", "tool_calls": [lookup]}
"""


def test_a_bug_in_a_worker_process_fails_the_run_with_its_traceback(
    mini_suite, tmp_path, monkeypatch
):
    """The process executor used to report a worker's bug as one line ('a worker process failed:
    KeyError: ...'), a deliberate error without its traceback."""
    from callbench.backends.queue import QueueBackend
    from callbench.runs.process_executor import ProcessExecutor, WorkerCrashed

    monkeypatch.setattr(QueueBackend, "call", QueueBackend.call)  # put back after the test
    (tmp_path / "errs_planted.py").write_text(PLANTED, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(WorkerCrashed) as caught:
            run_suite(
                mini_suite,
                RunConfig(candidates=("python:errs_planted:agent",)),
                tmp_path / "r",
                executor=ProcessExecutor(processes=1, concurrency=1),
            )
    finally:
        sys.modules.pop("errs_planted", None)
    shown = str(caught.value)
    assert not isinstance(caught.value, CallbenchError)
    assert "Traceback (most recent call last)" in shown and "KeyError: 'no such key'" in shown
    assert "episode.py" in shown  # the worker's own frames, down to the bug
