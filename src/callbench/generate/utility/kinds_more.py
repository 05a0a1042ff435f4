"""Requests about due dates, billing preferences, supply and protections, and the hand-off to a
person (see `kinds` for the contract every request kind keeps)."""

from __future__ import annotations

from ...backends.utility import policy
from .facts import TODAY, Facts
from .kinds import EXTENSION_DAYS, REFUSAL_CUES, _street, _yes
from .parts import Entry, Part, amount_check, call, date_check, say_date, say_money, spell_email


def extension(f: Facts, p: str) -> tuple[Part, Facts]:
    old = f.latest().due
    after = f.copy()
    new = after.extend(EXTENSION_DAYS)
    bill = f.latest().bill_id
    part = Part(
        "extension",
        "Could I get ten more days to pay this month's bill?",
        "you want ten more days to pay this month's bill",
        [
            [
                Entry("Let me check the account.", [call("get_account")]),
                Entry(
                    f"I can give you {EXTENSION_DAYS} more days, moving this bill's due date from "
                    f"{say_date(old)}. Shall I move your due date to {say_date(new)}?"
                ),
            ],
            [
                Entry("Moving it now.", [call("request_due_date_extension", days=EXTENSION_DAYS)]),
                Entry(
                    f"Done: this bill is now due {say_date(new)}. Extensions are limited to one a "
                    "year."
                ),
            ],
        ],
        steps=[
            _yes(
                p,
                "the agent offers to move your due date and asks whether to do it",
                "Yes, please move it.",
                [say_date(new)],
            )
        ],
        actions=[
            {
                "id": f"{p}_extend",
                "tool": "request_due_date_extension",
                "args": {"days": {"eq": EXTENSION_DAYS}},
                "result": {"status": {"eq": "extended"}},
                "after": [f"{p}_yes"],
                "weight": 3,
            }
        ],
        writes=[
            {
                "tool": "request_due_date_extension",
                "op": "append",
                "path": "billing.extensions",
                "value": {"subset": {"days": EXTENSION_DAYS, "bill_id": bill}},
            },
            {
                "tool": "request_due_date_extension",
                "op": "set",
                "path": f"billing.bills.{bill}.due_date",
                "value": {"eq": new.isoformat()},
            },
        ],
        spoken=[
            date_check(
                f"{p}_new_due_date",
                new,
                "The new due date is told before the caller agrees.",
                before=f"{p}_yes",
            )
        ],
    )
    return part, after


def extension_refused(f: Facts, p: str) -> tuple[Part, Facts]:
    last = f.extension_last
    assert last is not None
    part = Part(
        "extension_refused",
        "Can I get an extension on this month's due date?",
        "you want an extension on this month's due date",
        [
            [
                Entry("Let me check the account.", [call("get_account")]),
                Entry(
                    f"I'm sorry, I can't extend it: the account had an extension on "
                    f"{say_date(last, True)}, and it's one a year. This bill is still due "
                    f"{say_date(f.latest().due)}."
                ),
            ]
        ],
        spoken=[
            date_check(f"{p}_last_extension", last, "The date of the last extension is stated.")
        ],
        refusal={"cues": REFUSAL_CUES, "topic": ["extension", "extend", "due date"]},
    )
    return part, f


def _email_terms(email: str) -> list[str]:
    return [email, spell_email(email)]


