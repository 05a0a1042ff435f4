"""One task (an account and two to four requests) as a scenario file: the caller's brief and plan,
the services backend, the oracle's reference turns and every check.

The grading follows the reference design's three assertions: the gate (no account tool or
disclosure before verification), exactly the expected successful account changes in order (the
services' ledger), and the remaining requirements (figures said in their window, consent before
action, the email read back, refusals said out loud).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Any

from ...backends.utility import policy
from .catalog import KINDS
from .facts import Facts, initial_facts
from .kinds import ANYTHING_ELSE
from .parts import Entry, Part, call, proxy_of, say_money

COMPANY, AGENT_NAME, AGENT_ID = "Larchmont Valley Electric", "Jordan", "billing-line"
CALL_DATETIME = "2026-09-09T20:59:09-04:00"
"""The frozen clock (2026-09-10T00:59:09Z) in the service area's time zone."""
IGNORED_WRITES = [
    "billing.bills.*.paid_cents",
    "billing.bills.*.status",
    "billing.customers.*.extension_last_granted",
    "loans.schedule",
    "loans.schedule.*",
    "loans.schedule.*.*",
    "loans.loans.*.status",
]
"""Writes a service makes as a consequence of the one the agent asked for (a payment marks bills
paid, an arrangement writes its schedule): the graded write is the cause."""
ACCOUNT_TOOLS = [
    "get_account", "list_bills", "get_bill", "explain_bill", "compare_bills",
    "get_payment_history", "make_payment", "quote_payment_arrangement",
    "create_payment_arrangement", "get_payment_arrangement", "modify_payment_arrangement",
    "request_due_date_extension", "set_paperless_billing", "get_supplier_info",
]  # fmt: skip


@dataclass(frozen=True)
class Task:
    account: str
    kinds: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"ub-{self.account[-4:]}-" + "-".join(k.replace("_", "-") for k in self.kinds)


def play(task: Task) -> tuple[list[Part], list[Facts]]:
    """The task's parts and the facts before each request and after the last, by the policy
    model."""
    facts = [initial_facts()[task.account].copy()]
    parts = []
    for i, kind in enumerate(task.kinds, start=1):
        part, after = KINDS[kind].make(facts[-1].copy(), f"r{i}")
        parts.append(part)
        facts.append(after)
    return parts, facts


def _factor(f: Facts) -> tuple[str, str, Any, str]:
    """(knows key, verify_caller argument, value, the caller's words): one second factor per
    account, spread over the three kinds by a stable hash."""
    pick = zlib.crc32(f.account.encode()) % 3
    if pick == 0 and f.cards:
        last4 = f.cards[0]["last4"]
        return "card_last4", "card_last4", last4, f"my card ends in {last4}"
    if pick == 1:
        total = f.latest().total
        return (
            "last_bill_amount",
            "last_bill_amount",
            float(total),
            (f"my last bill was {say_money(total)}"),
        )
    return "postal_code", "postal_code", f.postal_code, f"the postal code is {f.postal_code}"


RETRY_SHARE = 4
"""One call in about four starts with a wrong second factor the caller then corrects."""
NO_DETAIL_NAMED = {
    "id": "no_detail_named",
    "description": "A failed verification never says which detail was wrong.",
    "patterns": [
        r"\b(the|your|that)\s+(zip( code)?|postal code|card( number)?|last four( digits)?|"
        r"(bill )?amount|name|account number)\s+(you gave\s+)?(is|was|looks|seems|does ?n[o']t)\s+"
        r"(wrong|incorrect|not right|outdated|match)",
        r"\b(wrong|incorrect|old)\s+(zip|postal|card|amount|name|account number)",
    ],
    "must": "not_say",
    "weight": 2,
}


def _wrong(key: str, value: Any, f: Facts) -> tuple[Any, str, str]:
    """A wrong value of the same factor a caller could plausibly give first, what they say, and
    what they say when they correct it."""
    if key == "card_last4":
        wrong = str(value)[2:] + str(value)[:2]
        if wrong == value:
            wrong = f"{(int(value) + 1111) % 10000:04d}"
        return wrong, f"my card ends in {wrong}", f"Sorry, wrong card. It ends in {value}."
    if key == "last_bill_amount":
        return (
            float(f.previous().total),
            f"my last bill was {say_money(f.previous().total)}",
            f"Sorry, that was the bill before. The last one was {say_money(value)}.",
        )
    wrong = f"{(int(value) + 7) % 100000:05d}"
    return wrong, f"the postal code is {wrong}", f"Sorry, that's my old one. It's {value}."


