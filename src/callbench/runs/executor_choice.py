"""The executor a run's configuration names, made in one place for every front end."""

from __future__ import annotations

from .config import ConfigError, RunConfig, unknown_executor
from .executors import Executor, LocalExecutor
from .process_executor import ProcessExecutor
from .ray_executor import RayExecutor


def make_executor(config: RunConfig) -> Executor:
    """local: this process's event loop; processes: `config.processes` worker processes; ray: the
    cluster at `config.address` (or a small local one). Each runs at most `config.concurrency`
    calls at once. Ray itself is imported only when the sweep starts (an optional extra)."""
    if config.executor == "local":
        return LocalExecutor(config.concurrency)
    if config.executor == "processes":
        return ProcessExecutor(processes=config.processes, concurrency=config.concurrency)
    if config.executor == "ray":
        return RayExecutor(address=config.address, concurrency=config.concurrency)
    raise ConfigError(unknown_executor(config.executor))
