"""Commands that check, audit and seal suites (`callbench audit`, `seal`, `verify-seal`), kept apart
from cli.py, which stays small. `register_suite_tools(app)` mounts them."""

from __future__ import annotations

import typer


def register_suite_tools(app: typer.Typer) -> None:
    """Mount this module's commands on the `callbench` app (none yet)."""
    del app
