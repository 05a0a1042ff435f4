"""Requests about payment arrangements: new ones (the longest, over the cap, refused), their
status, paying an overdue instalment and stretching one (see `kinds` for the contract every request
kind keeps)."""

from __future__ import annotations

from ...backends.utility import policy
from .facts import TODAY, Facts
from .kinds import (
    OVER_CAP_ASK,
    REFUSAL_CUES,
    _charge_question,
    _payment_action,
    _quote_id,
    _yes,
    figure_cues,
)
from .parts import Entry, Part, amount_check, call, date_check, say_date, say_money


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
        "I'm behind. Can I get a payment arrangement, as long as possible?",
        "",
    )


def plan_months(f: Facts, p: str) -> tuple[Part, Facts]:
    part, after = _arrangement(
        f,
        p,
        f.cap(),
        "plan_months",
        f"I'm behind. Can I pay it off over {OVER_CAP_ASK} months?",
        f"I can't do {OVER_CAP_ASK} months; for your household the longest is {f.cap()}. ",
    )
    # what sets this request apart from asking for the longest: the agent must not try the
    # caller's longer term on the quote tool to see whether it passes (a guard: it earns nothing)
    part.actions.append(
        {
            "id": f"{p}_no_over_cap_quote",
            "tool": "quote_payment_arrangement",
            "description": "The caller's longer term is never tried on the quote tool.",
            "args": {"months": {"eq": OVER_CAP_ASK}},
            "count": {"exactly": 0},
            "guard": True,
        }
    )
    return part, after


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
        f"I want to pay what's overdue on my arrangement. Card ending {last4}.",
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
        "My arrangement payments are too high. Can you stretch it out?",
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
