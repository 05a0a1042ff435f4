"""The HTML report's plots, as inline SVG built from the typed report: a forest plot of every
candidate's scores with their intervals, and completion against cost and latency."""

from __future__ import annotations

import math
from collections.abc import Callable

from .html_format import METRIC_COLORS, METRICS, PALETTE, esc
from .model import CandidateRow, Pillar, Report

FOREST_X0, FOREST_X1, ROW_H, GAP, TOP = 250, 790, 17, 12, 12


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    raw = (hi - lo) / n or 1.0
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 10) for i in range(int((hi - first) / step + 1e-9) + 1)]


def _forest_x(v: float) -> float:
    return FOREST_X0 + (FOREST_X1 - FOREST_X0) * max(0.0, min(100.0, v)) / 100


def _forest_frame(rows: int, height: int) -> list[str]:
    """The svg element, alternate row bands and the 0-100 grid with its labels."""
    sx, axis_y = _forest_x, height - 24
    parts = [
        f'<svg class="plot" viewBox="0 0 1000 {height}" width="1000" height="{height}" role="img" '
        'aria-label="forest plot of overall and pillar scores with intervals">'
    ]
    parts += [
        f'<rect x="0" y="{TOP + i * (3 * ROW_H + GAP) - 3}" width="1000" height="{3 * ROW_H + 6}" '
        'class="band"/>'
        for i in range(0, rows, 2)
    ]
    for t in range(0, 101, 10):
        parts.append(
            f'<line x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{TOP - 4}" y2="{axis_y}" '
            f'class="grid{"" if t % 50 else " major"}"/>'
        )
        if t % 20 == 0:
            parts.append(
                f'<text x="{sx(t):.1f}" y="{axis_y + 14}" class="tick" '
                f'text-anchor="middle">{t}</text>'
            )
    return parts


def _forest_metric(name: str, row: CandidateRow, metric: Pillar, cy: float) -> tuple[str, bool]:
    """One metric's point and interval bar; and whether its interval was missing."""
    sx, color = _forest_x, METRIC_COLORS[metric]
    out = (
        f'<text x="{FOREST_X0 - 10}" y="{cy + 4:.1f}" class="metric" '
        f'text-anchor="end">{metric}</text>'
    )
    estimate, iv = row.estimate(metric), row.interval(metric)
    if estimate is None:
        return out + (
            f'<text x="{FOREST_X0 + 6}" y="{cy + 4:.1f}" class="missing">not measured</text>'
        ), False
    label, missing = f"{estimate:.1f}", False
    if iv is not None and iv.low is not None and iv.high is not None:
        a, b = sx(iv.low), sx(iv.high)
        out += (
            f'<line x1="{a:.1f}" x2="{b:.1f}" y1="{cy:.1f}" y2="{cy:.1f}" stroke="{color}" '
            'stroke-width="2"/>'
            f'<line x1="{a:.1f}" x2="{a:.1f}" y1="{cy - 4:.1f}" y2="{cy + 4:.1f}" '
            f'stroke="{color}"/>'
            f'<line x1="{b:.1f}" x2="{b:.1f}" y1="{cy - 4:.1f}" y2="{cy + 4:.1f}" '
            f'stroke="{color}"/>'
        )
        label += f" [{iv.low:.1f}, {iv.high:.1f}]"
    else:
        missing = True
        label += " (no interval)"
    out += (
        f'<circle cx="{sx(estimate):.1f}" cy="{cy:.1f}" r="4.5" fill="{color}">'
        f"<title>{esc(name)} {metric}: {esc(label)}</title></circle>"
        f'<text x="{FOREST_X1 + 14}" y="{cy + 4:.1f}" class="val">{esc(label)}</text>'
    )
    return out, missing


def forest_plot(report: Report) -> str:
    rows = report.ranked()
    if not any(r.estimate(m) is not None for _, r in rows for m in METRICS):
        return '<p class="note">Forest plot skipped: no candidate has a measured score.</p>'
    height = TOP + len(rows) * (3 * ROW_H + GAP) + 30
    parts = _forest_frame(len(rows), height)
    missing_iv = False
    y = TOP
    for name, r in rows:
        parts.append(f'<text x="8" y="{y + ROW_H + 9}" class="cand">{esc(name)}</text>')
        for mi, metric in enumerate(METRICS):
            svg, missing = _forest_metric(name, r, metric, y + mi * ROW_H + ROW_H / 2)
            parts.append(svg)
            missing_iv = missing_iv or missing
        y += 3 * ROW_H + GAP
    parts.append("</svg>")
    note = '<p class="note">Point: estimate; bar: interval. Scale 0-100.'
    note += (
        " Intervals are not available in this report for some scores; those show the point "
        "only.</p>"
        if missing_iv
        else "</p>"
    )
    return "".join(parts) + note


