"""The billing service: customers, bills, cards, payments and billing preferences, over its own
SQLite database.

It keeps its own books and rules, whatever the agent-facing tools ask: a payment cannot exceed what
is owed, a declining card takes nothing, a due date moves only on an open bill. Amounts are whole
cents; ids are sequential per table, so the same calls in the same order give the same ids.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from typing import Any


class ServiceRule(Exception):
    """A service refused a request under its own rules; `reason` is machine-readable."""

    def __init__(self, reason: str, message: str, **details: Any):
        super().__init__(message)
        self.reason, self.message, self.details = reason, message, details


def rows(conn: sqlite3.Connection, sql: str, *args: Any) -> list[dict[str, Any]]:
    cur = conn.execute(sql, args)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def next_id(conn: sqlite3.Connection, table: str, key: str, prefix: str) -> str:
    (n,) = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
    return f"{prefix}{n + 1:05d}"


class BillingService:
    def __init__(self, conn: sqlite3.Connection, today: dt.date):
        self.conn, self.today = conn, today

    # --- reads -----------------------------------------------------------------------------------
    def customer(self, account: str) -> dict[str, Any] | None:
        found = rows(self.conn, "SELECT * FROM customers WHERE account_number = ?", account)
        return found[0] if found else None

    def premise(self, account: str) -> dict[str, Any]:
        return rows(self.conn, "SELECT * FROM premises WHERE account_number = ?", account)[0]

    def bills(self, account: str) -> list[dict[str, Any]]:
        return rows(
            self.conn,
            "SELECT * FROM bills WHERE account_number = ? ORDER BY issued, bill_id",
            account,
        )

    def bill(self, account: str, bill_id: str) -> dict[str, Any]:
        found = rows(
            self.conn,
            "SELECT * FROM bills WHERE account_number = ? AND bill_id = ?",
            account,
            bill_id,
        )
        if not found:
            raise ServiceRule("no_such_bill", f"no bill {bill_id} on this account")
        return found[0]

    def lines(self, bill_id: str) -> list[dict[str, Any]]:
        return rows(
            self.conn, "SELECT * FROM bill_lines WHERE bill_id = ? ORDER BY line_id", bill_id
        )

    def usage(self, account: str) -> list[dict[str, Any]]:
        return rows(
            self.conn,
            "SELECT period_start, period_end, kwh FROM usage WHERE account_number = ? "
            "ORDER BY period_start",
            account,
        )

    def cards(self, account: str) -> list[dict[str, Any]]:
        return rows(
            self.conn, "SELECT * FROM cards WHERE account_number = ? ORDER BY card_id", account
        )

    def payments(self, account: str) -> list[dict[str, Any]]:
        return rows(
            self.conn,
            "SELECT p.*, c.last4 FROM payments p LEFT JOIN cards c ON c.card_id = p.card_id "
            "WHERE p.account_number = ? ORDER BY p.paid_on, p.payment_id",
            account,
        )

    def supplier(self, supplier_id: str) -> dict[str, Any]:
        return rows(self.conn, "SELECT * FROM suppliers WHERE supplier_id = ?", supplier_id)[0]

    def default_supplier(self) -> dict[str, Any]:
        return rows(self.conn, "SELECT * FROM suppliers WHERE is_default = 1")[0]

    def open_bills(self, account: str) -> list[dict[str, Any]]:
        return [b for b in self.bills(account) if b["status"] == "open"]

    def balance_cents(self, account: str) -> int:
        return sum(b["total_cents"] - b["paid_cents"] for b in self.open_bills(account))

    def past_due(self, account: str) -> tuple[int, int]:
        """(cents past due, days past due of the oldest unpaid bill)."""
        late = [b for b in self.open_bills(account) if b["due_date"] < self.today.isoformat()]
        if not late:
            return 0, 0
        oldest = min(dt.date.fromisoformat(b["due_date"]) for b in late)
        return sum(b["total_cents"] - b["paid_cents"] for b in late), (self.today - oldest).days

    # --- writes ----------------------------------------------------------------------------------
    def charge(self, account: str, last4: str, cents: int, toward: str) -> dict[str, Any]:
        """Take `cents` from a card on file. A declining card takes nothing."""
        if cents <= 0:
            raise ServiceRule("invalid_amount", "the amount must be more than zero")
        card = next((c for c in self.cards(account) if c["last4"] == last4), None)
        if card is None:
            raise ServiceRule("no_such_card", "no card on file ends in those digits")
        if card["expires"] < self.today.isoformat()[:7]:
            raise ServiceRule("card_expired", "that card has expired")
        if card["declines"]:
            raise ServiceRule("card_declined", "the card was declined by its issuer")
        payment_id = next_id(self.conn, "payments", "payment_id", "py_")
        self.conn.execute(
            "INSERT INTO payments VALUES (?, ?, ?, ?, ?, ?)",
            (payment_id, account, card["card_id"], cents, self.today.isoformat(), toward),
        )
        return {"payment_id": payment_id, "card": card}

    def pay_bills(self, account: str, last4: str, cents: int) -> dict[str, Any]:
        balance = self.balance_cents(account)
        if cents > balance:
            raise ServiceRule(
                "amount_over_balance", "a payment cannot be more than the balance owed"
            )
        paid = self.charge(account, last4, cents, "bills")
        left = cents
        for b in self.open_bills(account):  # oldest first
            if left == 0:
                break
            take = min(left, b["total_cents"] - b["paid_cents"])
            status = "paid" if b["paid_cents"] + take == b["total_cents"] else "open"
            self.conn.execute(
                "UPDATE bills SET paid_cents = paid_cents + ?, status = ? WHERE bill_id = ?",
                (take, status, b["bill_id"]),
            )
            left -= take
        return paid

    def move_arrears_to_arrangement(self, account: str) -> list[str]:
        """The past-due bills now owed through an arrangement (their unpaid part becomes the
        loan)."""
        late = [b for b in self.open_bills(account) if b["due_date"] < self.today.isoformat()]
        for b in late:
            self.conn.execute(
                "UPDATE bills SET status = 'arranged' WHERE bill_id = ?", (b["bill_id"],)
            )
        return [b["bill_id"] for b in late]

    def extend_due_date(self, account: str, days: int) -> dict[str, Any]:
        current = [b for b in self.open_bills(account) if b["due_date"] >= self.today.isoformat()]
        if not current:
            raise ServiceRule("no_open_bill", "there is no open bill whose due date can move")
        bill = current[-1]
        new_due = (dt.date.fromisoformat(bill["due_date"]) + dt.timedelta(days=days)).isoformat()
        extension_id = next_id(self.conn, "extensions", "extension_id", "ex_")
        self.conn.execute(
            "INSERT INTO extensions VALUES (?, ?, ?, ?, ?, ?)",
            (extension_id, account, bill["bill_id"], days, self.today.isoformat(), new_due),
        )
        self.conn.execute(
            "UPDATE bills SET due_date = ? WHERE bill_id = ?", (new_due, bill["bill_id"])
        )
        self.conn.execute(
            "UPDATE customers SET extension_last_granted = ? WHERE account_number = ?",
            (self.today.isoformat(), account),
        )
        return {"extension_id": extension_id, "bill_id": bill["bill_id"], "new_due_date": new_due}

    def set_paperless(self, account: str, enabled: bool) -> None:
        self.conn.execute(
            "UPDATE customers SET paperless = ? WHERE account_number = ?", (int(enabled), account)
        )
