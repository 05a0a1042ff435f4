"""The HTML report's section on completion by number of requests and transfers by persona
(reports/slices_requests.py computes both), every value escaped.

A report from before schema 4 lacks both fields and says "not available"; a suite with no
requests-N tags or no transfer tool has them as None and says why nothing is shown."""

from __future__ import annotations

from .html_format import DASH, esc, heat, pct
from .model import CandidateRow, Completion, Report, TransferRate

Cell = Completion | TransferRate


def _cell(figure: Cell | None, completion: bool) -> str:
    if figure is None:
        return f'<td class="num">{DASH}</td>'
    hits = figure.passed if isinstance(figure, Completion) else figure.transferred
    lo, hi = figure.wilson
    shade = heat(figure.rate * 100) if completion and figure.rate is not None else ""
    return (
        f'<td class="num"{shade}><b>{esc(hits)}/{esc(figure.of)}</b> · {pct(figure.rate)} '
        f'<span class="ci">[{lo * 100:.0f}, {hi * 100:.0f}]</span></td>'
    )


def _grid(
    title: str, rows: list[tuple[str, CandidateRow]], values: list[str], completion: bool
) -> str:
    head = "".join(f"<th>{esc(name)}</th>" for name, _ in rows)
    body = []
    for value in values:
        cells = []
        for _, row in rows:
            if completion:
                cells.append(_cell((row.completion_by_requests or {}).get(value), True))
            else:
                t = row.transfers
                figure = (
                    None if t is None else (t.all if value == "all" else t.by_persona.get(value))
                )
                cells.append(_cell(figure, False))
        body.append(f"<tr><th>{esc(value)}</th>{''.join(cells)}</tr>")
    return (
        f'<table class="grid slice"><thead><tr><th>{esc(title)}</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def requests_and_transfers(report: Report) -> str:
    rows = report.ranked()
    if not any(r.has("completion_by_requests") or r.has("transfers") for _, r in rows):
        return (
            '<p class="note">Completion by number of requests and transfers by persona not '
            "available in this report.</p>"
        )
    parts = []
    by_n = [(n, r) for n, r in rows if r.completion_by_requests]
    if by_n:
        ns = sorted({k for _, r in by_n for k in r.completion_by_requests or {}}, key=int)
        parts.append(
            f"<div><h3>completion by requests</h3>{_grid('requests', by_n, ns, True)}</div>"
        )
    else:
        parts.append('<p class="note">No scenario of this suite carries a requests-N tag.</p>')
    moved = [(n, r) for n, r in rows if r.transfers]
    if moved:
        personas = sorted(
            {p for _, r in moved for p in (r.transfers.by_persona if r.transfers else {})}
        )
        tools = sorted({t for _, r in moved for t in (r.transfers.tools if r.transfers else [])})
        parts.append(
            "<div><h3>transfers by persona</h3>"
            f"{_grid('persona', moved, personas + ['all'], False)}</div>"
        )
        note = (
            "Transfers: completed calls that a call-ending transfer tool ("
            + esc(", ".join(tools))
            + ") ended, of the completed calls; a spoken promise to transfer is not one."
        )
    else:
        note = (
            "No transfers measured: the suite has no call-ending transfer tool, or its scorecards "
            "predate the transfer record (rescore the run)."
        )
    return (
        f'<div class="row">{"".join(parts)}</div>'
        '<p class="note">Completion: calls that met every deterministic check, of the completed '
        "calls built from N requests, with the Wilson 95% interval in brackets. "
        f"{note} Slices hold different scenarios: descriptive, not causal.</p>"
    )
