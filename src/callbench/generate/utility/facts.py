"""What the generator knows about an account, and how each admitted request changes it, computed
with the policy model alone.

The facts are read once from the seeded snapshot (the ground truth of the manifest); after that
every
change is the policy model's arithmetic here, never the services' code, so when the oracle later
plays a task through the real services, agreement between the two is a check on both.
"""

from __future__ import annotations

import copy
import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from typing import Any

from ...backends.utility import policy
from ...backends.utility.billing import BillingService
from ...backends.utility.loans import LoanEngine, months_after
from ...backends.utility.seed import build, manifest

TODAY = policy.TODAY


@dataclass
class Bill:
    bill_id: str
    issued: dt.date
    due: dt.date
    total: Decimal
    unpaid: Decimal
    status: str
    kwh: int


@dataclass
class Instalment:
    number: int
    due: dt.date
    amount: Decimal
    paid: Decimal


@dataclass
class Loan:
    loan_id: str
    principal: Decimal
    down: Decimal
    term: int
    instalment: Decimal
    schedule: list[Instalment]
    start: dt.date

    def overdue(self) -> list[Instalment]:
        return [s for s in self.schedule if s.paid < s.amount and s.due < TODAY]

    def overdue_total(self) -> Decimal:
        return sum((s.amount - s.paid for s in self.overdue()), Decimal(0))

    def paid_count(self) -> int:
        return sum(1 for s in self.schedule if s.paid == s.amount)

    def remaining(self) -> Decimal:
        return sum((s.amount - s.paid for s in self.schedule), Decimal(0))

    def next_due(self) -> Instalment | None:
        return next((s for s in self.schedule if s.paid < s.amount and s.due >= TODAY), None)


@dataclass
class Facts:
    account: str
    full_name: str
    email: str
    address: str
    postal_code: str
    percent: int | None
    cards: list[dict[str, Any]]
    supplier: dict[str, Any]
    default_price: Decimal
    bills: list[Bill]
    loan: Loan | None
    last_broken: dt.date | None
    paperless: bool
    extension_last: dt.date | None
    medical_until: dt.date | None
    payments: list[tuple[dt.date, Decimal, str | None]]
    case: str = ""
    transferred: bool = False
    new_ids: dict[str, int] = field(default_factory=dict)

    # --- derived ---------------------------------------------------------------------------------
    def open_bills(self) -> list[Bill]:
        return [b for b in self.bills if b.status == "open"]

    def balance(self) -> Decimal:
        return sum((b.unpaid for b in self.open_bills()), Decimal(0))

    def past_due(self) -> tuple[Decimal, int]:
        late = [b for b in self.open_bills() if b.due < TODAY]
        if not late:
            return Decimal(0), 0
        return sum((b.unpaid for b in late), Decimal(0)), (TODAY - min(b.due for b in late)).days

    def must_transfer(self) -> bool:
        return policy.must_transfer(self.balance(), self.past_due()[1])

    def eligibility(self) -> policy.Decision:
        late, days = self.past_due()
        return policy.arrangement_eligibility(late, self.loan is not None, self.balance(), days)

    def cap(self) -> int:
        return policy.max_term_months(self.percent)

    def good_card(self) -> dict[str, Any] | None:
        return next((c for c in self.cards if not c["declines"]), None)

    def latest(self) -> Bill:
        return [b for b in self.bills if b.kwh][-1]

    def previous(self) -> Bill:
        return [b for b in self.bills if b.kwh][-2]

    # --- changes (the policy model's arithmetic) -------------------------------------------------
    def pay_bills(self, amount: Decimal, last4: str) -> None:
        left = amount
        for b in self.open_bills():
            take = min(left, b.unpaid)
            b.unpaid -= take
            left -= take
            if b.unpaid == 0:
                b.status = "paid"
        self.payments.append((TODAY, amount, last4))

    def arrange(self, quote: policy.Quote, last4: str | None) -> None:
        for b in self.open_bills():
            if b.due < TODAY:
                b.status = "arranged"
        schedule = [
            Instalment(
                n,
                months_after(TODAY, n),  # the first instalment a month from today
                quote.last_instalment if n == quote.months else quote.instalment,
                Decimal(0),
            )
            for n in range(1, quote.months + 1)
        ]
        self.loan = Loan(
            "new",
            quote.principal,
            quote.down_payment,
            quote.months,
            quote.instalment,
            schedule,
            months_after(TODAY, 1),
        )
        if quote.down_payment:
            self.payments.append((TODAY, quote.down_payment, last4))

    def reschedule(self, quote: policy.Quote) -> None:
        assert self.loan is not None
        paid = self.loan.paid_count()
        start = self.loan.start
        kept = self.loan.schedule[:paid]
        total = paid + quote.months
        kept += [
            Instalment(
                n,
                months_after(start, n - 1),
                quote.last_instalment if n == total else quote.instalment,
                Decimal(0),
            )
            for n in range(paid + 1, total + 1)
        ]
        self.loan.schedule, self.loan.term, self.loan.instalment = kept, total, quote.instalment

    def repay(self, amount: Decimal, last4: str) -> None:
        assert self.loan is not None
        left = amount
        for s in self.loan.schedule:
            take = min(left, s.amount - s.paid)
            s.paid += take
            left -= take
        self.payments.append((TODAY, amount, last4))

    def extend(self, days: int) -> dt.date:
        bill = [b for b in self.open_bills() if b.due >= TODAY][-1]
        bill.due = bill.due + dt.timedelta(days=days)
        self.extension_last = TODAY
        return bill.due

    def copy(self) -> Facts:
        return copy.deepcopy(self)


