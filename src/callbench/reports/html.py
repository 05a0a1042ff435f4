"""The self-contained HTML report: one file, no network, every piece of run text escaped.

Tables and plots (inline SVG) are built here from report.json, with html.escape on
every value. The trace viewer is a small vanilla script (html_assets/report.js) that
reads the traces and scorecards from a data block and builds the page with
createElement/textContent only. A CSP meta tag forbids every fetch and lets only the
report's own script (by its hash) run.

The data block is the viewer's JSON gzipped and base64-encoded (raw, it ran to ~17 KB per
call; the 48-call starter run's 742 KB of JSON becomes an 82 KB block) in a
`<script type="application/octet-stream">` element: a type the browser never executes,
whose text the script reads and inflates with the browser's own
DecompressionStream("gzip"), so the viewer starts asynchronously. Base64 uses only
[A-Za-z0-9+/=], so no text in a trace can close the block or open a tag, and trace text
reaches the page only through JSON.parse and textContent. The gzip member is written with
a fixed header (mtime 0, no file name, OS "unknown"), so the same run gives the same bytes
on every machine with the same zlib. If the browser cannot inflate the block, the viewer
says so in its own area; the tables and plots above it are server-rendered and do not
need it.

Everything after `report["candidates"][name]["task"]` and friends is optional:
intervals, completion, exclusions, operational figures, slices and comparisons are
shown when present and replaced by a "not available" note when not.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import html
import json
import math
import re
import struct
import zlib
from pathlib import Path
from string import Template
from typing import Any
from urllib.parse import quote

from ..call import read_trace
from ..errors import TraceError

ASSETS = Path(__file__).with_name("html_assets")
METRICS = ("overall", "task", "conversation")
METRIC_COLORS = {"overall": "#1f2933", "task": "#2563eb", "conversation": "#c2410c"}
PALETTE = ("#2563eb", "#c2410c", "#059669", "#7c3aed", "#db2777", "#ca8a04", "#0891b2", "#4b5563")
NA = '<span class="na">not available</span>'


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def qesc(value: Any) -> str:
    """A URL fragment part: percent-encoded, then escaped for an attribute."""
    return esc(quote(str(value), safe=""))


def _num(value: Any) -> float | None:
    return (
        float(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        else None
    )


def fmt(value: Any, digits: int = 1, na: str = NA) -> str:
    v = _num(value)
    return na if v is None else esc(f"{v:.{digits}f}")


def secs(value: Any, na: str = NA) -> str:
    v = _num(value)
    if v is None:
        return na
    return esc(
        f"{v:.2f} s" if v >= 1 else (f"{v * 1000:.0f} ms" if v >= 0.01 else f"{v * 1000:.3g} ms")
    )


def pct(value: Any, digits: int = 0) -> str:
    v = _num(value)
    return NA if v is None else esc(f"{100 * v:.{digits}f}%")


def _absent(row: dict, key: str, why: str = "") -> str:
    """'not available' when the report lacks the field; a dash when it has it but there was nothing
    to measure."""
    return f'<span class="na" title="{esc(why)}">—</span>' if key in row else NA


def _d(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _l(value: Any) -> list:
    return value if isinstance(value, list) else []


GZIP_HEADER = bytes(
    [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 255]
)  # deflate, no flags, mtime 0, best compression, OS unknown


def data_block(data: Any) -> str:
    """Compact JSON, gzipped (deterministic header), base64: nothing in it can end its <script>
    block.
    A lone surrogate (unencodable in UTF-8) is written as its JSON escape, so such text cannot
    break the page."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "backslashreplace"
    )
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    trailer = struct.pack("<II", zlib.crc32(raw), len(raw) & 0xFFFFFFFF)
    return base64.b64encode(GZIP_HEADER + deflate.compress(raw) + deflate.flush() + trailer).decode(
        "ascii"
    )


def viewer_data(report: dict, calls: list[dict]) -> dict:
    """What the trace viewer reads: every call (trace, scorecard, caller diffs) and the candidates
    in ranked order."""
    return {"calls": calls, "candidates": [n for n, _ in ranked(report)]}


# ---------------------------------------------------------------- data loading


def _scorecards_dir(run_dir: Path, report: dict) -> Path:
    tops = {
        key.split("/", 1)[0] for key in _d(report.get("manifest")) if key.startswith("scorecards")
    }
    return run_dir / (tops.pop() if len(tops) == 1 else "scorecards")


