"""Fault injection: every failure class is attributed correctly, nothing is lost or half-saved,
coverage is honest."""

import json

import pytest

from callbench.call import read_trace
from callbench.models.base import ModelSettings
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import load_suite
from callbench.testing import FakeProvider

FAST = ModelSettings(max_retries=1, backoff_base_s=0.001, backoff_max_s=0.002, timeout_s=0.5)
SCENARIOS = ("clinic-book-slot-taken", "dairy-zero-supply-mastitis")


@pytest.fixture(scope="module")
def starter():
    return load_suite("starter")


def sweep(starter, fp, out, scenarios=SCENARIOS, concurrency=4):
    name = f"openai-compatible:{fp.base_url}#m"
    config = RunConfig(
        candidates=(name,),
        scenarios=scenarios,
        infra_reruns=1,
        concurrency=concurrency,
        candidate_options={"settings": FAST},
    )
    result = run_suite(starter, config, out)
    return name, result


def assert_whole(out, expected_calls):
    traces = sorted((out / "traces").rglob("*.json"))
    cards = sorted((out / "scorecards").rglob("*.json"))
    assert len(traces) == len(cards) == expected_calls
    assert not list(out.rglob("*.tmp"))
    for t in traces:
        read_trace(t)
    for c in cards:
        json.loads(c.read_text())


@pytest.mark.parametrize(
    "fault,kind,requests_per_call",
    [
        ("rate_limit", "RateLimited", 4),
        ("server_error", "ProviderServerError", 4),
        ("unavailable", "ProviderServerError", 4),
        ("reset", "ProviderTransportError", 4),
        ("slow", "ProviderTimeout", 4),
        ("malformed_json", "MalformedResponse", 4),
        ("empty_choices", "EmptyResponse", 4),
        ("auth", "ProviderAuthError", 1),
    ],
)
def test_infrastructure_faults_are_excluded_and_counted(
    starter, tmp_path, fault, kind, requests_per_call
):
    with FakeProvider(lambda body: {"fault": fault, "delay": 1.0}) as fp:
        name, result = sweep(starter, fp, tmp_path / "r")
        # each call: 1 request + 1 retry, and the whole call is rerun once (not for auth: no rerun
        # can fix a key)
        assert len(fp.requests) == requests_per_call * len(SCENARIOS)
    row = result.report["candidates"][name]
    assert (
        row["attempted"] == 2
        and row["completed"] == 0
        and row["coverage"] == 0.0
        and not row["measured"]
    )
    assert row["excluded"] == {kind: 2} and row["task"] is None
    for card in result.scorecards:
        assert (
            card.outcome == "excluded"
            and card.failure.failure_class == "infrastructure"
            and card.failure.kind == kind
        )
        assert card.reruns == (0 if fault == "auth" else 1)
    assert_whole(tmp_path / "r", 2)


@pytest.mark.parametrize("fault", ["bad_arguments", "unknown_tool"])
def test_model_faults_are_scored_not_excluded(starter, tmp_path, fault):
    with FakeProvider(lambda body: {"fault": fault}) as fp:
        name, result = sweep(starter, fp, tmp_path / "r")
    row = result.report["candidates"][name]
    assert row["completed"] == 2 and row["coverage"] == 1.0 and row["excluded"] == {}
    for path in (tmp_path / "r" / "traces").rglob("*.json"):
        trace = read_trace(path)
        assert trace.outcome == "completed" and trace.tool_events
        if fault == "bad_arguments":
            assert all(e.parse_error for e in trace.tool_events)
        else:
            assert all(
                not e.known_tool and e.response_source in ("unknown_tool", "limit")
                for e in trace.tool_events
            )
            # a model that loops on a tool hits the per-turn chain limit, recorded as such
            assert any(e.response_source == "limit" for e in trace.tool_events)
    assert row["task"] < 30


