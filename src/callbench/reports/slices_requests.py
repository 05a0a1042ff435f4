"""Completion by the number of requests in a call, and the transfer rate by persona.

A call built from N requests (a `requests-N` tag, as the utility-billing exam carries) is harder
than one built from fewer: each request is a chance to fail, and the reference benchmark reports
completion by N for that reason. Completion here is the report's own (`deterministic_passed`:
every deterministic check met) over the completed calls, with a Wilson 95% interval per N.

A transfer is a call that a call-ending tool of the agent whose name starts with "transfer"
(transfer_to_human) ended successfully: the call was handed to a person. A spoken promise to
transfer is not one, nor a transfer tool whose result did not meet its success condition (the call
went on). Scorecards record it (`Scorecard.transferred`); those written before the field carry
None and are left out of the count, never read as "did not transfer". The rate is split by the
persona the casting assigned, since an angry caller who asks for a supervisor is where an agent is
tempted to hand the call over.

Both are descriptive: the slices hold different scenarios, so a gap between them is not caused by
N or the persona alone (see stats/slices.py).
"""

from __future__ import annotations

import re
from collections import defaultdict

from ..grading import Scorecard
from ..grading.scorecard import is_transfer_tool
from ..spec import Suite
from ..stats.slices import UNKNOWN
from .model import CandidateRow, Completion, TransferRate, Transfers
from .summary import _completion

REQUESTS_TAG = re.compile(r"^requests-([0-9]+)$")


def requests_of(tags: list[str] | tuple[str, ...]) -> int | None:
    """N of a scenario's `requests-N` tag; None without one (or with two that disagree)."""
    found = {int(m.group(1)) for t in tags if (m := REQUESTS_TAG.match(t))}
    return found.pop() if len(found) == 1 else None


def completion_by_requests(cards: list[Scorecard], suite: Suite) -> dict[str, Completion] | None:
    """{N: completion} over one candidate's completed calls, N ascending; None when no scenario of
    the suite carries a requests-N tag. Calls of untagged scenarios are not counted."""
    n_of = {sid: requests_of(list(sc.tags)) for sid, sc in suite.scenarios.items()}
    if all(n is None for n in n_of.values()):
        return None
    counts: dict[int, list[bool]] = defaultdict(list)
    for c in cards:
        n = n_of.get(c.scenario_id)
        if c.outcome == "completed" and n is not None:
            counts[n].append(c.deterministic_passed)
    return {str(n): _completion(sum(v), len(v)) for n, v in sorted(counts.items())}


def transfer_tools(suite: Suite) -> list[str]:
    """The call-ending tools named transfer* that any agent of the suite offers."""
    return sorted(
        {
            t.name
            for loaded in suite.agents.values()
            for t in loaded.definition.end_tools
            if is_transfer_tool(t.name)
        }
    )


def persona_of(card: Scorecard, suite: Suite) -> str:
    """The persona the casting gave the call, else the scenario's own caller mood."""
    persona = card.conditions.get("persona")
    if not persona:
        sc = suite.scenarios.get(card.scenario_id)
        persona = sc.caller.persona.mood if sc else None
    return str(persona) if persona else UNKNOWN


def _rate(flags: list[bool]) -> TransferRate:
    figure = _completion(sum(flags), len(flags))
    return TransferRate(
        transferred=figure.passed, of=figure.of, rate=figure.rate, wilson=figure.wilson
    )


def transfers(cards: list[Scorecard], suite: Suite) -> Transfers | None:
    """One candidate's transfer rate over its completed calls whose scorecard records transfers,
    overall and by persona (sorted); None when the suite has no transfer tool or no such call."""
    tools = transfer_tools(suite)
    known = [c for c in cards if c.outcome == "completed" and c.transferred is not None]
    if not tools or not known:
        return None
    by_persona: dict[str, list[bool]] = defaultdict(list)
    for c in known:
        by_persona[persona_of(c, suite)].append(bool(c.transferred))
    return Transfers(
        tools=tools,
        all=_rate([bool(c.transferred) for c in known]),
        by_persona={p: _rate(v) for p, v in sorted(by_persona.items())},
    )


def add_request_slices(
    candidates: dict[str, CandidateRow], by_candidate: dict[str, list[Scorecard]], suite: Suite
) -> None:
    """Fill each candidate row's completion by requests and its transfers."""
    for name, row in candidates.items():
        group = by_candidate[name]
        row.completion_by_requests = completion_by_requests(group, suite)
        row.transfers = transfers(group, suite)


def request_lines(rows: dict[str, CandidateRow]) -> list[str]:
    """The terminal summary's lines: one per candidate for each figure it has."""
    lines = []
    for name, row in rows.items():
        if row.completion_by_requests:
            cells = [
                f"{n}: {c.passed}/{c.of} [{c.wilson[0]:.0%}, {c.wilson[1]:.0%}]"
                for n, c in row.completion_by_requests.items()
            ]
            lines.append(f"{name} completion by requests — " + " · ".join(cells))
        if row.transfers:
            t = row.transfers
            cells = [f"{p} {r.transferred}/{r.of}" for p, r in t.by_persona.items()]
            lines.append(
                f"{name} transfers {t.all.transferred}/{t.all.of} — by persona " + " · ".join(cells)
            )
    return lines