def _near_word(text: str, at: int) -> int:
    """A character of the word touching position `at` (ending there, else starting there), else the
    nearest one."""
    order = [at - 1, at] + list(range(at - 2, -1, -1)) + list(range(at + 1, len(text)))
    return next((i for i in order if 0 <= i < len(text) and not text[i].isspace()), 0)


def _words_marked(text: str, changed: list[bool]) -> list[list]:
    """Segments [text, changed], each change widened to whole words (a misheard word reads better
    whole)."""
    flags = [flag and not ch.isspace() for ch, flag in zip(text, changed)]
    for m in re.finditer(r"\S+", text):
        if any(flags[m.start() : m.end()]):
            flags[m.start() : m.end()] = [True] * (m.end() - m.start())
    out: list[list] = []
    for ch, flag in zip(text, flags):
        if out and out[-1][1] == flag:
            out[-1][0] += ch
        else:
            out.append([ch, flag])
    return out


def caller_diff(intended: str, observed: list[str]) -> dict | None:
    """What the caller meant against what arrived: intended segments (lost words marked) and, per
    fragment,
    observed segments (damaged words marked). Whitespace-only differences (fragment cuts) are not
    damage."""
    joined = " ".join(observed)
    if " ".join(intended.split()) == " ".join(joined.split()) and len(observed) <= 1:
        return None
    lost, got = [False] * len(intended), [False] * len(joined)
    for op, a0, a1, b0, b1 in difflib.SequenceMatcher(
        None, intended, joined, autojunk=False
    ).get_opcodes():
        if op == "equal" or not (intended[a0:a1] + joined[b0:b1]).strip():
            continue
        lost[a0:a1] = [True] * (a1 - a0)
        got[b0:b1] = [True] * (b1 - b0)
        # a pure insertion or deletion: mark the word where it happened on the side that has no
        # characters
        if a0 == a1 and intended:
            lost[_near_word(intended, a0)] = True
        if b0 == b1 and joined:
            got[_near_word(joined, b0)] = True
    fragments, start = [], 0
    for frag in observed:
        fragments.append(_words_marked(frag, got[start : start + len(frag)]))
        start += len(frag) + 1
    return {"intended": _words_marked(intended, lost), "fragments": fragments}


