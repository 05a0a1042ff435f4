"""The requests a caller can make, when each is valid, what it changes, and how it is done.

Each kind answers three questions with the policy model: is the request valid on the account as the
earlier requests left it (`valid`), what does doing it right change (the `Facts` it returns), and
what does the call look like (a `Part`: the caller's lines, the oracle's turns, and the checks).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_FLOOR, Decimal

from ...backends.utility import policy
from .facts import TODAY, Facts
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
        "I'd like to know how much I owe and when it's due.",
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
        "My latest bill is a lot higher than the one before. Can you tell me why?",
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
        f"I'd like to pay my whole balance with my card ending in {last4}.",
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
        f"Can I pay {say_money(amount)} today with my card ending in {last4}? That's what I can do "
        "right now.",
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
        f"I want to pay my bill in full with my card ending in {last4}.",
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
        f"I can't pay today, but I'll pay it all on {say_date(later)}. Can you put that on the "
        "account?",
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


# --- arrangements --------------------------------------------------------------------------------
def _arrangement(
    f: Facts, p: str, months: int, kind: str, ask: str, offer: str
) -> tuple[Part, Facts]:
    late, _ = f.past_due()
    share = policy.down_payment_share(f.last_broken, TODAY)
    q = policy.quote(late, months, share)
    qid = _quote_id(f)
    card = f.good_card()
    last4 = card["last4"] if card and q.down_payment else None
    after = f.copy()
    after.arrange(q, last4)
    down = f" with {say_money(q.down_payment)} down today, then" if q.down_payment else " in"
    last = (
        f", the last one {say_money(q.last_instalment)}"
        if q.last_instalment != q.instalment
        else ""
    )
    pay = f" on your card ending in {' '.join(last4)}" if last4 else ""
    create_args = {"quote_id": qid, **({"card_last4": last4} if last4 else {})}
    spoken = [
        amount_check(
            f"{p}_instalment",
            q.instalment,
            "The monthly instalment is quoted before the caller agrees.",
            ["month", "instal", "payment"],
            before=f"{p}_yes",
        ),
    ]
    writes = []
    if q.down_payment:
        spoken.append(
            amount_check(
                f"{p}_down",
                q.down_payment,
                "The down payment is quoted before the caller agrees.",
                ["down"],
                before=f"{p}_yes",
            )
        )
        writes.append(
            {
                "tool": "create_payment_arrangement",
                "op": "append",
                "path": "billing.payments",
                "value": {
                    "subset": {"amount_cents": int(q.down_payment * 100), "toward": "arrangement"}
                },
            }
        )
    writes.append(
        {
            "tool": "create_payment_arrangement",
            "op": "append",
            "path": "loans.loans",
            "value": {
                "subset": {
                    "principal_cents": int(q.principal * 100),
                    "down_payment_cents": int(q.down_payment * 100),
                    "term_months": months,
                    "instalment_cents": int(q.instalment * 100),
                    "status": "active",
                }
            },
        }
    )
    first = after.loan.schedule[0].due if after.loan else TODAY
    part = Part(
        kind,
        ask,
        "you are behind and want a payment arrangement"
        + (f" over {OVER_CAP_ASK} months" if kind == "plan_months" else ", as long as possible"),
        [
            [
                Entry(
                    "Let me look at the account.",
                    [call("get_account"), call("get_payment_arrangement")],
                ),
                Entry(None, [call("quote_payment_arrangement", months=months)]),
                Entry(
                    f"{offer}The {say_money(late)} past due can be paid{down} {months} monthly "
                    "payments "
                    f"of {say_money(q.instalment)}{last}. Shall I set that up at "
                    f"{say_money(q.instalment)} a month?"
                ),
            ],
            [
                Entry("Setting it up now.", [call("create_payment_arrangement", **create_args)]),
                Entry(
                    f"It's set up{pay}. The first of the {months} payments is due "
                    f"{say_date(first, first.year != TODAY.year)}."
                ),
            ],
        ],
        steps=[
            _yes(
                p,
                "the agent quotes the arrangement's terms and asks whether to set it up",
                f"Yes, set it up{', and use my card ending in ' + last4 if last4 else ''}.",
                figure_cues(q.instalment),
            )
        ],
        actions=[
            {
                "id": f"{p}_quote",
                "tool": "quote_payment_arrangement",
                "args": {"months": {"eq": months}},
                "result": {"status": {"eq": "quoted"}},
            },
            {
                "id": f"{p}_create",
                "tool": "create_payment_arrangement",
                "result": {"status": {"eq": "created"}},
                "after": [f"{p}_quote", f"{p}_yes"],
                "weight": 3,
            },
        ],
        writes=writes,
        spoken=spoken,
        knows={"card_last4": last4} if last4 else {},
    )
    return part, after


def plan_longest(f: Facts, p: str) -> tuple[Part, Facts]:
    return _arrangement(
        f,
        p,
        f.cap(),
        "plan_longest",
        "I'm behind on my bill. Can I set up a payment arrangement, as long as you can give me?",
        "",
    )


def plan_months(f: Facts, p: str) -> tuple[Part, Facts]:
    return _arrangement(
        f,
        p,
        f.cap(),
        "plan_months",
        f"I'm behind on my bill. Can I pay it off over {OVER_CAP_ASK} months?",
        f"I can't do {OVER_CAP_ASK} months; for your household the longest is {f.cap()}. ",
    )


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


def plan_small(f: Facts, p: str) -> tuple[Part, Facts]:
    late, _ = f.past_due()
    if late:
        why = (
            f"an arrangement needs at least {say_money(policy.MIN_ARREARS)} past due, and yours is "
            f"{say_money(late)}."
        )
        check = amount_check(
            f"{p}_past_due",
            late,
            "The past-due amount is stated.",
            ["past due", "behind", "overdue"],
        )
    else:
        why = (
            f"nothing on the account is past due. Your current bill of {say_money(f.balance())} "
            f"is due {say_date(f.latest().due)}."
        )
        check = date_check(
            f"{p}_due_date", f.latest().due, "The current bill's due date is stated."
        )
    part = Part(
        "plan_small",
        "I'm a little behind. Can I set up a payment arrangement?",
        "you want a payment arrangement",
        [
            [
                Entry("Let me check the account.", [call("get_account")]),
                Entry(f"I'm sorry, I can't set up an arrangement: {why}"),
            ]
        ],
        spoken=[check],
        refusal={"cues": REFUSAL_CUES, "topic": ["arrangement", "payment plan", "plan"]},
    )
    return part, f


def plan_status(f: Facts, p: str) -> tuple[Part, Facts]:
    loan = f.loan
    assert loan is not None
    nxt = loan.next_due()
    spoken = []
    if loan.overdue():
        o = loan.overdue()[0]
        text = (
            f"You're behind on it: instalment {o.number}, {say_money(o.amount - o.paid)} due "
            f"{say_date(o.due)}, hasn't been paid, so {say_money(loan.overdue_total())} is overdue."
        )
        spoken.append(
            amount_check(
                f"{p}_overdue",
                loan.overdue_total(),
                "The overdue instalment amount is stated.",
                ["overdue", "behind", "past due", "unpaid", "missed", "owe"],
            )
        )
    else:
        text = f"Yes, you're up to date: {loan.paid_count()} of {loan.term} instalments are paid."
    if nxt is not None:
        text += (
            f" The next instalment, {say_money(nxt.amount - nxt.paid)}, is due {say_date(nxt.due)}."
        )
        if not loan.overdue():
            spoken.append(
                date_check(f"{p}_next_due", nxt.due, "The next instalment's due date is stated.")
            )
    part = Part(
        "plan_status",
        "Am I up to date on my payment arrangement?",
        "you want to know whether you are up to date on your payment arrangement",
        [[Entry("Let me check your arrangement.", [call("get_payment_arrangement")]), Entry(text)]],
        spoken=spoken,
    )
    return part, f


def pay_overdue(f: Facts, p: str) -> tuple[Part, Facts]:
    loan, card = f.loan, f.good_card()
    assert loan is not None and card is not None
    total, last4 = loan.overdue_total(), card["last4"]
    after = f.copy()
    after.repay(total, last4)
    part = Part(
        "pay_overdue",
        "I want to pay whatever I'm behind on with my payment arrangement. My card ends in "
        f"{last4}.",
        "you want to pay what is overdue on your payment arrangement with your card",
        [
            [
                Entry("Let me check your arrangement.", [call("get_payment_arrangement")]),
                Entry(
                    f"You have {say_money(total)} overdue on the arrangement. "
                    f"{_charge_question(total, last4, ' toward the arrangement')}"
                ),
            ],
            [
                Entry(
                    "Processing that now.",
                    [
                        call(
                            "make_payment",
                            amount=float(total),
                            card_last4=last4,
                            toward="arrangement",
                        )
                    ],
                ),
                Entry(f"Done: {say_money(total)} went to your arrangement, so you're caught up."),
            ],
        ],
        steps=[
            _yes(
                p,
                "the agent tells you the overdue amount and asks to charge your card",
                "Yes, go ahead.",
                figure_cues(total),
            )
        ],
        actions=[_payment_action(p, total, last4, "arrangement", "paid")],
        writes=[
            {
                "tool": "make_payment",
                "op": "append",
                "path": "billing.payments",
                "value": {"subset": {"amount_cents": int(total * 100), "toward": "arrangement"}},
            },
            {
                "tool": "make_payment",
                "op": "append",
                "path": "loans.repayments",
                "value": {"subset": {"amount_cents": int(total * 100)}},
            },
        ],
        spoken=[
            amount_check(
                f"{p}_overdue",
                total,
                "The overdue amount is told before the caller agrees.",
                before=f"{p}_yes",
            )
        ],
        knows={"card_last4": last4},
    )
    return part, after


def plan_change(f: Facts, p: str) -> tuple[Part, Facts]:
    loan = f.loan
    assert loan is not None
    cap, paid = f.cap(), loan.paid_count()
    q = policy.quote(loan.remaining(), cap - paid)
    qid = _quote_id(f)
    after = f.copy()
    after.reschedule(q)
    last = (
        f", then {say_money(q.last_instalment)} at the end"
        if q.last_instalment != q.instalment
        else ""
    )
    part = Part(
        "plan_change",
        "My arrangement payments are too high. Can you stretch it out as long as you're allowed?",
        "you want lower arrangement payments over the longest term allowed",
        [
            [
                Entry(
                    "Let me look at your arrangement.",
                    [call("get_account"), call("get_payment_arrangement")],
                ),
                Entry(None, [call("quote_payment_arrangement", months=cap)]),
                Entry(
                    f"The longest is {cap} months in all. The {say_money(loan.remaining())} left "
                    "would "
                    f"be {q.months} payments of {say_money(q.instalment)}{last}. Shall I change "
                    "your "
                    f"arrangement to {say_money(q.instalment)} a month?"
                ),
            ],
            [
                Entry("Changing it now.", [call("modify_payment_arrangement", quote_id=qid)]),
                Entry(
                    f"Done: your arrangement now runs {cap} months, at {say_money(q.instalment)} a "
                    "month."
                ),
            ],
        ],
        steps=[
            _yes(
                p,
                "the agent quotes the new monthly payment and asks to change the arrangement",
                "Yes, change it.",
                figure_cues(q.instalment),
            )
        ],
        actions=[
            {
                "id": f"{p}_quote",
                "tool": "quote_payment_arrangement",
                "args": {"months": {"eq": cap}},
                "result": {"status": {"eq": "quoted"}},
            },
            {
                "id": f"{p}_modify",
                "tool": "modify_payment_arrangement",
                "result": {"status": {"eq": "modified"}},
                "after": [f"{p}_quote", f"{p}_yes"],
                "weight": 3,
            },
        ],
        writes=[
            {
                "tool": "modify_payment_arrangement",
                "op": "set",
                "path": f"loans.loans.{loan.loan_id}.term_months",
                "value": {"eq": cap},
            },
            {
                "tool": "modify_payment_arrangement",
                "op": "set",
                "path": f"loans.loans.{loan.loan_id}.instalment_cents",
                "value": {"eq": int(q.instalment * 100)},
            },
        ],
        spoken=[
            amount_check(
                f"{p}_instalment",
                q.instalment,
                "The new monthly payment is quoted before the caller agrees.",
                ["month", "instal", "payment"],
                before=f"{p}_yes",
            )
        ],
    )
    return part, after


TYPE_MAKER = Callable[[Facts, str], tuple[Part, Facts]]