def paperless_on(f: Facts, p: str) -> tuple[Part, Facts]:
    after = f.copy()
    after.paperless = True
    part = Part(
        "paperless_on",
        "I'd like to switch to paperless billing.",
        "you want paperless billing",
        [
            [
                Entry("Let me check the email on file.", [call("get_account")]),
                Entry(f"Should your bills go to the email on file, {spell_email(f.email)}?"),
            ],
            [
                Entry(
                    "Switching you now.",
                    [call("set_paperless_billing", enabled=True, confirmed_email=f.email)],
                ),
                Entry("Done: your bills will come by email from now on."),
            ],
        ],
        steps=[
            _yes(
                p,
                "the agent reads you the email on file and asks whether bills should go there",
                "Yes, that's my email.",
                _email_terms(f.email),
            )
        ],
        actions=[
            {
                "id": f"{p}_paperless",
                "tool": "set_paperless_billing",
                "args": {"enabled": {"eq": True}},
                "result": {"status": {"eq": "updated"}},
                "after": [f"{p}_yes"],
                "weight": 3,
            }
        ],
        writes=[
            {
                "tool": "set_paperless_billing",
                "op": "set",
                "path": f"billing.customers.{f.account}.paperless",
                "value": {"eq": 1},
            }
        ],
        phrases=[
            {
                "id": f"{p}_email_read_back",
                "description": "The email on file is read back before the caller confirms it.",
                "terms": _email_terms(f.email),
                "before": f"{p}_yes",
            }
        ],
    )
    return part, after


def paperless_off(f: Facts, p: str) -> tuple[Part, Facts]:
    after = f.copy()
    after.paperless = False
    part = Part(
        "paperless_off",
        "I want to go back to paper bills in the mail.",
        "you want paper bills by mail again",
        [
            [
                Entry("Let me check the address.", [call("get_account")]),
                Entry(f"Shall I switch you back to paper bills, mailed to {f.address}?"),
            ],
            [
                Entry("Switching you now.", [call("set_paperless_billing", enabled=False)]),
                Entry("Done: paperless billing is off, and your next bill comes by mail."),
            ],
        ],
        steps=[
            _yes(
                p,
                "the agent tells you where paper bills would be mailed and asks whether to switch",
                "Yes, please.",
                [_street(f.address)],
            )
        ],
        actions=[
            {
                "id": f"{p}_paper",
                "tool": "set_paperless_billing",
                "args": {"enabled": {"eq": False}},
                "result": {"status": {"eq": "updated"}},
                "after": [f"{p}_yes"],
                "weight": 3,
            }
        ],
        writes=[
            {
                "tool": "set_paperless_billing",
                "op": "set",
                "path": f"billing.customers.{f.account}.paperless",
                "value": {"eq": 0},
            }
        ],
        phrases=[
            {
                "id": f"{p}_address",
                "description": "The mailing address is told before the caller agrees.",
                "terms": [_street(f.address)],
                "before": f"{p}_yes",
            }
        ],
    )
    return part, after


def paperless_check(f: Facts, p: str) -> tuple[Part, Facts]:
    if f.paperless:
        text = f"Yes, paperless billing is on, and your bills go to {spell_email(f.email)}."
        terms = _email_terms(f.email)
    else:
        text = f"No, paperless billing is off: your bills are mailed to {f.address}."
        terms = [_street(f.address)]
    part = Part(
        "paperless_check",
        "Am I signed up for paperless billing?",
        "you want to know whether you have paperless billing",
        [[Entry("Let me check.", [call("get_account")]), Entry(text)]],
        phrases=[
            {
                "id": f"{p}_where_bills_go",
                "description": "Where the bills go (the email on "
                "file, or the mailing address) is stated.",
                "terms": terms,
            }
        ],
    )
    return part, f


def supplier(f: Facts, p: str) -> tuple[Part, Facts]:
    s = f.supplier
    cents = s["price"] * 100
    text = (
        f"Your electricity is supplied by {s['name']}, at {cents.normalize():f} cents per "
        "kilowatt-hour."
    )
    if not s["is_default"]:
        text += (
            f" The utility's own price to compare is {(f.default_price * 100).normalize():f} cents."
        )
    part = Part(
        "supplier",
        "Who supplies my electricity, and at what price?",
        "you want to know your electricity supplier and its price",
        [[Entry("Let me look that up.", [call("get_supplier_info")]), Entry(text)]],
        spoken=[
            amount_check(
                f"{p}_price",
                s["price"],
                "The supplier's price per kilowatt-hour is stated.",
                ["kilowatt", "kwh", "price", "rate"],
                tolerance=0.00005,
            )
        ],
        phrases=[
            {
                "id": f"{p}_supplier_name",
                "description": "The supplier is named.",
                "terms": [s["name"]],
            }
        ],
    )
    return part, f