def load_calls(run_dir: Path, report: dict) -> tuple[list[dict], list[str]]:
    """Every trace of the run with its scorecard (None if missing) and caller diffs; plus unreadable
    files."""
    cards_dir = _scorecards_dir(run_dir, report)
    order = {name: i for i, name in enumerate(_d(report.get("candidates")))}
    calls, problems = [], []
    for path in sorted((run_dir / "traces").rglob("*.json")):
        rel = path.relative_to(run_dir / "traces")
        try:
            trace = read_trace(path).model_dump(mode="json")
        except TraceError as exc:
            problems.append(str(exc))
            continue
        timings = _d(trace.pop("timings", None))
        trace["wall_seconds"] = timings.get("wall_seconds")
        card = None
        card_path = cards_dir / rel
        if card_path.exists():
            try:
                card = json.loads(card_path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                problems.append(f"{card_path}: unreadable scorecard ({exc.__class__.__name__})")
        diffs = {}
        for turn in trace.get("caller_turns", []):
            d = caller_diff(turn.get("intended", ""), turn.get("observed", []))
            if d is not None:
                diffs[str(turn["turn"])] = d
        calls.append(
            {
                "key": trace["id"],
                "candidate": trace["candidate"],
                "scenario": trace["scenario_id"],
                "repeat": trace["repeat"],
                "trace": trace,
                "card": card,
                "diffs": diffs,
            }
        )
    calls.sort(
        key=lambda c: (
            order.get(c["candidate"], len(order)),
            c["candidate"],
            c["scenario"],
            c["repeat"],
        )
    )
    return calls, problems


# ---------------------------------------------------------------- tables


def _interval(row: dict, metric: str) -> dict:
    iv = _d(_d(row.get("intervals")).get(metric))
    est = _num(iv.get("estimate"))
    return {
        "estimate": est if est is not None else _num(row.get(metric)),
        "low": _num(iv.get("low")),
        "high": _num(iv.get("high")),
        "level": _num(iv.get("level")),
        "samples": iv.get("samples"),
    }


def _score_cell(row: dict, metric: str) -> str:
    iv = _interval(row, metric)
    if iv["estimate"] is None:
        return '<td class="num"><span class="na">not measured</span></td>'
    star = "" if row.get("pillars_complete", True) or metric == "overall" else "*"
    text = f"<b>{iv['estimate']:.1f}</b>{star}"
    if iv["low"] is not None and iv["high"] is not None:
        text += f' <span class="ci">[{iv["low"]:.1f}, {iv["high"]:.1f}]</span>'
    elif "intervals" not in row:
        text += ' <span class="ci na">no interval</span>'
    return f'<td class="num">{text}</td>'


def _rank_key(item: tuple[str, dict]) -> tuple:
    row = item[1]
    overall, task = _interval(row, "overall")["estimate"], _interval(row, "task")["estimate"]
    return (overall is None, -(overall or 0), task is None, -(task or 0))


def ranked(report: dict) -> list[tuple[str, dict]]:
    """Candidates in the report's own ranking when it has one, else by overall then task score."""
    cands = _d(report.get("candidates"))
    order = list(
        dict.fromkeys(n for n in _l(report.get("ranking")) if isinstance(n, str) and n in cands)
    )
    rest = sorted(((n, _d(r)) for n, r in cands.items() if n not in order), key=_rank_key)
    return [(n, _d(cands[n])) for n in order] + rest


def leaderboard(report: dict) -> str:
    rows = ranked(report)
    if not rows:
        return '<p class="note">No candidates in this report.</p>'
    level = next(
        (iv["level"] for _, r in rows for m in METRICS if (iv := _interval(r, m))["level"]), None
    )
    ci = f"{level * 100:.0f}% interval" if level else "interval"
    head = (
        "<tr><th>#</th><th>candidate</th><th>overall</th><th>task</th><th>conversation</th>"
        "<th>completion</th><th>task ≥ cutoff</th><th>scenarios ok</th><th>calls "
        "ok</th><th>coverage</th>"
        "<th>flake rate</th></tr>"
    )
    body = []
    for rank, (name, r) in enumerate(rows, 1):
        comp = _d(r.get("completion"))
        if comp:
            wil = (
                comp.get("wilson")
                if isinstance(comp.get("wilson"), list) and len(comp["wilson"]) == 2
                else None
            )
            completion = (
                f"{esc(comp.get('passed', '?'))}/{esc(comp.get('of', '?'))} · "
                f"{pct(comp.get('rate'))}"
            )
            if wil and all(_num(w) is not None for w in wil):
                completion += f' <span class="ci">[{wil[0] * 100:.0f}, {wil[1] * 100:.0f}]</span>'
        else:
            completion = NA
        cut = _d(r.get("completion_at_cutoff"))
        at_cutoff = (
            f"{esc(cut.get('passed', '?'))}/{esc(cut.get('of', '?'))} · {pct(cut.get('rate'))}"
            if cut
            else NA
        )
        flake = (
            pct(r["flake_rate"], 1)
            if _num(r.get("flake_rate")) is not None
            else _absent(r, "flake_rate", "needs 2+ repeats")
        )
        cause = f' title="{esc(r["unmeasured_cause"])}"' if r.get("unmeasured_cause") else ""
        cover = pct(r.get("coverage")) + (
            "" if r.get("measured", True) else f' <span class="bad"{cause}>unmeasured</span>'
        )
        body.append(
            f'<tr><td>{rank}</td><th class="cand"><a '
            f'href="#calls={qesc(name)}">{esc(name)}</a></th>'
            + "".join(_score_cell(r, m) for m in METRICS)
            + f'<td class="num">{completion}</td><td class="num">{at_cutoff}</td>'
            f'<td class="num">{esc(r.get("scenarios_passed", "?"))}/'
            f"{esc(r.get('scenarios', '?'))}</td>"
            f'<td class="num">{esc(r.get("calls_passed", "?"))}/{esc(r.get("attempted", "?"))}</td>'
            f'<td class="num">{cover}</td><td class="num">{flake}</td></tr>'
        )
    return (
        f'<table class="grid lead"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>'
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


def _scoring_note(report: dict) -> str:
    scoring = _d(report.get("scoring"))
    game = _d(report.get("gameability"))
    note = f"Scoring: {scoring.get('rule', 'reference formula (every item on both sides)')}."
    if _num(game.get("figure")) is not None:
        note += (
            f" Gameability {game['figure']:+.1f}: the best script with no model ({game.get('by')}) "
            "against doing "
            f"nothing (noop), on the task pillar."
        )
    return note


def comparisons(report: dict) -> str:
    rows = [c for c in _l(report.get("comparisons")) if isinstance(c, dict)]
    if not rows:
        return '<p class="note">Paired comparisons not available in this report.</p>'
    body = []
    for c in rows:
        lo, hi = _num(c.get("low")), _num(c.get("high"))
        sig = lo is not None and hi is not None and (lo > 0 or hi < 0)
        body.append(
            f"<tr><th>{esc(c.get('a', '?'))}</th><th>{esc(c.get('b', '?'))}</th><td "
            f'class="num">{esc(c.get("n", "?"))}</td>'
            f'<td class="num{" sig" if sig else ""}">{fmt(c.get("mean_diff"), 1)} '
            f'<span class="ci">[{fmt(lo, 1)}, {fmt(hi, 1)}]</span></td>'
            f'<td class="num">{esc(c.get("wins", "?"))} / {esc(c.get("losses", "?"))} / '
            f"{esc(c.get('ties', '?'))}</td></tr>"
        )
    return (
        '<table class="grid"><thead><tr><th>a</th><th>b</th><th>paired scenarios</th><th>mean a − '
        "b</th>"
        f"<th>wins / losses / ties</th></tr></thead><tbody>{''.join(body)}</tbody></table>"
        '<p class="note">Bold: the interval excludes zero.</p>'
    )


def _heat(value: float | None) -> str:
    if value is None:
        return ""
    hue = max(0.0, min(100.0, value)) * 1.2  # red (0) to green (120)
    return f' style="background:hsl({hue:.0f},70%,90%)"'


def slices(report: dict) -> str:
    data = _d(report.get("slices"))
    if not data:
        return (
            '<p class="note">Scores by slice (language, difficulty, tags) not available in '
            "this report.</p>"
        )
    small, large = [], []
    for dim, per_cand in data.items():
        per_cand = _d(per_cand)
        cands = [n for n, _ in ranked(report) if n in per_cand] + [
            n for n in per_cand if n not in _d(report.get("candidates"))
        ]
        values = sorted({str(v) for c in cands for v in _d(per_cand[c])})
        if not values:
            small.append(f'<div><h3>by {esc(dim)}</h3><p class="note">No values.</p></div>')
            continue
        body = []
        for value in values:
            cells = []
            for c in cands:
                cell = _d(_d(per_cand[c]).get(value))
                mean = _num(cell.get("mean"))
                rate = _num(cell.get("pass_rate"))
                tip = (
                    f"{c} · {dim} = {value}: mean {'n/m' if mean is None else f'{mean:.1f}'}, pass "
                    "rate "
                    f"{'?' if rate is None else f'{rate:.0%}'}, {cell.get('calls', '?')} calls "
                    f"over {cell.get('scenarios', '?')} scenarios"
                )
                cells.append(
                    f'<td class="num"{_heat(mean)} '
                    f'title="{esc(tip)}"><b>{fmt(mean, 1, na="n/m")}</b> '
                    f'<span class="ci">{pct(cell.get("pass_rate"))} · '
                    f"{esc(cell.get('calls', '?'))}</span></td>"
                    if cell
                    else '<td class="num"><span class="na">—</span></td>'
                )
            body.append(f"<tr><th>{esc(value)}</th>{''.join(cells)}</tr>")
        head = "".join(f"<th>{esc(c)}</th>" for c in cands)
        table = (
            f'<table class="grid slice"><thead><tr><th>{esc(dim)}</th>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>"
        )
        if len(values) > 12:
            large.append(
                f"<details><summary>by {esc(dim)} ({len(values)} values)</summary>{table}</details>"
            )
        else:
            small.append(f"<div><h3>by {esc(dim)}</h3>{table}</div>")
    return (
        f'<div class="row">{"".join(small)}</div>{"".join(large)}'
        '<p class="note">Cell: mean task score over the calls in the slice, then their pass rate '
        "and how many calls "
        "(hover for details).</p>"
    )


def per_scenario(report: dict) -> str:
    cands = ranked(report)
    scenarios = sorted({s for _, r in cands for s in _d(r.get("per_scenario"))})
    if not scenarios:
        return '<p class="note">No per-scenario scores in this report.</p>'
    head = "".join(f"<th>{esc(n)}</th>" for n, _ in cands)
    body = []
    for s in scenarios:
        cells = []
        for name, r in cands:
            row = _d(_d(r.get("per_scenario")).get(s))
            if not row:
                cells.append('<td class="num"><span class="na">—</span></td>')
                continue
            task = _num(row.get("task"))
            ok = row.get("passed_repeats") == row.get("repeats")
            cells.append(
                f'<td class="num"{_heat(task)}><a '
                f'href="#calls={qesc(name)}/{qesc(s)}">{fmt(task, 1, na="n/m")}</a>'
                '<span class="sub '
                f'{"good" if ok else "bad"}">{esc(row.get("passed_repeats", "?"))}/'
                f"{esc(row.get('repeats', '?'))} ok · "
                f"{esc(', '.join(map(str, _l(row.get('end_reasons')))))}</span></td>"
            )
        agent = next(
            (
                _d(_d(r.get("per_scenario")).get(s)).get("agent")
                for _, r in cands
                if _d(r.get("per_scenario")).get(s)
            ),
            "",
        )
        body.append(
            f'<tr><th>{esc(s)}<span class="sub">{esc(agent or "")}</span></th>{"".join(cells)}</tr>'
        )
    return (
        f'<table class="grid"><thead><tr><th>scenario</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
        '<p class="note">Cell: task pillar averaged over repeats; repeats passing every '
        "deterministic check; end reasons. "
        "Click a score to list its calls in the trace viewer.</p>"
    )


def exclusions(report: dict) -> str:
    body = []
    for name, r in ranked(report):
        kinds = _d(r.get("exclusions"))
        rows = (
            [(k, _d(v).get("count"), _d(v).get("passes")) for k, v in kinds.items()]
            if kinds
            else [(k, v, None) for k, v in _d(r.get("excluded")).items()]
        )
        summary = (
            f"{esc(r.get('completed', '?'))}/{esc(r.get('attempted', '?'))} completed · coverage "
            f"{pct(r.get('coverage'))}"
            f" · judge failures {esc(r.get('judge_failures', 0))} · infra reruns "
            f"{esc(r.get('reruns', 0))}"
            f" · model errors (scored) {esc(r.get('model_errors', 0))}"
        )
        if not rows:
            body.append(
                f'<tr><th>{esc(name)}</th><td><span class="good">none</span></td><td '
                'class="num">0</td>'
                f'<td class="num">—</td><td class="sub">{summary}</td></tr>'
            )
        for i, (kind, count, passes) in enumerate(rows):
            passes_cell = (
                esc(passes)
                if passes is not None
                else ("" if kinds else '<span class="na">n/a</span>')
            )
            body.append(
                f'<tr><th>{esc(name) if i == 0 else ""}</th><td class="bad">{esc(kind)}</td><td '
                f'class="num">{esc(count)}</td>'
                f'<td class="num">{passes_cell}</td><td '
                f'class="sub">{summary if i == 0 else ""}</td></tr>'
            )
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


def operational(report: dict) -> str:
    cols = [
        ("tokens_per_resolved_call", "tokens / resolved call", 0),
        ("cost_per_call", "cost / call", 4),
        ("cost_per_resolved_call", "cost / resolved call", 4),
        ("latency_p50_s", "latency p50", 2),
        ("latency_p90_s", "p90", 2),
        ("latency_p99_s", "p99", 2),
        ("tool_calls_per_call", "tool calls / call", 1),
    ]
    body = []
    for name, r in ranked(report):
        op = _d(r.get("operational"))
        tokens = sum(
            (_num(_d(u).get("prompt_tokens")) or 0) + (_num(_d(u).get("completion_tokens")) or 0)
            for u in _d(r.get("usage")).values()
        )
        cells = []
        for key, _, digits in cols:
            na = _absent(op, key, "nothing to measure (no price, no resolved call)")
            value = op.get(key)
            text = secs(value, na) if key.startswith("latency") else fmt(value, digits, na=na)
            dollar = "$" if key.startswith("cost") and _num(value) is not None else ""
            cells.append(f'<td class="num">{dollar}{text}</td>')
        cells = "".join(cells)
        body.append(f'<tr><th>{esc(name)}</th>{cells}<td class="num">{tokens:,.0f}</td></tr>')
    head = "".join(f"<th>{esc(label)}</th>" for _, label, _ in cols)
    return (
        f'<table class="grid"><thead><tr><th>candidate</th>{head}<th>tokens (all '
        "roles)</th></tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def diagnostics_table(report: dict) -> str:
    cands = ranked(report)
    names = list(dict.fromkeys(k for _, r in cands for k in _d(r.get("diagnostics"))))
    if not names:
        return '<p class="note">Diagnostics not available.</p>'
    head = "".join(f"<th>{esc(n.replace('_', ' '))}</th>" for n in names)
    body = "".join(
        f"<tr><th>{esc(name)}</th>"
        + "".join(
            f'<td class="num"{_heat(_num(_d(r.get("diagnostics")).get(n)))}>'
            f"{fmt(_d(r.get('diagnostics')).get(n), 0, na='n/m')}</td>"
            for n in names
        )
        + "</tr>"
        for name, r in cands
    )
    return (
        '<table class="grid '
        f'diag"><thead><tr><th>candidate</th>{head}</tr></thead><tbody>{body}</tbody></table>'
    )


# ---------------------------------------------------------------- SVG plots


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    raw = (hi - lo) / n or 1.0
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 10) for i in range(int((hi - first) / step + 1e-9) + 1)]


def forest_plot(report: dict) -> str:
    rows = ranked(report)
    if not any(_interval(r, m)["estimate"] is not None for _, r in rows for m in METRICS):
        return '<p class="note">Forest plot skipped: no candidate has a measured score.</p>'
    x0, x1, row_h, gap, top = 250, 790, 17, 12, 12
    height = top + len(rows) * (3 * row_h + gap) + 30
    sx = lambda v: x0 + (x1 - x0) * max(0.0, min(100.0, v)) / 100  # noqa: E731
    parts = [
        f'<svg class="plot" viewBox="0 0 1000 {height}" width="1000" height="{height}" role="img" '
        'aria-label="forest plot of overall and pillar scores with intervals">'
    ]
    axis_y = height - 24
    parts += [
        f'<rect x="0" y="{top + i * (3 * row_h + gap) - 3}" width="1000" height="{3 * row_h + 6}" '
        'class="band"/>'
        for i in range(0, len(rows), 2)
    ]
    for t in range(0, 101, 10):
        parts.append(
            f'<line x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{top - 4}" y2="{axis_y}" '
            f'class="grid{"" if t % 50 else " major"}"/>'
        )
        if t % 20 == 0:
            parts.append(
                f'<text x="{sx(t):.1f}" y="{axis_y + 14}" class="tick" '
                f'text-anchor="middle">{t}</text>'
            )
    missing_iv = False
    y = top
    for name, r in rows:
        parts.append(f'<text x="8" y="{y + row_h + 9}" class="cand">{esc(name)}</text>')
        for mi, metric in enumerate(METRICS):
            iv, cy = _interval(r, metric), y + mi * row_h + row_h / 2
            color = METRIC_COLORS[metric]
            parts.append(
                f'<text x="{x0 - 10}" y="{cy + 4:.1f}" class="metric" '
                f'text-anchor="end">{metric}</text>'
            )
            if iv["estimate"] is None:
                parts.append(
                    f'<text x="{x0 + 6}" y="{cy + 4:.1f}" class="missing">not measured</text>'
                )
                continue
            label = f"{iv['estimate']:.1f}"
            if iv["low"] is not None and iv["high"] is not None:
                a, b = sx(iv["low"]), sx(iv["high"])
                parts.append(
                    f'<line x1="{a:.1f}" x2="{b:.1f}" y1="{cy:.1f}" y2="{cy:.1f}" stroke="{color}" '
                    'stroke-width="2"/>'
                    f'<line x1="{a:.1f}" x2="{a:.1f}" y1="{cy - 4:.1f}" y2="{cy + 4:.1f}" '
                    f'stroke="{color}"/>'
                    f'<line x1="{b:.1f}" x2="{b:.1f}" y1="{cy - 4:.1f}" y2="{cy + 4:.1f}" '
                    f'stroke="{color}"/>'
                )
                label += f" [{iv['low']:.1f}, {iv['high']:.1f}]"
            else:
                missing_iv = True
                label += " (no interval)"
            parts.append(
                f'<circle cx="{sx(iv["estimate"]):.1f}" cy="{cy:.1f}" r="4.5" fill="{color}">'
                f"<title>{esc(name)} {metric}: {esc(label)}</title></circle>"
                f'<text x="{x1 + 14}" y="{cy + 4:.1f}" class="val">{esc(label)}</text>'
            )
        y += 3 * row_h + gap
    parts.append("</svg>")
    note = '<p class="note">Point: estimate; bar: interval. Scale 0-100.'
    note += (
        " Intervals are not available in this report for some scores; those show the point "
        "only.</p>"
        if missing_iv
        else "</p>"
    )
    return "".join(parts) + note


def _scatter(report: dict, key: str, xlabel: str, xfmt: str) -> str:
    points, missing = [], []
    for i, (name, r) in enumerate(_d(report.get("candidates")).items()):
        r = _d(r)
        x, comp = _num(_d(r.get("operational")).get(key)), _d(r.get("completion"))
        y = _num(comp.get("rate"))
        if x is None or y is None:
            missing.append(name)
            continue
        wil = (
            comp.get("wilson")
            if isinstance(comp.get("wilson"), list) and len(comp.get("wilson")) == 2
            else [None, None]
        )
        points.append((name, x, y, _num(wil[0]), _num(wil[1]), PALETTE[i % len(PALETTE)]))
    if not points:
        return (
            f'<div class="scatter"><h3>completion vs {esc(xlabel)}</h3><p class="note">Skipped: no '
            "candidate has both a "
            f"completion rate and {esc(xlabel)} in this report.</p></div>"
        )
    if (
        key.startswith("latency") and max(p[1] for p in points) < 1
    ):  # a scripted baseline answers in microseconds
        points = [(p[0], p[1] * 1000, *p[2:]) for p in points]
        xlabel = xlabel.replace("(s)", "(ms)")
    w, h, ml, mr, mt, mb = 480, 300, 56, 20, 14, 44
    xmax = max(p[1] for p in points) or 1.0
    ticks = _ticks(0.0, xmax * 1.1)
    xhi = max(ticks[-1], xmax * 1.1)
    sx = lambda v: ml + (w - ml - mr) * v / xhi  # noqa: E731
    sy = lambda v: mt + (h - mt - mb) * (1 - v)  # noqa: E731
    parts = [
        f'<svg class="plot" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
        f'aria-label="completion vs {esc(xlabel)}">'
    ]
    for t in ticks:
        parts.append(
            f'<line x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{mt}" y2="{h - mb}" class="grid"/>'
            f'<text x="{sx(t):.1f}" y="{h - mb + 14}" class="tick" '
            f'text-anchor="middle">{esc(format(t, xfmt))}</text>'
        )
    for t in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line x1="{ml}" x2="{w - mr}" y1="{sy(t):.1f}" y2="{sy(t):.1f}" class="grid"/>'
            f'<text x="{ml - 6}" y="{sy(t) + 4:.1f}" class="tick" '
            f'text-anchor="end">{t * 100:.0f}%</text>'
        )
    parts.append(
        f'<text x="{(ml + w - mr) / 2:.0f}" y="{h - 8}" class="axis" '
        f'text-anchor="middle">{esc(xlabel)}</text>'
        f'<text x="14" y="{(mt + h - mb) / 2:.0f}" class="axis" text-anchor="middle" '
        f'transform="rotate(-90 14 {(mt + h - mb) / 2:.0f})">completion rate</text>'
    )
    for name, x, y, lo, hi, color in points:
        cx, cy = sx(x), sy(y)
        if lo is not None and hi is not None:
            parts.append(
                f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{sy(lo):.1f}" y2="{sy(hi):.1f}" '
                f'stroke="{color}" stroke-width="2"/>'
            )
        anchor = "end" if cx > w * 0.7 else "start"
        dx = -8 if anchor == "end" else 8
        parts.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="{color}"><title>{esc(name)}: '
            f"{y * 100:.0f}% at "
            f'{esc(format(x, xfmt))}</title></circle><text x="{cx + dx:.1f}" y="{cy - 6:.1f}" '
            'class="val" '
            f'text-anchor="{anchor}">{esc(name)}</text>'
        )
    parts.append("</svg>")
    note = (
        f'<p class="note">Not plotted (missing data): {esc(", ".join(missing))}.</p>'
        if missing
        else ""
    )
    return f'<div class="scatter"><h3>completion vs {esc(xlabel)}</h3>{"".join(parts)}{note}</div>'


