"""The declarative state backend: reads, preconditions, each effect kind, ids, failures, ledger,
replay."""

import asyncio
import json

import pytest

from callbench.backends import StateBackend, build_backend, replay
from callbench.call import CandidateStep
from callbench.call.trace import Trace, backend_events
from callbench.callers import LineCaller
from callbench.candidates import OracleCandidate, ScriptedCandidate, call
from callbench.runs import Attempt, run_attempt
from callbench.spec import StateBackendSpec
from tests.conftest import FIXTURES

ORDERS = {
    "orders": {
        "A-1": {"status": "placed", "total": 40, "owner": "sam", "secret": "x"},
        "A-2": {"status": "shipped", "total": 12.5, "owner": "jo", "secret": "y"},
    },
    "cases": [],
    "balance": 100,
    "log": [{"n": 1}, {"n": 2}],
}


def world(tools: dict, initial: dict | None = None, **extra) -> StateBackend:
    spec = StateBackendSpec.model_validate(
        {
            "kind": "state",
            "initial": ORDERS if initial is None else initial,
            "tools": tools,
            **extra,
        }
    )
    return StateBackend(spec, {"name": "Sam"})


# --- reads ----------------------------------------------------------------------------------------


def test_read_returns_a_projection_chosen_by_the_arguments():
    b = world(
        {
            "lookup": {
                "reads": {"order": {"path": "orders.{order_id}", "fields": ["status", "total"]}},
                "respond": {"status": "found"},
            }
        }
    )
    out = b.handle("lookup", {"order_id": "A-2"})
    assert out.result == {"status": "found", "order": {"status": "shipped", "total": 12.5}}
    assert out.source == "state" and "secret" not in json.dumps(out.result)
    assert b.ledger == []


def test_missing_read_is_not_found_and_optional_read_is_null():
    b = world(
        {
            "lookup": {"reads": {"order": "orders.{order_id}"}},
            "maybe": {"reads": {"order": {"path": "orders.{order_id}", "optional": True}}},
        }
    )
    out = b.handle("lookup", {"order_id": "Z-9"})
    assert (
        out.result == {"status": "not_found", "reason": "not_found", "read": "order"}
        and out.source == "not_found"
    )
    assert b.handle("maybe", {"order_id": "Z-9"}).result == {"status": "ok", "order": None}


def test_where_filters_objects_and_lists():
    b = world(
        {
            "mine": {
                "reads": {
                    "orders": {
                        "path": "orders",
                        "where": {"owner": {"eq": "{owner}"}},
                        "fields": ["status"],
                    }
                }
            },
            "big": {"reads": {"entries": {"path": "log", "where": {"n": {"range": {"min": 2}}}}}},
        }
    )
    assert b.handle("mine", {"owner": "jo"}).result["orders"] == {"A-2": {"status": "shipped"}}
    assert b.handle("big", {}).result["entries"] == [{"n": 2}]
    assert b.handle("mine", {"owner": "nobody"}).result["status"] == "not_found"


def test_reads_see_the_state_after_the_calls_own_effects():
    b = world(
        {
            "cancel": {
                "effects": [
                    {"op": "set", "path": "orders.{order_id}.status", "value": "cancelled"}
                ],
                "reads": {"status": "orders.{order_id}.status"},
            }
        }
    )
    assert b.handle("cancel", {"order_id": "A-1"}).result == {"status": "cancelled"}


def test_an_argument_is_always_one_segment():
    b = world(
        {"lookup": {"reads": {"order": "orders.{order_id}"}}}, initial={"orders": {"a": {"b": 1}}}
    )
    assert b.handle("lookup", {"order_id": "a.b"}).result["status"] == "not_found"
    bad = b.handle("lookup", {"order_id": {"x": 1}})
    assert bad.result == {
        "status": "refused",
        "reason": "invalid_argument",
        "argument": "order_id",
        "message": "order_id must be a non-empty string or an integer",
    }


# --- preconditions --------------------------------------------------------------------------------

