"""The utility's billing service and loan engine behind the services backend: every call on its
own copy of the seeded snapshot at a frozen clock, verification before any account tool, the
services' own rules, savepoint rollback of a refused call, the write ledger, replay from a trace
and the seed's consistency check. Accounts are named by their `case:` number in accounts.yaml."""

import datetime as dt
import json
from functools import cache
from importlib import resources

import pytest
import yaml

from callbench.backends.service import ServiceBackend, copy_snapshot, domain, replay
from callbench.backends.utility import policy, seed
from callbench.backends.utility.billing import ServiceRule
from callbench.call.trace import SuiteRef, ToolEvent, Trace, WorldRecord
from callbench.spec import ServiceBackendSpec

CASES = {int(a["case"].split(":")[0]): a for a in seed.manifest()["accounts"]}
CURRENT, BILLS_2_3_UNPAID_150 = 1, 5
ARREARS_4999, ARREARS_5000, BROKEN_RECENT, BROKEN_12_AGO = 9, 10, 11, 13
ACTIVE_ALL_PAID, OVERDUE_INSTALMENT, TRANSFER_60, NOT_TRANSFER_59 = 14, 15, 17, 18
DECLINING, EXT_RECENT, EXT_12_AGO = 21, 22, 23


@cache
def schemas() -> dict:
    text = resources.files("callbench.generate.utility").joinpath("tools.yaml").read_text()
    return {t["name"]: t["parameters"] for t in yaml.safe_load(text)}


def acct(case: int) -> str:
    return str(CASES[case]["account_number"])


def spec(case: int, clock: dt.datetime | None = None) -> ServiceBackendSpec:
    return ServiceBackendSpec(
        kind="service", domain="utility_billing", options={"account": acct(case)}, clock=clock
    )


def world(case: int, verified=True, clock=None, schemas_on=True) -> ServiceBackend:
    backend = ServiceBackend(spec(case, clock), {}, schemas() if schemas_on else None)
    if verified:
        assert call(backend, "verify_caller", **identity(case))["status"] == "verified"
    return backend


def identity(case: int, **override) -> dict:
    a = CASES[case]
    mine = {"account_number": acct(case), "full_name": a["full_name"]}
    return mine | {"postal_code": str(a["postal_code"])} | override


def call(backend: ServiceBackend, name: str, **args) -> dict:
    return backend.handle(name, args).result


def answer(backend: ServiceBackend, name: str, **args) -> str:
    """A refusal's reason, else the status (not for transfer_to_human, whose answer echoes its
    `reason` argument)."""
    out = call(backend, name, **args)
    return str(out.get("reason", out["status"]))


def card(case: int) -> str:
    return str(CASES[case]["cards"][0]["last4"])


def balance(backend) -> float:
    return call(backend, "get_account")["account"]["balance"]


# --- snapshot isolation and the frozen clock ------------------------------------------------------
def test_two_calls_on_one_account_see_nothing_of_each_other():
    one, two = world(CURRENT), world(CURRENT)
    seeded = balance(one)
    paid_one = call(one, "make_payment", amount=10.00, card_last4=card(CURRENT))
    paid_two = call(two, "make_payment", amount=20.00, card_last4=card(CURRENT))
    own = [round(seeded - 10, 2), round(seeded - 20, 2)]
    assert [paid_one["new_balance"], paid_two["new_balance"]] == own
    # the same id in both worlds: neither saw the other's row
    assert paid_one["payment_id"] == paid_two["payment_id"]
    email = CASES[CURRENT]["email"]
    assert answer(one, "set_paperless_billing", enabled=True, confirmed_email=email) == "updated"
    assert [balance(one), balance(two)] == own
    snap_one, snap_two = one.snapshot(), two.snapshot()
    assert [w["value"]["amount_cents"] for w in snap_one["ledger"] if w["op"] == "append"] == [1000]
    assert [w["value"]["amount_cents"] for w in snap_two["ledger"] if w["op"] == "append"] == [2000]
    assert not any("paperless" in w["path"] for w in snap_two["ledger"])
    customers = [s["final_state"]["billing"]["customers"] for s in (snap_one, snap_two)]
    assert [c[acct(CURRENT)]["paperless"] for c in customers] == [1, 0]
    assert snap_one["final_sha256"] != snap_two["final_sha256"]

    fresh = world(CURRENT)
    assert balance(fresh) == seeded
    assert call(fresh, "get_account")["account"]["paperless_billing"] is False
    assert paid_one["payment_id"] not in str(call(fresh, "get_payment_history"))
    assert fresh.snapshot()["ledger"] == []
    assert snap_one["initial_sha256"] == two.initial_sha256 == fresh.snapshot()["initial_sha256"]
    # the shared snapshot itself is untouched
    source = domain("utility_billing").snapshot()["billing"]
    mine = "SELECT COUNT(*) FROM payments WHERE payment_id = ?", (paid_one["payment_id"],)
    assert source.execute(*mine).fetchone() == (0,)


