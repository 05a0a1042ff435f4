"""Name matching for verify_caller: the Soundex baseline, our matcher's accepts and rejects, the
labelled pairs' shape, and ours against Soundex on them (fewer errors, no more false accepts)."""

import csv
import time
from collections import Counter
from importlib import resources

import pytest

from callbench.backends.utility.names import (
    CATEGORIES,
    HELD_OUT_FROM,
    NamePair,
    evaluate,
    fold,
    load_pairs,
    names_match,
    soundex,
    soundex_match,
    token_match,
)

PAIRS = load_pairs()


def test_soundex_is_classic_american_soundex():
    # H and W do not separate equal codes (Ashcraft A261, Pfister P236); the first letter is kept
    assert [soundex(w) for w in ("Robert", "Rupert", "Tymczak", "Pfister", "Ashcraft")] == [
        "R163",
        "R163",
        "T522",
        "P236",
        "A261",
    ]
    assert soundex("José") == "J200" and soundex("") == ""


def test_soundex_baseline_behaves_as_the_reference_describes():
    assert not soundex_match("Kamila Reyes", "Camila Reyes")  # first letter kept verbatim
    assert soundex_match("Tim Reed", "Tom Reed")  # every code equal: a different person accepted
    assert soundex_match("Steven Clarke", "Stephen Clarke")
    assert not soundex_match("Reyes Camila", "Camila Reyes")  # codes compared in order
    assert not soundex_match("Maria Garcia", "María José García López")  # token counts differ
    assert not soundex_match("", "")


ACCEPTS = [
    ("Kamila Reyes", "Camila Reyes"),
    ("JOSE MARTINEZ", "José Martínez"),
    ("Mrs. Patricia ONeill", "Patricia O'Neill"),
    ("Anne Marie Lefebvre", "Anne-Marie Lefebvre"),
    ("Sean O Brien", "Sean O'Brien"),
    ("Okafor Denise", "Denise Okafor"),
    ("Sharma, Priya", "Priya Sharma"),
    ("John Robert Smith", "John Smith"),
    ("Angela Foster", "Angela M. Foster"),
    ("Scott Palmer", "William Scott Palmer"),  # goes by the middle name
    ("Jon Baker", "John Baker"),
    ("Steven Clarke", "Stephen Clarke"),
    ("Shawn Murphy", "Sean Murphy"),
    ("Catherine Lowell", "Kathryn Lowell"),
    ("Micheal Turner", "Michael Turner"),
    ("Bill Turner", "William Turner"),
    ("Kathy Brandt", "Catherine Brandt"),  # nickname of a spelling variant
    ("Shrinivasan Raghavan", "Srinivasan Raghavan"),
    ("Laxmi Narayan", "Lakshmi Narayan"),
    ("Venaktesh Rao", "Venkatesh Rao"),
    ("Maria Garcia", "María José García López"),
    ("Juan de la Cruz", "Juan Delacruz"),
    ("Francisco Javier Morales", "Francisco Morales Ibarra"),  # extra tokens in different places
    ("MR JAMES CARTER JR", "James Carter Jr."),
    ("David Harris Jr", "David Harris"),  # a suffix on one side only is omitted, not a conflict
    ("John Smith", "J Smith"),  # the record holds only the initial
]

REJECTS = [
    ("Mario Garcia", "Maria Garcia"),
    ("Daniel Brooks", "Danielle Brooks"),
    ("Joan Smith", "John Smith"),
    ("Michelle Turner", "Michael Turner"),
    ("Christina Wolfe", "Christian Wolfe"),  # a transposition does not escape the ending rule
    ("Justine Carroll", "Justin Carroll"),
    ("Stephanie Clarke", "Stephen Clarke"),
    ("Priya Verma", "Priya Sharma"),
    ("Rahul Sharma", "Priya Sharma"),  # a spouse on the shared surname
    ("John Smith Sr", "John Smith Jr"),
    ("Juan Pablo Rodriguez", "Juan Carlos Rodríguez"),
    ("Maria Garcia Perez", "Maria Garcia Lopez"),
    ("Smith Joan Michael", "John Michael Smith"),  # surname first, a different first name
    ("Bill Turner", "Robert Turner"),
    ("Tim Reed", "Tom Reed"),
    ("Kevin Walsh", "Kelvin Walsh"),
    ("J Smith", "John Smith"),  # the caller must say the name, not an initial
    ("Denise", "Denise Okafor"),  # no surname
    ("Okafor", "Denise Okafor"),  # no given name
    ("", "Denise Okafor"),
    ("Mr. Dr.", "Denise Okafor"),
    ("Tran Van Minh", "Le Van Minh"),  # Le and Van are names here, not particles
    ("Nguyen Le", "Nguyen Tran"),
]