CANCEL = {
    "preconditions": [
        {
            "name": "exists",
            "path": "orders.{order_id}",
            "match": {"present": True},
            "message": "no such order",
        },
        {"name": "not_shipped", "path": "orders.{order_id}.status", "match": {"eq": "placed"}},
    ],
    "effects": [{"op": "set", "path": "orders.{order_id}.status", "value": "cancelled"}],
    "respond": {"status": "cancelled"},
}


def test_failed_precondition_is_a_typed_refusal_and_changes_nothing():
    b = world({"cancel": CANCEL})
    out = b.handle("cancel", {"order_id": "A-2"})
    assert out.result == {
        "status": "refused",
        "reason": "precondition_failed",
        "precondition": "not_shipped",
    }
    assert (
        out.source == "refused"
        and b.ledger == []
        and b.state["orders"]["A-2"]["status"] == "shipped"
    )
    assert [r.ok for r in out.matcher_results] == [True, False]
    assert (
        out.matcher_results[1].path == "orders.A-2.status"
        and out.matcher_results[1].actual == "shipped"
    )
    missing = b.handle("cancel", {"order_id": "Z"})
    assert missing.result == {
        "status": "refused",
        "reason": "precondition_failed",
        "precondition": "exists",
        "message": "no such order",
    }


def test_checks_reported_under_one_name_do_not_tell_which_failed():
    """A verification service says "not verified", not "the ZIP was wrong": the agent must not learn
    which
    detail to change, or it could guess the details one at a time."""
    same = {"reported_as": "identity", "message": "the details do not match our records"}
    verify = {
        "preconditions": [
            {
                "name": "owner_matches",
                "path": "orders.{order_id}.owner",
                "match": {"eq": "{owner}"},
                **same,
            },
            {
                "name": "total_matches",
                "path": "orders.{order_id}.total",
                "match": {"eq": "{total}"},
                **same,
            },
        ],
        "respond": {"status": "verified"},
    }
    b = world({"verify": verify})
    wrong_owner = b.handle("verify", {"order_id": "A-1", "owner": "jo", "total": 40}).result
    wrong_total = b.handle("verify", {"order_id": "A-1", "owner": "sam", "total": 41}).result
    assert (
        wrong_owner
        == wrong_total
        == {
            "status": "refused",
            "reason": "precondition_failed",
            "precondition": "identity",
            "message": "the details do not match our records",
        }
    )
    assert b.handle("verify", {"order_id": "A-1", "owner": "sam", "total": 40}).result == {
        "status": "verified"
    }


def test_precondition_bounds_interpolate_arguments():
    b = world(
        {
            "refund": {
                "preconditions": [
                    {
                        "name": "within_total",
                        "path": "orders.{order_id}.total",
                        "at_least": "{amount}",
                    }
                ],
                "effects": [
                    {"op": "increment", "path": "balance", "by": "{amount}", "negate": True}
                ],
            }
        }
    )
    over = b.handle("refund", {"order_id": "A-1", "amount": 50})
    assert (
        over.result["precondition"] == "within_total"
        and over.matcher_results[0].reason == "not at_least 50"
    )
    ok = b.handle("refund", {"order_id": "A-1", "amount": 39.9})
    assert ok.result == {"status": "ok"} and b.state["balance"] == 60.1
    text = b.handle("refund", {"order_id": "A-1", "amount": "ten"})
    assert text.result["reason"] == "invalid_argument" and text.result["argument"] == "amount"


def test_missing_argument_is_refused_by_name():
    b = world({"cancel": CANCEL})
    assert b.handle("cancel", {}).result == {
        "status": "refused",
        "reason": "missing_argument",
        "argument": "order_id",
    }


# --- effects --------------------------------------------------------------------------------------


