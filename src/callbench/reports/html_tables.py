"""The HTML report's tables, built from the typed report with every value escaped.

A field an older report lacks shows as "not available"; a field present but empty (nothing to
measure) as a dash. Anything else that goes wrong here is a bug in callbench and raises."""

from __future__ import annotations

from .html_format import DASH, METRICS, NA, absent, count, esc, fmt, heat, pct, qesc, secs
from .model import CandidateRow, Completion, Pillar, Report


def _score_cell(row: CandidateRow, metric: Pillar) -> str:
    estimate, iv = row.estimate(metric), row.interval(metric)
    if estimate is None:
        return '<td class="num"><span class="na">not measured</span></td>'
    star = "" if row.pillars_complete is not False or metric == "overall" else "*"
    text = f"<b>{estimate:.1f}</b>{star}"
    if iv is not None and iv.low is not None and iv.high is not None:
        text += f' <span class="ci">[{iv.low:.1f}, {iv.high:.1f}]</span>'
    elif row.intervals is None:
        text += ' <span class="ci na">no interval</span>'
    return f'<td class="num">{text}</td>'


def _completion_cell(comp: Completion | None, with_interval: bool = True) -> str:
    if comp is None:
        return NA
    text = f"{esc(comp.passed)}/{esc(comp.of)} · {pct(comp.rate)}"
    if with_interval:
        lo, hi = comp.wilson
        text += f' <span class="ci">[{lo * 100:.0f}, {hi * 100:.0f}]</span>'
    return text


def _leaderboard_row(rank: int, name: str, r: CandidateRow) -> str:
    flake = (
        pct(r.flake_rate, 1)
        if r.flake_rate is not None
        else absent(r, "flake_rate", "needs 2+ repeats")
    )
    cause = f' title="{esc(r.unmeasured_cause)}"' if r.unmeasured_cause else ""
    cover = pct(r.coverage) + ("" if r.measured else f' <span class="bad"{cause}>unmeasured</span>')
    return (
        f'<tr><td>{rank}</td><th class="cand"><a '
        f'href="#calls={qesc(name)}">{esc(name)}</a></th>'
        + "".join(_score_cell(r, m) for m in METRICS)
        + f'<td class="num">{_completion_cell(r.completion)}</td>'
        f'<td class="num">{_completion_cell(r.completion_at_cutoff, with_interval=False)}</td>'
        f'<td class="num">{esc(r.scenarios_passed)}/{esc(r.scenarios)}</td>'
        f'<td class="num">{esc(r.calls_passed)}/{esc(r.attempted)}</td>'
        f'<td class="num">{cover}</td><td class="num">{flake}</td></tr>'
    )


def leaderboard(report: Report) -> str:
    rows = report.ranked()
    if not rows:
        return '<p class="note">No candidates in this report.</p>'
    level = next(
        (iv.level for _, r in rows for m in METRICS if (iv := r.interval(m)) is not None), None
    )
    ci = f"{level * 100:.0f}% interval" if level else "interval"
    head = (
        "<tr><th>#</th><th>candidate</th><th>overall</th><th>task</th><th>conversation</th>"
        "<th>completion</th><th>task ≥ cutoff</th><th>scenarios ok</th><th>calls "
        "ok</th><th>coverage</th>"
        "<th>flake rate</th></tr>"
    )
    body = "".join(_leaderboard_row(rank, name, r) for rank, (name, r) in enumerate(rows, 1))
    return (
        f'<table class="grid lead"><thead>{head}</thead><tbody>{body}</tbody></table>'
        f'<p class="note">Scores 0-100 with [{esc(ci)}] in brackets. * = deterministic items only '
        "(judged items "
        "not measured). Overall exists only when both pillars were measured in full. Completion: "
        "calls that met "
        "every deterministic check, with its Wilson interval; task ≥ cutoff: calls at the "
        "provisional cutoff with no "
        "guard broken. Excluded calls count against coverage, never as zero. "
        + esc(_scoring_note(report))
        + "</p>"
    )


def _scoring_note(report: Report) -> str:
    rule = report.scoring.rule if report.scoring else "reference formula (every item on both sides)"
    note = f"Scoring: {rule}."
    game = report.gameability
    if game is not None:
        note += (
            f" Gameability {game.figure:+.1f}: the best script with no model ({game.by}) "
            "against doing nothing (noop), on the task pillar."
        )
    return note


