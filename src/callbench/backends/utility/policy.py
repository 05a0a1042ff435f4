"""The utility's policy as code: the one source of its terms for the tools, the agent's manual and
the task generator.

The terms are the published utility-billing benchmark's (income-dependent arrangement caps, winter
and medical protection, a down payment after a broken arrangement, one due-date extension a year,
a person for large old arrears). They are a fixed, simplified benchmark policy informed by
Pennsylvania's residential billing rules, not a statement of law. Money is `Decimal` in dollars,
rounded half up to the cent; dates are `datetime.date`; "within 12 months" is to the day: a thing
that happened on 2025-09-10 is 12 months old on 2026-09-10.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

NOW = dt.datetime(2026, 9, 10, 0, 59, 9, tzinfo=dt.UTC)
"""The frozen clock every call of the benchmark runs at (the reference's snapshot time)."""
TODAY = NOW.date()

CENT = Decimal("0.01")
MIN_ARREARS = Decimal("50.00")
MIN_TERM_MONTHS = 2
TERM_CAPS: tuple[tuple[int, int], ...] = ((150, 60), (250, 36), (300, 12))
"""(highest income as a percent of the poverty level, longest term in months); above the last band
or with no recorded income the cap is `DEFAULT_TERM_CAP`."""
DEFAULT_TERM_CAP = 6
BROKEN_DOWN_SHARE = Decimal("0.25")
LOOKBACK_MONTHS = 12
WINTER_MAX_FPL = 250
WINTER_START = (12, 1)
WINTER_END = (3, 31)
EXTENSION_MIN_DAYS, EXTENSION_MAX_DAYS = 1, 15
TRANSFER_MIN_OUTSTANDING = Decimal("500.00")
TRANSFER_MIN_DAYS_PAST_DUE = 60
VERIFY_ATTEMPTS = 3

FPL_FIRST_PERSON = 15650
FPL_PER_EXTRA_PERSON = 5500
"""2025 HHS poverty guidelines for the 48 contiguous states and DC."""


def money(value: Decimal | float | int | str) -> Decimal:
    """A dollar amount rounded half up to the cent (floats go through their shortest repr)."""
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def poverty_guideline(household_size: int) -> int:
    if household_size < 1:
        raise ValueError(f"household size must be at least 1, got {household_size}")
    return FPL_FIRST_PERSON + FPL_PER_EXTRA_PERSON * (household_size - 1)


def fpl_percent(annual_income: int | None, household_size: int) -> int | None:
    """Income as a whole percent of the poverty guideline, rounded down (150.9% is 150%); None when
    the income is not on record."""
    if annual_income is None:
        return None
    return (100 * annual_income) // poverty_guideline(household_size)


def max_term_months(percent: int | None) -> int:
    if percent is None:
        return DEFAULT_TERM_CAP
    for ceiling, months in TERM_CAPS:
        if percent <= ceiling:
            return months
    return DEFAULT_TERM_CAP


def months_before(day: dt.date, months: int) -> dt.date:
    """The same day `months` earlier (the last day of a shorter month when it has no such day)."""
    y, m = divmod(day.year * 12 + day.month - 1 - months, 12)
    m += 1
    for d in (day.day, 30, 29, 28):
        try:
            return dt.date(y, m, d)
        except ValueError:
            continue
    raise AssertionError("unreachable")


def within_last_year(when: dt.date | None, today: dt.date = TODAY) -> bool:
    """True when `when` is less than 12 months before today (to the day: exactly 12 months is not
    within)."""
    return when is not None and months_before(today, LOOKBACK_MONTHS) < when <= today


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str
    """a machine reason the tools return and the generator keys on (`ok` when allowed)"""


def must_transfer(outstanding: Decimal, days_past_due: int) -> bool:
    """Large, old arrears go to a person: at least $500 outstanding and at least 60 days past
    due."""
    return outstanding >= TRANSFER_MIN_OUTSTANDING and days_past_due >= TRANSFER_MIN_DAYS_PAST_DUE


def arrangement_eligibility(
    arrears: Decimal,
    has_active_arrangement: bool,
    outstanding: Decimal,
    days_past_due: int,
) -> Decision:
    if must_transfer(outstanding, days_past_due):
        return Decision(False, "needs_a_person")
    if has_active_arrangement:
        return Decision(False, "active_arrangement")
    if arrears < MIN_ARREARS:
        return Decision(False, "arrears_under_minimum")
    return Decision(True, "ok")


def down_payment_share(last_broken: dt.date | None, today: dt.date = TODAY) -> Decimal:
    return BROKEN_DOWN_SHARE if within_last_year(last_broken, today) else Decimal(0)


@dataclass(frozen=True)
class Quote:
    """A zero-interest arrangement: `down_payment` today, then `months` monthly instalments; every
    instalment is `instalment` except the last, which takes the rounding (`last_instalment`)."""

    principal: Decimal
    down_payment: Decimal
    months: int
    instalment: Decimal
    last_instalment: Decimal

    @property
    def financed(self) -> Decimal:
        return self.principal - self.down_payment


def term_decision(months: int, percent: int | None) -> Decision:
    if months < MIN_TERM_MONTHS:
        return Decision(False, "term_under_minimum")
    if months > max_term_months(percent):
        return Decision(False, "term_over_cap")
    return Decision(True, "ok")


def quote(principal: Decimal, months: int, down_share: Decimal = Decimal(0)) -> Quote:
    """Split `principal` (the arrears) into a down payment and `months` instalments."""
    if months < 1:
        raise ValueError(f"an arrangement needs at least one instalment, got {months}")
    principal = money(principal)
    down = money(principal * down_share)
    financed = principal - down
    each = money(financed / months)
    last = financed - each * (months - 1)
    return Quote(principal, down, months, each, last)


def winter_protected(percent: int | None, on: dt.date) -> bool:
    """Shut-off protection from December 1 to March 31 for recorded income at or below 250%."""
    in_winter = (on.month, on.day) >= WINTER_START or (on.month, on.day) <= WINTER_END
    return in_winter and percent is not None and percent <= WINTER_MAX_FPL


def next_winter(today: dt.date = TODAY) -> tuple[dt.date, dt.date]:
    """The winter season that contains today or comes next."""
    start_year = today.year if (today.month, today.day) > WINTER_END else today.year - 1
    return dt.date(start_year, *WINTER_START), dt.date(start_year + 1, *WINTER_END)


def medically_protected(certificate_until: dt.date | None, on: dt.date) -> bool:
    return certificate_until is not None and on <= certificate_until


def extension_decision(last_granted: dt.date | None, days: int, today: dt.date = TODAY) -> Decision:
    if not EXTENSION_MIN_DAYS <= days <= EXTENSION_MAX_DAYS:
        return Decision(False, "days_out_of_range")
    if within_last_year(last_granted, today):
        return Decision(False, "extension_within_a_year")
    return Decision(True, "ok")


def payment_decision(amount: Decimal, balance: Decimal) -> Decision:
    if amount <= 0:
        return Decision(False, "amount_not_positive")
    if amount > balance:
        return Decision(False, "amount_over_balance")
    return Decision(True, "ok")


__all__ = [
    "BROKEN_DOWN_SHARE",
    "DEFAULT_TERM_CAP",
    "EXTENSION_MAX_DAYS",
    "MIN_ARREARS",
    "MIN_TERM_MONTHS",
    "NOW",
    "TERM_CAPS",
    "TODAY",
    "TRANSFER_MIN_DAYS_PAST_DUE",
    "TRANSFER_MIN_OUTSTANDING",
    "Decision",
    "Quote",
    "arrangement_eligibility",
    "down_payment_share",
    "extension_decision",
    "fpl_percent",
    "max_term_months",
    "medically_protected",
    "money",
    "must_transfer",
    "next_winter",
    "payment_decision",
    "quote",
    "term_decision",
    "winter_protected",
    "within_last_year",
]