def test_each_effect_kind_and_its_ledger_entry():
    b = world(
        {
            "act": {
                "effects": [
                    {"op": "set", "path": "orders.{order_id}.note", "value": "call back {name}"},
                    {
                        "op": "merge",
                        "path": "orders.{order_id}",
                        "value": {"status": "held", "hold": True},
                    },
                    {"op": "append", "path": "cases", "value": {"order": "{order_id}", "n": "{n}"}},
                    {"op": "increment", "path": "balance", "by": "{n}"},
                    {"op": "increment", "path": "orders.{order_id}.total", "by": 0.1},
                    {"op": "delete", "path": "orders.{order_id}.secret"},
                    {"op": "set", "path": "log.0", "value": {"n": 0}},
                    {"op": "delete", "path": "log.-1"},
                ]
            }
        }
    )
    out = b.handle("act", {"order_id": "A-1", "name": "Sam", "n": 3})
    assert out.result == {"status": "ok"}
    assert b.state["orders"]["A-1"] == {
        "status": "held",
        "total": 40.1,
        "owner": "sam",
        "note": "call back Sam",
        "hold": True,
    }
    assert (
        b.state["cases"] == [{"order": "A-1", "n": 3}]
        and b.state["balance"] == 103
        and b.state["log"] == [{"n": 0}]
    )
    assert [(e["call_index"], e["tool"], e["op"], e["path"], e["value"]) for e in b.ledger] == [
        (0, "act", "set", "orders.A-1.note", "call back Sam"),
        (0, "act", "merge", "orders.A-1", {"status": "held", "hold": True}),
        (0, "act", "append", "cases", {"order": "A-1", "n": 3}),
        (0, "act", "increment", "balance", 3),
        (0, "act", "increment", "orders.A-1.total", 0.1),
        (0, "act", "delete", "orders.A-1.secret", None),
        (0, "act", "set", "log.0", {"n": 0}),
        (0, "act", "delete", "log.1", None),
    ]


def test_increment_is_exact_and_can_subtract_an_argument():
    b = world(
        {
            "pay": {
                "effects": [
                    {"op": "increment", "path": "balance", "by": "{amount}", "negate": True}
                ]
            }
        },
        initial={"balance": 0.3},
    )
    b.handle("pay", {"amount": 0.1})
    b.handle("pay", {"amount": 0.2})
    assert b.state["balance"] == 0.0 and [e["value"] for e in b.ledger] == [-0.1, -0.2]


@pytest.mark.parametrize(
    "effect",
    [
        {
            "op": "set",
            "path": "orders.Z.status",
            "value": 1,
        },  # parent missing: never invent an order
        {"op": "merge", "path": "balance", "value": {"a": 1}},  # not an object
        {"op": "append", "path": "orders", "value": 1},  # not a list
        {"op": "increment", "path": "orders.A-1.status"},  # not a number
        {"op": "delete", "path": "orders.A-1.nothing"},  # nothing there
        {"op": "set", "path": "log.7", "value": 1},  # index out of range
    ],
)
def test_an_effect_that_cannot_apply_fails_the_whole_call_atomically(effect):
    b = world(
        {
            "act": {
                "effects": [{"op": "set", "path": "orders.A-1.status", "value": "touched"}, effect]
            }
        }
    )
    before = json.dumps(b.state, sort_keys=True)
    out = b.handle("act", {})
    assert (
        out.source == "effect_failed"
        and out.result["status"] == "error"
        and out.result["reason"] == "effect_failed"
    )
    assert out.result["retryable"] is False
    assert json.dumps(b.state, sort_keys=True) == before and b.ledger == []


# --- ids ------------------------------------------------------------------------------------------


