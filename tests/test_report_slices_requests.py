"""Completion by the number of requests (requests-N tags) and the transfer rate by persona, in
report.json, the terminal summary and the HTML report (reports/slices_requests.py), measured on the
built-in utility-billing exam with the oracle, the noop and two scripted agents: one that hands the
call to a person at once, one that only promises to."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console

from callbench.call import read_trace
from callbench.grading.scorecard import Scorecard, transferred
from callbench.reports.html import render_html
from callbench.reports.model import Report, load_report
from callbench.reports.report import REPORT_SCHEMA_VERSION
from callbench.reports.slices_requests import (
    completion_by_requests,
    requests_of,
    transfers,
)
from callbench.reports.table import summary_table
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import load_suite

TRANSFER = "python:tests.test_report_slices_requests:transfer_at_once"
PROMISE = "python:tests.test_report_slices_requests:promise_to_transfer"
MINI = Path(__file__).parent / "fixtures" / "mini"


def transfer_at_once(view: object) -> dict:
    """Hands every call to a person on its first message."""
    return {
        "say": "I am transferring you to a colleague now.",
        "tool_calls": [{"name": "transfer_to_human", "arguments": {"reason": "caller request"}}],
    }


def promise_to_transfer(view: object) -> dict:
    """Says it will transfer, then ends the call without doing so: not a transfer."""
    return {
        "say": "I will transfer you to a person. Goodbye.",
        "tool_calls": [{"name": "end_call", "arguments": {"outcome": "unresolved"}}],
    }


@pytest.fixture(scope="module")
def suite():
    return load_suite("utility-billing")


@pytest.fixture(scope="module")
def run(suite, tmp_path_factory):
    """Two scenarios of each number of requests, four candidates."""
    by_n: dict[int, list[str]] = {}
    for sid, sc in sorted(suite.scenarios.items()):
        n = requests_of(list(sc.tags))
        assert n is not None, sid
        by_n.setdefault(n, []).append(sid)
    assert sorted(by_n) == [2, 3, 4]
    picked = tuple(s for n in sorted(by_n) for s in by_n[n][:2])
    out = tmp_path_factory.mktemp("requests") / "run"
    config = RunConfig(candidates=("oracle", "noop", TRANSFER, PROMISE), scenarios=picked)
    result = run_suite(suite, config, out)
    return out, result


def test_requests_tag():
    assert requests_of(["x", "requests-3"]) == 3
    assert requests_of(["requests-12", "account:7"]) == 12
    assert requests_of(["requests-", "requests-x", "my-requests-2"]) is None
    assert requests_of(["requests-2", "requests-3"]) is None  # contradictory: not counted
    assert requests_of([]) is None


def test_completion_by_requests_in_report_json(run):
    out, result = run
    report = json.loads((out / "report.json").read_text())
    assert report["schema_version"] == REPORT_SCHEMA_VERSION == 6
    rows = report["candidates"]
    oracle, noop = rows["oracle"]["completion_by_requests"], rows["noop"]["completion_by_requests"]
    assert list(oracle) == ["2", "3", "4"] and list(noop) == ["2", "3", "4"]
    for n in ("2", "3", "4"):
        assert oracle[n]["passed"] == oracle[n]["of"] == 2 and oracle[n]["rate"] == 1.0
        assert oracle[n]["wilson"][1] == 1.0 and 0.3 < oracle[n]["wilson"][0] < 0.4
        assert noop[n]["passed"] == 0 and noop[n]["of"] == 2 and noop[n]["rate"] == 0.0
        assert noop[n]["wilson"][0] == 0.0 and 0.6 < noop[n]["wilson"][1] < 0.7
    # the by-N counts add up to the candidate's completion
    for row in rows.values():
        by_n = row["completion_by_requests"]
        assert sum(c["passed"] for c in by_n.values()) == row["completion"]["passed"]
        assert sum(c["of"] for c in by_n.values()) == row["completion"]["of"]
    typed = load_report(out / "report.json")
    assert typed.candidates["oracle"].completion_by_requests is not None


def test_transfer_rate_by_persona(run):
    out, result = run
    cards = result.scorecards
    personas = Counter(c.conditions["persona"] for c in cards if c.candidate == TRANSFER)
    assert set(personas) == {"angry", "calm"}, personas  # the casting covers both
    rows = load_report(out / "report.json").candidates
    moved = rows[TRANSFER].transfers
    assert moved is not None and moved.tools == ["transfer_to_human"]
    assert moved.all.transferred == moved.all.of == 6 and moved.all.rate == 1.0
    assert {p: (r.transferred, r.of) for p, r in moved.by_persona.items()} == {
        p: (k, k) for p, k in personas.items()
    }
    for name in ("oracle", "noop", PROMISE):  # the exam asks for no transfer; a promise is none
        t = rows[name].transfers
        assert t is not None and t.all.transferred == 0 and t.all.of == 6, name
        assert sum(r.of for r in t.by_persona.values()) == 6
    # the scorecards say why: the transfer tool ended the call; the promise ended on end_call
    for card in cards:
        assert card.transferred is (card.candidate == TRANSFER), card.trace_id
    trace = read_trace(out / "traces" / TRANSFER / f"{cards[0].scenario_id}" / "r0.json")
    ending = [e for e in trace.tool_events if e.ended_call]
    assert [e.name for e in ending] == ["transfer_to_human"] and transferred(trace)
    # a transfer the world refused did not end the call; a tool that ends no call is no transfer
    refused = trace.model_copy(deep=True)
    refused.tool_events[-1].ended_call = False
    assert not transferred(refused)
    not_ending = trace.model_copy(deep=True)
    not_ending.tool_events[-1].ends_call_tool = False
    assert not transferred(not_ending)


def test_terminal_summary_and_html(run, tmp_path):
    out, _ = run
    report = load_report(out / "report.json")
    console = Console(width=200, record=True)
    console.print(summary_table(report))
    text = console.export_text()
    assert "oracle completion by requests — 2: 2/2" in text
    assert "noop completion by requests — 2: 0/2" in text
    assert f"{TRANSFER} transfers 6/6 — by persona angry" in text
    page = render_html(out, tmp_path / "r.html").read_text()
    section = page.split('<section id="requests">', 1)[1].split("</section>", 1)[0]
    assert "completion by requests" in section and "transfers by persona" in section
    assert "<b>2/2</b> · 100%" in section and "<b>0/2</b> · 0%" in section
    assert "<b>6/6</b> · 100%" in section and "transfer_to_human" in section


def _cards(result, candidate: str) -> list[Scorecard]:
    return [c for c in result.scorecards if c.candidate == candidate]


def test_old_scorecards_are_not_read_as_no_transfer(run, suite):
    """A scorecard written before the field (no `transferred` key) loads with None, and is left
    out of the transfer count rather than counted as a call kept."""
    _, result = run
    cards = _cards(result, TRANSFER)
    old = []
    for card in cards:
        data = card.model_dump(mode="json")
        del data["transferred"]
        old.append(Scorecard.model_validate(data))
    assert all(c.transferred is None for c in old)
    assert transfers(old, suite) is None
    mixed = transfers(old[:2] + cards[2:], suite)
    assert mixed is not None and mixed.all.of == len(cards) - 2
    assert mixed.all.transferred == len(cards) - 2
    # excluded calls are not counted either
    excluded = [c.model_copy(update={"outcome": "excluded"}) for c in cards]
    assert transfers(excluded, suite) is None
    by_n = completion_by_requests(excluded, suite)
    assert by_n == {}


def test_suite_without_requests_tags_or_transfer_tool(tmp_path):
    """The mini suite tags no call with requests-N and offers no transfer tool: both figures are
    None, the terminal summary prints no line for them, the HTML says why."""
    out = tmp_path / "mini"
    run_suite(load_suite(MINI), RunConfig(candidates=("oracle", "noop")), out)
    report = load_report(out / "report.json")
    for row in report.candidates.values():
        assert row.has("completion_by_requests") and row.completion_by_requests is None
        assert row.has("transfers") and row.transfers is None
    console = Console(width=200, record=True)
    console.print(summary_table(report))
    assert "by requests" not in console.export_text()
    page = render_html(out, tmp_path / "mini.html").read_text()
    assert "No scenario of this suite carries a requests-N tag" in page
    assert "No transfers measured" in page


def test_an_older_report_says_not_available(run, tmp_path):
    out, _ = run
    data = json.loads((out / "report.json").read_text())
    data["schema_version"] = 3
    for row in data["candidates"].values():
        del row["completion_by_requests"], row["transfers"]
    report = Report.model_validate(data)
    from callbench.reports.html_requests import requests_and_transfers

    assert "not available in this report" in requests_and_transfers(report)
    console = Console(width=200, record=True)
    console.print(summary_table(report))
    assert "by requests" not in console.export_text()