Point = tuple[str, float, float, float | None, float | None, str]
"""name, x, completion rate, its Wilson low and high, colour"""


def _scatter_points(report: Report, key: str) -> tuple[list[Point], list[str]]:
    points: list[Point] = []
    missing: list[str] = []
    for i, (name, r) in enumerate(report.candidates.items()):
        x: float | None = getattr(r.operational, key) if r.operational else None
        comp = r.completion
        if x is None or comp is None or comp.rate is None:
            missing.append(name)
            continue
        lo, hi = comp.wilson
        points.append((name, x, comp.rate, lo, hi, PALETTE[i % len(PALETTE)]))
    return points, missing


W, H, ML, MR, MT, MB = 480, 300, 56, 20, 14, 44


def _scatter_axes(
    ticks: list[float], xlabel: str, xfmt: str, sx: Callable[[float], float]
) -> list[str]:
    def sy(v: float) -> float:
        return MT + (H - MT - MB) * (1 - v)

    parts = [
        f'<svg class="plot" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" '
        f'aria-label="completion vs {esc(xlabel)}">'
    ]
    for t in ticks:
        parts.append(
            f'<line x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{MT}" y2="{H - MB}" class="grid"/>'
            f'<text x="{sx(t):.1f}" y="{H - MB + 14}" class="tick" '
            f'text-anchor="middle">{esc(format(t, xfmt))}</text>'
        )
    for v in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line x1="{ML}" x2="{W - MR}" y1="{sy(v):.1f}" y2="{sy(v):.1f}" class="grid"/>'
            f'<text x="{ML - 6}" y="{sy(v) + 4:.1f}" class="tick" '
            f'text-anchor="end">{v * 100:.0f}%</text>'
        )
    parts.append(
        f'<text x="{(ML + W - MR) / 2:.0f}" y="{H - 8}" class="axis" '
        f'text-anchor="middle">{esc(xlabel)}</text>'
        f'<text x="14" y="{(MT + H - MB) / 2:.0f}" class="axis" text-anchor="middle" '
        f'transform="rotate(-90 14 {(MT + H - MB) / 2:.0f})">completion rate</text>'
    )
    return parts


def _scatter(report: Report, key: str, xlabel: str, xfmt: str) -> str:
    points, missing = _scatter_points(report, key)
    if not points:
        return (
            f'<div class="scatter"><h3>completion vs {esc(xlabel)}</h3><p class="note">Skipped: no '
            "candidate has both a "
            f"completion rate and {esc(xlabel)} in this report.</p></div>"
        )
    if key.startswith("latency") and max(p[1] for p in points) < 1:
        # a scripted baseline answers in microseconds
        points = [(p[0], p[1] * 1000, *p[2:]) for p in points]
        xlabel = xlabel.replace("(s)", "(ms)")
    xmax = max(p[1] for p in points) or 1.0
    ticks = _ticks(0.0, xmax * 1.1)
    xhi = max(ticks[-1], xmax * 1.1)

    def sx(v: float) -> float:
        return ML + (W - ML - MR) * v / xhi

    def sy(v: float) -> float:
        return MT + (H - MT - MB) * (1 - v)

    parts = _scatter_axes(ticks, xlabel, xfmt, sx)
    for name, x, y, lo, hi, color in points:
        cx, cy = sx(x), sy(y)
        if lo is not None and hi is not None:
            parts.append(
                f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{sy(lo):.1f}" y2="{sy(hi):.1f}" '
                f'stroke="{color}" stroke-width="2"/>'
            )
        anchor = "end" if cx > W * 0.7 else "start"
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


def tradeoff_plots(report: Report) -> str:
    return (
        '<div class="row">'
        + _scatter(report, "cost_per_call", "cost per call (USD)", ".4g")
        + _scatter(report, "latency_p50_s", "p50 latency (s)", ".3g")
        + "</div>"
        '<p class="note">Vertical bars: Wilson interval of the completion rate.</p>'
    )