def test_ids_are_deterministic_per_prefix_shared_within_a_call_and_not_burnt_by_refusals():
    tool = {
        "preconditions": [{"name": "ok", "path": "orders.{order_id}", "match": {"present": True}}],
        "effects": [
            {
                "op": "set",
                "path": "tickets.{id:case}",
                "value": {"id": "{id:case}", "note": "{id:note}"},
            }
        ],
        "respond": {"status": "created", "case_id": "{id:case}"},
    }
    b = world(
        {"open": tool},
        initial={"orders": {"A-1": {}}, "tickets": {}},
        ids={"case": {"format": "CS-{n:04d}", "start": 7}},
    )
    assert b.handle("open", {"order_id": "A-1"}).result == {
        "status": "created",
        "case_id": "CS-0007",
    }
    assert b.handle("open", {"order_id": "nope"}).result["status"] == "refused"
    assert b.handle("open", {"order_id": "A-1"}).result["case_id"] == "CS-0008"
    assert b.state["tickets"]["CS-0007"] == {"id": "CS-0007", "note": "note_0001"}
    assert b.state["tickets"]["CS-0008"]["note"] == "note_0002"


# --- failures, odd calls
# ---------------------------------------------------------------------------


def test_injected_failures_by_call_number():
    b = world(
        {
            "cancel": {
                **CANCEL,
                "failures": [
                    {"on_call": 2, "kind": "timeout"},
                    {"on_call": 3, "kind": "outage", "retryable": False, "message": "down"},
                ],
            }
        }
    )
    assert (
        b.handle("cancel", {"order_id": "A-2"}).result["reason"] == "precondition_failed"
    )  # call 1
    second = b.handle("cancel", {"order_id": "A-1"})
    assert second.result == {
        "status": "error",
        "reason": "timeout",
        "retryable": True,
        "message": "the request timed out",
    }
    assert second.source == "injected_failure" and b.ledger == []
    assert b.handle("cancel", {"order_id": "A-1"}).result == {
        "status": "error",
        "reason": "outage",
        "retryable": False,
        "message": "down",
    }
    assert b.handle("cancel", {"order_id": "A-1"}).result == {"status": "cancelled"}  # call 4
    assert b.ledger[0]["call_index"] == 3


def test_a_failure_after_the_write_commits_it_and_loses_only_the_answer():
    b = world(
        {
            "pay": {
                "effects": [{"op": "increment", "path": "balance", "by": -10}],
                "failures": [{"on_call": 1, "kind": "timeout", "applied": True}],
            }
        }
    )
    assert b.handle("pay", {}).result["reason"] == "timeout"
    assert b.handle("pay", {}).result == {"status": "ok"}
    assert b.state["balance"] == 80 and [e["call_index"] for e in b.ledger] == [
        0,
        1,
    ]  # a blind retry paid twice


def test_a_lost_reply_hides_a_refusal_too():
    b = world(
        {"cancel": {**CANCEL, "failures": [{"on_call": 1, "kind": "outage", "applied": True}]}}
    )
    out = b.handle("cancel", {"order_id": "A-2"})
    assert out.result["reason"] == "outage" and out.source == "injected_failure"
    assert out.matcher_results[-1].path == "orders.A-2.status" and b.ledger == []


def test_unparsed_arguments_and_undeclared_tools_are_typed_errors_and_count_as_calls():
    b = world({"cancel": {**CANCEL, "failures": [{"on_call": 2, "kind": "error"}]}})
    bad = b.handle("cancel", None)
    assert bad.result["reason"] == "invalid_arguments" and bad.source == "invalid_arguments"
    assert (
        b.handle("cancel", {"order_id": "A-1"}).result["reason"] == "error"
    )  # the unparsed call was call 1
    assert b.handle("teleport", {}).result == {
        "status": "error",
        "reason": "unsupported",
        "retryable": False,
        "message": "teleport is not available",
    }
    assert b.calls == 3


def test_templates_resolve_in_initial_paths_and_values():
    spec = StateBackendSpec.model_validate(
        {
            "kind": "state",
            "hidden": {"acct": "AC-9", "limit": 250},
            "initial": {
                "accounts": {
                    "${hidden.acct}": {"limit": "${hidden.limit}", "holder": "${caller.knows.name}"}
                }
            },
            "tools": {
                "raise": {
                    "effects": [
                        {"op": "set", "path": "accounts.${hidden.acct}.limit", "value": "{limit}"}
                    ],
                    "respond": {"status": "ok", "holder": "${caller.knows.name}"},
                }
            },
        }
    )
    b = build_backend(spec, {"name": "Sam"})
    assert isinstance(b, StateBackend) and b.state == {
        "accounts": {"AC-9": {"limit": 250, "holder": "Sam"}}
    }
    assert asyncio.run(b.call("raise", {"limit": 500})).result == {"status": "ok", "holder": "Sam"}
    assert b.state["accounts"]["AC-9"]["limit"] == 500