def comparisons(report: Report) -> str:
    if not report.comparisons:
        return '<p class="note">Paired comparisons not available in this report.</p>'
    body = []
    for c in report.comparisons:
        sig = c.low is not None and c.high is not None and (c.low > 0 or c.high < 0)
        body.append(
            f"<tr><th>{esc(c.a)}</th><th>{esc(c.b)}</th><td "
            f'class="num">{esc(c.n)}</td>'
            f'<td class="num{" sig" if sig else ""}">{fmt(c.mean_diff, 1)} '
            f'<span class="ci">[{fmt(c.low, 1)}, {fmt(c.high, 1)}]</span></td>'
            f'<td class="num">{esc(c.wins)} / {esc(c.losses)} / {esc(c.ties)}</td></tr>'
        )
    return (
        '<table class="grid"><thead><tr><th>a</th><th>b</th><th>paired scenarios</th><th>mean a − '
        "b</th>"
        f"<th>wins / losses / ties</th></tr></thead><tbody>{''.join(body)}</tbody></table>"
        '<p class="note">Bold: the interval excludes zero.</p>'
    )


def _slice_table(report: Report, dim: str) -> tuple[int, str]:
    """One slice kind as a table of values × candidates; and how many values it has."""
    per_cand = (report.slices or {})[dim]
    cands = [n for n, _ in report.ranked() if n in per_cand] + [
        n for n in per_cand if n not in report.candidates
    ]
    values = sorted({v for c in cands for v in per_cand[c]})
    body = []
    for value in values:
        cells = []
        for c in cands:
            cell = per_cand[c].get(value)
            if cell is None:
                cells.append(f'<td class="num">{DASH}</td>')
                continue
            mean = "n/m" if cell.mean is None else f"{cell.mean:.1f}"
            rate = "?" if cell.pass_rate is None else f"{cell.pass_rate:.0%}"
            tip = (
                f"{c} · {dim} = {value}: mean {mean}, pass rate {rate}, {cell.calls} calls "
                f"over {cell.scenarios} scenarios"
            )
            cells.append(
                f'<td class="num"{heat(cell.mean)} '
                f'title="{esc(tip)}"><b>{fmt(cell.mean, 1, na="n/m")}</b> '
                f'<span class="ci">{pct(cell.pass_rate)} · {esc(cell.calls)}</span></td>'
            )
        body.append(f"<tr><th>{esc(value)}</th>{''.join(cells)}</tr>")
    head = "".join(f"<th>{esc(c)}</th>" for c in cands)
    return len(values), (
        f'<table class="grid slice"><thead><tr><th>{esc(dim)}</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def slices(report: Report) -> str:
    if not report.slices:
        return (
            '<p class="note">Scores by slice (language, difficulty, tags) not available in '
            "this report.</p>"
        )
    small, large = [], []
    for dim in report.slices:
        n, table = _slice_table(report, dim)
        if n == 0:
            small.append(f'<div><h3>by {esc(dim)}</h3><p class="note">No values.</p></div>')
        elif n > 12:
            large.append(f"<details><summary>by {esc(dim)} ({n} values)</summary>{table}</details>")
        else:
            small.append(f"<div><h3>by {esc(dim)}</h3>{table}</div>")
    return (
        f'<div class="row">{"".join(small)}</div>{"".join(large)}'
        '<p class="note">Cell: mean task score over the calls in the slice, then their pass rate '
        "and how many calls "
        "(hover for details).</p>"
    )


def per_scenario(report: Report) -> str:
    cands = report.ranked()
    scenarios = sorted({s for _, r in cands for s in r.per_scenario})
    if not scenarios:
        return '<p class="note">No per-scenario scores in this report.</p>'
    head = "".join(f"<th>{esc(n)}</th>" for n, _ in cands)
    body = []
    for s in scenarios:
        cells = []
        for name, r in cands:
            row = r.per_scenario.get(s)
            if row is None:
                cells.append(f'<td class="num">{DASH}</td>')
                continue
            ok = row.passed_repeats == row.repeats
            cells.append(
                f'<td class="num"{heat(row.task)}><a '
                f'href="#calls={qesc(name)}/{qesc(s)}">{fmt(row.task, 1, na="n/m")}</a>'
                '<span class="sub '
                f'{"good" if ok else "bad"}">{esc(row.passed_repeats)}/'
                f"{esc(row.repeats)} ok · {esc(', '.join(row.end_reasons))}</span></td>"
            )
        agent = next(r.per_scenario[s].agent for _, r in cands if s in r.per_scenario)
        body.append(
            f'<tr><th>{esc(s)}<span class="sub">{esc(agent)}</span></th>{"".join(cells)}</tr>'
        )
    return (
        f'<table class="grid"><thead><tr><th>scenario</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
        '<p class="note">Cell: task pillar averaged over repeats; repeats passing every '
        "deterministic check; end reasons. "
        "Click a score to list its calls in the trace viewer.</p>"
    )


def _exclusion_rows(name: str, r: CandidateRow) -> list[str]:
    if r.exclusions:
        rows = [(kind, e.count, esc(e.passes)) for kind, e in r.exclusions.items()]
    else:  # a report from before exclusion classes: failure types, passes unknown
        rows = [(kind, n, '<span class="na">n/a</span>') for kind, n in r.excluded.items()]
    summary = (
        f"{esc(r.completed)}/{esc(r.attempted)} completed · coverage {pct(r.coverage)}"
        f" · judge failures {count(r.judge_failures)} · infra reruns {count(r.reruns)}"
        f" · model errors (scored) {count(r.model_errors)}"
    )
    if not rows:
        return [
            f'<tr><th>{esc(name)}</th><td><span class="good">none</span></td><td '
            'class="num">0</td>'
            f'<td class="num">—</td><td class="sub">{summary}</td></tr>'
        ]
    return [
        f'<tr><th>{esc(name) if i == 0 else ""}</th><td class="bad">{esc(kind)}</td><td '
        f'class="num">{esc(n)}</td>'
        f'<td class="num">{passes}</td><td '
        f'class="sub">{summary if i == 0 else ""}</td></tr>'
        for i, (kind, n, passes) in enumerate(rows)
    ]


def exclusions(report: Report) -> str:
    body = [line for name, r in report.ranked() for line in _exclusion_rows(name, r)]
    if not body:
        return '<p class="note">No candidates.</p>'
    return (
        '<table class="grid"><thead><tr><th>candidate</th><th>excluded '
        "as</th><th>calls</th><th>passes</th><th>totals</th>"
        f"</tr></thead><tbody>{''.join(body)}</tbody></table>"
        '<p class="note">Excluded calls (infrastructure failures that persisted after reruns, '
        "judge failures) are "
        "counted against coverage and never scored.</p>"
    )


OPERATIONAL_COLUMNS = (
    ("tokens_per_resolved_call", "tokens / resolved call", 0),
    ("cost_per_call", "cost / call", 4),
    ("cost_per_resolved_call", "cost / resolved call", 4),
    ("latency_p50_s", "latency p50", 2),
    ("latency_p90_s", "p90", 2),
    ("latency_p99_s", "p99", 2),
    ("tool_calls_per_call", "tool calls / call", 1),
)


def _operational_row(name: str, r: CandidateRow) -> str:
    op = r.operational
    tokens = sum(u.prompt_tokens + u.completion_tokens for u in (r.usage or {}).values())
    cells = []
    for key, _, digits in OPERATIONAL_COLUMNS:
        na = absent(op, key, "nothing to measure (no price, no resolved call)")
        value: float | None = getattr(op, key) if op is not None else None
        text = secs(value, na) if key.startswith("latency") else fmt(value, digits, na=na)
        dollar = "$" if key.startswith("cost") and value is not None else ""
        cells.append(f'<td class="num">{dollar}{text}</td>')
    return f'<tr><th>{esc(name)}</th>{"".join(cells)}<td class="num">{tokens:,.0f}</td></tr>'


def operational(report: Report) -> str:
    body = "".join(_operational_row(name, r) for name, r in report.ranked())
    head = "".join(f"<th>{esc(label)}</th>" for _, label, _ in OPERATIONAL_COLUMNS)
    return (
        f'<table class="grid"><thead><tr><th>candidate</th>{head}<th>tokens (all '
        "roles)</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def diagnostics_table(report: Report) -> str:
    cands = report.ranked()
    names = list(dict.fromkeys(k for _, r in cands for k in (r.diagnostics or {})))
    if not names:
        return '<p class="note">Diagnostics not available.</p>'
    head = "".join(f"<th>{esc(n.replace('_', ' '))}</th>" for n in names)
    body = "".join(
        f"<tr><th>{esc(name)}</th>"
        + "".join(
            f'<td class="num"{heat(v)}>{fmt(v, 0, na="n/m")}</td>'
            for n in names
            for v in [(r.diagnostics or {}).get(n)]
        )
        + "</tr>"
        for name, r in cands
    )
    return (
        '<table class="grid '
        f'diag"><thead><tr><th>candidate</th>{head}</tr></thead><tbody>{body}</tbody></table>'
    )
