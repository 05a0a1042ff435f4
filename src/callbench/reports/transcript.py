"""A trace as a readable transcript: who said what, what the channel changed, which tools ran and
how."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from ..call import Trace
from ..call.trace import CallerTurnRecord, Message, ToolEvent


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _step_labels(trace: Trace) -> dict[int, str]:
    """The first of a turn's own fragments carries its plan steps; background speech is marked as
    such."""
    labelled = {}
    for t in trace.caller_turns:
        noise = {e.after for e in t.channel_events if e.kind == "intrusion" and e.applied}
        own = [i for i, text in zip(t.message_indices, t.observed) if text not in noise]
        labelled.update(
            {i: " (background)" for i, text in zip(t.message_indices, t.observed) if text in noise}
        )
        if own:
            labelled[own[0]] = (
                f" [step {', '.join(t.expressed_steps)}]" if t.expressed_steps else ""
            )
    return labelled


def _caller(out: Text, turn: CallerTurnRecord | None) -> None:
    if turn is None:
        return
    applied = [e for e in turn.channel_events if e.applied]
    if applied or len(turn.observed) > 1:
        out.append(f"     caller meant: {turn.intended}\n", style="dim")
    for e in turn.channel_events:
        out.append(
            f"     ~ channel {e.kind} ({e.origin}, {e.anchor}): "
            f"{e.detail}{'' if e.applied else ' [not applied]'}\n",
            style="bold red" if e.applied else "dim",
        )


def _candidate(out: Text, m: Message, prefix: str) -> None:
    if m.text:
        out.append(prefix + "AGENT: ", style="green bold")
        out.append(m.text + "\n")
    if m.error:
        out.append(
            ("     " if m.text else prefix) + f"✗ agent error: {m.error}\n",
            style="bold red",
        )
        if m.raw:
            out.append(f"       raw: {_short(m.raw)}\n", style="red")
    for c in m.tool_calls:
        out.append(
            ("     " if m.text else prefix) + f"→ {c.name}({_short(c.raw_arguments)})\n",
            style="yellow",
        )


def _tool(out: Text, e: ToolEvent, prefix: str) -> None:
    flags = [e.response_source]
    if e.parse_error:
        flags.append("PARSE ERROR")
    if e.ends_call_tool:
        flags.append("ENDED CALL" if e.ended_call else "end tool FAILED")
    failed = [r for r in e.matcher_results if not r.ok]
    bad = failed or e.parse_error or e.response_source in ("mismatch", "unknown_tool", "limit")
    out.append(
        prefix + f"← {e.name} [{', '.join(flags)}]: {_short(e.result)}\n",
        style="red" if bad else "magenta",
    )
    for r in failed:
        out.append(
            f"       ✗ {r.path} {r.matcher}: {r.reason} (expected "
            f"{_short(r.expected, 60)}, got {_short(r.actual, 60)})\n",
            style="red",
        )


def render_transcript(trace: Trace) -> Text:
    out = Text()
    out.append(f"{trace.id}  ", style="bold")
    out.append(
        f"suite {trace.suite.id}@{trace.suite.version}  agent {trace.agent_id}  caller "
        f"{trace.caller}  seed {trace.seed}\n",
        style="dim",
    )
    turns = {t.message_indices[0]: t for t in trace.caller_turns if t.message_indices}
    labelled = _step_labels(trace)
    events = {e.index: e for e in trace.tool_events}
    for m in trace.messages:
        prefix = f"#{m.index:<3} "
        if m.role == "caller":
            _caller(out, turns.get(m.index))
            out.append(prefix + f"CALLER{labelled.get(m.index, ' (cont.)')}: ", style="cyan bold")
            out.append((m.text or "") + "\n")
        elif m.role == "candidate":
            _candidate(out, m, prefix)
        elif (event := events.get(m.index)) is not None:
            _tool(out, event, prefix)
    for e in trace.unapplied_channel_events:
        out.append(f"     ~ channel {e.kind} ({e.anchor}): {e.detail} [not applied]\n", style="dim")
    if trace.end:
        out.append(f"END: {trace.end.reason} — {trace.end.detail}\n", style="bold")
    if trace.failure:
        out.append(
            f"FAILURE ({trace.failure.failure_class}): {trace.failure.kind}: "
            f"{trace.failure.detail}\n",
            style="bold red",
        )
    return out