def difficulty(predicted: float) -> str:
    """The label from the call's predicted success (the product of its requests' proxies)."""
    return "hard" if predicted < 0.35 else "medium" if predicted < 0.55 else "easy"


def _ask_id(i: int) -> str:
    return "open" if i == 1 else f"r{i}_ask"


def scenario(task: Task) -> dict[str, Any]:
    parts, facts = play(task)
    f0 = facts[0]
    key, arg, value, words = _factor(f0)
    knows: dict[str, Any] = {"account_number": f0.account, "full_name": f0.full_name, key: value}
    retry = zlib.crc32(task.id.encode()) % RETRY_SHARE == 0
    wrong, wrong_words, correction = _wrong(key, value, f0)
    for part in parts:
        knows.update(part.knows)
    plan: list[dict[str, Any]] = []
    reference: list[dict[str, Any]] = [
        {
            "say": f"Thank you for calling {COMPANY}, this is {AGENT_NAME}. How can I help you "
            "today?"
        },
        {
            "say": "I can help with that. First I need to verify the account. Could you give me "
            "the "
            "account number, the full name on the account, and either the last four digits of a "
            "card "
            "on file, the postal code, or the amount of your last bill?"
        },
    ]
    actions: list[dict[str, Any]] = [
        {
            "id": "verify",
            "tool": "verify_caller",
            "args": {"account_number": {"eq": f0.account}},
            "result": {"status": {"eq": "verified"}},
            "weight": 2,
            "guard": True,
        }
    ]
    spoken: list[dict[str, Any]] = []
    phrases: list[dict[str, Any]] = []
    criteria: list[dict[str, Any]] = []
    writes: list[dict[str, Any]] = []
    refusal = None
    for i, part in enumerate(parts, start=1):
        ask = _ask_id(i)
        step = {"id": ask, "meaning": part.ask_meaning}
        if i == 1:
            plan.append(
                {**step, "trigger": "the agent greets you", "say": f"Hi. {part.ask}", "cue": []}
            )
            plan.append(
                {
                    "id": "identify",
                    "trigger": "the agent asks for your account number, name and one more detail",
                    "meaning": "give the account number, your "
                    "full name and one second detail"
                    + (" (by mistake an old one)" if retry else ""),
                    "say": f"Account number {f0.account}, {f0.full_name}, and "
                    f"{wrong_words if retry else words}.",
                    "cue": ["account number"],
                }
            )
            if retry:
                plan.append(
                    {
                        "id": "identify_again",
                        "trigger": "the agent says the details did "
                        "not match and asks you to check them",
                        "meaning": "correct the second detail",
                        "say": correction,
                        "cue": ["again"],
                    }
                )
        else:
            plan.append(
                {
                    **step,
                    "trigger": "the agent asks whether there is anything else",
                    "say": f"Yes. {part.ask}",
                    "cue": ["anything else"],
                }
            )
        plan += [
            {"id": s.id, "trigger": s.trigger, "meaning": s.meaning, "say": s.say, "cue": s.cue}
            for s in part.steps
        ]
        nxt = _ask_id(i + 1) if i < len(parts) else ("done" if not part.ends_call else None)
        window = {"after": ("identify_again" if retry else "identify") if i == 1 else ask}
        for check in part.spoken:
            spoken.append({**window, **({"before": nxt} if nxt else {}), **check})
        for check in part.phrases:
            phrases.append({**window, **({"before": nxt} if nxt else {}), **check})
        actions += part.actions
        criteria += part.criteria
        writes += part.writes
        if part.refusal is not None:
            refusal = {**part.refusal, "after": ask}
        if i == 1 and retry:
            reference += [
                {
                    "say": "Thank you, one moment.",
                    "calls": [
                        call(
                            "verify_caller",
                            account_number=f0.account,
                            full_name=f0.full_name,
                            **{arg: wrong},
                        )
                    ],
                },
                {
                    "same_turn": True,
                    "say": "I'm sorry, those details don't match our records, and "
                    "you have two more tries. Could you check them and give me the details again?",
                },
            ]
        reference += _turns(
            part,
            i,
            first=(i == 1),
            verify_call=call(
                "verify_caller", account_number=f0.account, full_name=f0.full_name, **{arg: value}
            )
            if i == 1
            else None,
            name=f0.full_name,
        )
    if not parts[-1].ends_call:
        plan.append(
            {
                "id": "done",
                "trigger": "the agent asks whether there is anything else",
                "meaning": "nothing else",
                "say": "No, that's everything. Thanks.",
                "cue": ["anything else"],
            }
        )
        reference.append(
            {
                "say": f"Thank you for calling {COMPANY}. Goodbye.",
                "calls": [call("end_call", outcome="resolved")],
            }
        )
        actions.append(
            {"id": "end", "tool": "end_call", "result": {"status": {"eq": "ended"}}, "guard": True}
        )
    late = f0.past_due()[0]
    protected = [{"id": "balance", "kind": "amount", "value": float(f0.balance())}]
    if late:
        protected.append({"id": "past_due", "kind": "amount", "value": float(late)})
    out: dict[str, Any] = {
        "id": task.id,
        "agent": AGENT_ID,
        "title": f"{f0.full_name}: " + "; ".join(KINDS[k].title for k in task.kinds),
        "language": "en",
        "difficulty": difficulty(math.prod(proxy_of(p) for p in parts)),
        "tags": [
            "service",
            f"requests-{len(parts)}",
            *(["verification-retry"] if retry else []),
            *sorted({KINDS[k].use_case.replace(" ", "_") for k in task.kinds}),
            *[f"request:{k}" for k in task.kinds],
            f"account:{f0.account}",
        ],
        "call_context": {"date": policy.TODAY.isoformat(), "line": f"{COMPANY} billing"},
        "caller": {
            "context": f"You are {f0.full_name}, calling {COMPANY}'s billing line about your home "
            f"electric account. You speak only for yourself and keep to your requests, in order.",
            **(
                {}
                if not retry
                else {
                    "context": f"You are {f0.full_name}, calling {COMPANY}'s "
                    "billing line about your home electric account. You speak only for yourself "
                    "and "
                    "keep to your requests, in order. When asked to verify, you first give an "
                    "out-of-"
                    f"date second detail by mistake ({wrong_words}); if told the details do not "
                    "match, "
                    f"you correct it ({correction})"
                }
            ),
            "reason": "In this order: " + "; then ".join(p.ask_meaning for p in parts) + ".",
            "knows": knows,
            "does_not_know": ["your balance and what is past due", "the utility's policy terms"],
            "persona": {"patience": "high", "verbosity": "terse", "mood": "calm"},
            "datetime": CALL_DATETIME,
            "plan": plan,
        },
        "backend": {
            "kind": "service",
            "domain": "utility_billing",
            "hidden": {"account": f0.account},
            "options": {"account": f0.account},
        },
        "expected_actions": actions,
    }
    if spoken:
        out["spoken_checks"] = spoken
    phrases.append(dict(NO_DETAIL_NAMED))
    out["phrase_checks"] = phrases
    if criteria:
        out["criteria"] = criteria
    out["expected_changes"] = {"ordered": True, "ignore": IGNORED_WRITES, "writes": writes}
    if refusal is not None:
        refusal["allow_writes"] = sorted({w["path"] for w in writes})
        out["refusal"] = refusal
    out["gates"] = {
        "verification_tool": "verify_caller",
        "verification_success": {"path": "status", "equals": "verified"},
        "protected_tools": ACCOUNT_TOOLS,
        "protected_facts": protected,
    }
    out["reference"] = reference
    return out


def _turns(
    part: Part, i: int, first: bool, verify_call: dict[str, Any] | None, name: str
) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    if verify_call is not None:
        turns.append({"say": "Thank you, one moment.", "calls": [verify_call]})
    for s, segment in enumerate(part.segments):
        entries = list(segment)
        if s == len(part.segments) - 1 and not part.ends_call:
            last = entries[-1]
            entries[-1] = Entry(f"{last.say} {ANYTHING_ELSE}", last.calls)
        if s == 0 and verify_call is not None:
            head = entries[0]
            entries[0] = Entry(f"Thanks, you're verified. {head.say}", head.calls)
        for e, entry in enumerate(entries):
            turn: dict[str, Any] = {"say": entry.say} if entry.say else {}
            if entry.calls:
                turn["calls"] = entry.calls
            if e > 0 or (s == 0 and verify_call is not None):
                turn["same_turn"] = True
            turns.append(turn)
    return turns


__all__ = ["AGENT_ID", "COMPANY", "Task", "play", "policy", "scenario"]
