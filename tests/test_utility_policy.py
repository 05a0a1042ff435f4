"""The utility's policy model at every boundary it states: arrears, the transfer rule, the income
bands and their floor rule, the term, the down payment after a broken arrangement, winter and
medical protection, the due-date extension, payments and quote rounding. The tools and the task
generator both read these functions, so a boundary wrong here is wrong everywhere."""

import datetime as dt
from decimal import Decimal

import pytest

from callbench.backends.utility import policy
from callbench.backends.utility.policy import (
    Decision,
    arrangement_eligibility,
    down_payment_share,
    extension_decision,
    fpl_percent,
    max_term_months,
    medically_protected,
    money,
    months_before,
    must_transfer,
    next_winter,
    payment_decision,
    quote,
    term_decision,
    winter_protected,
    within_last_year,
)

D = Decimal
TODAY = dt.date(2026, 9, 10)


def test_the_frozen_clock_is_the_reference_snapshot_time():
    assert policy.NOW == dt.datetime(2026, 9, 10, 0, 59, 9, tzinfo=dt.UTC)
    assert policy.TODAY == TODAY


# --- arrears and the transfer rule -----------------------------------------------------------


@pytest.mark.parametrize(
    ("arrears", "allowed", "reason"),
    [
        ("49.99", False, "arrears_under_minimum"),
        ("50.00", True, "ok"),
        ("50.01", True, "ok"),
        ("0", False, "arrears_under_minimum"),
    ],
)
def test_arrangement_needs_fifty_dollars_past_due(arrears, allowed, reason):
    assert arrangement_eligibility(D(arrears), False, D("120.00"), 30) == Decision(allowed, reason)


@pytest.mark.parametrize(
    ("outstanding", "days", "transfer"),
    [
        ("499.99", 60, False),
        ("500.00", 60, True),
        ("500.00", 59, False),
        ("499.99", 59, False),
        ("500.00", 61, True),
        ("1200.00", 59, False),
        ("499.99", 400, False),
    ],
)
def test_a_person_takes_500_dollars_and_60_days_both_at_once(outstanding, days, transfer):
    assert must_transfer(D(outstanding), days) is transfer
    decision = arrangement_eligibility(D("300.00"), False, D(outstanding), days)
    assert decision == (Decision(False, "needs_a_person") if transfer else Decision(True, "ok"))


def test_eligibility_reasons_in_order():
    # the transfer rule comes before everything else, then an active arrangement, then arrears
    assert arrangement_eligibility(D("10"), True, D("600"), 60).reason == "needs_a_person"
    assert arrangement_eligibility(D("10"), True, D("60"), 10).reason == "active_arrangement"
    assert arrangement_eligibility(D("10"), False, D("60"), 10).reason == "arrears_under_minimum"


# --- income as a share of the poverty level and the term cap ---------------------------------


def test_poverty_guideline_per_household_size():
    assert policy.poverty_guideline(1) == 15650
    assert policy.poverty_guideline(4) == 15650 + 3 * 5500
    with pytest.raises(ValueError, match="at least 1"):
        policy.poverty_guideline(0)


@pytest.mark.parametrize(
    ("income", "size", "percent"),
    [
        (48540, 4, 150),  # 150.98%: floored, rounding would give 151 (accounts.yaml, Camila Reyes)
        (40242, 3, 151),  # 151.0002%
        (94500, 5, 250),  # 250.996%
        (63650, 2, 300),  # 300.94%
        (47107, 1, 301),  # 301.0003%
        (15650, 1, 100),
        (15649, 1, 99),
        (0, 2, 0),
        (None, 3, None),
    ],
)
def test_fpl_percent_floors_to_a_whole_percent(income, size, percent):
    assert fpl_percent(income, size) == percent


@pytest.mark.parametrize(
    ("percent", "cap"),
    [
        (0, 60),
        (150, 60),
        (151, 36),
        (250, 36),
        (251, 12),
        (300, 12),
        (301, 6),
        (900, 6),
        (None, 6),
    ],
)
def test_term_cap_by_income_band(percent, cap):
    assert max_term_months(percent) == cap
    assert term_decision(cap, percent) == Decision(True, "ok")
    assert term_decision(cap + 1, percent) == Decision(False, "term_over_cap")


