"""The catalog of request kinds: when each is valid (the policy model on the account as the earlier
requests left it) and which may follow which."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from ...backends.utility import policy
from . import kinds as k
from . import kinds_more as m
from . import kinds_plans as pl
from .facts import TODAY, Facts
from .parts import Part


@dataclass(frozen=True)
class Kind:
    id: str
    title: str
    use_case: str
    valid: Callable[[Facts], bool]
    make: Callable[[Facts, str], tuple[Part, Facts]]
    refusal: bool = False
    """a refusal must already be valid on the seeded account: no earlier request may manufacture
    its reason"""
    ends_call: bool = False


def _has_late(f: Facts) -> bool:
    return f.past_due()[0] > 0


def _eligible(f: Facts) -> bool:
    return f.eligibility().allowed and (
        f.good_card() is not None or not policy.down_payment_share(f.last_broken, TODAY)
    )


def _declining_only(f: Facts) -> bool:
    return bool(f.cards) and all(c["declines"] for c in f.cards)


def _payable(f: Facts) -> bool:
    return f.balance() > 0 and f.good_card() is not None


def _can_stretch(f: Facts) -> bool:
    loan = f.loan
    return (
        loan is not None
        and not loan.overdue()
        and f.cap() > loan.term
        and loan.paid_count() < f.cap()
    )


KINDS: dict[str, Kind] = {
    x.id: x
    for x in (
        Kind("balance", "balance and due date", "balance", lambda f: f.balance() > 0, k.balance),
        Kind(
            "high_bill",
            "why the latest bill is higher",
            "high bill",
            lambda f: f.latest().kwh > f.previous().kwh,
            k.high_bill,
        ),
        Kind("pay_full", "pay the whole balance by card", "payment", _payable, k.pay_full),
        Kind(
            "pay_part",
            "pay part of the balance by card",
            "payment",
            lambda f: _payable(f) and f.balance() >= 40,
            k.pay_part,
        ),
        Kind(
            "pay_declined",
            "a payment on a card that declines",
            "payment",
            lambda f: f.balance() > 0 and _declining_only(f),
            k.pay_declined,
        ),
        Kind("promise", "a promise to pay later", "payment", lambda f: f.balance() > 0, k.promise),
        Kind(
            "plan_longest",
            "the longest payment arrangement",
            "arrangement",
            _eligible,
            pl.plan_longest,
        ),
        Kind(
            "plan_months",
            "an arrangement longer than the cap",
            "arrangement",
            lambda f: _eligible(f) and f.cap() < k.OVER_CAP_ASK,
            pl.plan_months,
        ),
        Kind(
            "plan_small",
            "an arrangement refused (under the minimum or nothing past due)",
            "arrangement",
            lambda f: (
                f.loan is None
                and not f.must_transfer()
                and f.balance() > 0
                and f.past_due()[0] < policy.MIN_ARREARS
            ),
            pl.plan_small,
            refusal=True,
        ),
        Kind(
            "plan_status",
            "whether the arrangement is up to date",
            "arrangement",
            lambda f: f.loan is not None,
            pl.plan_status,
        ),
        Kind(
            "pay_overdue",
            "pay an overdue instalment",
            "arrangement",
            lambda f: f.loan is not None and bool(f.loan.overdue()) and f.good_card() is not None,
            pl.pay_overdue,
        ),
        Kind(
            "plan_change",
            "stretch an arrangement to the cap",
            "arrangement",
            _can_stretch,
            pl.plan_change,
        ),
        Kind(
            "extension",
            "a due-date extension",
            "due date",
            lambda f: (
                f.balance() > 0
                and any(b.due >= TODAY for b in f.open_bills())
                and policy.extension_decision(f.extension_last, k.EXTENSION_DAYS, TODAY).allowed
            ),
            m.extension,
        ),
        Kind(
            "extension_refused",
            "an extension refused (one already this year)",
            "due date",
            lambda f: f.balance() > 0 and policy.within_last_year(f.extension_last, TODAY),
            m.extension_refused,
            refusal=True,
        ),
        Kind(
            "paperless_on",
            "turn on paperless billing",
            "paperless",
            lambda f: not f.paperless,
            m.paperless_on,
        ),
        Kind(
            "paperless_off",
            "back to paper bills",
            "paperless",
            lambda f: f.paperless,
            m.paperless_off,
        ),
        Kind(
            "paperless_check",
            "is paperless billing on",
            "paperless",
            lambda f: True,
            m.paperless_check,
        ),
        Kind(
            "supplier",
            "an alternative supplier and its price",
            "supply",
            lambda f: not f.supplier["is_default"],
            m.supplier,
        ),
        Kind(
            "last_payment",
            "the last payment",
            "payment",
            lambda f: bool(f.payments),
            m.last_payment,
        ),
        Kind(
            "winter",
            "winter shut-off protection",
            "protection",
            lambda f: (
                _has_late(f)
                and f.percent is not None
                and f.percent <= policy.WINTER_MAX_FPL
                and f.medical_until is None
            ),
            m.winter,
        ),
        Kind(
            "medical",
            "medical shut-off protection",
            "protection",
            lambda f: policy.medically_protected(f.medical_until, TODAY),
            m.medical,
        ),
        Kind(
            "transfer",
            "large, old arrears go to a person",
            "arrangement",
            lambda f: f.must_transfer(),
            m.transfer,
            ends_call=True,
        ),
    )
}

GROUPS = {
    "paperless_change": {"paperless_on", "paperless_off"},
    "refusal": {k for k, v in KINDS.items() if v.refusal},
    "payment_now": {"pay_full", "pay_part", "pay_declined", "promise"},
    "arrangement_new": {"plan_longest", "plan_months", "plan_small", "transfer"},
}
"""At most one request of a group per call: a call that turns paperless on and off again, or pays
in full and then promises to pay, repeats a requirement instead of adding one."""

READS_AFTER_CHANGE = {
    "paperless_check": {"paperless_on", "paperless_off"},
    "last_payment": {"pay_full", "pay_part", "pay_overdue", "plan_longest", "plan_months"},
    "balance": {"pay_full", "pay_part", "plan_longest", "plan_months"},
    "plan_status": {"pay_overdue", "plan_change", "plan_longest", "plan_months"},
}
"""A read that only reports what an earlier request of the call just did adds no requirement."""


PRINTED_AMOUNTS = {policy.MIN_ARREARS, policy.TRANSFER_MIN_OUTSTANDING}
"""Amounts the agent's manual prints: a check on one of them is met by reading the manual aloud."""


def recitable(part: Part) -> bool:
    return any(
        c["kind"] == "amount" and Decimal(str(c["value"])) in PRINTED_AMOUNTS for c in part.spoken
    )


def may_follow(earlier: list[str], kind: str) -> bool:
    if kind in earlier:
        return False
    for group in GROUPS.values():
        if kind in group and group & set(earlier):
            return False
    return not READS_AFTER_CHANGE.get(kind, set()) & set(earlier)
