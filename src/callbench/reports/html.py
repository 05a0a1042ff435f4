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

The page is drawn from the typed report (reports/model.py): fields an older report lacks
(intervals, completion, exclusions, operational figures, slices, comparisons) are None and
shown as "not available". Nothing here guards against a malformed report: the model refuses one
when it is read, and a bug in a section raises with its traceback rather than losing the section
quietly. Tables are in html_tables.py, plots in html_plots.py.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import json
import re
import struct
import zlib
from pathlib import Path
from string import Template
from typing import Any

from ..call import read_trace
from ..errors import TraceError
from ..layout import REPORT, SCORECARDS, TRACES
from .html_format import esc
from .html_plots import forest_plot, tradeoff_plots
from .html_requests import requests_and_transfers
from .html_tables import (
    comparisons,
    diagnostics_table,
    exclusions,
    leaderboard,
    operational,
    per_scenario,
    slices,
)
from .model import Report, as_report
from .origin import origin_facts

ASSETS = Path(__file__).with_name("html_assets")
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


def viewer_data(report: Report | dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    """What the trace viewer reads: every call (trace, scorecard, caller diffs) and the candidates
    in ranked order."""
    return {"calls": calls, "candidates": [n for n, _ in as_report(report).ranked()]}


# ---------------------------------------------------------------- data loading


def _scorecards_dir(run_dir: Path, report: Report) -> Path:
    tops = {key.split("/", 1)[0] for key in report.manifest if key.startswith(SCORECARDS)}
    return run_dir / (tops.pop() if len(tops) == 1 else SCORECARDS)


def _near_word(text: str, at: int) -> int:
    """A character of the word touching position `at` (ending there, else starting there), else the
    nearest one."""
    order = [at - 1, at] + list(range(at - 2, -1, -1)) + list(range(at + 1, len(text)))
    return next((i for i in order if 0 <= i < len(text) and not text[i].isspace()), 0)


def _words_marked(text: str, changed: list[bool]) -> list[list[Any]]:
    """Segments [text, changed], each change widened to whole words (a misheard word reads better
    whole)."""
    flags = [flag and not ch.isspace() for ch, flag in zip(text, changed)]
    for m in re.finditer(r"\S+", text):
        if any(flags[m.start() : m.end()]):
            flags[m.start() : m.end()] = [True] * (m.end() - m.start())
    out: list[list[Any]] = []
    for ch, flag in zip(text, flags):
        if out and out[-1][1] == flag:
            out[-1][0] += ch
        else:
            out.append([ch, flag])
    return out


def caller_diff(intended: str, observed: list[str]) -> dict[str, Any] | None:
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


def _read_card(path: Path, problems: list[str]) -> Any:
    """A scorecard as the viewer shows it (raw JSON); an unreadable one is listed, not fatal: the
    run's files are data, and the page says which one it could not read."""
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problems.append(f"{path}: unreadable scorecard ({exc.__class__.__name__})")
        return None


def _call(
    path: Path, cards_dir: Path, rel: Path, problems: list[str], run_dir: Path
) -> dict[str, Any] | None:
    try:
        typed = read_trace(path)
    except TraceError as exc:
        problems.append(str(exc))
        return None
    trace = typed.model_dump(mode="json", exclude={"timings"})
    trace["wall_seconds"] = typed.timings.wall_seconds
    diffs = {}
    for turn in typed.caller_turns:
        d = caller_diff(turn.intended, turn.observed)
        if d is not None:
            diffs[str(turn.turn)] = d
    return {
        "key": typed.id,
        "candidate": typed.candidate,
        "scenario": typed.scenario_id,
        "repeat": typed.repeat,
        "trace": trace,
        "card": _read_card(cards_dir / rel, problems),
        "diffs": diffs,
        "audio": _audio(typed, run_dir, problems),
    }


def _audio(trace: Any, run_dir: Path, problems: list[str]) -> dict[str, str]:
    """The call's audio as data URIs, by the path the records name, so the page plays each turn
    without the run folder beside it. A file that is missing or does not match its hash is listed
    as a problem and not played."""
    out: dict[str, str] = {}
    records = [r for turn in trace.caller_turns for r in turn.audio] + list(trace.agent_audio)
    for record in records:
        if record.audio_path in out or record.audio_path.startswith("memory/"):
            continue
        path = run_dir / record.audio_path
        try:
            data = path.read_bytes()
        except OSError:
            problems.append(f"{path}: audio file missing")
            continue
        if hashlib.sha256(data).hexdigest() != record.audio_sha256:
            problems.append(f"{path}: audio file does not match its hash in the trace")
            continue
        out[record.audio_path] = "data:audio/flac;base64," + base64.b64encode(data).decode()
    return out


def load_calls(
    run_dir: Path, report: Report | dict[str, Any]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every trace of the run with its scorecard (None if missing) and caller diffs; plus unreadable
    files."""
    report = as_report(report)
    cards_dir = _scorecards_dir(run_dir, report)
    order = {name: i for i, name in enumerate(report.candidates)}
    calls: list[dict[str, Any]] = []
    problems: list[str] = []
    for path in sorted((run_dir / TRACES).rglob("*.json")):
        call = _call(path, cards_dir, path.relative_to(run_dir / TRACES), problems, run_dir)
        if call is not None:
            calls.append(call)
    calls.sort(
        key=lambda c: (
            order.get(c["candidate"], len(order)),
            c["candidate"],
            c["scenario"],
            c["repeat"],
        )
    )
    return calls, problems


# ---------------------------------------------------------------- page


def run_header(report: Report, run_dir: Path) -> str:
    suite, run, code = report.suite, report.run, report.code
    caller = report.caller.model or report.caller.kind if report.caller else None
    facts = [
        ("suite", f"{suite.id}@{suite.version or '?'} ({suite.sha256[:12]})"),
        ("seed", "?" if run.seed is None else run.seed),
        ("repeats", "?" if run.repeats is None else run.repeats),
        ("caller", caller or "?"),
        ("judge", report.judge.model if report.judge else "none (judged items not measured)"),
        ("graders", ", ".join(report.graders or []) or "?"),
        (
            "code",
            f"{code.package} {(code.commit or '')[:10]}{' (dirty)' if code.dirty else ''}"
            if code
            else "?",
        ),
        ("run folder", run_dir.resolve().name),
    ]
    if report.rescored_from:
        facts.append(("rescored from", report.rescored_from))
    header = "".join(f"<span><b>{esc(k)}</b> {esc(v)}</span>" for k, v in facts)
    origin = origin_facts(report)
    if origin:  # the suite's provenance: its generation manifest and its sealed split
        header += (
            '<div class="provenance"><b>provenance</b> '
            + "".join(f"<span><b>{esc(k)}</b> {esc(v)}</span>" for k, v in origin)
            + "</div>"
        )
    return header


SECTIONS = [
    ("leaderboard", "Leaderboard", leaderboard),
    ("forest", "Scores with intervals", forest_plot),
    ("comparisons", "Paired comparisons", comparisons),
    ("slices", "Scores by slice", slices),
    ("requests", "Completion by requests; transfers", requests_and_transfers),
    ("scenarios", "Scores by scenario", per_scenario),
    ("tradeoffs", "Completion vs cost and latency", tradeoff_plots),
    ("exclusions", "Exclusions", exclusions),
    ("operational", "Operational", operational),
    ("diagnostics", "Diagnostics", diagnostics_table),
]


def _viewer_section(problems: list[str]) -> str:
    problem_html = "".join(f"<li>{esc(p)}</li>" for p in problems)
    return (
        (f'<ul class="problems">{problem_html}</ul>' if problems else "")
        + '<div id="viewer"><div id="call-list"><noscript>The trace viewer needs '
        "JavaScript.</noscript></div>"
        '<div id="call-view"><p class="note">Choose a call on the left.</p></div></div>'
    )


def build_page(
    report: Report, calls: list[dict[str, Any]], problems: list[str], run_dir: Path
) -> str:
    js = (ASSETS / "report.js").read_text(encoding="utf-8")
    script_hash = base64.b64encode(hashlib.sha256(js.encode("utf-8")).digest()).decode()
    csp = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; media-src data:; "
        "script-src "
        f"'sha256-{script_hash}'; base-uri 'none'; form-action 'none'"
    )
    sections = [(sid, title, build(report)) for sid, title, build in SECTIONS]
    sections.append(("calls", "Trace viewer", _viewer_section(problems)))
    title = f"callbench report: {report.suite.id} ({run_dir.resolve().name})"
    return Template((ASSETS / "page.html").read_text(encoding="utf-8")).substitute(
        csp=esc(csp),
        title=esc(title),
        css=(ASSETS / "report.css").read_text(encoding="utf-8"),
        js=js,
        facts=run_header(report, run_dir),
        nav="".join(f'<a href="#{sid}">{esc(t)}</a>' for sid, t, _ in sections),
        sections="".join(
            f'<section id="{sid}"><h2>{esc(t)}</h2>{body}</section>' for sid, t, body in sections
        ),
        data=data_block(viewer_data(report, calls)),
    )


def render_html(run_dir: Path, out: Path, report: Report | dict[str, Any] | None = None) -> Path:
    """Write the self-contained HTML report of a run folder (report defaults to
    run_dir/report.json, validated)."""
    from .model import load_report

    run_dir, out = Path(run_dir), Path(out)
    typed = load_report(run_dir / REPORT) if report is None else as_report(report)
    calls, problems = load_calls(run_dir, typed)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(build_page(typed, calls, problems, run_dir), encoding="utf-8")
    return out
