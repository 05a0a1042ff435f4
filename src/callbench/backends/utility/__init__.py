"""The utility-billing domain: a billing service and a loan engine on SQLite, the policy model, and
the sixteen tools a candidate uses (see `tools`)."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Mapping
from typing import Any

from . import policy


class UtilityBilling:
    """The services-backend plugin (`backends.service.Domain`) for `domain: utility_billing`."""

    name = "utility_billing"
    now = policy.NOW

    def __init__(self) -> None:
        self._snapshot: dict[str, sqlite3.Connection] | None = None

    def snapshot(self) -> dict[str, sqlite3.Connection]:
        if self._snapshot is None:
            from .seed import build

            self._snapshot = build()
        return self._snapshot

    def open(
        self,
        databases: dict[str, sqlite3.Connection],
        options: Mapping[str, Any],
        now: dt.datetime,
    ) -> Any:
        from .tools import UtilitySession

        return UtilitySession(databases, options, now)


__all__ = ["UtilityBilling", "policy"]
