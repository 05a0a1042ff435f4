"""The spoken-value language registry (`spoken_langs`): what a table must hold, how a language code
finds its table, the engine readings every table gets, and the validation error for spoken checks
in a language without a table."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from callbench.grading.spoken import find_values
from callbench.grading.spoken_langs import TABLES, LanguageTable, table_for, zero_to_99
from callbench.suite_check import check_suite

MINI = Path(__file__).parent / "fixtures" / "mini"
SCENARIO = "scenarios/parcel-desk/reschedule.yaml"


def test_codes_find_their_tables():
    assert table_for("hi-Latn") is TABLES["hi-Latn"]
    assert table_for("hi_latn") is TABLES["hi-Latn"]
    assert table_for("en-IN") is TABLES["en"]
    assert table_for("mr-IN") is TABLES["mr"]
    assert table_for("sw") is None


@pytest.mark.parametrize("code", sorted(TABLES))
def test_every_table_is_complete(code):
    t = TABLES[code]
    assert isinstance(t, LanguageTable) and t.code == code
    values = set(t.numbers.values())
    assert values == set(range(100)) or set(t.tens.values()) == {20, 30, 40, 50, 60, 70, 80, 90}
    assert len({m for m in t.months.values()}) in (0, 12)
    for other in t.reads_also:
        assert other in TABLES, f"{code} reads {other}, which is not registered"


def test_zero_to_99_needs_a_hundred_words():
    with pytest.raises(ValueError):
        zero_to_99(["one", "two"])


@pytest.mark.parametrize(
    "language,text,value",
    [
        ("gu", "સાડા ત્રણસો રૂપિયા", 350),  # issue 15: was 300
        ("gu", "સવા બસો રૂપિયા", 225),  # was 200
        ("hi", "साढ़े तीन सौ रुपये", 350),
        ("hi", "पौने चार सौ रुपये", 375),
        ("hi", "सवा दो सौ रुपये", 225),
        ("hi", "डेढ़ लाख रुपये", 150000),
        ("hi", "Dedh lakh rupaye", 150000),  # a Hindi call reads romanised Hindi
        ("hi-Latn", "dhai hazaar rupaye", 2500),
        ("mr", "साडेतीनशे रुपये", 350),
        ("mr", "पंधराशे रुपये", 1500),
        ("en", "nine hundred forty-eight seventy-five dollars", Decimal("948.75")),
        ("en", "one and a half lakh rupees", 150000),
        ("en", "three point five lakh rupees", 350000),
    ],
)
def test_fractions_and_scales(language, text, value):
    assert [(v.kind, v.value) for v in find_values(text, language)] == [("amount", value)]


@pytest.mark.parametrize(
    "language,text",
    [
        ("en", "Dedh lakh rupees"),  # English does not read "dedh": no value, never 100000
        ("hi", "अढ़ाईयाँ हज़ार रुपये"),  # an unknown word before a scale: no value
        ("hi", "आप मुझे पैसे दो"),  # दो the verb
        ("hi-Latn", "aapke saath baat karni hai"),  # saath = with
    ],
)
def test_no_wrong_value(language, text):
    assert [v.value for v in find_values(text, language) if v.kind in ("amount", "number")] == []


def test_ordinals_are_numbers_not_tens():
    got = find_values("the twenty-third of each month", "en")
    assert [(v.kind, v.value) for v in got] == [("number", 23)]


def test_a_suite_with_spoken_checks_in_a_language_without_tables_is_refused(tmp_path):
    root = tmp_path / "mini"
    shutil.copytree(MINI, root)
    suite_yaml = root / "suite.yaml"
    suite_yaml.write_text(
        suite_yaml.read_text(encoding="utf-8").replace("languages: [en]", "languages: [en, sw]"),
        encoding="utf-8",
    )
    scenario = root / SCENARIO
    text = scenario.read_text(encoding="utf-8").replace("language: en", "language: sw")
    text += (
        "spoken_checks:\n"
        "  - id: fee_stated\n"
        "    description: the agent states the fee\n"
        "    kind: amount\n"
        "    value: 50\n"
    )
    scenario.write_text(text, encoding="utf-8")
    errors = [p for p in check_suite(root).errors if p.path == "language" and p.file == SCENARIO]
    assert len(errors) == 1, check_suite(root).problems
    assert "'sw'" in errors[0].message and "no tables" in errors[0].message
    assert "fee_stated" in errors[0].message
    assert errors[0].line is not None