SEPT_20 = dt.datetime(2026, 9, 20, 12, tzinfo=dt.UTC)


@pytest.mark.parametrize(("clock", "today"), [(None, "2026-09-10"), (SEPT_20, "2026-09-20")])
def test_every_write_is_stamped_with_the_frozen_clock(clock, today):
    day = dt.date.fromisoformat(today)
    paid = world(CURRENT, clock=clock)
    payment = call(paid, "make_payment", amount=5, card_last4=card(CURRENT))
    history = call(paid, "get_payment_history")["payments"]
    assert [p["paid_on"] for p in history if p["payment_id"] == payment["payment_id"]] == [today]

    ext = world(EXT_12_AGO, clock=clock)
    assert call(ext, "request_due_date_extension", days=5)["status"] == "extended"
    (row,) = [w["value"] for w in ext.ledger if w["path"] == "billing.extensions"]
    assert row["granted_on"] == today
    assert call(ext, "get_account")["account"]["last_due_date_extension"] == today

    loan = world(BILLS_2_3_UNPAID_150, clock=clock)
    quote = call(loan, "quote_payment_arrangement", months=6)
    made = call(loan, "create_payment_arrangement", quote_id=quote["quote_id"])
    first_due = policy.months_before(day, -1).isoformat()
    assert made["first_instalment_due"] == first_due
    (row,) = [w["value"] for w in loan.ledger if w["path"] == "loans.loans"]
    assert row["start_date"] == first_due


def test_the_run_date_the_backend_is_handed_is_not_its_clock():
    """build_backend passes the run's date; the services keep the snapshot's frozen clock."""
    backend = ServiceBackend(spec(CURRENT), {}, schemas(), today=dt.date(2030, 1, 2))
    call(backend, "verify_caller", **identity(CURRENT))
    call(backend, "make_payment", amount=1, card_last4=card(CURRENT))
    assert backend.ledger[0]["value"]["paid_on"] == "2026-09-10"


def test_the_clock_moves_the_transfer_boundary():
    """59 days past due at the snapshot; a day later the same account needs a person."""
    assert call(world(NOT_TRANSFER_59), "get_account")["account"]["days_past_due"] == 59
    later = world(NOT_TRANSFER_59, clock=dt.datetime(2026, 9, 11, tzinfo=dt.UTC))
    assert call(later, "get_account")["account"]["days_past_due"] == 60
    assert call(later, "quote_payment_arrangement", months=3)["reason"] == "needs_a_person"


# --- verification ---------------------------------------------------------------------------------
def test_every_account_tool_refuses_before_verification():
    """Each of the fourteen account tools, called with arguments its schema accepts."""
    sample = {"string": "3337", "integer": 3, "number": 1.0, "boolean": False}
    tools = {
        n: {k: sample[s["properties"][k]["type"]] for k in s.get("required", [])}
        for n, s in schemas().items()
        if n not in {"verify_caller", "transfer_to_human", "end_call"}
    }
    assert len(tools) == 14
    backend = world(CURRENT, verified=False)
    for name, args in tools.items():
        out = backend.handle(name, args)
        assert out.source == "refused" and out.result["reason"] == "not_verified", name
    assert backend.ledger == [] and backend.calls == len(tools)
    transferred = {"status": "transferred", "reason": "wants a person"}
    assert call(backend, "transfer_to_human", reason="wants a person") == transferred