def test_answers_never_alias_the_state():
    b = world({"lookup": {"reads": {"order": "orders.{order_id}"}}})
    out = b.handle("lookup", {"order_id": "A-1"})
    out.result["order"]["status"] = "mutated"
    assert b.state["orders"]["A-1"]["status"] == "placed"


# --- episode, trace, replay
# ------------------------------------------------------------------------


def state_suite():
    from callbench.suite_check import load_suite

    return load_suite(FIXTURES / "state-mini")


def run_oracle(suite, scenario_id="cancel-order") -> Trace:
    scenario = suite.scenarios[scenario_id]
    return asyncio.run(
        run_attempt(
            suite,
            Attempt("oracle", scenario_id, 0),
            3,
            candidate=OracleCandidate(scenario),
            caller=LineCaller(),
        )
    )


def test_the_episode_records_the_world_in_the_trace(mini_suite):
    trace = run_oracle(state_suite())
    world_ = trace.world
    assert (
        world_ is not None
        and world_.kind == "state"
        and world_.calls == len(backend_events(trace)) == 5
    )
    assert world_.final_state["orders"]["A-1042"]["status"] == "cancelled"
    assert [(e.call_index, e.tool, e.op, e.path) for e in world_.ledger] == [
        (0, "verify_identity", "set", "session.verified"),
        (2, "cancel_order", "set", "orders.A-1042.status"),
        (2, "cancel_order", "set", "orders.A-1042.cancel_reason"),
        (3, "create_case", "append", "cases"),
    ]
    assert trace.tool_events[1].response_source == "injected_failure"
    # a queue world has no state to record
    queue_trace = asyncio.run(
        run_attempt(
            mini_suite,
            Attempt("x", "reschedule", 0),
            0,
            candidate=ScriptedCandidate([CandidateStep(speech="Hi")]),
            caller=LineCaller(hang_up_after=1),
        )
    )
    assert queue_trace.world is None


def test_replay_reproduces_a_stored_trace_and_names_any_difference(tmp_path):
    suite = state_suite()
    scenario = suite.scenarios["cancel-order"]
    trace = run_oracle(suite)
    path = tmp_path / "t.json"
    path.write_text(trace.to_json(), encoding="utf-8")
    from callbench.call.trace import read_trace

    stored = read_trace(path)
    report = replay(stored, scenario.backend, scenario.caller.knows)
    assert report.ok and report.calls == 5, report.mismatches

    tampered = stored.model_copy(deep=True)
    tampered.tool_events[2].result = {"status": "cancelled", "refund": 999}
    tampered.world.final_state["orders"]["A-1042"]["status"] = "placed"
    report = replay(tampered, scenario.backend, scenario.caller.knows)
    assert not report.ok
    assert any(
        m.startswith(f"call 2 (cancel_order at #{tampered.tool_events[2].index})") and "999" in m
        for m in report.mismatches
    )
    assert "the final state differs" in report.mismatches

    other = scenario.backend.model_copy(update={"hidden": {**scenario.backend.hidden, "total": 1}})
    assert (
        "the initial state differs from the one the trace was recorded with"
        in replay(stored, other, scenario.caller.knows).mismatches
    )


def test_same_calls_same_world_byte_for_byte():
    suite = state_suite()
    a, b = run_oracle(suite), run_oracle(suite)
    assert a.without_timings() == b.without_timings()
    assert a.world.final_sha256 == b.world.final_sha256


