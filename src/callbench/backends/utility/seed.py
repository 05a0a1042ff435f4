"""Seed both services from one account manifest, read them back, and check they agree.

The manifest (`accounts.yaml`) says what each account is for in the benchmark (arrears, broken or
overdue arrangements, protections, a declining card); usage comes from the household model in
`usage.py`; bills from the tariff below. Prices, taxes and fixed charges are benchmark assumptions,
not any utility's tariff. Seeding is a pure function of the manifest, so the snapshot's digest is
the same on every machine.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import zlib
from decimal import Decimal
from functools import cache
from importlib import resources
from typing import Any

import yaml

from . import policy
from .loans import months_after
from .schema import BILLING, LOANS
from .usage import PERIODS, Household, period_kwh

CUSTOMER_CHARGE = Decimal("11.50")
DISTRIBUTION_PER_KWH = Decimal("0.0712")
STATE_TAX = Decimal("0.059")
ISSUE_AFTER_DAYS = 1
DUE_AFTER_DAYS = 21
"""Prior arrears were issued this long before they fell due."""


def due_after_days(account: str) -> int:
    """A bill is issued the day after its period ends and due 15 to 25 days later, by the
    account's billing cycle (a stable hash of its number), so due dates differ between accounts as
    they do between real customers, and no single date is right on every call."""
    return 15 + zlib.crc32(account.encode()) % 11


@cache
def manifest() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("accounts.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def c(amount: Decimal) -> int:
    return int(policy.money(amount) * 100)


def bill_lines(kwh: int, price_per_kwh: Decimal) -> list[tuple[str, str, str, str, int]]:
    """(kind, description, quantity, unit price, cents) for one month's bill."""
    dist = c(DISTRIBUTION_PER_KWH * kwh)
    gen = c(price_per_kwh * kwh)
    fixed = c(CUSTOMER_CHARGE)
    tax = c(Decimal(fixed + dist + gen) / 100 * STATE_TAX)
    return [
        ("customer_charge", "Monthly customer charge", "1", str(CUSTOMER_CHARGE), fixed),
        (
            "distribution",
            "Distribution (delivery) charge",
            f"{kwh} kWh",
            str(DISTRIBUTION_PER_KWH),
            dist,
        ),
        ("generation", "Generation (supply) charge", f"{kwh} kWh", str(price_per_kwh), gen),
        ("state_tax", "State tax, 5.9% of charges", "", str(STATE_TAX), tax),
    ]


def _insert(conn: sqlite3.Connection, table: str, row: dict[str, Any]) -> None:
    cols = ", ".join(row)
    conn.execute(
        f"INSERT INTO {table} ({cols}) VALUES ({', '.join('?' * len(row))})", tuple(row.values())
    )


def build() -> dict[str, sqlite3.Connection]:
    """The seeded databases, checked (`check`) before anyone copies them."""
    data = manifest()
    billing = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    loans = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    billing.executescript(BILLING)
    loans.executescript(LOANS)
    billing.execute("BEGIN")
    loans.execute("BEGIN")
    prices = {}
    for sid, s in data["suppliers"].items():
        prices[sid] = Decimal(str(s["price_per_kwh"]))
        _insert(
            billing,
            "suppliers",
            {
                "supplier_id": sid,
                "name": s["name"],
                "phone": s["phone"],
                "price_per_kwh": str(s["price_per_kwh"]),
                "is_default": int(sid == "default"),
            },
        )
    for n, acct in enumerate(data["accounts"], start=1):
        _seed_account(billing, loans, acct, prices, n)
    billing.execute("COMMIT")
    loans.execute("COMMIT")
    check(billing, loans)
    return {"billing": billing, "loans": loans}