def test_failures_never_say_which_detail_and_three_lock():
    backend = world(BILLS_2_3_UNPAID_150, verified=False)
    wrong = [
        identity(BILLS_2_3_UNPAID_150, account_number=acct(CURRENT)),
        identity(BILLS_2_3_UNPAID_150, full_name="Priya Raghunathan"),
        identity(BILLS_2_3_UNPAID_150, postal_code="15213"),
    ]
    answers = [call(backend, "verify_caller", **args) for args in wrong]
    assert [a.pop("attempts_remaining") for a in answers] == [2, 1, 0]
    assert answers[0] == answers[1] == answers[2]
    assert answers[0]["reason"] == "not_verified"
    for word in ("account", "name", "postal", "card", "amount", "factor"):
        assert word not in answers[0]["message"]
    locked = call(backend, "verify_caller", **identity(BILLS_2_3_UNPAID_150))
    assert locked["reason"] == "locked" and "attempts_remaining" not in locked
    assert call(backend, "get_account")["reason"] == "not_verified"
    assert call(backend, "transfer_to_human", reason="locked out")["status"] == "transferred"


def test_a_missing_second_factor_uses_no_attempt():
    backend = world(CURRENT, verified=False)
    args = identity(CURRENT)
    del args["postal_code"]
    for _ in range(4):
        assert call(backend, "verify_caller", **args)["reason"] == "missing_second_factor"
    wrong = call(backend, "verify_caller", **identity(CURRENT, postal_code="9"))
    assert wrong["attempts_remaining"] == 2
    assert call(backend, "verify_caller", **identity(CURRENT))["status"] == "verified"


@pytest.mark.parametrize("factor", ["card_last4", "postal_code", "last_bill_amount"])
def test_each_second_factor_verifies_on_its_own(factor):
    case = BILLS_2_3_UNPAID_150
    backend = world(case, verified=False)
    last_bill = backend.session.billing.bills(acct(case))[-1]["total_cents"] / 100
    factors = {"card_last4": card(case), "last_bill_amount": last_bill}
    value = (factors | {"postal_code": str(CASES[case]["postal_code"])})[factor]
    base = {"account_number": acct(case), "full_name": CASES[case]["full_name"]}
    wrong = value + 0.01 if factor == "last_bill_amount" else "0000"
    assert call(backend, "verify_caller", **base, **{factor: wrong})["attempts_remaining"] == 2
    assert call(backend, "verify_caller", **base, **{factor: value})["status"] == "verified"


def test_a_transcription_variant_of_the_name_passes_and_another_person_does_not():
    ok = world(BILLS_2_3_UNPAID_150, verified=False)
    args = identity(BILLS_2_3_UNPAID_150, full_name="Kamila Reyes")
    assert call(ok, "verify_caller", **args) == {"status": "verified", "full_name": "Camila Reyes"}
    other = world(BILLS_2_3_UNPAID_150, verified=False)
    # Kamala Raines holds account case 9: a different person with a similar-sounding name
    assert CASES[ARREARS_4999]["full_name"] == "Kamala Raines"
    args = identity(BILLS_2_3_UNPAID_150, full_name="Kamala Raines")
    assert call(other, "verify_caller", **args)["reason"] == "not_verified"


@pytest.mark.parametrize("schemas_on", [True, False])
def test_tools_act_on_the_verified_account_and_refuse_an_account_argument(schemas_on):
    """No account tool takes an account number; one passed anyway is refused (the schemas do not
    forbid extra properties, the tool's signature does) and nothing is written."""
    backend = world(CURRENT, schemas_on=schemas_on)
    other = acct(DECLINING)
    out = backend.handle("get_account", {"account_number": other})
    assert out.source == "refused" and out.result["reason"] == "invalid_arguments"
    assert "account_number" in out.result["message"]
    args = {"amount": 5, "card_last4": "3337", "account_number": other}
    out = backend.handle("make_payment", args)
    assert out.result["reason"] == "invalid_arguments" and backend.ledger == []
    assert call(backend, "get_account")["account"]["account_number"] == acct(CURRENT)
    bills = call(backend, "list_bills")["bills"]
    assert bills and all(b["bill_id"].startswith(acct(CURRENT)) for b in bills)
    foreign = f"{other}-2026-09"
    assert call(backend, "get_bill", bill_id=foreign)["reason"] == "no_such_bill"


