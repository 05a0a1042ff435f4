"""Authored response queues: the j-th call to a tool is answered by the j-th entry of its queue."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from ..call.types import ToolOutcome
from ..spec import QueueBackendSpec, evaluate_args, make_scope, resolve

NO_MORE_ENTRIES = {"status": "error", "message": "this request cannot be processed right now"}


class QueueBackend:
    """Matching arguments get `respond`; a mismatch or unparseable call gets `mismatch`; past the
    queue, the default.

    Every call consumes its queue position whether or not it matched, so the
    backend's answer depends only on what the candidate sent, in order: the
    episode replays exactly.
    """

    def __init__(self, spec: QueueBackendSpec, knows: dict[str, Any]):
        self.spec = spec
        self.scope = make_scope(knows, spec.hidden)
        self.calls: Counter[str] = Counter()

    def _resolve(self, value: Any) -> Any:
        return resolve(value, self.scope)

    async def call(self, name: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        j = self.calls[name]
        self.calls[name] += 1
        queue = self.spec.queues.get(name, [])
        if j >= len(queue):
            default = self.spec.defaults.get(name, NO_MORE_ENTRIES)
            return ToolOutcome(
                result=copy.deepcopy(self._resolve(default)), source="default", queue_position=j
            )
        entry = queue[j]
        results = evaluate_args(entry.expect, arguments, resolve=self._resolve)
        matched = arguments is not None and all(r.ok for r in results)
        chosen = entry.respond if matched else entry.mismatch
        return ToolOutcome(
            result=copy.deepcopy(self._resolve(chosen)),
            source="queue" if matched else "mismatch",
            queue_position=j,
            matcher_results=results,
        )


def build_backend(spec: Any, knows: dict[str, Any], tools: list | None = None, today: Any = None):
    """The backend for a scenario's `backend:` block; `tools` (the agent's) give the state backend
    the
    parameter schemas it enforces. Queue backends answer by their authored matchers instead."""
    if isinstance(spec, QueueBackendSpec):
        return QueueBackend(spec, knows)
    if getattr(spec, "kind", None) == "state":
        from .state import StateBackend

        return StateBackend(spec, knows, {t.name: t.parameters for t in tools or []}, today)
    if getattr(spec, "kind", None) == "service":
        from .service import ServiceBackend

        return ServiceBackend(spec, knows, {t.name: t.parameters for t in tools or []}, today)
    if getattr(spec, "kind", None) == "http":
        from .http_service import HttpServiceBackend

        return HttpServiceBackend(spec, knows, {t.name: t.parameters for t in tools or []})
    raise NotImplementedError(f"backend kind '{getattr(spec, 'kind', spec)}' is not available")
