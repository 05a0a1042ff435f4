"""Agents written in Python: `python:package.module:attribute`.

The attribute is either a class (instantiated once per call, then its `step(view)`
is called for every candidate message, so it can keep per-call state) or a
function `f(view)` called for every message. Either may be async, and may
return a CandidateStep or the wire-format dict of `wire.py`.

This adapter is the boundary between callbench and the user's code: whatever the agent raises
(in its constructor or in a message) is the agent's own failure, recorded on the candidate's
message and scored; nothing it raises crashes the run or passes for an infrastructure failure.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

from ..call.types import CandidateStep
from ..errors import CallbenchError
from ..threads import in_daemon_thread
from .base import CandidateView
from .wire import step_from_wire


class PythonAgentError(CallbenchError):
    """A `python:` candidate names nothing importable (user input: reported in one line)."""


def load_attribute(target: str) -> Any:
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise PythonAgentError(f"'{target}': write python:package.module:function_or_class")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise PythonAgentError(f"cannot import module '{module_name}': {exc}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise PythonAgentError(f"module '{module_name}' has no attribute '{attr}'") from None


class PythonAgentCandidate:
    def __init__(self, target: str, obj: Any | None = None):
        self.name = f"python:{target}"
        self._obj = obj if obj is not None else load_attribute(target)
        self._call: Callable[[CandidateView], Any] | None = (
            None if inspect.isclass(self._obj) else self._obj
        )
        self._broken: str | None = None
        """why the agent's class could not be created for this call (then every message fails)"""

    async def step(self, view: CandidateView) -> CandidateStep:
        """An exception raised by the agent's own code is the agent's failure: recorded, and the
        call goes on.

        A class is created at the call's first message (inside this boundary, so a constructor that
        raises is the agent's failure too). A synchronous agent runs in a worker thread, so one that
        blocks or spins cannot stall the event loop that every other call in flight shares (and its
        deadline can still fire)."""
        if self._broken is not None:
            return CandidateStep(error=self._broken)
        try:
            if self._call is None:
                self._call = self._obj().step
            call = self._call
            if inspect.iscoroutinefunction(call):
                answer = await call(view)
            else:
                answer = await in_daemon_thread(call, view)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:  # noqa: BLE001 - the agent under test may fail in any way
            error = f"agent raised {type(exc).__name__}: {str(exc)[:300]}"
            if self._call is None:
                self._broken = error
            return CandidateStep(error=error)
        return step_from_wire(answer)