def test_schema_violations_are_refused_before_the_service():
    backend = world(CURRENT)
    out = backend.handle("make_payment", {"amount": -5, "card_last4": "3337"})
    assert out.source == "invalid_arguments" and out.result["reason"] == "invalid_arguments"
    out = backend.handle("request_due_date_extension", {"days": 31})
    assert out.source == "invalid_arguments"
    assert backend.handle("verify_caller", None).source == "invalid_arguments"
    assert backend.ledger == [] and backend.calls == 4


# --- billing rules --------------------------------------------------------------------------------
def test_a_payment_over_the_balance_is_refused_and_writes_nothing():
    backend = world(CURRENT)
    owed = balance(backend)
    over = backend.handle("make_payment", {"amount": round(owed + 0.01, 2), "card_last4": "3337"})
    assert over.source == "refused" and over.result["reason"] == "amount_over_balance"
    assert backend.ledger == [] and balance(backend) == owed
    assert call(backend, "make_payment", amount=owed, card_last4="3337")["new_balance"] == 0.0
    assert {b["status"] for b in call(backend, "list_bills")["bills"]} == {"paid"}


def test_a_declined_card_is_declined_and_takes_nothing():
    backend = world(DECLINING)
    before = call(backend, "get_payment_history")
    owed = balance(backend)
    out = call(backend, "make_payment", amount=owed, card_last4=card(DECLINING))
    assert out["status"] == "declined" and out["reason"] == "card_declined"
    assert backend.ledger == [] and balance(backend) == owed
    assert call(backend, "get_payment_history") == before


def test_a_payment_toward_bills_pays_the_oldest_first():
    backend = world(BILLS_2_3_UNPAID_150)
    bills = call(backend, "list_bills")["bills"]
    first, second, third = [b for b in bills if b["status"] == "open"]
    amount = round(first["total"] + 20.00, 2)
    payment = call(backend, "make_payment", amount=amount, card_last4=card(BILLS_2_3_UNPAID_150))
    assert payment["status"] == "paid" and payment["toward"] == "bills"
    after = {b["bill_id"]: (b["paid"], b["status"]) for b in call(backend, "list_bills")["bills"]}
    assert [after[b["bill_id"]] for b in (first, second, third)] == [
        (first["total"], "paid"),
        (20.0, "open"),
        (0.0, "open"),
    ]
    # the ledger: the row appended, then each changed column set, all stamped with the call
    row = dict(payment_id=payment["payment_id"], account_number=acct(BILLS_2_3_UNPAID_150))
    row |= dict(card_id="cd_005_1", amount_cents=round(amount * 100), paid_on="2026-09-10")
    row["toward"] = "bills"
    assert backend.ledger == [
        {"call_index": 2, "tool": "make_payment", "op": op, "path": path, "value": value}
        for op, path, value in [
            ("append", "billing.payments", row),
            ("set", f"billing.bills.{first['bill_id']}.paid_cents", round(first["total"] * 100)),
            ("set", f"billing.bills.{first['bill_id']}.status", "paid"),
            ("set", f"billing.bills.{second['bill_id']}.paid_cents", 2000),
        ]
    ]


def test_a_payment_toward_the_arrangement_repays_the_overdue_instalment():
    backend = world(OVERDUE_INSTALMENT)
    before = call(backend, "get_payment_arrangement")["arrangement"]
    overdue = {"number": 7, "due_date": "2026-08-20", "amount_due": 39.0}
    assert before["overdue_instalments"] == [overdue]
    owed = balance(backend)
    paid = call(backend, "make_payment", amount=39.00, card_last4="3597", toward="arrangement")
    assert paid["status"] == "paid" and paid["arrangement_remaining_balance"] == 663.0
    after = call(backend, "get_payment_arrangement")["arrangement"]
    assert after["overdue_instalments"] == [] and after["instalments_paid"] == 7
    assert balance(backend) == owed  # the bills are untouched
    loan = before["arrangement_id"]
    assert [(w["op"], w["path"]) for w in backend.ledger] == [
        ("append", "billing.payments"),
        ("append", "loans.repayments"),
        ("set", f"loans.schedule.{loan}-07.paid_cents"),
    ]
    assert backend.ledger[0]["value"]["toward"] == "arrangement"
    too_much = call(backend, "make_payment", amount=700, card_last4="3597", toward="arrangement")
    assert too_much["reason"] == "over_repayment" and len(backend.ledger) == 3