def test_the_floor_rule_decides_the_band():
    """150.98% is in the 60-month band; a rounding rule would have put it in the 36-month one."""
    assert max_term_months(fpl_percent(48540, 4)) == 60
    assert max_term_months(round(100 * 48540 / policy.poverty_guideline(4))) == 36


@pytest.mark.parametrize(("months", "allowed"), [(0, False), (1, False), (2, True), (3, True)])
def test_term_minimum_is_two_months(months, allowed):
    decision = term_decision(months, 120)
    assert decision.allowed is allowed
    assert decision.reason == ("ok" if allowed else "term_under_minimum")


# --- 12 months to the day ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("day", "months", "expected"),
    [
        (dt.date(2026, 3, 31), 1, dt.date(2026, 2, 28)),
        (dt.date(2024, 3, 31), 1, dt.date(2024, 2, 29)),
        (dt.date(2026, 5, 31), 1, dt.date(2026, 4, 30)),
        (dt.date(2026, 9, 10), 12, dt.date(2025, 9, 10)),
        (dt.date(2026, 1, 15), 1, dt.date(2025, 12, 15)),
        (dt.date(2024, 2, 29), 12, dt.date(2023, 2, 28)),
        (dt.date(2026, 1, 31), -1, dt.date(2026, 2, 28)),  # months after: the loan engine's
        (dt.date(2026, 12, 10), -1, dt.date(2027, 1, 10)),
    ],
)
def test_months_before_clamps_to_the_end_of_a_shorter_month(day, months, expected):
    assert months_before(day, months) == expected


@pytest.mark.parametrize(
    ("when", "within"),
    [
        (dt.date(2025, 9, 9), False),
        (dt.date(2025, 9, 10), False),  # exactly 12 months ago: no longer counts
        (dt.date(2025, 9, 11), True),
        (dt.date(2026, 9, 10), True),  # today
        (dt.date(2026, 9, 11), False),  # the future is not the last year
        (None, False),
    ],
)
def test_within_last_year_is_to_the_day(when, within):
    assert within_last_year(when, TODAY) is within


@pytest.mark.parametrize(
    ("broken", "share"),
    [
        (dt.date(2025, 9, 10), D(0)),
        (dt.date(2025, 9, 11), D("0.25")),
        (dt.date(2026, 2, 14), D("0.25")),
        (dt.date(2025, 8, 1), D(0)),
        (None, D(0)),
    ],
)
def test_down_payment_after_a_broken_arrangement_within_12_months(broken, share):
    assert down_payment_share(broken, TODAY) == share


def test_down_payment_uses_the_date_it_is_given_not_the_module_clock():
    broken = dt.date(2025, 9, 10)
    assert down_payment_share(broken, dt.date(2026, 9, 9)) == D("0.25")
    assert down_payment_share(broken, dt.date(2026, 9, 10)) == D(0)


# --- protections --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("on", "winter"),
    [
        (dt.date(2026, 11, 30), False),
        (dt.date(2026, 12, 1), True),
        (dt.date(2026, 12, 31), True),
        (dt.date(2027, 1, 1), True),
        (dt.date(2027, 2, 28), True),
        (dt.date(2027, 3, 31), True),
        (dt.date(2027, 4, 1), False),
        (dt.date(2026, 9, 10), False),
    ],
)
def test_winter_protection_runs_december_1_to_march_31(on, winter):
    assert winter_protected(213, on) is winter


@pytest.mark.parametrize(
    ("percent", "protected"), [(250, True), (251, False), (0, True), (None, False)]
)
def test_winter_protection_needs_recorded_income_at_most_250_percent(percent, protected):
    assert winter_protected(percent, dt.date(2027, 1, 15)) is protected


def test_next_winter():
    season = (dt.date(2026, 12, 1), dt.date(2027, 3, 31))
    assert next_winter(TODAY) == season
    assert next_winter(dt.date(2026, 4, 1)) == season
    assert next_winter(dt.date(2027, 3, 31)) == season
    assert next_winter(dt.date(2026, 12, 1)) == season
    assert next_winter(dt.date(2026, 3, 31)) == (dt.date(2025, 12, 1), dt.date(2026, 3, 31))


