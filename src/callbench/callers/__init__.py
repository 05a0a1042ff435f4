"""Simulated callers: the scripted caller now; the LLM caller arrives with the model layer."""

from .base import Caller, CallerTurnRejected, CallerView, LineCaller, check_utterance
from .scripted import PATIENCE, ScriptedCaller, ScriptedCallerUnavailable

__all__ = [
    "PATIENCE",
    "Caller",
    "CallerTurnRejected",
    "CallerView",
    "LineCaller",
    "ScriptedCaller",
    "ScriptedCallerUnavailable",
    "check_utterance",
]