def test_unknown_and_over_limit_calls_never_reach_the_backend():
    suite = state_suite()
    steps = [
        CandidateStep(
            speech="Checking.",
            tool_calls=(
                call("nope"),
                call("verify_identity", order_id="A-1042", postcode="SW1A 1AA"),
            ),
        )
    ]
    trace = asyncio.run(
        run_attempt(
            suite,
            Attempt("x", "cancel-order", 0),
            0,
            candidate=ScriptedCandidate(steps),
            caller=LineCaller(hang_up_after=1),
        )
    )
    assert [e.name for e in backend_events(trace)] == ["verify_identity"]
    assert trace.world.calls == 1 and trace.world.ledger[0].call_index == 0
    assert replay(
        trace, suite.scenarios["cancel-order"].backend, suite.scenarios["cancel-order"].caller.knows
    ).ok


def test_arguments_that_break_the_tool_schema_are_refused_before_touching_the_world():
    import asyncio

    from callbench.backends.state import StateBackend
    from callbench.spec.state import StateBackendSpec

    spec = StateBackendSpec.model_validate(
        {
            "kind": "state",
            "initial": {"points": 10},
            "tools": {
                "add_points": {"effects": [{"op": "increment", "path": "points", "by": "{points}"}]}
            },
        }
    )
    schema = {
        "type": "object",
        "properties": {"points": {"type": "integer", "minimum": 1}},
        "required": ["points"],
    }
    backend = StateBackend(spec, {}, {"add_points": schema})
    refused = asyncio.run(backend.call("add_points", {"points": -48213}))
    assert (
        refused.result["reason"] == "invalid_arguments" and "points" in refused.result["errors"][0]
    )
    assert backend.state == {"points": 10} and backend.ledger == []
    ok = asyncio.run(backend.call("add_points", {"points": 5}))
    assert ok.result == {"status": "ok"} and backend.state == {"points": 15}


# --- tools shared by an agent's scenarios ---------------------------------------------------------


def _share_tools(tmp_path, broken: bool = False):
    """state-mini with cancel-order's tools moved into the agent's `state_tools` (the other
    scenarios keep
    their own, which replace the shared ones by name)."""
    import shutil

    import yaml

    root = tmp_path / "state-mini"
    shutil.copytree(FIXTURES / "state-mini", root)
    scenario_file = root / "scenarios/order-desk/cancel-order.yaml"
    scenario = yaml.safe_load(scenario_file.read_text())
    tools = scenario["backend"].pop("tools")
    if broken:  # a broken shared lookup_order, inherited by cancel-order and (below) cancel-shipped
        tools["lookup_order"]["reads"] = {"order": "orders.{no_such_argument}"}
        other_file = root / "scenarios/order-desk/cancel-shipped.yaml"
        other = yaml.safe_load(other_file.read_text())
        del other["backend"]["tools"]["lookup_order"]
        other_file.write_text(yaml.safe_dump(other, allow_unicode=True, sort_keys=False))
    scenario_file.write_text(yaml.safe_dump(scenario, allow_unicode=True, sort_keys=False))
    agent_file = root / "agents/order-desk/agent.yaml"
    agent = yaml.safe_load(agent_file.read_text())
    agent["state_tools"] = tools
    agent_file.write_text(yaml.safe_dump(agent, allow_unicode=True, sort_keys=False))
    return root, tools


def test_a_scenario_inherits_its_agents_state_tools(tmp_path):
    from callbench.suite_check import load_suite

    root, tools = _share_tools(tmp_path)
    shared, original = load_suite(root), load_suite(FIXTURES / "state-mini")
    assert (
        shared.scenarios["cancel-order"].backend.tools
        == original.scenarios["cancel-order"].backend.tools
    )
    assert (
        shared.scenarios["change-address"].backend.tools
        == original.scenarios["change-address"].backend.tools
    )  # its own win
    scenario = shared.scenarios["cancel-order"]
    trace = asyncio.run(
        run_attempt(
            shared,
            Attempt("oracle", "cancel-order", 0),
            0,
            candidate=OracleCandidate(scenario),
            caller=LineCaller(),
        )
    )
    assert trace.world is not None and trace.world.ledger and trace.end.reason == "end_tool"