@pytest.mark.parametrize(
    ("on", "protected"),
    [
        (dt.date(2026, 9, 10), True),
        (dt.date(2026, 11, 30), True),  # the certificate date itself
        (dt.date(2026, 12, 1), False),  # the day after
    ],
)
def test_medical_protection_runs_through_the_certificate_date(on, protected):
    assert medically_protected(dt.date(2026, 11, 30), on) is protected


def test_no_certificate_no_medical_protection():
    assert medically_protected(None, TODAY) is False


# --- due-date extension ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("days", "decision"),
    [
        (-1, Decision(False, "days_out_of_range")),
        (0, Decision(False, "days_out_of_range")),
        (1, Decision(True, "ok")),
        (15, Decision(True, "ok")),
        (16, Decision(False, "days_out_of_range")),
    ],
)
def test_extension_is_1_to_15_days(days, decision):
    assert extension_decision(None, days, TODAY) == decision


@pytest.mark.parametrize(
    ("last", "allowed"),
    [
        (dt.date(2025, 9, 10), True),  # exactly 12 months ago
        (dt.date(2025, 9, 11), False),
        (dt.date(2026, 1, 20), False),
        (dt.date(2024, 12, 1), True),
        (None, True),
    ],
)
def test_one_extension_per_rolling_year_to_the_day(last, allowed):
    decision = extension_decision(last, 10, TODAY)
    assert decision == (
        Decision(True, "ok") if allowed else Decision(False, "extension_within_a_year")
    )


def test_a_bad_day_count_is_reported_before_the_year_rule():
    assert extension_decision(dt.date(2026, 9, 1), 16, TODAY).reason == "days_out_of_range"


# --- payments and quotes ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "reason"),
    [
        ("0", "amount_not_positive"),
        ("-5", "amount_not_positive"),
        ("0.01", "ok"),
        ("100.00", "ok"),
        ("100.01", "amount_over_balance"),
    ],
)
def test_a_payment_is_positive_and_at_most_the_balance(amount, reason):
    decision = payment_decision(D(amount), D("100.00"))
    assert decision.reason == reason and decision.allowed is (reason == "ok")


def test_money_rounds_half_up_to_the_cent():
    assert money("92.645") == D("92.65")
    assert money("0.005") == D("0.01")
    assert money("0.0049") == D("0.00")
    assert money(0.1 + 0.2) == D("0.30")
    assert money(12) == D("12.00")


def test_quote_100_over_3_months_last_instalment_absorbs_the_cents():
    q = quote(D("100.00"), 3)
    assert (q.principal, q.down_payment, q.instalment, q.last_instalment) == (
        D("100.00"),
        D("0.00"),
        D("33.33"),
        D("33.34"),
    )
    assert q.instalment * 2 + q.last_instalment == q.financed == D("100.00")


def test_quote_with_a_quarter_down():
    q = quote(D("370.58"), 12, D("0.25"))
    assert q.down_payment == D("92.65")  # 92.645 half up
    assert q.financed == D("277.93")
    assert q.instalment == D("23.16")
    assert q.last_instalment == D("23.17")
    assert q.down_payment + q.instalment * 11 + q.last_instalment == q.principal


@pytest.mark.parametrize("months", [2, 3, 6, 7, 11, 12, 13, 36, 59, 60])
@pytest.mark.parametrize("principal", ["50.00", "50.01", "99.99", "345.09", "1000.00", "873.83"])
@pytest.mark.parametrize("share", ["0", "0.25"])
def test_every_schedule_sums_to_the_financed_amount(principal, months, share):
    q = quote(D(principal), months, D(share))
    assert q.down_payment + q.instalment * (months - 1) + q.last_instalment == D(principal)
    # no instalment is negative, and the last differs from the others by less than a cent a month
    assert q.instalment > 0 and q.last_instalment > 0
    assert abs(q.last_instalment - q.instalment) < D("0.01") * months
    assert q.instalment == money(q.financed / months)
    for amount in (q.down_payment, q.instalment, q.last_instalment):
        assert amount == amount.quantize(D("0.01"))


def test_quote_needs_an_instalment():
    with pytest.raises(ValueError, match="at least one instalment"):
        quote(D("100.00"), 0)