def test_the_loan_engine_refuses_a_future_dated_repayment():
    backend = world(OVERDUE_INSTALMENT)
    engine = backend.session.loans
    loan = f"ln_{acct(OVERDUE_INSTALMENT)}"
    with pytest.raises(ServiceRule) as refused:
        engine.repay(loan, 3900, policy.TODAY + dt.timedelta(days=1))
    assert refused.value.reason == "future_dated"
    assert engine.repaid_cents(loan) == 6 * 3900
    engine.repay(loan, 3900, policy.TODAY)
    assert engine.repaid_cents(loan) == 7 * 3900


# --- arrangements ---------------------------------------------------------------------------------
def test_quote_then_create_moves_the_past_due_bills_into_the_loan():
    backend = world(BILLS_2_3_UNPAID_150)
    assert answer(backend, "create_payment_arrangement", quote_id="q_001") == "no_such_quote"
    assert backend.ledger == []
    account = call(backend, "get_account")["account"]
    quote = call(backend, "quote_payment_arrangement", months=12)
    assert quote["kind"] == "new_arrangement" and quote["down_payment_today"] == 0.0
    assert quote["amount_covered"] == account["past_due_amount"] == 345.09
    made = call(backend, "create_payment_arrangement", quote_id=quote["quote_id"])
    assert made["status"] == "created" and made["down_payment_id"] is None
    bills = {b["bill_id"]: b["status"] for b in call(backend, "list_bills")["bills"]}
    assert sorted(i for i, s in bills.items() if s == "arranged") == made["bills_covered"]
    assert len(made["bills_covered"]) == 2
    assert balance(backend) == account["latest_bill"]["total"]
    arrangement = call(backend, "get_payment_arrangement")["arrangement"]
    assert arrangement["principal"] == 345.09 and arrangement["term_months"] == 12
    paths = [w["path"] for w in backend.ledger]
    assert paths.count("loans.loans") == 1 and paths.count("loans.schedule") == 12
    schedule = [w["value"]["amount_cents"] for w in backend.ledger if w["path"] == "loans.schedule"]
    assert sum(schedule) == 34509 and schedule[-1] == 2873
    # the quote is spent, and a second arrangement cannot be quoted as new
    spent = answer(backend, "create_payment_arrangement", quote_id=quote["quote_id"])
    assert spent == "no_such_quote"
    assert call(backend, "quote_payment_arrangement", months=6)["kind"] == "change_to_existing"


def test_a_payment_after_the_quote_outdates_it():
    """Regression: the arrangement used to finance the quoted arrears even after a payment had
    reduced them, so the caller owed the paid part twice."""
    backend = world(BILLS_2_3_UNPAID_150)
    quote = call(backend, "quote_payment_arrangement", months=12)
    call(backend, "make_payment", amount=100, card_last4=card(BILLS_2_3_UNPAID_150))
    written = len(backend.ledger)
    stale = call(backend, "create_payment_arrangement", quote_id=quote["quote_id"])
    assert stale["reason"] == "quote_outdated" and len(backend.ledger) == written
    fresh = call(backend, "quote_payment_arrangement", months=12)
    assert fresh["amount_covered"] == 245.09
    assert answer(backend, "create_payment_arrangement", quote_id=fresh["quote_id"]) == "created"
    assert call(backend, "get_payment_arrangement")["arrangement"]["principal"] == 245.09


