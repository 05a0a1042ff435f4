"""Opening a services-backend call copies a template that already holds the ledger's triggers:
no DDL per call, every domain table still watched, calls still isolated, the domain's own snapshot
untouched."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from callbench.backends import service
from callbench.backends.service import ServiceBackend, database_digest
from callbench.spec import ServiceBackendSpec

ACCOUNT = "3287895358"
VERIFY = {"account_number": ACCOUNT, "full_name": "Hiroshi Nakamura", "postal_code": "15228"}
EMAIL = "h.nakamura@example.org"


def open_call() -> ServiceBackend:
    spec = ServiceBackendSpec(
        kind="service", domain="utility_billing", options={"account": ACCOUNT}
    )
    return ServiceBackend(spec, {})


def ok(backend: ServiceBackend, name: str, **arguments: Any) -> dict[str, Any]:
    outcome = backend.handle(name, arguments)
    assert outcome.source == "service", outcome.result
    return outcome.result


def test_opening_a_call_creates_no_schema(monkeypatch):
    open_call().close()  # the template is built once per process, before this count
    statements: list[str] = []
    real_copy = service.copy_snapshot

    def watched(source: dict[str, sqlite3.Connection]) -> dict[str, sqlite3.Connection]:
        out = real_copy(source)
        for conn in out.values():
            conn.set_trace_callback(statements.append)
        return out

    monkeypatch.setattr(service, "copy_snapshot", watched)
    backend = open_call()
    ok(backend, "verify_caller", **VERIFY)
    backend.close()
    assert statements, "the trace callback saw nothing: the test watches the wrong connections"
    assert not [s for s in statements if s.lstrip().upper().startswith(("CREATE", "PRAGMA"))]


def test_every_domain_table_is_watched_on_insert_update_and_delete():
    backend = open_call()
    for db, conn in backend.databases.items():
        tables = {t for (d, t) in backend.keys if d == db}
        assert tables, db
        triggers = {
            name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")
        }
        assert triggers == {
            f"_cb_{op}_{t}" for t in tables for op in ("insert", "update", "delete")
        }
    backend.close()


def test_two_calls_on_one_account_see_nothing_of_each_other():
    first, second = open_call(), open_call()
    for b in (first, second):
        ok(b, "verify_caller", **VERIFY)
    ok(first, "set_paperless_billing", enabled=True, confirmed_email=EMAIL)
    paid = ok(first, "make_payment", amount=40.0, card_last4="6036")
    assert second.snapshot()["ledger"] == []
    assert ok(second, "get_account")["account"]["paperless_billing"] is False
    again = ok(second, "make_payment", amount=40.0, card_last4="6036")
    assert again["payment_id"] == paid["payment_id"]  # the same next id: separate databases
    assert again["new_balance"] == paid["new_balance"]
    ledger = first.snapshot()["ledger"]
    assert {w["tool"] for w in ledger} == {"set_paperless_billing", "make_payment"}
    assert [w["tool"] for w in second.snapshot()["ledger"]] == ["make_payment"] * len(
        [w for w in ledger if w["tool"] == "make_payment"]
    )
    assert any(
        w["op"] == "set" and w["path"].endswith(".paperless") and w["value"] == 1 for w in ledger
    ), ledger
    first.close()
    second.close()


def test_a_refused_call_leaves_no_write_and_the_snapshot_stays_pristine():
    domain = service.domain("utility_billing")
    before = database_digest(domain.snapshot())
    backend = open_call()
    ok(backend, "verify_caller", **VERIFY)
    refused = backend.handle("set_paperless_billing", {"enabled": True, "confirmed_email": "x@y"})
    assert refused.source == "refused"
    assert backend.snapshot()["ledger"] == []
    ok(backend, "make_payment", amount=10.0, card_last4="6036")
    assert backend.snapshot()["ledger"]
    assert backend.snapshot()["initial_sha256"] == before
    backend.close()
    assert database_digest(domain.snapshot()) == before
    for conn in domain.snapshot().values():  # the domain's snapshot carries no ledger machinery
        assert not conn.execute(
            "SELECT name FROM sqlite_master WHERE type='trigger' OR name LIKE '_callbench%'"
        ).fetchall()


def test_a_later_call_starts_from_the_seed_after_a_closed_one():
    first = open_call()
    ok(first, "verify_caller", **VERIFY)
    ok(first, "make_payment", amount=40.0, card_last4="6036")
    balance_after = ok(first, "get_account")["account"]["balance"]
    first.close()
    second = open_call()
    ok(second, "verify_caller", **VERIFY)
    assert ok(second, "get_account")["account"]["balance"] == pytest.approx(balance_after + 40.0)
    assert second.snapshot()["ledger"] == []
    second.close()


def test_a_type_error_inside_a_tool_is_callbench_s_bug_and_is_not_blamed_on_the_model(
    monkeypatch,
):
    """An argument a tool does not take is refused as the model's error; a TypeError raised inside
    a tool is a bug in callbench and crashes the call with its traceback."""
    from callbench.backends.utility.tools import UtilitySession

    backend = ServiceBackend(
        ServiceBackendSpec(kind="service", domain="utility_billing", options={}), {}
    )
    backend.session.account = backend.session.about or "7341475610"
    refused = backend.handle("get_supplier_info", {"account_number": "7341475610"})
    assert refused.result["reason"] == "invalid_arguments"

    def broken(self):
        raise TypeError("a bug inside the tool")

    monkeypatch.setattr(UtilitySession, "tool_get_supplier_info", broken)
    with pytest.raises(TypeError, match="a bug inside the tool"):
        backend.handle("get_supplier_info", {})
