"""Rules that keep a scenario's points out of reach of a script with no model.

* Every earned spoken check, phrase check and refusal names a window (`after` or `before`: an
  expected action or a plan step), so a value recited at the start of the call, or a refusal word
  said before the caller asked for anything, is no evidence.
* Anchors are unambiguous: an id is an action or a plan step, never both.

Rules that read the words of the instructions (cues a recital would say, figures printed there)
need the text and spoken-value helpers and live in `callbench.recital_check`.
"""

from __future__ import annotations

from typing import Any

from .scenario import Scenario

Found = tuple[tuple[Any, ...], str, str]


def validity_problems(sc: Scenario) -> list[Found]:
    out: list[Found] = []
    actions = {a.id for a in sc.expected_actions}
    steps = {s.id for s in sc.caller.plan}
    for both in sorted(actions & steps):
        out.append(
            (
                ("expected_actions",),
                f"'{both}' is both an action id and a plan step id: windows anchored on it "
                f"would be ambiguous",
                "error",
            )
        )

    def anchor(value: str | None, loc: tuple[Any, ...]) -> None:
        if value is not None and value not in actions and value not in steps:
            out.append((loc, f"'{value}' is neither an expected action nor a plan step", "error"))

    for i, check in enumerate(sc.spoken_checks):
        loc = ("spoken_checks", i)
        anchor(check.after, loc + ("after",))
        anchor(check.before, loc + ("before",))
        if check.must == "state" and check.after is None and check.before is None:
            out.append(
                (
                    loc,
                    f"spoken check '{check.id}' names no window: give 'after' or 'before' (an "
                    "expected action or a plan step), or a value recited at any point of the call "
                    "would earn it",
                    "error",
                )
            )
    for i, phrase in enumerate(sc.phrase_checks):
        loc = ("phrase_checks", i)
        anchor(phrase.after, loc + ("after",))
        anchor(phrase.before, loc + ("before",))
        if phrase.must == "say" and phrase.after is None and phrase.before is None:
            out.append(
                (
                    loc,
                    f"phrase check '{phrase.id}' names no window: give 'after' or 'before'",
                    "error",
                )
            )
    if sc.refusal is not None:
        anchor(sc.refusal.after, ("refusal", "after"))
        if sc.refusal.after is None:
            out.append(
                (
                    ("refusal", "after"),
                    "a refusal names no window: give 'after' (the plan step where the caller "
                    "makes the request, or an expected action), or a refusal word said "
                    "before anything was asked would count",
                    "error",
                )
            )
    return out
