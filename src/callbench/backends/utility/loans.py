"""The loan engine: payment arrangements as zero-interest instalment loans, over its own SQLite
database.

Its rules are its own, whatever the tools ask: a repayment dated after today is refused, a loan is
never rescheduled to fewer instalments than are already paid or to less than has been repaid, and a
client has at most one active loan.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from typing import Any

from .billing import ServiceRule, next_id, rows
from .policy import months_before


def months_after(day: dt.date, months: int) -> dt.date:
    return months_before(day, -months)


class LoanEngine:
    def __init__(self, conn: sqlite3.Connection, today: dt.date):
        self.conn, self.today = conn, today

    def client_id(self, account: str) -> str:
        found = rows(self.conn, "SELECT client_id FROM clients WHERE account_number = ?", account)
        if not found:
            raise ServiceRule("no_client", "the loan engine has no client for this account")
        return str(found[0]["client_id"])

    def loans(self, account: str) -> list[dict[str, Any]]:
        return rows(
            self.conn,
            "SELECT l.* FROM loans l JOIN clients c ON c.client_id = l.client_id "
            "WHERE c.account_number = ? ORDER BY l.start_date, l.loan_id",
            account,
        )

    def active(self, account: str) -> dict[str, Any] | None:
        return next((x for x in self.loans(account) if x["status"] == "active"), None)

    def last_broken(self, account: str) -> dt.date | None:
        dates = [x["broken_on"] for x in self.loans(account) if x["status"] == "broken"]
        return dt.date.fromisoformat(max(dates)) if dates else None

    def schedule(self, loan_id: str) -> list[dict[str, Any]]:
        return rows(self.conn, "SELECT * FROM schedule WHERE loan_id = ? ORDER BY number", loan_id)

    def repaid_cents(self, loan_id: str) -> int:
        (total,) = self.conn.execute(
            "SELECT COALESCE(SUM(amount_cents), 0) FROM repayments WHERE loan_id = ?", (loan_id,)
        ).fetchone()
        return int(total)

    def create(
        self,
        account: str,
        principal: int,
        down: int,
        months: int,
        instalment: int,
        last_instalment: int,
    ) -> str:
        if self.active(account) is not None:
            raise ServiceRule("active_loan", "the client already has an active loan")
        if down + instalment * (months - 1) + last_instalment != principal:
            raise ServiceRule("schedule_mismatch", "the schedule does not add up to the principal")
        loan_id = next_id(self.conn, "loans", "loan_id", "ln_")
        self.conn.execute(
            "INSERT INTO loans VALUES (?, ?, ?, ?, ?, ?, ?, 'active', NULL)",
            (
                loan_id,
                self.client_id(account),
                principal,
                down,
                months,
                instalment,
                months_after(self.today, 1).isoformat(),
            ),
        )
        self._write_schedule(
            loan_id, 1, months, instalment, last_instalment, months_after(self.today, 1)
        )
        return loan_id

    def _write_schedule(
        self, loan_id: str, first: int, last: int, each: int, final: int, start: dt.date
    ) -> None:
        """Instalment n falls due n-1 months after the loan's start (its first due date)."""
        for n in range(first, last + 1):
            self.conn.execute(
                "INSERT INTO schedule VALUES (?, ?, ?, ?, ?, 0)",
                (
                    f"{loan_id}-{n:02d}",
                    loan_id,
                    n,
                    months_after(start, n - 1).isoformat(),
                    final if n == last else each,
                ),
            )

    def repay(self, loan_id: str, cents: int, transaction_date: dt.date) -> str:
        """A repayment goes to the oldest unpaid instalments; a future date is refused."""
        if transaction_date > self.today:
            raise ServiceRule("future_dated", "a repayment cannot be dated after today")
        if cents <= 0:
            raise ServiceRule("invalid_amount", "the repayment must be more than zero")
        open_parts = [s for s in self.schedule(loan_id) if s["paid_cents"] < s["amount_cents"]]
        owed = sum(s["amount_cents"] - s["paid_cents"] for s in open_parts)
        if cents > owed:
            raise ServiceRule("over_repayment", "the repayment is more than the loan's balance")
        repayment_id = next_id(self.conn, "repayments", "repayment_id", "rp_")
        self.conn.execute(
            "INSERT INTO repayments VALUES (?, ?, ?, ?)",
            (repayment_id, loan_id, cents, transaction_date.isoformat()),
        )
        left = cents
        for s in open_parts:
            if left == 0:
                break
            take = min(left, s["amount_cents"] - s["paid_cents"])
            self.conn.execute(
                "UPDATE schedule SET paid_cents = paid_cents + ? WHERE instalment_id = ?",
                (take, s["instalment_id"]),
            )
            left -= take
        if owed == cents:
            self.conn.execute("UPDATE loans SET status = 'closed' WHERE loan_id = ?", (loan_id,))
        return repayment_id

    def reschedule(self, loan_id: str, months: int, each: int, final: int) -> None:
        """Spread what is left over instalments `paid+1 .. months`: never fewer than are paid."""
        sched = self.schedule(loan_id)
        paid = [s for s in sched if s["paid_cents"] == s["amount_cents"]]
        touched = [s for s in sched if 0 < s["paid_cents"] < s["amount_cents"]]
        if touched:
            raise ServiceRule(
                "part_paid_instalment", "an instalment is part paid; settle it before rescheduling"
            )
        if months <= len(paid):
            raise ServiceRule(
                "below_paid", "the loan cannot be modified below what is already paid"
            )
        remaining = sum(s["amount_cents"] for s in sched) - sum(s["amount_cents"] for s in paid)
        if each * (months - len(paid) - 1) + final != remaining:
            raise ServiceRule("schedule_mismatch", "the new schedule does not add up")
        loan = rows(self.conn, "SELECT * FROM loans WHERE loan_id = ?", loan_id)[0]
        for s in sched[len(paid) :]:
            self.conn.execute("DELETE FROM schedule WHERE instalment_id = ?", (s["instalment_id"],))
        self.conn.execute(
            "UPDATE loans SET term_months = ?, instalment_cents = ? WHERE loan_id = ?",
            (months, each, loan_id),
        )
        start = dt.date.fromisoformat(loan["start_date"])
        self._write_schedule(loan_id, len(paid) + 1, months, each, final, start)