def tradeoff_plots(report: dict) -> str:
    return (
        '<div class="row">'
        + _scatter(report, "cost_per_call", "cost per call (USD)", ".4g")
        + _scatter(report, "latency_p50_s", "p50 latency (s)", ".3g")
        + "</div>"
        '<p class="note">Vertical bars: Wilson interval of the completion rate.</p>'
    )


# ---------------------------------------------------------------- page


def run_header(report: dict, run_dir: Path) -> str:
    suite, run, code = _d(report.get("suite")), _d(report.get("run")), _d(report.get("code"))
    caller, judge = _d(report.get("caller")), _d(report.get("judge"))
    facts = [
        (
            "suite",
            f"{suite.get('id', '?')}@{suite.get('version', '?')} "
            f"({str(suite.get('sha256', ''))[:12]})",
        ),
        ("seed", run.get("seed", "?")),
        ("repeats", run.get("repeats", "?")),
        ("caller", caller.get("model") or caller.get("kind") or "?"),
        ("judge", judge.get("model") if judge else "none (judged items not measured)"),
        ("graders", ", ".join(map(str, _l(report.get("graders")))) or "?"),
        (
            "code",
            f"{code.get('package', '?')} "
            f"{str(code.get('commit', ''))[:10]}{' (dirty)' if code.get('dirty') else ''}",
        ),
        ("run folder", run_dir.resolve().name),
    ]
    if report.get("rescored_from"):
        facts.append(("rescored from", report["rescored_from"]))
    return "".join(f"<span><b>{esc(k)}</b> {esc(v)}</span>" for k, v in facts)


