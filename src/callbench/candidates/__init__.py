"""Systems under test: the protocol, the built-in baselines, and a scripted fake."""

from .base import (
    CONCLUDING_MESSAGE,
    Candidate,
    CandidateView,
    ScriptedCandidate,
    call,
    chat_messages,
    tool_schemas,
)
from .noop import NoopCandidate
from .oracle import OracleCandidate
from .registry import BASELINES, CandidateEntry, UnknownCandidate, candidate_entry
from .shortcut import ShortcutCandidate

__all__ = [
    "BASELINES",
    "CONCLUDING_MESSAGE",
    "Candidate",
    "CandidateEntry",
    "CandidateView",
    "NoopCandidate",
    "OracleCandidate",
    "ScriptedCandidate",
    "ShortcutCandidate",
    "UnknownCandidate",
    "call",
    "candidate_entry",
    "chat_messages",
    "tool_schemas",
]