def test_a_broken_shared_tool_is_reported_in_the_agent_file(tmp_path):
    from callbench.errors import SuiteError
    from callbench.suite_check import load_suite

    root, _ = _share_tools(tmp_path, broken=True)
    with pytest.raises(SuiteError) as info:
        load_suite(root)
    text = str(info.value)
    assert "agents/order-desk/agent.yaml" in text and "state_tools.lookup_order.reads" in text
    assert (
        text.count("state_tools.lookup_order.reads") == 1
        and "(in scenarios cancel-order, cancel-shipped)" in text
    )
    assert "scenarios/order-desk/cancel-order.yaml: backend.tools" not in text


def test_date_references_count_days_from_the_call():
    """A medical-certificate hold runs thirty days from the call: the world computes it, the agent
    need not."""
    import datetime as dt

    tools = {
        "hold": {
            "effects": [{"op": "set", "path": "holds.{order_id}", "value": "{date:+30}"}],
            "respond": {
                "status": "held",
                "until": "{date:+30}",
                "from": "{date:0}",
                "note": "until {date:+30}",
                "asked": "{date}",
            },
        }
    }  # a bare {date} is the argument named date
    spec = StateBackendSpec.model_validate(
        {"kind": "state", "initial": {"holds": {}}, "tools": tools}
    )
    b = StateBackend(spec, {}, today=dt.date(2026, 12, 10))
    out = b.handle("hold", {"order_id": "A-1", "date": "next week"})
    assert out.result == {
        "status": "held",
        "until": "2027-01-09",
        "from": "2026-12-10",
        "note": "until 2027-01-09",
        "asked": "next week",
    }
    assert b.state["holds"] == {"A-1": "2027-01-09"}
    no_date = StateBackend(spec, {}).handle("hold", {"order_id": "A-1", "date": "x"})
    assert no_date.result["status"] == "error" and "call's date" in no_date.result["message"]


def test_validation_takes_date_references_as_known():
    from callbench.spec.state_validation import placeholders_ok

    found = []
    assert placeholders_ok(
        {"until": "{date:+30}", "on": "{date:0}"}, ("x",), {"order_id"}, lambda *a: found.append(a)
    )
    assert not placeholders_ok(
        {"on": "{date}"}, ("x",), {"order_id"}, lambda *a: found.append(a)
    )  # an argument
    found.clear()
    assert not placeholders_ok(
        {"until": "{date:+3O}"}, ("x",), {"order_id"}, lambda *a: found.append(a)
    )
    assert found and "'{date:+3O}' is not a parameter" in found[0][1]


def test_an_increment_can_stop_at_a_floor_and_the_ledger_records_what_was_applied():
    pay = {
        "effects": [
            {"op": "increment", "path": "past_due", "by": "{amount}", "negate": True, "floor": 0},
            {"op": "increment", "path": "balance", "by": "{amount}", "negate": True},
        ],
        "respond": {"status": "paid"},
    }
    spec = StateBackendSpec.model_validate(
        {"kind": "state", "initial": {"past_due": 40.25, "balance": 120.5}, "tools": {"pay": pay}}
    )
    b = StateBackend(spec, {})
    assert b.handle("pay", {"amount": 60}).result == {"status": "paid"}
    assert b.state == {"past_due": 0, "balance": 60.5}
    assert [(w["path"], w["value"]) for w in b.ledger] == [("past_due", -40.25), ("balance", -60)]
    capped = StateBackendSpec.model_validate(
        {
            "kind": "state",
            "initial": {"points": 90},
            "tools": {
                "add": {
                    "effects": [{"op": "increment", "path": "points", "by": "{n}", "ceiling": 100}]
                }
            },
        }
    )
    c = StateBackend(capped, {})
    c.handle("add", {"n": 25})
    assert c.state["points"] == 100 and c.ledger[-1]["value"] == 10
