"""The sixteen agent-facing tools (and the call-ending one) over the billing service and the loan
engine: the dispatcher every candidate shares.

Access is the tools' job: every account tool refuses until `verify_caller` succeeds, three failed
attempts lock verification for the call, a failure never says which detail was wrong, and later
tools act on the verified account only - no tool takes an account number from the model. The policy
(who may have an arrangement, for how long, with what down payment; extensions; protections) comes
from `policy`, the same module the task generator computes expected results with.
"""

from __future__ import annotations

import datetime as dt
import inspect
import re
import sqlite3
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ..service import Refused
from . import policy
from .billing import BillingService, ServiceRule, rows
from .loans import LoanEngine
from .names import names_match


def dollars(cents: int) -> float:
    return round(cents / 100, 2)


def cents(amount: Any) -> int:
    return int(policy.money(amount) * 100)


def _refuse(reason: str, message: str, **extra: Any) -> Refused:
    return Refused({"status": "refused", "reason": reason, "message": message, **extra})


def _digits(text: Any) -> str:
    return re.sub(r"\D", "", str(text or ""))


class UtilitySession:
    """One call's tools over this call's two databases (see the module docstring)."""

    def __init__(
        self,
        databases: Mapping[str, sqlite3.Connection],
        options: Mapping[str, Any],
        now: dt.datetime,
    ):
        self.today = now.date()
        self.billing = BillingService(databases["billing"], self.today)
        self.loans = LoanEngine(databases["loans"], self.today)
        self.account: str | None = None
        self.failures = 0
        self.quotes: dict[str, dict[str, Any]] = {}
        self.about = str(options.get("account") or "")
        """the account the scenario is about: its rows are the final state grading reads"""

    def handle(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == "verify_caller":
            return self.verify_caller(**arguments)
        if name == "transfer_to_human":
            return {"status": "transferred", "reason": str(arguments.get("reason", ""))}
        if name == "end_call":
            return {"status": "ended"}
        tool = getattr(self, f"tool_{name}", None)
        if tool is None:
            return {
                "status": "error",
                "reason": "unsupported",
                "message": f"{name} is not available",
            }
        if self.account is None:
            raise _refuse("not_verified", "verify the caller before using account tools")
        try:  # an argument the tool does not take is the model's error, refused before the tool
            inspect.signature(tool).bind(**arguments)
        except TypeError as exc:
            raise _refuse("invalid_arguments", str(exc)) from None
        try:  # a TypeError inside a tool is callbench's bug and crashes the run
            return dict(tool(**arguments))
        except ServiceRule as rule:
            status = "declined" if rule.reason == "card_declined" else "refused"
            raise Refused(
                {"status": status, "reason": rule.reason, "message": rule.message}
            ) from None

    # --- verification ----------------------------------------------------------------------------
    def verify_caller(
        self,
        account_number: str = "",
        full_name: str = "",
        card_last4: str | None = None,
        postal_code: str | None = None,
        last_bill_amount: float | str | None = None,
        **_: Any,
    ) -> dict[str, Any]:
        if self.failures >= policy.VERIFY_ATTEMPTS:
            raise _refuse("locked", "verification is locked after three failed attempts")
        factors = [f for f in (card_last4, postal_code, last_bill_amount) if f not in (None, "")]
        if not factors:
            raise _refuse(
                "missing_second_factor",
                "give one second factor: card last four digits, postal code or last bill amount",
            )
        account = _digits(account_number)
        if self._matches(account, full_name, card_last4, postal_code, last_bill_amount):
            self.account = account
            customer = self.billing.customer(account)
            assert customer is not None
            return {"status": "verified", "full_name": customer["full_name"]}
        self.failures += 1
        left = policy.VERIFY_ATTEMPTS - self.failures
        raise Refused(
            {
                "status": "refused",
                "reason": "not_verified",
                "message": "the details do not match our records",
                "attempts_remaining": left,
            }
        )

    def _matches(self, account: str, name: str, last4: Any, postal: Any, amount: Any) -> bool:
        customer = self.billing.customer(account)
        if customer is None or not names_match(str(name), customer["full_name"]):
            return False
        if last4 not in (None, "") and _digits(last4) not in {
            c["last4"] for c in self.billing.cards(account)
        }:
            return False
        if (
            postal not in (None, "")
            and _digits(postal)[:5] != self.billing.premise(account)["postal_code"]
        ):
            return False
        if amount not in (None, ""):
            try:
                said = cents(str(amount).replace("$", "").replace(",", ""))
            except ArithmeticError:
                return False
            if said != self.billing.bills(account)[-1]["total_cents"]:
                return False
        return True

    # --- reads -----------------------------------------------------------------------------------
    def _acct(self) -> str:
        assert self.account is not None
        return self.account

    def tool_get_account(self) -> dict[str, Any]:
        a = self._acct()
        c = self.billing.customer(a)
        assert c is not None
        premise = self.billing.premise(a)
        supplier = self.billing.supplier(c["supplier_id"])
        late, days = self.billing.past_due(a)
        current = self.billing.bills(a)[-1]
        return {
            "status": "ok",
            "account": {
                "account_number": a,
                "full_name": c["full_name"],
                "service_address": f"{premise['address']} {premise['postal_code']}",
                "email": c["email"],
                "phone": c["phone"],
                "paperless_billing": bool(c["paperless"]),
                "supplier": supplier["name"],
                "household_size": c["household_size"],
                "income_percent_of_poverty_level": c["income_percent_of_poverty_level"],
                "medical_certificate_until": c["medical_certificate_until"],
                "shutoff_notice_sent": bool(c["shutoff_notice"]),
                "balance": dollars(self.billing.balance_cents(a)),
                "past_due_amount": dollars(late),
                "days_past_due": days,
                "latest_bill": {
                    "bill_id": current["bill_id"],
                    "total": dollars(current["total_cents"]),
                    "due_date": current["due_date"],
                },
                "cards_on_file": [
                    {"brand": k["brand"], "last4": k["last4"], "expires": k["expires"]}
                    for k in self.billing.cards(a)
                ],
                "last_due_date_extension": c["extension_last_granted"],
            },
        }

    def _bill_view(self, b: dict[str, Any]) -> dict[str, Any]:
        return {
            "bill_id": b["bill_id"],
            "period_start": b["period_start"],
            "period_end": b["period_end"],
            "issued": b["issued"],
            "due_date": b["due_date"],
            "kwh": b["kwh"],
            "total": dollars(b["total_cents"]),
            "paid": dollars(b["paid_cents"]),
            "status": b["status"],
        }

    def tool_list_bills(self) -> dict[str, Any]:
        return {
            "status": "ok",
            "bills": [self._bill_view(b) for b in self.billing.bills(self._acct())],
        }

    def _lines(self, bill_id: str) -> list[dict[str, Any]]:
        return [
            {
                "kind": x["kind"],
                "description": x["description"],
                "quantity": x["quantity"],
                "unit_price": x["unit_price"],
                "amount": dollars(x["amount_cents"]),
            }
            for x in self.billing.lines(bill_id)
        ]

    def tool_get_bill(self, bill_id: str) -> dict[str, Any]:
        b = self.billing.bill(self._acct(), bill_id)
        return {"status": "ok", "bill": {**self._bill_view(b), "lines": self._lines(bill_id)}}

    def _days(self, b: dict[str, Any]) -> int:
        if not b["period_start"]:
            return 0
        start, end = (dt.date.fromisoformat(b[k]) for k in ("period_start", "period_end"))
        return (end - start).days + 1

    def tool_explain_bill(self, bill_id: str) -> dict[str, Any]:
        a = self._acct()
        b = self.billing.bill(a, bill_id)
        days = self._days(b)
        bills = self.billing.bills(a)
        i = [x["bill_id"] for x in bills].index(bill_id)
        before = bills[i - 1] if i > 0 and bills[i - 1]["period_start"] else None
        return {
            "status": "ok",
            "bill_id": bill_id,
            "days_in_period": days,
            "kwh": b["kwh"],
            "average_kwh_per_day": round(b["kwh"] / days, 1) if days else None,
            "lines": self._lines(bill_id),
            "total": dollars(b["total_cents"]),
            "previous_bill": None
            if before is None
            else {
                "bill_id": before["bill_id"],
                "kwh": before["kwh"],
                "total": dollars(before["total_cents"]),
            },
        }

    def tool_compare_bills(self, bill_id: str, other_bill_id: str) -> dict[str, Any]:
        a = self._acct()
        one, two = self.billing.bill(a, bill_id), self.billing.bill(a, other_bill_id)
        view = {}
        for b in (one, two):
            days = self._days(b)
            view[b["bill_id"]] = {
                "period_start": b["period_start"],
                "period_end": b["period_end"],
                "kwh": b["kwh"],
                "days": days,
                "average_kwh_per_day": round(b["kwh"] / days, 1) if days else None,
                "total": dollars(b["total_cents"]),
            }
        return {
            "status": "ok",
            "bills": view,
            "kwh_difference": two["kwh"] - one["kwh"],
            "total_difference": dollars(two["total_cents"] - one["total_cents"]),
        }

    def tool_get_payment_history(self) -> dict[str, Any]:
        return {
            "status": "ok",
            "payments": [
                {
                    "payment_id": p["payment_id"],
                    "paid_on": p["paid_on"],
                    "amount": dollars(p["amount_cents"]),
                    "card_last4": p["last4"],
                    "toward": p["toward"],
                }
                for p in self.billing.payments(self._acct())
            ],
        }

    def tool_get_supplier_info(self) -> dict[str, Any]:
        c = self.billing.customer(self._acct())
        assert c is not None
        s, d = self.billing.supplier(c["supplier_id"]), self.billing.default_supplier()
        return {
            "status": "ok",
            "supplier": {
                "name": s["name"],
                "phone": s["phone"],
                "price_per_kwh": float(s["price_per_kwh"]),
                "is_default_service": bool(s["is_default"]),
            },
            "price_to_compare_per_kwh": float(d["price_per_kwh"]),
        }

    def tool_get_payment_arrangement(self) -> dict[str, Any]:
        a = self._acct()
        loan = self.loans.active(a)
        broken = self.loans.last_broken(a)
        out: dict[str, Any] = {
            "status": "ok",
            "arrangement": None,
            "last_broken_on": broken.isoformat() if broken else None,
        }
        if loan is None:
            return out
        sched = self.loans.schedule(loan["loan_id"])
        unpaid = [s for s in sched if s["paid_cents"] < s["amount_cents"]]
        overdue = [s for s in unpaid if s["due_date"] < self.today.isoformat()]
        upcoming = [s for s in unpaid if s["due_date"] >= self.today.isoformat()]
        out["arrangement"] = {
            "arrangement_id": loan["loan_id"],
            "started": loan["start_date"],
            "principal": dollars(loan["principal_cents"]),
            "down_payment": dollars(loan["down_payment_cents"]),
            "term_months": loan["term_months"],
            "monthly_instalment": dollars(loan["instalment_cents"]),
            "instalments_paid": sum(1 for s in sched if s["paid_cents"] == s["amount_cents"]),
            "remaining_balance": dollars(sum(s["amount_cents"] - s["paid_cents"] for s in unpaid)),
            "overdue_instalments": [
                {
                    "number": s["number"],
                    "due_date": s["due_date"],
                    "amount_due": dollars(s["amount_cents"] - s["paid_cents"]),
                }
                for s in overdue
            ],
            "overdue_total": dollars(sum(s["amount_cents"] - s["paid_cents"] for s in overdue)),
            "next_instalment": None
            if not upcoming
            else {
                "number": upcoming[0]["number"],
                "due_date": upcoming[0]["due_date"],
                "amount": dollars(upcoming[0]["amount_cents"] - upcoming[0]["paid_cents"]),
            },
        }
        return out

    # --- writes ----------------------------------------------------------------------------------
    def tool_make_payment(
        self, amount: float, card_last4: str, toward: str = "bills"
    ) -> dict[str, Any]:
        a = self._acct()
        due = cents(amount)
        if toward == "arrangement":
            loan = self.loans.active(a)
            if loan is None:
                raise ServiceRule("no_arrangement", "there is no active arrangement to pay toward")
            paid = self.billing.charge(a, _digits(card_last4), due, "arrangement")
            self.loans.repay(loan["loan_id"], due, self.today)
            left = self.tool_get_payment_arrangement()["arrangement"]
            return {
                "status": "paid",
                "payment_id": paid["payment_id"],
                "amount": dollars(due),
                "card_last4": paid["card"]["last4"],
                "toward": "arrangement",
                "arrangement_remaining_balance": left["remaining_balance"] if left else 0.0,
            }
        paid = self.billing.pay_bills(a, _digits(card_last4), due)
        return {
            "status": "paid",
            "payment_id": paid["payment_id"],
            "amount": dollars(due),
            "card_last4": paid["card"]["last4"],
            "toward": "bills",
            "new_balance": dollars(self.billing.balance_cents(a)),
        }

    def _quote_new(self, months: int) -> dict[str, Any]:
        a = self._acct()
        c = self.billing.customer(a)
        assert c is not None
        late, days = self.billing.past_due(a)
        decision = policy.arrangement_eligibility(
            Decimal(late) / 100,
            self.loans.active(a) is not None,
            Decimal(self.billing.balance_cents(a)) / 100,
            days,
        )
        if not decision.allowed:
            raise ServiceRule(decision.reason, _WHY[decision.reason])
        percent = c["income_percent_of_poverty_level"]
        term = policy.term_decision(months, percent)
        if not term.allowed:
            raise ServiceRule(
                term.reason, _WHY[term.reason], longest_term=policy.max_term_months(percent)
            )
        share = policy.down_payment_share(self.loans.last_broken(a), self.today)
        q = policy.quote(Decimal(late) / 100, months, share)
        return {"kind": "new", "quote": q}

    def _quote_change(self, loan: dict[str, Any], months: int) -> dict[str, Any]:
        c = self.billing.customer(self._acct())
        assert c is not None
        term = policy.term_decision(months, c["income_percent_of_poverty_level"])
        if not term.allowed:
            raise ServiceRule(term.reason, _WHY[term.reason])
        sched = self.loans.schedule(loan["loan_id"])
        paid = sum(1 for s in sched if s["paid_cents"] == s["amount_cents"])
        if months <= paid:
            raise ServiceRule(
                "below_paid", "the loan cannot be modified below what is already paid"
            )
        remaining = Decimal(sum(s["amount_cents"] - s["paid_cents"] for s in sched)) / 100
        q = policy.quote(remaining, months - paid)
        return {"kind": "change", "quote": q, "loan_id": loan["loan_id"], "paid": paid}

    def tool_quote_payment_arrangement(self, months: int) -> dict[str, Any]:
        loan = self.loans.active(self._acct())
        made = self._quote_change(loan, int(months)) if loan else self._quote_new(int(months))
        quote_id = f"q_{len(self.quotes) + 1:03d}"
        self.quotes[quote_id] = made
        q: policy.Quote = made["quote"]
        body = {
            "quote_id": quote_id,
            "kind": "new_arrangement" if made["kind"] == "new" else "change_to_existing",
            "amount_covered": float(q.principal),
            "down_payment_today": float(q.down_payment),
            "months": months,
            "monthly_instalment": float(q.instalment),
            "last_instalment": float(q.last_instalment),
        }
        if made["kind"] == "change":
            body["instalments_already_paid"] = made["paid"]
            body["instalments_left"] = q.months
        return {"status": "quoted", **body}

    def _quoted(self, quote_id: str, kind: str) -> policy.Quote:
        made = self.quotes.get(str(quote_id))
        if made is None or made["kind"] != kind:
            raise ServiceRule("no_such_quote", "quote the arrangement first and use its quote_id")
        quote: policy.Quote = made["quote"]
        return quote

    def tool_create_payment_arrangement(
        self, quote_id: str, card_last4: str | None = None
    ) -> dict[str, Any]:
        a = self._acct()
        q = self._quoted(quote_id, "new")
        # a payment since the quote changed what is past due: the loan would finance money
        # already paid (or, below $50, no arrangement may be due at all)
        if self.billing.past_due(a)[0] != cents(q.principal):
            raise ServiceRule(
                "quote_outdated", "the past-due amount changed since the quote; quote again"
            )
        down = cents(q.down_payment)
        payment = None
        if down:
            if not card_last4:
                raise ServiceRule("card_needed", "the down payment needs a card on file")
            payment = self.billing.charge(a, _digits(card_last4), down, "arrangement")
        moved = self.billing.move_arrears_to_arrangement(a)
        loan_id = self.loans.create(
            a, cents(q.principal), down, q.months, cents(q.instalment), cents(q.last_instalment)
        )
        first = self.loans.schedule(loan_id)[0]
        self.quotes.pop(str(quote_id))
        return {
            "status": "created",
            "arrangement_id": loan_id,
            "bills_covered": moved,
            "down_payment_charged": dollars(down),
            "down_payment_id": payment["payment_id"] if payment else None,
            "months": q.months,
            "monthly_instalment": float(q.instalment),
            "first_instalment_due": first["due_date"],
        }

    def tool_modify_payment_arrangement(self, quote_id: str) -> dict[str, Any]:
        q = self._quoted(quote_id, "change")
        made = self.quotes[str(quote_id)]
        total = made["paid"] + q.months
        self.loans.reschedule(made["loan_id"], total, cents(q.instalment), cents(q.last_instalment))
        self.quotes.pop(str(quote_id))  # used up only once the engine accepted the change
        return {
            "status": "modified",
            "arrangement_id": made["loan_id"],
            "term_months": total,
            "monthly_instalment": float(q.instalment),
            "instalments_left": q.months,
        }

    def tool_request_due_date_extension(self, days: int) -> dict[str, Any]:
        a = self._acct()
        c = self.billing.customer(a)
        assert c is not None
        last = c["extension_last_granted"]
        decision = policy.extension_decision(
            dt.date.fromisoformat(last) if last else None, int(days), self.today
        )
        if not decision.allowed:
            raise ServiceRule(decision.reason, _WHY[decision.reason])
        granted = self.billing.extend_due_date(a, int(days))
        return {"status": "extended", "days": int(days), **granted}

    def tool_set_paperless_billing(
        self, enabled: bool, confirmed_email: str | None = None
    ) -> dict[str, Any]:
        a = self._acct()
        c = self.billing.customer(a)
        assert c is not None
        if enabled and (confirmed_email or "").strip().lower() != c["email"].lower():
            raise ServiceRule(
                "email_not_confirmed",
                "read the email on file to the caller and pass it as confirmed_email once they "
                "agree",
            )
        self.billing.set_paperless(a, bool(enabled))
        return {"status": "updated", "paperless_billing": bool(enabled), "email": c["email"]}

    # --- what grading reads ----------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        account = self.about or self.account or ""
        b, ln = self.billing.conn, self.loans.conn
        client = rows(ln, "SELECT client_id FROM clients WHERE account_number = ?", account)
        loan_ids = [x["loan_id"] for x in self.loans.loans(account)]
        marks = ",".join("?" * len(loan_ids))
        return {
            "billing": {
                "customers": _keyed(b, "customers", "account_number", account),
                "bills": _keyed(b, "bills", "account_number", account),
                "payments": _keyed(b, "payments", "account_number", account),
                "extensions": _keyed(b, "extensions", "account_number", account),
            },
            "loans": {
                "loans": {x["loan_id"]: x for x in self.loans.loans(account)} if client else {},
                "schedule": {
                    s["instalment_id"]: s
                    for s in rows(
                        ln, f"SELECT * FROM schedule WHERE loan_id IN ({marks})", *loan_ids
                    )
                },
            },
        }


def _keyed(conn: sqlite3.Connection, table: str, column: str, value: str) -> dict[str, Any]:
    key = {
        "customers": "account_number",
        "bills": "bill_id",
        "payments": "payment_id",
        "extensions": "extension_id",
    }[table]
    return {str(r[key]): r for r in rows(conn, f"SELECT * FROM {table} WHERE {column} = ?", value)}


_WHY = {
    "needs_a_person": "at least $500 is owed and it is 60 or more days past due: a person must "
    "handle this account",
    "active_arrangement": "the account already has an active payment arrangement",
    "arrears_under_minimum": "an arrangement needs at least $50.00 past due",
    "term_under_minimum": "an arrangement runs at least 2 months",
    "term_over_cap": "longer than the policy allows for this household's income",
    "extension_within_a_year": "a due-date extension was already granted in the last 12 months",
    "days_out_of_range": "an extension is 1 to 15 days",
}
