"""The requests a caller can make, when each is valid, what it changes, and how it is done.

Each kind answers three questions with the policy model: is the request valid on the account as the
earlier requests left it (`valid`), what does doing it right change (the `Facts` it returns), and
what does the call look like (a `Part`: the caller's lines, the oracle's turns, and the checks).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_FLOOR, Decimal

from .facts import Facts
from .parts import (
    Entry,
    Part,
    Step,
    amount_check,
    call,
    date_check,
    number_check,
    say_date,
    say_kwh,
    say_money,
)

ANYTHING_ELSE = "Is there anything else I can help you with?"
EXTENSION_DAYS = 10
OVER_CAP_ASK = 24


def _range(x: Decimal) -> dict[str, dict[str, float]]:
    return {"range": {"min": float(x - Decimal("0.01")), "max": float(x + Decimal("0.01"))}}


def _yes(p: str, trigger: str, say: str, cue: list[str]) -> Step:
    return Step(f"{p}_yes", trigger, "yes, go ahead", say, cue)


def figure_cues(x: Decimal) -> list[str]:
    """A consent step fires on the call's own figure in the agent's question, never on a word a
    manual prints ("charge", "set up"): reciting the instructions cannot walk the caller through
    it."""
    forms = {f"{x:,.2f}", f"{x:.2f}"}
    if x == x.to_integral_value():
        forms.add(f"${x:,.0f}")  # "$59" for $59.00
    return sorted(forms)


def _quote_id(f: Facts) -> str:
    f.new_ids["quote"] = f.new_ids.get("quote", 0) + 1
    return f"q_{f.new_ids['quote']:03d}"


def _street(address: str) -> str:
    words = address.split(",")[0].split()[1:]
    return " ".join(words[:-1] if len(words) > 1 else words)


# --- bills and balance ---------------------------------------------------------------------------
def balance(f: Facts, p: str) -> tuple[Part, Facts]:
    bal, (late, _), due = f.balance(), f.past_due(), f.latest().due
    tail = f" {say_money(late)} of that is past due." if late else ""
    part = Part(
        "balance",
        "How much do I owe, and when is it due?",
        "you want your balance and its due date",
        [
            [
                Entry("Let me pull up your account.", [call("get_account")]),
                Entry(
                    f"Your balance is {say_money(bal)}, and this month's bill is due "
                    f"{say_date(due)}.{tail}"
                ),
            ]
        ],
        spoken=[
            amount_check(
                f"{p}_balance", bal, "The balance is stated.", ["balance", "owe", "total"]
            ),
            date_check(f"{p}_due_date", due, "The current bill's due date is stated."),
        ],
    )
    return part, f


def high_bill(f: Facts, p: str) -> tuple[Part, Facts]:
    now, before = f.latest(), f.previous()
    part = Part(
        "high_bill",
        "My latest bill is much higher than the one before. Why?",
        "your latest bill is higher than the previous one and you want to know why",
        [
            [
                Entry(
                    "Let me compare your last two bills.",
                    [call("compare_bills", bill_id=before.bill_id, other_bill_id=now.bill_id)],
                ),
                Entry(
                    f"Your latest bill is {say_money(now.total)} for {say_kwh(now.kwh)}. The bill "
                    "before "
                    f"was {say_money(before.total)} for {say_kwh(before.kwh)}. Most charges are "
                    "per "
                    "kilowatt-hour, so the extra use is what raised it."
                ),
            ]
        ],
        spoken=[
            amount_check(f"{p}_latest_total", now.total, "The latest bill's total is stated."),
            number_check(
                f"{p}_latest_kwh",
                now.kwh,
                "The latest bill's usage is stated.",
                ["kilowatt", "kwh", "usage", "used"],
            ),
            number_check(
                f"{p}_previous_kwh",
                before.kwh,
                "The previous bill's usage is stated.",
                ["kilowatt", "kwh", "usage", "used"],
            ),
        ],
    )
    return part, f


# --- payments ------------------------------------------------------------------------------------
def _payment_action(p: str, amount: Decimal, last4: str, toward: str | None, status: str) -> dict:
    args: dict = {"amount": _range(amount), "card_last4": {"eq": last4}}
    if toward:
        args["toward"] = {"eq": toward}
    return {
        "id": f"{p}_pay",
        "tool": "make_payment",
        "args": args,
        "result": {"status": {"eq": status}},
        "after": [f"{p}_yes"],
        "weight": 3,
    }


def _charge_question(amount: Decimal, last4: str, what: str = "") -> str:
    return f"Shall I charge {say_money(amount)} to your card ending in {' '.join(last4)}{what}?"


def pay_full(f: Facts, p: str) -> tuple[Part, Facts]:
    card = f.good_card()
    assert card is not None
    bal, last4 = f.balance(), card["last4"]
    after = f.copy()
    after.pay_bills(bal, last4)
    part = Part(
        "pay_full",
        f"I want to pay my whole balance, card ending {last4}.",
        "you want to pay the whole balance with your card",
        [
            [
                Entry("Let me check the balance.", [call("get_account")]),
                Entry(f"Your balance is {say_money(bal)}. {_charge_question(bal, last4)}"),
            ],
            [
                Entry(
                    "Processing that now.",
                    [call("make_payment", amount=float(bal), card_last4=last4)],
                ),
                Entry(f"That's done: {say_money(bal)} is paid, and your balance is now zero."),
            ],
        ],
        steps=[
            _yes(
                p,
                "the agent tells you the amount and asks to charge your card",
                "Yes, go ahead.",
                figure_cues(bal),
            )
        ],
        actions=[_payment_action(p, bal, last4, None, "paid")],
        writes=[
            {
                "tool": "make_payment",
                "op": "append",
                "path": "billing.payments",
                "value": {"subset": {"amount_cents": int(bal * 100), "toward": "bills"}},
            }
        ],
        spoken=[
            amount_check(
                f"{p}_amount",
                bal,
                "The amount is told before the caller agrees.",
                before=f"{p}_yes",
            )
        ],
        knows={"card_last4": last4},
    )
    return part, after


def pay_part(f: Facts, p: str) -> tuple[Part, Facts]:
    card = f.good_card()
    assert card is not None
    last4 = card["last4"]
    amount = (f.balance() / 2).quantize(Decimal(1), rounding=ROUND_FLOOR)
    after = f.copy()
    after.pay_bills(amount, last4)
    rest = after.balance()
    part = Part(
        "pay_part",
        f"Can I pay {say_money(amount)} today, card ending {last4}?",
        f"you want to pay {say_money(amount)} today with your card",
        [
            [Entry(f"Of course. {_charge_question(amount, last4)}")],
            [
                Entry(
                    "Processing that now.",
                    [call("make_payment", amount=float(amount), card_last4=last4)],
                ),
                Entry(
                    f"That's done: {say_money(amount)} is paid. Your remaining balance is "
                    f"{say_money(rest)}."
                ),
            ],
        ],
        steps=[
            _yes(
                p,
                "the agent repeats the amount and asks to charge your card",
                "Yes, please.",
                figure_cues(amount),
            )
        ],
        actions=[_payment_action(p, amount, last4, None, "paid")],
        writes=[
            {
                "tool": "make_payment",
                "op": "append",
                "path": "billing.payments",
                "value": {"subset": {"amount_cents": int(amount * 100), "toward": "bills"}},
            }
        ],
        spoken=[
            amount_check(
                f"{p}_remaining",
                rest,
                "The balance left after the payment is stated.",
                ["balance", "remaining", "left", "owe"],
                after=f"{p}_yes",
            )
        ],
        knows={"card_last4": last4},
    )
    return part, after


def pay_declined(f: Facts, p: str) -> tuple[Part, Facts]:
    last4, bal = f.cards[0]["last4"], f.balance()
    part = Part(
        "pay_declined",
        f"I want to pay my bill in full, card ending {last4}.",
        "you want to pay the bill in full with your card",
        [
            [
                Entry("Let me check the balance.", [call("get_account")]),
                Entry(f"Your balance is {say_money(bal)}. {_charge_question(bal, last4)}"),
            ],
            [
                Entry(
                    "Processing that now.",
                    [call("make_payment", amount=float(bal), card_last4=last4)],
                ),
                Entry(
                    "I'm sorry, the card was declined, so no payment was taken and your balance "
                    "is "
                    f"still {say_money(bal)}. You could try another card or pay another way."
                ),
            ],
        ],
        steps=[
            _yes(
                p,
                "the agent tells you the amount and asks to charge your card",
                "Yes, go ahead.",
                figure_cues(bal),
            )
        ],
        actions=[_payment_action(p, bal, last4, None, "declined")],
        spoken=[
            amount_check(
                f"{p}_amount",
                bal,
                "The amount is told before the caller agrees.",
                before=f"{p}_yes",
            ),
            amount_check(
                f"{p}_still_owed",
                bal,
                "After the declined charge the caller hears the "
                "balance is still owed (no payment is claimed).",
                ["still", "balance", "owe"],
                after=f"{p}_pay",
            ),
        ],
        knows={"card_last4": last4},
    )
    return part, f


def promise(f: Facts, p: str) -> tuple[Part, Facts]:
    bal, due = f.balance(), f.latest().due
    later = due.replace(day=min(due.day + 3, 28)) if due.day < 26 else due
    part = Part(
        "promise",
        f"I'll pay it all on {say_date(later)}, not today. Can you note that?",
        f"you cannot pay today; you promise to pay the full balance on {say_date(later)}",
        [
            [
                Entry("Let me look at the account.", [call("get_account")]),
                Entry(
                    f"I can't record a future payment, so nothing is taken today. Your balance is "
                    f"{say_money(bal)}, and this month's bill is due {say_date(due)}."
                ),
            ]
        ],
        spoken=[
            amount_check(f"{p}_balance", bal, "The balance owed is stated.", ["balance", "owe"]),
            date_check(f"{p}_due_date", due, "The due date is stated."),
        ],
    )
    return part, f


REFUSAL_CUES = [
    "can't",
    "cannot",
    "can not",
    "unable",
    "not able",
    "not eligible",
    "isn't eligible",
    "don't qualify",
    "doesn't qualify",
    "not possible",
]


TYPE_MAKER = Callable[[Facts, str], tuple[Part, Facts]]
