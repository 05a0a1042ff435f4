"""Progress for sweeps: calls done, failed and excluded, ETA, tokens and cost so far.

On a terminal, a live progress bar. Anywhere else (a pipe, a log file, CI), a live bar shows nothing
until
the run ends, and a local-model call can take minutes: there, plain lines are printed at a steady
interval
whether or not a call finished meanwhile, and once more at the end.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ..pricing import card_cost

PLAIN_INTERVAL_S = 10.0
"""how often the plain progress line is printed when the console is not a terminal"""


def _clock_text(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class RunProgress:
    def __init__(
        self,
        console: Console,
        total: int,
        prices: dict[str, Any] | None = None,
        *,
        interval_s: float = PLAIN_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.console = console
        self.total = total
        self.prices = prices or {}
        self.done = self.failed = self.excluded = self.tokens = 0
        self.cost = 0.0
        self.interval_s = interval_s
        self.clock = clock
        self.started: float | None = None
        self.plain = not console.is_terminal
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self.progress: Progress | None = None
        if not self.plain:
            self.progress = Progress(
                TextColumn("[bold]calls"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.description}"),
                console=console,
                transient=True,
            )
            self.task = self.progress.add_task("", total=total)

    def __enter__(self) -> RunProgress:
        self.started = self.clock()
        if self.progress is not None:
            self.progress.__enter__()
        else:
            self._ticker = threading.Thread(
                target=self._tick, name="callbench-progress", daemon=True
            )
            self._ticker.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.progress is not None:
            self.progress.__exit__(*exc)
            return
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=5)
        self.print_line()  # the end, however the run ended

    def _tick(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.print_line()

    def line(self) -> str:
        """The plain progress line: done/total, failed, excluded, elapsed (then tokens, and cost
        with prices)."""
        with self._lock:
            done, failed, excluded, tokens, cost = (
                self.done,
                self.failed,
                self.excluded,
                self.tokens,
                self.cost,
            )
        elapsed = self.clock() - self.started if self.started is not None else 0.0
        text = (
            f"calls {done}/{self.total}  failed {failed}  excluded {excluded}  elapsed "
            f"{_clock_text(elapsed)}  "
            f"tokens {tokens:,}"
        )
        return text + (f"  ${cost:.4f}" if self.prices else "")

    def print_line(self) -> None:
        self.console.print(self.line(), markup=False, highlight=False, soft_wrap=True)

    def update(self, attempt: Any, card: Any) -> None:
        with self._lock:
            self.done += 1
            self.excluded += card.outcome == "excluded"
            self.failed += card.outcome == "completed" and not card.deterministic_passed
            self.tokens += sum(u.prompt_tokens + u.completion_tokens for u in card.usage.values())
            self.cost += card_cost(card, self.prices)
            failed, excluded, tokens, cost = self.failed, self.excluded, self.tokens, self.cost
        if self.progress is not None:
            cost_text = f"  ${cost:.4f}" if self.prices else ""
            self.progress.update(
                self.task,
                advance=1,
                description=f"failed {failed}  excluded {excluded}  tokens {tokens:,}{cost_text}",
            )
