"""Escaping and number formats shared by the HTML report's tables and plots.

Every value that reaches the page goes through `esc` (or a formatter that calls it), so run text
(candidate names, scenario ids, exclusion kinds) can never open a tag or an attribute."""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import quote

from .model import Pillar, Section

METRICS: tuple[Pillar, ...] = ("overall", "task", "conversation")
METRIC_COLORS = {"overall": "#1f2933", "task": "#2563eb", "conversation": "#c2410c"}
PALETTE = ("#2563eb", "#c2410c", "#059669", "#7c3aed", "#db2777", "#ca8a04", "#0891b2", "#4b5563")
NA = '<span class="na">not available</span>'
DASH = '<span class="na">—</span>'


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def qesc(value: Any) -> str:
    """A URL fragment part: percent-encoded, then escaped for an attribute."""
    return esc(quote(str(value), safe=""))


def fmt(value: float | None, digits: int = 1, na: str = NA) -> str:
    return na if value is None else esc(f"{value:.{digits}f}")


def secs(value: float | None, na: str = NA) -> str:
    if value is None:
        return na
    return esc(
        f"{value:.2f} s"
        if value >= 1
        else (f"{value * 1000:.0f} ms" if value >= 0.01 else f"{value * 1000:.3g} ms")
    )


def pct(value: float | None, digits: int = 0) -> str:
    return NA if value is None else esc(f"{100 * value:.{digits}f}%")


def count(value: int | None) -> str:
    """A count an older report may lack."""
    return NA if value is None else esc(value)


def absent(section: Section | None, key: str, why: str = "") -> str:
    """'not available' when the report lacks the field; a dash when it has it but there was nothing
    to measure."""
    if section is not None and section.has(key):
        return f'<span class="na" title="{esc(why)}">—</span>'
    return NA


def heat(value: float | None) -> str:
    """A cell background from red (0) to green (100)."""
    if value is None:
        return ""
    hue = max(0.0, min(100.0, value)) * 1.2
    return f' style="background:hsl({hue:.0f},70%,90%)"'
