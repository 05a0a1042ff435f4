import json

import pytest

from callbench.call import TRACE_SCHEMA_VERSION, read_trace
from callbench.errors import TraceError
from callbench.runs import RunConfig, run_suite


def test_trace_round_trips_and_refuses_other_versions(mini_suite, tmp_path):
    run_suite(mini_suite, RunConfig(candidates=("oracle",)), tmp_path / "r")
    path = tmp_path / "r/traces/oracle/reschedule/r0.json"
    trace = read_trace(path)
    assert trace.schema_version == TRACE_SCHEMA_VERSION
    assert json.loads(trace.to_json()) == json.loads(path.read_text())
    # intended text is kept in the trace even where the candidate saw fragments
    turn = next(t for t in trace.caller_turns if len(t.observed) > 1)
    assert turn.intended == "It's SP-0412." and turn.observed == ["It's SP-04", "12."]
    assert [trace.messages[i].text for i in turn.message_indices] == turn.observed

    data = json.loads(path.read_text())
    data["schema_version"] = 99
    (tmp_path / "v99.json").write_text(json.dumps(data))
    with pytest.raises(TraceError, match="schema_version 99 is not supported"):
        read_trace(tmp_path / "v99.json")
    data["schema_version"] = TRACE_SCHEMA_VERSION
    data["messages"][0]["role"] = "narrator"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(TraceError, match="messages.0.role"):
        read_trace(tmp_path / "bad.json")
    with pytest.raises(TraceError, match="file not found"):
        read_trace(tmp_path / "missing.json")


def test_public_api_is_lazy_and_complete():
    import callbench

    for name in callbench.__all__:
        assert getattr(callbench, name) is not None
    with pytest.raises(AttributeError):
        callbench.nope  # noqa: B018