def last_payment(f: Facts, p: str) -> tuple[Part, Facts]:
    when, amount, _ = f.payments[-1]
    part = Part(
        "last_payment",
        "When did my last payment go through, and how much was it?",
        "you want the date and amount of your last payment",
        [
            [
                Entry("Let me check your payments.", [call("get_payment_history")]),
                Entry(f"Your last payment was {say_money(amount)} on {say_date(when)}."),
            ]
        ],
        spoken=[
            amount_check(f"{p}_amount", amount, "The last payment's amount is stated."),
            date_check(f"{p}_date", when, "The last payment's date is stated."),
        ],
    )
    return part, f


def winter(f: Facts, p: str) -> tuple[Part, Facts]:
    start, end = policy.next_winter(TODAY)
    late, _ = f.past_due()
    part = Part(
        "winter",
        "I'm behind on my bill. Can you shut off my power this winter?",
        "you are behind and worried about a shut-off this winter",
        [
            [
                Entry("Let me check the account.", [call("get_account")]),
                Entry(
                    f"Your household qualifies for winter protection: from {say_date(start, True)} "
                    "to "
                    f"{say_date(end, True)}, service can't be shut off for non-payment. The "
                    f"{say_money(late)} past due is still owed."
                ),
            ]
        ],
        spoken=[
            amount_check(
                f"{p}_still_owed",
                late,
                "The past-due amount, still owed under the protection, is stated.",
                ["past due", "owe", "still", "behind"],
            )
        ],
        criteria=[
            {
                "id": f"{p}_winter_protection",
                "diagnostic": "rule_compliance",
                "statement": "The agent tells the caller the household is protected from a "
                "shut-off for non-payment over the coming winter (December 1 to March 31) because "
                "its recorded income is at or below the limit, and that the debt remains.",
                "anchors": {
                    "met": "Protection and both dates are stated, with the debt still owed.",
                    "partial": "Protection is stated but a date is missing or wrong.",
                    "not_met": "Protection is denied, not mentioned, or promised beyond "
                    "the season.",
                },
            }
        ],
    )
    return part, f


def medical(f: Facts, p: str) -> tuple[Part, Facts]:
    until = f.medical_until
    assert until is not None
    part = Part(
        "medical",
        "We sent a medical certificate. Is my service protected from shut-off?",
        "you want to know whether your medical certificate protects your service",
        [
            [
                Entry("Let me check the account.", [call("get_account")]),
                Entry(
                    "Yes, the medical certificate on file protects your service from shut-off "
                    "through "
                    f"{say_date(until, until.year != TODAY.year)}."
                ),
            ]
        ],
        spoken=[
            date_check(
                f"{p}_until", until, "The date the medical protection runs through is stated."
            )
        ],
    )
    return part, f


def transfer(f: Facts, p: str) -> tuple[Part, Facts]:
    bal, (_, days) = f.balance(), f.past_due()
    after = f.copy()
    after.transferred = True
    part = Part(
        "transfer",
        "I'm way behind. Can I set up a payment plan?",
        "you are far behind and want a payment plan",
        [
            [
                Entry("Let me look at the account.", [call("get_account")]),
                Entry(
                    f"The account has {say_money(bal)} owed and is {days} days past due, so a "
                    "specialist "
                    "has to handle this. I'm transferring you now.",
                    [
                        call(
                            "transfer_to_human",
                            reason=f"{bal} owed, {days} days past due; wants a payment arrangement",
                        )
                    ],
                ),
            ]
        ],
        actions=[
            {
                "id": f"{p}_transfer",
                "tool": "transfer_to_human",
                "result": {"status": {"eq": "transferred"}},
                "weight": 3,
            }
        ],
        spoken=[amount_check(f"{p}_owed", bal, "The amount owed is stated.", ["owe", "balance"])],
        ends_call=True,
    )
    return part, after
