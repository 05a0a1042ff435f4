"""Agents written in Python: `python:package.module:attribute`.

The attribute is either a class (instantiated once per call, then its `step(view)`
is called for every candidate message, so it can keep per-call state) or a
function `f(view)` called for every message. Either may be async, and may
return a CandidateStep or the wire-format dict of `wire.py`.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from ..call.types import CandidateStep
from ..threads import in_daemon_thread
from .base import CandidateView
from .wire import step_from_wire


class PythonAgentError(ValueError):
    pass


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
        obj = obj if obj is not None else load_attribute(target)
        self._call = obj().step if inspect.isclass(obj) else obj

    async def step(self, view: CandidateView) -> CandidateStep:
        """An exception raised by the agent's own code is the agent's failure: recorded, and the
        call goes on.

        A synchronous agent runs in a worker thread, so one that blocks or spins cannot stall the
        event loop that
        every other call in flight shares (and its deadline can still fire)."""
        try:
            if inspect.iscoroutinefunction(self._call):
                answer = await self._call(view)
            else:
                answer = await in_daemon_thread(self._call, view)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:  # noqa: BLE001 - the agent under test may fail in any way
            return CandidateStep(error=f"agent raised {type(exc).__name__}: {str(exc)[:300]}")
        return step_from_wire(answer)