def test_a_quarter_down_after_a_recently_broken_arrangement():
    backend = world(BROKEN_RECENT)
    quote = call(backend, "quote_payment_arrangement", months=12)
    assert quote["amount_covered"] == 370.58 and quote["down_payment_today"] == 92.65
    no_card = call(backend, "create_payment_arrangement", quote_id=quote["quote_id"])
    assert no_card["reason"] == "card_needed" and backend.ledger == []
    args = {"quote_id": quote["quote_id"], "card_last4": "9100"}
    made = call(backend, "create_payment_arrangement", **args)
    assert made["down_payment_charged"] == 92.65 and made["down_payment_id"]
    (payment,) = [w["value"] for w in backend.ledger if w["path"] == "billing.payments"]
    assert (payment["amount_cents"], payment["toward"]) == (9265, "arrangement")
    (loan,) = [w["value"] for w in backend.ledger if w["path"] == "loans.loans"]
    assert (loan["principal_cents"], loan["down_payment_cents"]) == (37058, 9265)


@pytest.mark.parametrize("case", [BROKEN_12_AGO, 12])
def test_no_down_payment_once_the_break_is_12_months_old(case):
    quote = call(world(case), "quote_payment_arrangement", months=6)
    assert quote["status"] == "quoted" and quote["down_payment_today"] == 0.0


@pytest.mark.parametrize(("case", "cap"), [(5, 60), (4, 36), (24, 36), (6, 12), (7, 6), (8, 6)])
def test_the_term_cap_of_each_income_band(case, cap):
    backend = world(case)
    assert answer(backend, "quote_payment_arrangement", months=cap + 1) == "term_over_cap"
    assert call(backend, "quote_payment_arrangement", months=cap)["status"] == "quoted"
    assert call(backend, "quote_payment_arrangement", months=1)["reason"] == "term_under_minimum"
    assert backend.ledger == []


BOUNDARIES = [(ARREARS_4999, "arrears_under_minimum"), (ARREARS_5000, "quoted")]
BOUNDARIES += [(TRANSFER_60, "needs_a_person"), (NOT_TRANSFER_59, "quoted")]


@pytest.mark.parametrize(("case", "expected"), BOUNDARIES)
def test_arrears_and_transfer_boundaries(case, expected):
    assert answer(world(case), "quote_payment_arrangement", months=3) == expected


def test_a_change_quote_reschedules_and_never_below_what_is_paid():
    backend = world(ACTIVE_ALL_PAID)
    for months in (5, 6):
        assert call(backend, "quote_payment_arrangement", months=months)["reason"] == "below_paid"
    assert call(backend, "quote_payment_arrangement", months=13)["reason"] == "term_over_cap"
    quote = call(backend, "quote_payment_arrangement", months=10)
    assert quote["kind"] == "change_to_existing"
    assert (quote["instalments_already_paid"], quote["instalments_left"]) == (6, 4)
    assert quote["monthly_instalment"] == 75.0
    # a change quote does not create a second arrangement
    made = answer(backend, "create_payment_arrangement", quote_id=quote["quote_id"])
    assert made == "no_such_quote"
    assert answer(backend, "modify_payment_arrangement", quote_id=quote["quote_id"]) == "modified"
    after = call(backend, "get_payment_arrangement")["arrangement"]
    assert (after["term_months"], after["monthly_instalment"]) == (10, 75.0)
    assert after["instalments_paid"] == 6
    assert after["remaining_balance"] == 300.0
    loan = after["arrangement_id"]
    ops = [(w["op"], w["path"]) for w in backend.ledger]
    assert ops[:6] == [("delete", f"loans.schedule.{loan}-{n:02d}") for n in range(7, 13)]
    assert ("set", f"loans.loans.{loan}.term_months") in ops
    assert ops.count(("append", "loans.schedule")) == 4
    with pytest.raises(ServiceRule) as refused:
        backend.session.loans.reschedule(loan, 6, 5000, 5000)
    assert refused.value.reason == "below_paid"


def test_a_change_quote_outdated_by_a_repayment_changes_nothing():
    backend = world(OVERDUE_INSTALMENT)
    quote = call(backend, "quote_payment_arrangement", months=30)
    call(backend, "make_payment", amount=39, card_last4="3597", toward="arrangement")
    written = len(backend.ledger)
    stale = answer(backend, "modify_payment_arrangement", quote_id=quote["quote_id"])
    assert stale == "schedule_mismatch" and len(backend.ledger) == written