SECTIONS = [
    ("leaderboard", "Leaderboard"),
    ("forest", "Scores with intervals"),
    ("comparisons", "Paired comparisons"),
    ("slices", "Scores by slice"),
    ("scenarios", "Scores by scenario"),
    ("tradeoffs", "Completion vs cost and latency"),
    ("exclusions", "Exclusions"),
    ("operational", "Operational"),
    ("diagnostics", "Diagnostics"),
    ("calls", "Trace viewer"),
]


def _guarded(build, report: dict) -> str:
    try:
        return build(report)
    except (
        Exception
    ) as exc:  # a malformed report loses one section, never the page (or the trace viewer)
        return (
            '<p class="note bad">This section could not be drawn from this report '
            f"({esc(type(exc).__name__)}: {esc(exc)}).</p>"
        )


def build_page(report: dict, calls: list[dict], problems: list[str], run_dir: Path) -> str:
    js = (ASSETS / "report.js").read_text(encoding="utf-8")
    script_hash = base64.b64encode(hashlib.sha256(js.encode("utf-8")).digest()).decode()
    csp = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src "
        f"'sha256-{script_hash}'; base-uri 'none'; form-action 'none'"
    )
    builders = {
        "leaderboard": leaderboard,
        "forest": forest_plot,
        "comparisons": comparisons,
        "slices": slices,
        "scenarios": per_scenario,
        "tradeoffs": tradeoff_plots,
        "exclusions": exclusions,
        "operational": operational,
        "diagnostics": diagnostics_table,
    }
    bodies = {sid: _guarded(build, report) for sid, build in builders.items()}
    problem_html = "".join(f"<li>{esc(p)}</li>" for p in problems)
    bodies["calls"] = (
        (f'<ul class="problems">{problem_html}</ul>' if problems else "")
        + '<div id="viewer"><div id="call-list"><noscript>The trace viewer needs '
        "JavaScript.</noscript></div>"
        '<div id="call-view"><p class="note">Choose a call on the left.</p></div></div>'
    )
    title = (
        f"callbench report: {_d(report.get('suite')).get('id', 'run')} ({run_dir.resolve().name})"
    )
    return Template((ASSETS / "page.html").read_text(encoding="utf-8")).substitute(
        csp=esc(csp),
        title=esc(title),
        css=(ASSETS / "report.css").read_text(encoding="utf-8"),
        js=js,
        facts=run_header(report, run_dir),
        nav="".join(f'<a href="#{sid}">{esc(t)}</a>' for sid, t in SECTIONS),
        sections="".join(
            f'<section id="{sid}"><h2>{esc(t)}</h2>{bodies[sid]}</section>' for sid, t in SECTIONS
        ),
        data=data_block(viewer_data(report, calls)),
    )


def render_html(run_dir: Path, out: Path, report: dict | None = None) -> Path:
    """Write the self-contained HTML report of a run folder (report defaults to
    run_dir/report.json)."""
    run_dir, out = Path(run_dir), Path(out)
    if report is None:
        report = json.loads((run_dir / "report.json").read_text(encoding="utf-8"))
    calls, problems = load_calls(run_dir, report)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(build_page(report, calls, problems, run_dir), encoding="utf-8")
    return out
