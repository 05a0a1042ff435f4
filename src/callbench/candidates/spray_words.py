"""What the spray baseline says and how it mines the conversation for argument values.

Kept apart from the turn logic in spray.py: these are tables and surface patterns, the kind of thing
a
user probing a suite writes first.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..text import fold
from .base import CandidateView

GENERIC_ASKS = {
    "en": [
        "How can I help you today?",
        "What can I do for you?",
        "Could you give me your name?",
        "What is your account number?",
        "Could you give me your account details?",
        "What is your customer ID?",
        "What is your date of birth?",
        "What is the postcode or ZIP code?",
        "What are the last four digits?",
        "What is your phone number?",
        "What is the order number or reference?",
        "Which day works for you?",
        "What date and what time?",
        "How much would you like to pay?",
        "What amount?",
        "Which card?",
        "Which one would you like?",
        "What is the reason?",
        "Can you tell me what happened?",
        "Is that correct?",
        "Can you confirm that?",
        "Shall I go ahead?",
        "Would you like me to go ahead?",
        "Do you agree?",
        "Is that all right?",
        "Is there anything else I can help you with?",
        "Would you like a transfer?",
        "Which address?",
        "Would you like express or standard?",
    ],
    "hi": [
        "मैं आपकी क्या मदद कर सकती हूँ?",
        "आपका नाम क्या है?",
        "आपका खाता नंबर क्या है?",
        "आपका कंज़्यूमर नंबर बताइए।",
        "आपकी जन्म तिथि क्या है?",
        "कौन सी तारीख?",
        "कितना?",
        "क्या यह सही है?",
        "क्या मैं आगे बढ़ूँ?",
        "और कुछ?",
        "क्या समस्या है?",
        "पता बताइए।",
        "मोबाइल नंबर बताइए।",
    ],
    "gu": [
        "હું તમારી શું મદદ કરી શકું?",
        "તમારું નામ શું છે?",
        "તમારો નંબર શું છે?",
        "કઈ તારીખ?",
        "કેટલું?",
        "બરાબર છે?",
        "આગળ વધું?",
        "બીજું કંઈ?",
        "શું તકલીફ છે?",
        "કેન્દ્ર કયું?",
        "કેટલા લિટર?",
    ],
}

REFUSALS = {
    "en": [
        "I can't",
        "I cannot",
        "I'm unable to",
        "I am not able to",
        "you're not eligible for",
        "it isn't possible to",
        "it's not possible to",
        "I won't",
        "I'm not allowed to",
        "we don't allow",
        "I can't do that:",
    ],
    "hi": ["मैं यह नहीं कर सकती", "यह संभव नहीं है", "नहीं हो सकता"],
    "gu": ["હું આ કરી શકતી નથી", "આ શક્ય નથી", "નહીં થઈ શકે"],
}

OUTCOMES = ("completed", "resolved", "approved", "confirmed", "escalated", "denied", "pending")
ID_LIKE = re.compile(r"(?<![\w-])(?=[\w-]*\d)[A-Za-z0-9]+(?:[-_/][A-Za-z0-9]+)*(?![\w-])")
DIGIT_RUN = re.compile(r"\d[\d\s-]*\d|\d")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
NAME = re.compile(r"\b([A-Z][a-z]+(?:\s[A-Z][a-z'-]+)+)\b")
ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def tool_results(view: CandidateView):
    """(message, parsed result) for every tool result in the view that is JSON."""
    for m in view.messages:
        if m.role == "tool" and m.text:
            try:
                yield m, json.loads(m.text)
            except json.JSONDecodeError:
                continue


def evidence_values(view: CandidateView) -> dict[str, Any]:
    """Every value a script can take from the conversation, by category, most recent first."""
    from ..grading.spoken import find_values

    caller = [m.text or "" for m in view.messages if m.role == "caller"]
    joined = " ".join(caller)
    ev: dict[str, Any] = {"context": dict(view.call_context), "fields": {}, "text": fold(joined)}
    for _, result in tool_results(view):
        status = str(result.get("status", "")) if isinstance(result, dict) else ""
        if status not in ("refused", "error", "not_found"):  # an error's fields are not data
            _collect(result, ev["fields"])
    texts = list(reversed(caller))
    # a pause can split an identifier: each pair of consecutive fragments is also read as one
    texts += [a + b for a, b in zip(caller, caller[1:])]
    ids: list[str] = []
    digits: list[str] = []
    numbers: list[Any] = []
    dates: list[str] = []
    times: list[str] = []
    tails: list[str] = []
    for text in texts:
        ids += ID_LIKE.findall(text)
        for run in DIGIT_RUN.findall(text):
            d = re.sub(r"\D", "", run)
            digits.append(d)
            if len(d) > 4:
                tails.append(d[-4:])
        for v in find_values(text, view.language, money=None):
            if v.kind == "amount":
                numbers.insert(0, v.value)
            elif v.kind == "number":
                numbers.append(v.value)
            elif v.kind == "date":
                dates.append(v.value.isoformat())
            elif v.kind == "time":
                times.append(v.value.strftime("%H:%M"))
            elif v.kind == "identifier":
                ids += [re.sub(r"[\s-]", "", v.text.strip()), v.text.strip()]
        dates += ISO_DATE.findall(text)
    for value in ev["context"].values():
        if isinstance(value, str):
            ids += ID_LIKE.findall(value)
    latest: list[Any] = []
    for m in reversed(view.messages):
        if m.role == "candidate" and latest:
            break
        if m.role == "caller":
            latest += [
                v.value
                for v in find_values(m.text or "", view.language)
                if v.kind in ("amount", "number", "date")
            ]
            latest += [int(d) for d in re.findall(r"\d+", m.text or "") if len(d) <= 6]
    ev["fresh"] = [x.isoformat() if hasattr(x, "isoformat") else x for x in latest]
    # identifiers no one said, made the way templated data makes them: a heard id's tail on another
    # stem
    # ("acct_fs_007" -> "case_fs_007"), and the caller's words joined into codes ("account alert" ->
    # "account_alert")
    ev["tails"] = _uniq(
        [m.group(1) for t in ids for m in [re.match(r"^[A-Za-z]+([_-].*\d.*)$", t)] if m]
    )
    words = [w for w in re.findall(r"[a-z]+", fold(joined)) if len(w) > 2]
    ev["codes"] = _uniq(["_".join(words[i : i + 2]) for i in range(len(words) - 1)] + words)[:200]
    names = NAME.findall(joined)
    # a surname alone ("it's under Okafor"): every capitalised word that does not open a sentence
    names += [
        w for w in re.findall(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z'-]{2,})\b", joined) if w not in names
    ]
    ev.update(
        ids=_uniq(ids + [d for d in digits if len(d) >= 5]),
        digits=_uniq(digits + tails),
        numbers=_uniq(numbers),
        dates=_uniq(dates),
        times=_uniq(times),
        names=_uniq(names),
        emails=_uniq(EMAIL.findall(joined)),
    )
    return ev


def _collect(value: Any, into: dict[str, list[Any]], key: str | None = None) -> None:
    """Scalars by the key they were returned under; identifier-like keys (an object keyed by id) and
    values
    under "*_id" keys also go to the "" bucket, candidates for any identifier parameter."""
    if isinstance(value, dict):
        for k, v in value.items():
            for found, under in ((k, key or ""), (v, k)):
                if (
                    isinstance(found, str)
                    and ID_LIKE.fullmatch(found)
                    and not ISO_DATE.fullmatch(found)
                ):
                    bucket = into.setdefault("", [])
                    if (under, found) not in bucket:
                        bucket.append((under, found))
            _collect(v, into, k)
    elif isinstance(value, list):
        for v in value:
            _collect(v, into, key)
    elif key is not None and value is not None:
        bucket = into.setdefault(key, [])
        if value not in bucket:
            bucket.append(value)


def _uniq(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if v not in out and v != "":
            out.append(v)
    return out


def _id_plausibility(token: str) -> tuple[int, bool, int]:
    """Identifiers first: letters with digits and a separator, then long digit strings; longer
    before shorter."""
    letters, digits = any(c.isalpha() for c in token), sum(c.isdigit() for c in token)
    return (0 if letters and digits >= 3 else 1 if digits >= 6 else 2, " " in token, -len(token))


def rank(
    name: str,
    schema: dict[str, Any],
    ev: dict[str, Any],
    strict: bool = False,
    prefer_resolved: bool = False,
) -> list[Any]:
    """Values to try for one parameter, best guess first. `strict` keeps only values found under the
    same name."""
    lowered = name.lower()
    exact: list[Any] = []
    if name in ev["context"]:
        exact.append(ev["context"][name])
    exact += [v for v in ev["fields"].get(name, []) if v not in exact and name]
    kind = schema.get("type")
    if strict:
        return exact
    guesses: list[Any] = []
    if "enum" in schema:
        options = list(schema["enum"])
        returned = fold(
            " ".join(str(v) for vs in ev["fields"].values() for v in vs if isinstance(v, str))
        )
        heard = [
            o
            for o in options
            if any(w in ev["text"] for w in re.split(r"[_\s]+", fold(str(o))) if len(w) > 3)
        ]
        heard += [o for o in options if o not in heard and fold(str(o)) in returned]
        if prefer_resolved:
            done = [
                o
                for o in options
                if str(o).split("_")[0] in ("resolved", "completed", "complete", "done")
            ]
            heard = done + [o for o in heard if o not in done]
        guesses = heard + [o for o in options if o not in heard]
        return [v for v in exact if v in options] + [g for g in guesses if g not in exact]
    if kind in ("integer", "number"):
        stems = {w[:6] for w in re.split(r"[_\W]+", lowered) if len(w) > 3}
        nums = [
            v
            for k, vs in ev["fields"].items()
            if k and stems & {w[:6] for w in re.split(r"[_\W]+", k.lower())}
            for v in vs
            if isinstance(v, (int, float)) and not isinstance(v, bool)
        ]
        nums = (
            [v for v in ev["fresh"] if isinstance(v, (int, float)) and v != 1]
            + nums
            + list(ev["numbers"])
            + [int(d) for d in ev["digits"] if len(d) <= 6]
        )
        nums += [
            v
            for vs in ev["fields"].values()
            for v in vs
            if isinstance(v, (int, float)) and not isinstance(v, bool)
        ]
        if "cent" in lowered:
            nums = [n * 100 for n in ev["numbers"]] + nums
        lo, hi = schema.get("minimum"), schema.get("maximum")
        for n in nums:
            value = int(n) if kind == "integer" or n == int(n) else float(n)
            if (lo is None or value >= lo) and (hi is None or value <= hi) and value not in guesses:
                guesses.append(value)
    elif kind == "boolean":
        guesses = [True, False]
    elif kind == "array":
        guesses = [list(ev["ids"][:2]), list(ev["ids"][:1])] if ev["ids"] else [[]]
    else:
        if "date" in lowered or "dob" in lowered or "birth" in lowered:
            guesses = ev["dates"]
        elif "time" in lowered or "slot" in lowered:
            guesses = ev["times"] + ev["ids"]
        elif (
            "last4" in lowered
            or "last_4" in lowered
            or "last_four" in lowered
            or "digits" in lowered
        ):
            guesses = [d for d in ev["digits"] if len(d) == 4]
        elif "zip" in lowered or "post" in lowered or "pin" in lowered:
            guesses = [d for d in ev["digits"] if len(d) in (5, 6)] + ev["ids"]
        elif "phone" in lowered or "mobile" in lowered:
            guesses = [d for d in ev["digits"] if len(d) >= 10] + [
                d for d in ev["digits"] if len(d) == 4
            ]
        elif "email" in lowered:
            guesses = ev["emails"]
        elif "name" in lowered:
            guesses = ev["names"]
        elif "code" in lowered or "otp" in lowered or "pass" in lowered:
            guesses = [d for d in ev["digits"] if 4 <= len(d) <= 8] + ev["ids"]
        else:
            words = [
                w
                for w in re.split(r"[_\W]+", lowered)
                if len(w) > 1 and w not in ("id", "number", "no")
            ]

            def named(token: str) -> bool:  # "req_fs_001" for request_id, "ord_7001" for order_id
                head = re.match(r"[a-z]+", token.lower())
                return bool(
                    head
                    and len(head.group()) >= 2
                    and any(w.startswith(head.group()) for w in words)
                )

            heard = sorted(ev["ids"], key=lambda t: (not named(t), *_id_plausibility(t)))
            stems = {w for w in re.split(r"[_\W]+", lowered) if len(w) > 3}
            pairs = sorted(
                ev["fields"].get("", []),
                key=lambda p: not stems & set(re.split(r"[_\W]+", p[0].lower())),
            )
            given_back = _uniq([v for _, v in pairs])
            # what the caller owns (account, customer, member) is said; what the system made is
            # returned
            said_first = any(
                w in lowered
                for w in ("account", "customer", "member", "consumer", "policy", "caller")
            )
            made = [
                w[:n] + t for w in words for t in ev["tails"] for n in (len(w), 3, 4) if len(w) >= n
            ]
            guesses = (
                (heard + given_back if said_first else given_back + heard)
                + _uniq(made)
                + ev["names"]
            )
            if not any(h in lowered for h in ("id", "number", "code", "ref", "name")):
                # a free-text or code-like argument (reason, resolution): words the caller used, and
                # common outcomes
                codes = [c for c in ev["codes"] if "_" in c][:8]
                outcome_like = any(
                    w in lowered for w in ("resolution", "status", "outcome", "result", "decision")
                )
                guesses = (
                    list(OUTCOMES) + codes if outcome_like else codes + list(OUTCOMES)
                ) + guesses
    return exact + [g for g in guesses if g not in exact]