def _seed_account(
    billing: sqlite3.Connection,
    loans: sqlite3.Connection,
    a: dict[str, Any],
    prices: dict[str, Decimal],
    n: int,
) -> None:
    number = str(a["account_number"])
    _insert(
        billing,
        "customers",
        {
            "account_number": number,
            "full_name": a["full_name"],
            "email": a["email"],
            "phone": a["phone"],
            "household_size": a["household_size"],
            "annual_income": a.get("annual_income"),
            "income_percent_of_poverty_level": policy.fpl_percent(
                a.get("annual_income"), a["household_size"]
            ),
            "supplier_id": a["supplier"],
            "paperless": int(bool(a["paperless"])),
            "medical_certificate_until": _iso(a.get("medical_certificate_until")),
            "shutoff_notice": int(bool(a.get("shutoff_notice"))),
            "extension_last_granted": _iso(a.get("extension_last_granted")),
        },
    )
    _insert(
        billing,
        "premises",
        {
            "premise_id": f"pr_{n:03d}",
            "account_number": number,
            "address": a["address"],
            "postal_code": str(a["postal_code"]),
            "meter_id": f"E-{40000 + 37 * n}",
        },
    )
    cards = []
    for k, card in enumerate(a["cards"], start=1):
        row = {
            "card_id": f"cd_{n:03d}_{k}",
            "account_number": number,
            "brand": card["brand"],
            "last4": str(card["last4"]),
            "expires": str(card["expires"]),
            "declines": int(bool(card.get("declines"))),
        }
        cards.append(row)
        _insert(billing, "cards", row)
    paying = next((x["card_id"] for x in cards if not x["declines"]), None)
    kwh = period_kwh(Household(**a["usage"]))
    bills: list[tuple[str, dt.date, int]] = []
    prior = a.get("prior_arrears")
    if prior:
        due = dt.date.fromisoformat(str(prior["due_date"]))
        bill_id = f"{number}-{due:%Y-%m}-prior"
        total = c(Decimal(str(prior["amount"])))
        _insert(
            billing,
            "bills",
            {
                "bill_id": bill_id,
                "account_number": number,
                "period_start": None,
                "period_end": None,
                "issued": (due - dt.timedelta(days=DUE_AFTER_DAYS)).isoformat(),
                "due_date": due.isoformat(),
                "kwh": 0,
                "total_cents": total,
                "paid_cents": 0,
                "status": "open",
            },
        )
        _insert(
            billing,
            "bill_lines",
            {
                "line_id": f"{bill_id}-1",
                "bill_id": bill_id,
                "kind": "balance_forward",
                "description": "Unpaid balance carried from earlier bills",
                "quantity": None,
                "unit_price": None,
                "amount_cents": total,
            },
        )
    price = prices[a["supplier"]]
    for i, ((start, end), use) in enumerate(zip(PERIODS, kwh, strict=True), start=1):
        issued = end + dt.timedelta(days=ISSUE_AFTER_DAYS)
        due = issued + dt.timedelta(days=due_after_days(number))
        bill_id = f"{number}-{issued:%Y-%m}"
        lines = bill_lines(use, price)
        total = sum(x[4] for x in lines)
        _insert(
            billing,
            "usage",
            {
                "usage_id": f"{number}-u{i}",
                "account_number": number,
                "period_start": start.isoformat(),
                "period_end": end.isoformat(),
                "kwh": use,
            },
        )
        _insert(
            billing,
            "bills",
            {
                "bill_id": bill_id,
                "account_number": number,
                "period_start": start.isoformat(),
                "period_end": end.isoformat(),
                "issued": issued.isoformat(),
                "due_date": due.isoformat(),
                "kwh": use,
                "total_cents": total,
                "paid_cents": 0,
                "status": "open",
            },
        )
        for j, (kind, desc, qty, unit, cents) in enumerate(lines, start=1):
            _insert(
                billing,
                "bill_lines",
                {
                    "line_id": f"{bill_id}-{j}",
                    "bill_id": bill_id,
                    "kind": kind,
                    "description": desc,
                    "quantity": qty,
                    "unit_price": unit,
                    "amount_cents": cents,
                },
            )
        bills.append((bill_id, due, total))
    partial = a.get("partial") or {}
    for i, (bill_id, due, total) in enumerate(bills, start=1):
        if i in a.get("paid", []):
            amount = total
        elif partial.get("bill") == i:
            amount = total - c(Decimal(str(partial["leave_unpaid"])))
        else:
            continue
        paid_on = due - dt.timedelta(days=3)
        _insert(
            billing,
            "payments",
            {
                "payment_id": f"hist_{number}_{i}",
                "account_number": number,
                "card_id": paying,
                "amount_cents": amount,
                "paid_on": paid_on.isoformat(),
                "toward": "bills",
            },
        )
        billing.execute(
            "UPDATE bills SET paid_cents = ?, status = ? WHERE bill_id = ?",
            (amount, "paid" if amount == total else "open", bill_id),
        )
    client_id = f"cl_{n:03d}"
    _insert(
        loans,
        "clients",
        {"client_id": client_id, "account_number": number, "display_name": a["full_name"]},
    )
    if a.get("arrangement"):
        _seed_loan(loans, client_id, number, a["arrangement"])


