"""A live progress line for sweeps: calls done, failed and excluded, ETA, tokens and cost so far."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ..pricing import card_cost


class RunProgress:
    def __init__(self, console: Console, total: int, prices: dict[str, Any] | None = None):
        self.prices = prices or {}
        self.done = self.failed = self.excluded = self.tokens = 0
        self.cost = 0.0
        self.progress = Progress(TextColumn("[bold]calls"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                 TextColumn("{task.description}"), console=console, transient=True)
        self.task = self.progress.add_task("", total=total)

    def __enter__(self) -> "RunProgress":
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.__exit__(*exc)

    def update(self, attempt: Any, card: Any) -> None:
        self.done += 1
        self.excluded += card.outcome == "excluded"
        self.failed += card.outcome == "completed" and not card.deterministic_passed
        self.tokens += sum(u.prompt_tokens + u.completion_tokens for u in card.usage.values())
        self.cost += card_cost(card, self.prices)
        cost = f"  ${self.cost:.4f}" if self.prices else ""
        self.progress.update(self.task, advance=1, description=f"failed {self.failed}  excluded {self.excluded}  "
                                                                f"tokens {self.tokens:,}{cost}")