def test_mixed_sweep_known_rates(starter, tmp_path):
    """Per agent: clinic always 503 (excluded), card unparseable tool calls, bijli unknown tools,
    dairy answers;
    on top, every 5th request fails once with a 429 and is absorbed by a retry."""
    instructions = {aid: a.instructions for aid, a in starter.agents.items()}

    def responder(body):
        system = body["messages"][0]["content"]
        agent = next(aid for aid, text in instructions.items() if system.startswith(text))
        return {
            "clinic-appointments": {"fault": "unavailable"},
            "card-services": {"fault": "bad_arguments"},
            "bijli-helpline": {"fault": "unknown_tool"},
        }.get(agent, "Hello, one moment please.")

    plan_faults = lambda n: {"fault": "rate_limit", "retry_after": 0} if n % 5 == 4 else None  # noqa: E731
    with FakeProvider(responder, fault_plan=plan_faults) as fp:
        # one call at a time, so request numbers (and so the injected faults) are deterministic
        name, result = sweep(
            starter, fp, tmp_path / "r", scenarios=tuple(starter.scenarios), concurrency=1
        )
        served = list(fp.faults_served)
        total = len(fp.requests)
    row = result.report["candidates"][name]
    assert row["attempted"] == 16 and row["completed"] == 12 and sum(row["excluded"].values()) == 4
    # a clinic call's last failure may be the injected 429 that landed on its final retry: still
    # infrastructure
    assert (
        set(row["excluded"]) <= {"ProviderServerError", "RateLimited"}
        and row["excluded"].get("ProviderServerError", 0) >= 3
    )
    assert row["coverage"] == 0.75 and not row["measured"]
    # every 5th request got a 429 and every one was absorbed by a retry: the rate is exact
    assert served.count("rate_limit") == total // 5 and served.count("rate_limit") > 5
    by_agent = {}
    for card in result.scorecards:
        if card.outcome == "excluded":
            assert card.failure.failure_class == "infrastructure" and card.reruns == 1
        by_agent.setdefault(card.agent_id, set()).add(card.outcome)
    assert by_agent == {
        "clinic-appointments": {"excluded"},
        "card-services": {"completed"},
        "bijli-helpline": {"completed"},
        "dairy-coop-evening": {"completed"},
    }
    assert_whole(tmp_path / "r", 16)


def test_api_key_never_written_anywhere(starter, tmp_path, monkeypatch):
    secret = "sk-callbench-test-7f3a9c1e5b2d4f60"
    monkeypatch.setenv("CALLBENCH_TEST_KEY", secret)
    with FakeProvider(
        lambda body: {"fault": "auth"} if "never" in str(body) else "Hello.", api_key=secret
    ) as fp:
        name = f"openai-compatible:{fp.base_url}#m"
        config = RunConfig(
            candidates=(name,),
            scenarios=SCENARIOS,
            candidate_options={"api_key_env": "CALLBENCH_TEST_KEY", "settings": FAST},
        )
        run_suite(starter, config, tmp_path / "ok")
        assert fp.headers[0]["authorization"] == f"Bearer {secret}"
    with FakeProvider(
        api_key="a-different-key"
    ) as fp:  # auth failures, whose messages must not echo the key either
        name = f"openai-compatible:{fp.base_url}#m"
        config = RunConfig(
            candidates=(name,),
            scenarios=SCENARIOS,
            candidate_options={"api_key_env": "CALLBENCH_TEST_KEY", "settings": FAST},
        )
        run_suite(starter, config, tmp_path / "denied")
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) > 8
    for path in files:
        assert secret not in path.read_text(encoding="utf-8", errors="replace"), path


def test_missing_key_fails_fast_with_the_variable_name(starter, tmp_path, monkeypatch):
    from callbench.candidates import UnknownCandidate

    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    config = RunConfig(
        candidates=("openai-compatible:http://127.0.0.1:9/v1#m",),
        scenarios=SCENARIOS,
        candidate_options={"api_key_env": "NO_SUCH_KEY_VAR"},
    )
    with pytest.raises(UnknownCandidate, match="NO_SUCH_KEY_VAR is not set"):
        run_suite(starter, config, tmp_path / "r")
    assert not (tmp_path / "r").exists()