def _seed_loan(conn: sqlite3.Connection, client_id: str, number: str, x: dict[str, Any]) -> None:
    loan_id = f"ln_{number}"
    principal = Decimal(str(x["principal"]))
    down = Decimal(str(x.get("down_payment") or 0))
    months = int(x["term_months"])
    start = dt.date.fromisoformat(str(x["start"]))
    q = policy.quote(principal - down, months)
    _insert(
        conn,
        "loans",
        {
            "loan_id": loan_id,
            "client_id": client_id,
            "principal_cents": c(principal),
            "down_payment_cents": c(down),
            "term_months": months,
            "instalment_cents": c(q.instalment),
            "start_date": start.isoformat(),
            "status": x["status"],
            "broken_on": _iso(x.get("broken_on")),
        },
    )
    paid = int(x.get("paid_instalments") or 0)
    missed = set(x.get("missed_instalments") or [])
    for k in range(1, months + 1):
        due = months_after(start, k - 1)  # `start` is the first instalment's due date
        amount = c(q.last_instalment if k == months else q.instalment)
        is_paid = k <= paid
        if not is_paid and x["status"] == "active" and due < policy.TODAY and k not in missed:
            raise ValueError(
                f"accounts.yaml: account {number}: instalment {k} was due {due} and is neither "
                "paid nor listed in missed_instalments"
            )
        _insert(
            conn,
            "schedule",
            {
                "instalment_id": f"{loan_id}-{k:02d}",
                "loan_id": loan_id,
                "number": k,
                "due_date": due.isoformat(),
                "amount_cents": amount,
                "paid_cents": amount if is_paid else 0,
            },
        )
        if is_paid:
            _insert(
                conn,
                "repayments",
                {
                    "repayment_id": f"rp_{number}_{k:02d}",
                    "loan_id": loan_id,
                    "amount_cents": amount,
                    "transaction_date": due.isoformat(),
                },
            )


def _iso(value: Any) -> str | None:
    return None if value in (None, "") else str(value)


def check(billing: sqlite3.Connection, loans: sqlite3.Connection) -> None:
    """Read both services back and refuse a snapshot in which they disagree."""
    problems = []
    accounts = {r[0] for r in billing.execute("SELECT account_number FROM customers")}
    clients = {r[0] for r in loans.execute("SELECT account_number FROM clients")}
    if accounts != clients:
        problems.append(
            f"accounts without a loan client or clients without an account: "
            f"{sorted(accounts ^ clients)}"
        )
    for bill_id, total, paid in billing.execute(
        "SELECT bill_id, total_cents, paid_cents FROM bills"
    ):
        (lines,) = billing.execute(
            "SELECT COALESCE(SUM(amount_cents), 0) FROM bill_lines WHERE bill_id = ?", (bill_id,)
        ).fetchone()
        if lines != total or not 0 <= paid <= total:
            problems.append(f"bill {bill_id}: lines {lines}, total {total}, paid {paid}")
    for number in accounts:
        (paid,) = billing.execute(
            "SELECT COALESCE(SUM(paid_cents), 0) FROM bills WHERE account_number = ?", (number,)
        ).fetchone()
        (took,) = billing.execute(
            "SELECT COALESCE(SUM(amount_cents), 0) FROM payments WHERE account_number = ? "
            "AND toward = 'bills'",
            (number,),
        ).fetchone()
        if paid != took:
            problems.append(f"account {number}: bills show {paid} paid, payments {took}")
    for loan_id, principal, down in loans.execute(
        "SELECT loan_id, principal_cents, down_payment_cents FROM loans"
    ):
        (sched,) = loans.execute(
            "SELECT SUM(amount_cents) FROM schedule WHERE loan_id = ?", (loan_id,)
        ).fetchone()
        (repaid,) = loans.execute(
            "SELECT COALESCE(SUM(amount_cents), 0) FROM repayments WHERE loan_id = ?", (loan_id,)
        ).fetchone()
        (sched_paid,) = loans.execute(
            "SELECT COALESCE(SUM(paid_cents), 0) FROM schedule WHERE loan_id = ?", (loan_id,)
        ).fetchone()
        if sched != principal - down or repaid != sched_paid:
            problems.append(
                f"loan {loan_id}: schedule {sched} for {principal - down} financed, "
                f"repaid {repaid} against {sched_paid}"
            )
    for client, active in loans.execute(
        "SELECT client_id, COUNT(*) FROM loans WHERE status = 'active' GROUP BY client_id"
    ):
        if active > 1:
            problems.append(f"client {client} has {active} active loans")
    if problems:
        raise ValueError("the seeded services disagree:\n  " + "\n  ".join(problems))