# --- extensions and paperless ---------------------------------------------------------------------
def test_an_extension_once_a_year_to_the_day():
    backend = world(EXT_12_AGO)
    latest = call(backend, "get_account")["account"]["latest_bill"]
    assert call(backend, "request_due_date_extension", days=16)["reason"] == "days_out_of_range"
    out = call(backend, "request_due_date_extension", days=15)
    new_due = dt.date.fromisoformat(latest["due_date"]) + dt.timedelta(days=15)
    assert out["new_due_date"] == new_due.isoformat() and out["bill_id"] == latest["bill_id"]
    assert [(w["op"], w["path"], w["value"]) for w in backend.ledger[1:]] == [
        ("set", f"billing.bills.{latest['bill_id']}.due_date", new_due.isoformat()),
        ("set", f"billing.customers.{acct(EXT_12_AGO)}.extension_last_granted", "2026-09-10"),
    ]
    again = call(backend, "request_due_date_extension", days=1)
    assert again["reason"] == "extension_within_a_year"
    recent = world(EXT_RECENT)
    assert answer(recent, "request_due_date_extension", days=1) == "extension_within_a_year"
    assert recent.ledger == []


def test_paperless_needs_the_confirmed_email():
    backend = world(CURRENT)
    email = CASES[CURRENT]["email"]
    for confirmed in (None, "", "someone@example.com"):
        args = {"enabled": True} | ({} if confirmed is None else {"confirmed_email": confirmed})
        assert call(backend, "set_paperless_billing", **args)["reason"] == "email_not_confirmed"
    assert backend.ledger == []
    out = call(backend, "set_paperless_billing", enabled=True, confirmed_email=email.upper())
    assert out == {"status": "updated", "paperless_billing": True, "email": email}
    path = f"billing.customers.{acct(CURRENT)}.paperless"
    entry = {"call_index": backend.calls - 1, "tool": "set_paperless_billing", "op": "set"}
    assert backend.ledger == [{**entry, "path": path, "value": 1}]
    # setting what is already set writes nothing
    call(backend, "set_paperless_billing", enabled=True, confirmed_email=email)
    assert len(backend.ledger) == 1


# --- rollback -------------------------------------------------------------------------------------
def test_a_refusal_after_writes_rolls_back_both_services(monkeypatch):
    backend = world(BROKEN_RECENT)
    session = backend.session
    real = session.loans.create

    def create_then_refuse(*args, **kwargs):
        real(*args, **kwargs)
        raise ServiceRule("engine_down", "the loan engine refused")

    monkeypatch.setattr(session.loans, "create", create_then_refuse)
    quote = call(backend, "quote_payment_arrangement", months=12)
    args = {"quote_id": quote["quote_id"], "card_last4": "9100"}
    out = backend.handle("create_payment_arrangement", args)
    assert out.source == "refused" and out.result["reason"] == "engine_down"
    assert backend.ledger == []
    assert session.loans.active(acct(BROKEN_RECENT)) is None
    payments = session.billing.payments(acct(BROKEN_RECENT))
    assert payments and all(p["payment_id"].startswith("hist_") for p in payments)
    assert {b["status"] for b in session.billing.bills(acct(BROKEN_RECENT))} == {"paid", "open"}
    # nothing of the refused call leaks into the next call's ledger
    monkeypatch.undo()
    call(backend, "make_payment", amount=1, card_last4="9100")
    assert [w["tool"] for w in backend.ledger] == ["make_payment"] * len(backend.ledger)
    assert {w["call_index"] for w in backend.ledger} == {backend.calls - 1}


def test_a_declining_down_payment_card_leaves_no_loan_and_no_payment():
    backend = world(BROKEN_RECENT)
    conn = backend.databases["billing"]
    conn.execute("UPDATE cards SET declines = 1 WHERE last4 = '9100'")
    conn.execute("DELETE FROM _callbench_changes")  # setup, not a call's write
    quote = call(backend, "quote_payment_arrangement", months=12)
    out = call(backend, "create_payment_arrangement", quote_id=quote["quote_id"], card_last4="9100")
    assert out["status"] == "declined" and out["reason"] == "card_declined"
    assert backend.ledger == [] and backend.session.loans.active(acct(BROKEN_RECENT)) is None
    state = backend.snapshot()["final_state"]
    assert not [p for p in state["billing"]["payments"].values() if p["toward"] == "arrangement"]
    assert "arranged" not in {b["status"] for b in state["billing"]["bills"].values()}


