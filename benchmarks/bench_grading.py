"""Seconds to grade a trace holding one hostile reply: 32K, 64K, 256K and 1 MB characters with no
space.

A candidate controls what it says, and the deterministic graders read every reply whole. A grader
that is
quadratic on a long word stalls grading (and, before grading moved off the event loop, every call in
flight):
the conversation checks took 5 s on a 32K reply and about 80 minutes on 1 MB. Measured here, in one
process:
  - `score_trace` with the default graders on a trace of the starter suite whose first reply is
    replaced by
    the hostile text, for each kind of text and size (the target: under one second at 1 MB),
  - at 1 MB, the seconds of each grader, and the phrase checks (regex guards over the whole message)
    on a
    utility-billing scenario whose reply ends with a forbidden phrase (the guard must see it: it is
    broken),
  - growth from 256K to 1 MB (4 when linear, 16 when quadratic), a ratio comparable across machines,
  - the quadratic patterns the conversation checks had (kept here as the reference) against the
    checks now,
    side by side on the same 4K-16K texts, as ratios.
The scenario has no spoken-value checks, so the spoken-value parser (grading/spoken.py, which reads
every
value a reply states) is measured on its own: `find_values` seconds on the same kinds of text plus
e-mail
addresses between spaces, number words and ordinary sentences with values, and its growth from 256K
to 1 MB.
Before it read long texts in pieces it was quadratic (1.2 s on 40K of space-separated e-mail
addresses, so
about 10 minutes at 1 MB) and raised ValueError on a numeral of more than 4,300 digits.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import re
import sys
import time
from pathlib import Path

from callbench.grading.conversation_checks import unspeakable
from callbench.grading.phrase_checks import PhraseChecks
from callbench.grading.scorecard import default_graders, score_trace
from callbench.grading.spoken import clear_cache, find_values
from callbench.runs import Attempt, run_attempt
from callbench.suite_check import load_suite

sys.path.insert(0, str(Path(__file__).parent))
from _results import RESULTS, save  # noqa: E402

SIZES = (32_768, 65_536, 262_144, 1_048_576)
KINDS = {
    "no_spaces": "abcdefghij",
    "digits": "9825041736",
    "email_like": "john.doe+x@mail",
    "hyphenated": "a-",
    "dotted": "a.",
}
SCENARIO = ("starter", "clinic-book-slot-taken")
PHRASE_SCENARIO = ("utility-billing", "ub-lockout-old-zip-refusal")
FORBIDDEN = " and the zip code you gave is wrong"

OLD_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
OLD_URL = re.compile(
    r"(?i)\bhttps?://\S+|\bwww\.\S+"
    r"|\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|org|net|in|co|io|gov|edu|uk|info|biz|app|ai)\b(?:/\S*)?"
)
"""The e-mail and URL patterns of the conversation checks before they were made linear: the
reference."""


def text_of(kind: str, size: int) -> str:
    unit = KINDS[kind]
    return (unit * (size // len(unit) + 1))[:size]


SPOKEN_KINDS = (*KINDS, "emails_spaced", "number_words", "sentences")
SENTENCES = (
    "your balance is sixty-five pounds fifty-two",
    "the reference is TX-4471",
    "on the 3rd of March",
    "that is 1,250 units",
    "call back at 4:30 pm",
    "account D P three three zero one",
    "ok",
)


def spoken_text(kind: str, size: int) -> str:
    if kind in KINDS:
        return text_of(kind, size)
    if kind == "emails_spaced":
        text = " ".join(f"a{i}@b{i}.com" for i in range(size // 8))
    elif kind == "number_words":
        text = " ".join(
            ("one hundred and twenty", "thousand", "point five", "dollars")[i % 4]
            for i in range(size // 8)
        )
    else:
        text = " ".join(SENTENCES[i % len(SENTENCES)] for i in range(size // 20))
    return text[:size]


def with_reply(trace, text: str):
    messages = list(trace.messages)
    i = next(k for k, m in enumerate(messages) if m.role == "candidate" and m.text)
    messages[i] = messages[i].model_copy(update={"text": text})
    return trace.model_copy(update={"messages": messages}), messages[i].index


def oracle_trace(suite_id: str, scenario_id: str):
    suite = load_suite(suite_id)
    return (
        suite,
        suite.scenarios[scenario_id],
        asyncio.run(run_attempt(suite, Attempt("oracle", scenario_id, 0), 0)),
    )


def seconds(f, repeats: int = 1) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def measure(sizes: tuple[int, ...], repeats: int) -> dict:
    suite, scenario, base = oracle_trace(*SCENARIO)
    graded: dict[str, dict[str, float]] = {}
    verdicts: dict[str, dict[str, str]] = {}
    for kind in KINDS:
        graded[kind] = {}
        for size in sizes:
            trace, index = with_reply(base, text_of(kind, size))
            card = None

            def run() -> None:
                nonlocal card
                card = score_trace(trace, scenario, suite.manifest)

            graded[kind][str(size)] = round(seconds(run, repeats), 4)
        # type: ignore[union-attr]
        checks = {i.id: i for i in card.items if i.grader == "conversation_checks"}
        verdicts[kind] = {
            k: v.label + (", the reply flagged" if v.label != "met" and index in v.evidence else "")
            for k, v in checks.items()
            if k in ("speakable", "numbers_spoken")
        }
    top = str(max(sizes))
    by_grader: dict[str, dict[str, float]] = {}
    for kind in KINDS:
        trace, _ = with_reply(base, text_of(kind, max(sizes)))
        by_grader[kind] = {
            g.name: round(seconds(lambda g=g: g.grade(trace, scenario, suite.manifest), repeats), 4)
            for g in default_graders()
        }

    p_suite, p_scenario, p_base = oracle_trace(*PHRASE_SCENARIO)
    phrase: dict[str, dict] = {}
    for kind in KINDS:
        trace, index = with_reply(p_base, text_of(kind, max(sizes)) + FORBIDDEN)
        out: list = []
        t = seconds(
            lambda: out.append(PhraseChecks().grade(trace, p_scenario, p_suite.manifest)), repeats
        )
        guard = next(v for v in out[-1] if v.id == "no_detail_named")
        phrase[kind] = {
            "seconds": round(t, 4),
            "guard": guard.label,
            "caught_at_end": index in guard.evidence,
        }

    growth = {}
    if str(262_144) in graded["no_spaces"] and str(1_048_576) in graded["no_spaces"]:
        growth = {
            kind: round(graded[kind]["1048576"] / max(graded[kind]["262144"], 1e-9), 2)
            for kind in KINDS
        }

    def read(text: str) -> None:
        clear_cache()  # the repeats must read, not look up
        find_values(text)

    spoken = {
        kind: {
            str(size): round(seconds(lambda t=spoken_text(kind, size): read(t), repeats), 4)
            for size in sizes
        }
        for kind in SPOKEN_KINDS
    }
    spoken_growth = {
        kind: round(row["1048576"] / max(row["262144"], 1e-9), 2)
        for kind, row in spoken.items()
        if "1048576" in row and "262144" in row
    }

    reference: dict[str, dict] = {}
    for kind in KINDS:
        row = {}
        for size in (4_096, 8_192, 16_384):
            text = text_of(kind, size)
            old = seconds(lambda: OLD_EMAIL.search(text) or OLD_URL.search(text))
            new = seconds(lambda: unspeakable(text))
            row[str(size)] = {
                "old_email_url_patterns": round(old, 5),
                "unspeakable_now": round(new, 5),
                "ratio": round(old / max(new, 1e-9), 1),
            }
        reference[kind] = row

    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "scenario": "/".join(SCENARIO),
        "graders": [g.name for g in default_graders()],
        "sizes": list(sizes),
        "score_trace_seconds": graded,
        "verdicts_at_largest": verdicts,
        "seconds_by_grader_at_largest": by_grader,
        "phrase_checks_at_largest": {
            "scenario": "/".join(PHRASE_SCENARIO),
            "appended": FORBIDDEN.strip(),
            **phrase,
        },
        "growth_1mb_over_256k": growth,
        "reference_old_patterns_vs_now": reference,
        "find_values_seconds": spoken,
        "find_values_growth_1mb_over_256k": spoken_growth,
        "target_1mb_under_1s": {kind: graded[kind][top] < 1.0 for kind in KINDS}
        if top == "1048576"
        else None,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="sizes 32K and 64K only")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS / "grading.json")
    args = parser.parse_args(argv)
    result = measure(SIZES[:2] if args.quick else SIZES, 1 if args.quick else args.repeats)
    return save(result, args.out)


if __name__ == "__main__":
    main()
