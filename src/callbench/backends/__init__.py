"""Backends behind one protocol: authored queues and a declarative JSON state; service backends
later."""

from .base import Backend, RecordingBackend
from .queue import QueueBackend, build_backend
from .state import ReplayReport, StateBackend, replay

__all__ = [
    "Backend",
    "QueueBackend",
    "RecordingBackend",
    "ReplayReport",
    "StateBackend",
    "build_backend",
    "replay",
]