def _date(text: str | None) -> dt.date | None:
    return dt.date.fromisoformat(text) if text else None


@cache
def initial_facts() -> dict[str, Facts]:
    """Every account's facts as seeded, read through the services' read side once."""
    dbs = build()
    billing = BillingService(dbs["billing"], TODAY)
    loans = LoanEngine(dbs["loans"], TODAY)
    cases = {str(a["account_number"]): a.get("case", "") for a in manifest()["accounts"]}
    default_price = Decimal(billing.default_supplier()["price_per_kwh"])
    out = {}
    for number in cases:
        c = billing.customer(number)
        assert c is not None
        premise = billing.premise(number)
        active = loans.active(number)
        loan = None
        if active is not None:
            loan = Loan(
                active["loan_id"],
                Decimal(active["principal_cents"]) / 100,
                Decimal(active["down_payment_cents"]) / 100,
                active["term_months"],
                Decimal(active["instalment_cents"]) / 100,
                [
                    Instalment(
                        s["number"],
                        dt.date.fromisoformat(s["due_date"]),
                        Decimal(s["amount_cents"]) / 100,
                        Decimal(s["paid_cents"]) / 100,
                    )
                    for s in loans.schedule(active["loan_id"])
                ],
                dt.date.fromisoformat(active["start_date"]),
            )
        supplier = billing.supplier(c["supplier_id"])
        out[number] = Facts(
            account=number,
            full_name=c["full_name"],
            email=c["email"],
            address=premise["address"],
            postal_code=premise["postal_code"],
            percent=c["income_percent_of_poverty_level"],
            cards=[
                {"last4": k["last4"], "brand": k["brand"], "declines": bool(k["declines"])}
                for k in billing.cards(number)
            ],
            supplier={
                "name": supplier["name"],
                "phone": supplier["phone"],
                "price": Decimal(supplier["price_per_kwh"]),
                "is_default": bool(supplier["is_default"]),
            },
            default_price=default_price,
            bills=[
                Bill(
                    b["bill_id"],
                    dt.date.fromisoformat(b["issued"]),
                    dt.date.fromisoformat(b["due_date"]),
                    Decimal(b["total_cents"]) / 100,
                    Decimal(b["total_cents"] - b["paid_cents"]) / 100,
                    b["status"],
                    b["kwh"],
                )
                for b in billing.bills(number)
            ],
            loan=loan,
            last_broken=loans.last_broken(number),
            paperless=bool(c["paperless"]),
            extension_last=_date(c["extension_last_granted"]),
            medical_until=_date(c["medical_certificate_until"]),
            payments=[
                (dt.date.fromisoformat(p["paid_on"]), Decimal(p["amount_cents"]) / 100, p["last4"])
                for p in billing.payments(number)
            ],
            case=cases[number],
        )
    for conn in dbs.values():
        conn.close()
    return out
