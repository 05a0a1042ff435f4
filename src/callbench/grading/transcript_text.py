"""The trace as numbered plain text for LLM graders: every entry keeps its trace index, so evidence
cited by a judge can be checked against the trace."""

from __future__ import annotations

import json

from ..call.trace import Trace


def numbered_transcript(trace: Trace, show_intended: bool = True) -> str:
    """Agent speech, caller fragments (with what the caller meant when the channel changed it), tool
    calls
    and results. Nothing from the scenario's answer key is in a trace, so nothing of it can leak
    here."""
    intended = {t.message_indices[0]: t for t in trace.caller_turns if t.message_indices}
    events = {e.index: e for e in trace.tool_events}
    lines = []
    for m in trace.messages:
        if m.role == "caller":
            turn = intended.get(m.index)
            if show_intended and turn is not None and turn.observed != [turn.intended]:
                lines.append(
                    f"     (the caller meant: {turn.intended!r}; the agent heard the fragments "
                    "below)"
                )
            lines.append(f"#{m.index} CALLER: {m.text}")
        elif m.role == "candidate":
            if m.text:
                lines.append(f"#{m.index} AGENT: {m.text}")
            for c in m.tool_calls:
                lines.append(f"#{m.index} AGENT calls {c.name}({c.raw_arguments})")
            if m.error and not m.text and not m.tool_calls:
                lines.append(f"#{m.index} AGENT (said nothing usable: {m.error})")
        else:
            e = events.get(m.index)
            result = json.dumps(e.result if e else m.text, ensure_ascii=False)
            lines.append(f"#{m.index} TOOL RESULT {m.tool_name}: {result}")
    if trace.end:
        lines.append(f"(call ended: {trace.end.reason})")
    return "\n".join(lines)