# --- replay ---------------------------------------------------------------------------------------
def record(backend: ServiceBackend, calls: list[tuple[str, dict]]) -> Trace:
    """A trace of `calls` made on `backend`, as the episode would store it."""
    events = []
    for i, (name, args) in enumerate(calls):
        out = backend.handle(name, args)
        event = {"index": i, "call_message_index": i, "turn": 1, "call_id": f"c{i}", "name": name}
        event |= {"raw_arguments": json.dumps(args), "arguments": args, "result": out.result}
        events.append(ToolEvent(**event, response_source=out.source))
    ids = ("id", "scenario_id", "agent_id", "candidate", "caller", "instructions_sha256")
    suite = SuiteRef(id="utility-billing", version="1", sha256="x")
    world_ = WorldRecord(**backend.snapshot())
    meta = dict.fromkeys(ids, "x")
    return Trace(**meta, suite=suite, repeat=0, seed=0, tool_events=events, world=world_)


def test_replay_reproduces_the_calls_and_names_a_tampered_one():
    case = BILLS_2_3_UNPAID_150
    calls = [
        ("verify_caller", identity(case, postal_code="00000")),
        ("verify_caller", identity(case)),
        ("make_payment", {"amount": 50.0, "card_last4": card(case)}),
        ("quote_payment_arrangement", {"months": 12}),
        ("create_payment_arrangement", {"quote_id": "q_001"}),
        ("set_paperless_billing", {"enabled": True}),
    ]
    trace = record(ServiceBackend(spec(case), {}, schemas()), calls)
    assert trace.world.ledger and trace.tool_events[4].result["status"] == "created"
    report = replay(trace, spec(case), {}, schemas())
    assert report.ok and report.calls == len(calls), report.mismatches

    tampered = trace.model_copy(deep=True)
    tampered.tool_events[2].result["new_balance"] = 0.0
    tampered.world.ledger[0].value["amount_cents"] = 1
    report = replay(tampered, spec(case), {}, schemas())
    assert any(m.startswith("call 2 (make_payment at #2)") for m in report.mismatches)
    assert "the ledger differs" in report.mismatches
    assert not any(m.startswith("call 3") for m in report.mismatches)

    later = spec(case, clock=dt.datetime(2026, 9, 12, tzinfo=dt.UTC))
    assert "the final state differs" in replay(trace, later, {}, schemas()).mismatches


# --- the seed's consistency check -----------------------------------------------------------------
def test_the_seeded_snapshot_is_consistent_and_a_corruption_is_named():
    copies = copy_snapshot(domain("utility_billing").snapshot())
    seed.check(copies["billing"], copies["loans"])
    account = acct(CURRENT)
    corrupt = "UPDATE bills SET paid_cents = paid_cents - 1 WHERE bill_id = ?"
    copies["billing"].execute(corrupt, (f"{account}-2026-06",))
    with pytest.raises(ValueError, match=f"account {account}: bills show"):
        seed.check(copies["billing"], copies["loans"])

    copies = copy_snapshot(domain("utility_billing").snapshot())
    loan = f"ln_{acct(OVERDUE_INSTALMENT)}"
    corrupt = "UPDATE schedule SET amount_cents = amount_cents + 1 WHERE instalment_id = ?"
    copies["loans"].execute(corrupt, (f"{loan}-24",))
    with pytest.raises(ValueError, match=f"loan {loan}: schedule"):
        seed.check(copies["billing"], copies["loans"])

    copies = copy_snapshot(domain("utility_billing").snapshot())
    copies["loans"].execute("DELETE FROM clients WHERE account_number = ?", (account,))
    with pytest.raises(ValueError, match=account):
        seed.check(copies["billing"], copies["loans"])


def test_the_snapshot_digest_is_the_same_on_every_build():
    from callbench.backends.service import database_digest

    rebuilt = seed.build()
    assert database_digest(rebuilt) == world(CURRENT, verified=False).initial_sha256
