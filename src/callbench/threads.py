"""Blocking work that must not hold a sweep hostage.

`asyncio.to_thread` runs work on the event loop's default executor, and `asyncio.run` waits for that
executor's threads before it returns: one agent stuck in a blocking call would keep the whole sweep
from
finishing long after its deadline fired. Here each piece of work gets its own daemon thread instead;
when the
awaiting call gives up (a deadline), the thread is abandoned and can no longer delay the run or the
exit.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any


async def in_daemon_thread(fn: Callable[..., Any], *args: Any) -> Any:
    loop = asyncio.get_running_loop()
    future: asyncio.Future = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not future.done():
            (future.set_result if ok else future.set_exception)(value)

    def work() -> None:
        try:
            result = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine, which decides
            outcome = (False, exc)
        else:
            outcome = (True, result)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:
            pass  # the loop is gone: nobody is waiting any more

    threading.Thread(
        target=work, name=f"callbench-{getattr(fn, '__name__', 'work')}", daemon=True
    ).start()
    return await future