@pytest.mark.parametrize("given,on_file", ACCEPTS)
def test_accepts(given, on_file):
    assert names_match(given, on_file)


@pytest.mark.parametrize("given,on_file", REJECTS)
def test_rejects(given, on_file):
    assert not names_match(given, on_file)


def test_kamila_is_ours_and_not_soundex():
    assert names_match("Kamila Reyes", "Camila Reyes")
    assert not soundex_match("Kamila Reyes", "Camila Reyes")


def test_token_levels_and_fold():
    assert fold("  Łukasz   O'Brien-Nowak ") == "lukasz obrien nowak"
    assert token_match("jon", "john") == 3  # equal skeletons
    assert token_match("micheal", "michael") == 2  # a transposition
    assert token_match("j", "john") == 1 and token_match("j", "mary") == 0
    assert token_match("dina", "dana") == 0  # one vowel in a short name is a different name


def test_alignment_stays_fast_on_a_long_repetitive_name():
    start = time.perf_counter()
    names_match("aa " * 8, "aa " * 7 + "ab")  # no perfect alignment: every state visited
    assert not names_match("a a a a a a a a", "a a a a a a a b")
    assert time.perf_counter() - start < 1  # the factorial search took 3.6 s; the programme, ms


def test_pairs_file_is_well_formed():
    text = resources.files("callbench.backends.utility").joinpath("name_pairs.csv").read_text()
    rows = list(csv.reader(text.splitlines()))
    assert rows[0] == ["given", "on_file", "same_person", "category"]
    assert all(len(r) == 4 for r in rows[1:])
    assert len(PAIRS) >= 220 and len(PAIRS) == len(rows) - 1
    assert {p.category for p in PAIRS} == CATEGORIES
    keys = [frozenset((fold(p.given), fold(p.on_file))) for p in PAIRS]
    assert [k for k, n in Counter(keys).items() if n > 1] == []  # no pair twice, either order
    assert all(p.given != p.on_file for p in PAIRS)  # each pair tests something
    assert all(p.same_person for p in PAIRS if fold(p.given) == fold(p.on_file))
    different = sum(not p.same_person for p in PAIRS)
    assert 0.38 <= different / len(PAIRS) <= 0.62
    hard = Counter(p.category for p in PAIRS if not p.same_person)
    assert hard["similar_different"] >= 40 and hard["spouse_or_relative"] >= 15
    assert {p.same_person for p in PAIRS if p.category in ("indian", "hispanic")} == {True, False}
    assert 0 < HELD_OUT_FROM < len(PAIRS)


def test_load_pairs_refuses_a_bad_row(tmp_path):
    bad = tmp_path / "pairs.csv"
    bad.write_text("given,on_file,same_person,category\nA B,A B,yes,exact_variant\n")
    with pytest.raises(ValueError, match="bad row"):
        load_pairs(bad)


def test_evaluate_counts():
    pairs = [
        NamePair("Tim Reed", "Tom Reed", False, "similar_different"),
        NamePair("Kamila Reyes", "Camila Reyes", True, "transcription"),
        NamePair("Denise Okafor", "Thomas Reed", False, "unrelated"),
    ]
    result = evaluate(pairs)
    s, c = result["soundex"], result["callbench"]
    assert (s["false_accepts"], s["different"], s["false_rejects"], s["same"]) == (1, 2, 1, 1)
    assert (s["false_accept_rate"], s["false_reject_rate"], s["errors"]) == (0.5, 1.0, 2)
    assert s["by_category"]["unrelated"] == {"pairs": 1, "errors": 0}
    assert [w["error"] for w in s["wrong"]] == ["false accept", "false reject"]
    assert (c["false_accepts"], c["false_rejects"], c["errors"]) == (0, 0, 0)


@pytest.mark.parametrize(
    "rows", [slice(None), slice(HELD_OUT_FROM, None)], ids=["all pairs", "held-out pairs"]
)
def test_ours_beats_soundex(rows):
    result = evaluate(PAIRS[rows])
    ours, base = result["callbench"], result["soundex"]
    assert ours["errors"] < base["errors"]
    assert ours["false_accept_rate"] <= base["false_accept_rate"]
    assert ours["false_reject_rate"] < base["false_reject_rate"]
