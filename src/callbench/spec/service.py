"""Service backends: tool calls answered by real services with their own databases.

`kind: service` runs a domain plugin shipped with callbench (its services on SQLite, a fresh copy of
a seeded snapshot per call). `kind: http` forwards every tool call to a team's own service over
HTTP, with a per-call setup hook (a fresh world) and a reset hook (throw it away), so an agent can
be evaluated against a staging system. Both report their writes to the same ledger the state
graders read (`expected_changes`, `expected_state`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import Field

from .base import Identifier, SpecModel


class ServiceBackendSpec(SpecModel):
    kind: Literal["service"]
    domain: Identifier = Field(description="the domain plugin, e.g. utility_billing")
    hidden: dict[str, Any] = Field(default_factory=dict)
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="what the domain needs to open this call's world (e.g. the caller's account)",
    )
    clock: dt.datetime | None = Field(
        default=None,
        description="the frozen time every write of the call is stamped with; the domain's own "
        "snapshot time when absent",
    )


class HttpBackendSpec(SpecModel):
    kind: Literal["http"]
    url: str = Field(min_length=1, description="the service's base URL")
    hidden: dict[str, Any] = Field(default_factory=dict)
    options: dict[str, Any] = Field(
        default_factory=dict, description="sent to the setup hook to open this call's world"
    )
    clock: dt.datetime | None = None
    setup: str = Field(default="/calls", description="POST here opens a fresh world for the call")
    reset: str | None = Field(
        default="/calls/{call_id}", description="DELETE here throws the call's world away"
    )
    headers_env: dict[str, str] = Field(
        default_factory=dict,
        description="request header -> environment variable holding its value (never stored)",
    )
    timeout_seconds: float = Field(default=30.0, gt=0)


__all__ = ["HttpBackendSpec", "ServiceBackendSpec"]
