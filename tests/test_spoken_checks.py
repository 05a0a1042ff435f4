"""Spoken-value checks declared by scenarios, decided by code on the trace."""

import asyncio

import pytest

from callbench.callers import ScriptedCaller
from callbench.candidates import OracleCandidate
from callbench.grading.spoken_checks import SpokenChecks
from callbench.runs import Attempt, run_attempt
from callbench.suite_check import load_suite


@pytest.fixture(scope="module")
def starter():
    return load_suite("starter")


def oracle_trace(suite, sid):
    """The oracle against the scripted caller: windows hang on its plan steps and on actions ordered
    after them."""
    sc = suite.scenarios[sid]
    caller = ScriptedCaller(
        sc,
        suite.manifest.defaults.caller_phrases[sc.language],
        suite.manifest.defaults.followable_words,
    )
    return asyncio.run(
        run_attempt(
            suite, Attempt("oracle", sid, 0), 0, candidate=OracleCandidate(sc), caller=caller
        )
    )


def verdicts(suite, sid, trace):
    return {v.id: v for v in SpokenChecks().grade(trace, suite.scenarios[sid], suite.manifest)}


def test_fee_stated_before_cancelling(starter):
    sid = "clinic-late-cancel-fee"
    trace = oracle_trace(starter, sid)
    v = verdicts(starter, sid, trace)["fee_amount_stated_before_cancel"]
    assert v.r == 1.0 and v.diagnostic == "stated_facts" and v.evidence
    said = trace.messages[v.evidence[0]]
    assert "fifty dollars" in said.text
    # the fee is spoken only after the cancellation: the window closes at the cancel call, so it
    # does not count
    said.text = "Before I cancel it, I need to let you know something."
    later = next(
        m for m in trace.messages if m.index > said.index and m.role == "candidate" and m.text
    )
    later.text = later.text + " The fee is fifty dollars."
    v = verdicts(starter, sid, trace)["fee_amount_stated_before_cancel"]
    assert v.r == 0.0


def test_hindi_amount_in_words(starter):
    sid = "bijli-meter-inspection-alternative-slot"
    trace = oracle_trace(starter, sid)
    v = verdicts(starter, sid, trace)["fee_amount_stated"]
    assert v.r == 1.0 and "तीन सौ रुपये" in trace.messages[v.evidence[0]].text
    trace.messages[v.evidence[0]].text = trace.messages[v.evidence[0]].text.replace(
        "तीन सौ", "चार सौ"
    )
    assert verdicts(starter, sid, trace)["fee_amount_stated"].r == 0.0


def test_gujarati_total_read_back(starter):
    sid = "dairy-estimate-asr-litres"
    trace = oracle_trace(starter, sid)
    assert verdicts(starter, sid, trace)["total_litres_read_back"].r == 1.0
    for m in trace.messages:
        if m.role == "candidate" and m.text and "સત્તર" in m.text:
            m.text = m.text.replace("સત્તર", "સાત")  # 7 litres: the wrong total
    assert verdicts(starter, sid, trace)["total_litres_read_back"].r == 0.0
