"""Backends behind one protocol: authored queues now; state and service backends later."""

from .base import Backend, RecordingBackend
from .queue import QueueBackend, build_backend

__all__ = ["Backend", "QueueBackend", "RecordingBackend", "build_backend"]
