"""Test doubles that exercise real code paths: a loopback OpenAI-compatible server with fault
injection."""

from .fake_provider import FAULTS, FakeProvider

__all__ = ["FAULTS", "FakeProvider"]
