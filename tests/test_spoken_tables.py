"""Spoken values in every suite language: the phrase tables of tests/fixtures/spoken, decided the
way `spoken_checks` decides them, and number words read back from their generator.

Each table is written fresh (agents' and callers' phrasings, the failures of issue 15, decoys); see
tests/fixtures/spoken/README.md. A wrong value fails at once; a miss only lowers accuracy, which
must stay at 0.9 or above per language.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from callbench.call.trace import Message, SuiteRef, Trace
from callbench.grading.spoken import find_values, number_words
from callbench.grading.spoken_langs import TABLES, table_for
from callbench.grading.spoken_stated import stated
from callbench.grading.spoken_words import key, lexicon

TABLE_DIR = Path(__file__).parent / "fixtures" / "spoken"
TODAY = date(2026, 11, 12)
MIN_ACCURACY = 0.9
KINDS = {"amount", "number", "date", "identifier", "time"}


@dataclass(frozen=True)
class Row:
    line: int
    phrase: str
    kind: str
    value: str
    decoy: bool
    note: str


def _rows(path: Path) -> list[Row]:
    out = []
    with path.open(encoding="utf-8", newline="") as f:
        for n, cells in enumerate(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE), 1):
            if not cells or not "".join(cells).strip() or cells[0].startswith("#"):
                continue
            assert len(cells) in (3, 4), f"{path.name}:{n}: phrase, kind, value, note: {cells}"
            phrase, kind, value, note = (cells + [""])[:4]
            assert kind in KINDS, f"{path.name}:{n}: unknown kind {kind!r}"
            decoy = value.startswith("!")
            out.append(Row(n, phrase, kind, value.removeprefix("!"), decoy, note))
    return out


def _one_message(text: str) -> Trace:
    return Trace(
        id="t",
        suite=SuiteRef(id="s", version="1", sha256="0" * 64),
        scenario_id="sc",
        agent_id="a",
        candidate="c",
        caller="k",
        repeat=0,
        seed=1,
        instructions_sha256="0" * 64,
        messages=[Message(index=0, role="candidate", turn=0, text=text)],
    )


def _same_kind(kind: str, v_kind: str) -> bool:
    return v_kind == kind or {kind, v_kind} <= {"amount", "number"}


def judge(row: Row, language: str) -> str:
    """ "right", "miss" or "wrong" for one row, decided as a spoken check decides."""
    found = stated(_one_message(row.phrase), row.value, row.kind, language=language, today=TODAY)
    if row.decoy:
        return "wrong" if found.found else "right"
    if found.found:
        return "right"
    money = True if row.kind == "amount" else None
    read = find_values(row.phrase, language, today=TODAY, money=money)
    return "wrong" if any(_same_kind(row.kind, v.kind) for v in read) else "miss"


def _tables() -> list[Path]:
    return sorted(TABLE_DIR.glob("*.tsv"))


def test_there_are_tables_for_the_engine_languages():
    names = {p.stem for p in _tables()}
    assert {"en", "hi", "hi-Latn", "mr"} <= names


@pytest.mark.parametrize("path", _tables(), ids=lambda p: p.stem)
def test_phrase_table(path: Path, capsys):
    language = path.stem
    assert table_for(language) is not None, f"{path.name}: no spoken-value table for {language}"
    rows = _rows(path)
    assert len(rows) >= 60, f"{path.name} has {len(rows)} phrases; at least 60 are wanted"
    verdicts = [(row, judge(row, language)) for row in rows]
    wrong = [
        f"{path.name}:{r.line} {r.phrase!r} {r.kind} {'!' * r.decoy}{r.value}"
        for r, v in verdicts
        if v == "wrong"
    ]
    misses = [
        f"{path.name}:{r.line} {r.phrase!r} {r.kind} {r.value}" for r, v in verdicts if v == "miss"
    ]
    right = sum(v == "right" for _, v in verdicts)
    accuracy = right / len(verdicts)
    with capsys.disabled():
        print(
            f"\n{language:8} {right}/{len(verdicts)} right ({accuracy:.1%}), "
            f"{len(misses)} missed, {len(wrong)} wrong"
        )
        for m in misses:
            print("  miss:", m)
    assert not wrong, "wrong values:\n" + "\n".join(wrong)
    assert accuracy >= MIN_ACCURACY, "misses:\n" + "\n".join(misses)


# -- both ways: what the number-words generator says is read back


BIG = [1000, 1200, 9999, 10000, 99999, 100000, 125300, 999999, 2500000, 10**7, 12345678]


@pytest.mark.parametrize(
    "language", ["en", "en-IN", *sorted(c for c, t in TABLES.items() if t.canonical)]
)
def test_generated_numbers_read_back(language):
    weak = lexicon(language).weak
    for n in list(range(0, 1000)) + BIG:
        said = number_words(n, language)
        got = [(v.kind, v.value) for v in find_values(said, language, today=TODAY)]
        if " " not in said and key(said) in weak:
            assert got == [], (n, said)  # "do" alone may be the verb
        else:
            assert got == [("number", Decimal(n))], (n, said)


@pytest.mark.parametrize("language", ["en", "en-IN"])
def test_generated_amounts_read_back(language):
    """ "X dollars and Y cents", and the "X hundred Y ZZ" reading where money is meant."""
    for dollars in list(range(1, 1000, 7)) + [1200, 12345]:
        for cents in (5, 10, 52, 99):
            d, c = number_words(dollars, language), number_words(cents, language)
            for said in (f"{d} dollars and {c} cents", f"{d} dollars {c}"):
                want = Decimal(dollars) + Decimal(cents) / 100
                assert stated(_one_message(said), want, "amount", today=TODAY).found, said
            if cents >= 10 and dollars % 100 and dollars >= 100:
                said = f"{d} {c}"
                got = find_values(said, language, today=TODAY, money=True)
                assert [v.value for v in got] == [want], said


@pytest.mark.parametrize("language", ["hi", "mr", "hi-Latn"])
def test_generated_rupees_read_back(language):
    rupees = {"hi": "रुपये", "mr": "रुपये", "hi-Latn": "rupaye"}[language]
    for n in list(range(1, 1000, 3)) + BIG:
        said = f"{number_words(n, language)} {rupees}"
        got = find_values(said, language, today=TODAY)
        assert [(v.kind, v.value, v.currency) for v in got] == [("amount", Decimal(n), "INR")], said
