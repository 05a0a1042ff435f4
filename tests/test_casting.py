"""Casting: personas and background conditions assigned from the suite's own seed, the same for
every
candidate and run; backgrounds rendered by the text channel; reports sliced by both."""

import random
import shutil
from collections import Counter
from pathlib import Path

import pytest

from callbench.call.channel import TextChannel
from callbench.errors import SuiteError
from callbench.play.casting import cast_scenario, conditions
from callbench.runs import RunConfig, run_suite
from callbench.spec import Background, ChannelProgram
from callbench.suite_check import load_suite

STARTER = Path(__file__).parents[1] / "src" / "callbench" / "suites" / "starter"

CASTING = """
casting:
  seed: 11
  personas:
    calm: { mood: calm, patience: high, verbosity: terse, notes: concise and practical }
    angry:
      { mood: angry, patience: low, verbosity: terse,
        notes: "impatient, more forceful when misunderstood" }
  backgrounds:
    clean: {}
    street: { noise: 0.08 }
    tv:
      noise: 0.03
      intrusion_rate: 0.5
      intrusions:
        en: ["and in other news, the markets closed higher today"]
        hi: ["और अब मौसम का हाल, कल बारिश की संभावना है"]
        "*": ["(television in the background)"]
"""


def with_casting(src: Path, tmp_path: Path, extra: str = CASTING) -> Path:
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    (dst / "suite.yaml").write_text((dst / "suite.yaml").read_text() + extra)
    return dst


@pytest.fixture
def cast_starter(tmp_path):
    return load_suite(with_casting(STARTER, tmp_path))


def test_personas_are_dealt_evenly_and_kept_across_repeats(cast_starter):
    suite = cast_starter
    first = {sid: conditions(suite, sid, 0)["persona"] for sid in suite.scenarios}
    assert Counter(first.values()) == {"calm": 8, "angry": 8}  # 16 scenarios, two personas
    assert all(
        conditions(suite, sid, r)["persona"] == first[sid]
        for sid in suite.scenarios
        for r in range(1, 4)
    )


def test_backgrounds_rotate_over_repeats(cast_starter):
    suite = cast_starter
    for sid in suite.scenarios:
        assert sorted(conditions(suite, sid, r)["background"] for r in range(3)) == [
            "clean",
            "street",
            "tv",
        ]
        assert conditions(suite, sid, 3)["background"] == conditions(suite, sid, 0)["background"]
    orders = {
        tuple(conditions(suite, sid, r)["background"] for r in range(3)) for sid in suite.scenarios
    }
    assert len(orders) > 1  # shuffled per scenario, not one fixed rotation for all


def test_the_casting_seed_decides_the_assignment(cast_starter, tmp_path):
    again = load_suite(with_casting(STARTER, tmp_path / "again"))
    every = [(sid, r) for sid in cast_starter.scenarios for r in range(3)]
    assert [conditions(cast_starter, s, r) for s, r in every] == [
        conditions(again, s, r) for s, r in every
    ]
    other = load_suite(
        with_casting(STARTER, tmp_path / "other", CASTING.replace("seed: 11", "seed: 12"))
    )
    assert [conditions(other, s, r) for s, r in every] != [
        conditions(cast_starter, s, r) for s, r in every
    ]


def test_a_cast_persona_replaces_the_briefs_own(cast_starter):
    from callbench.runs import make_caller

    sid = next(
        s for s in cast_starter.scenarios if conditions(cast_starter, s, 0)["persona"] == "angry"
    )
    scenario = cast_scenario(
        cast_starter, cast_starter.scenarios[sid], conditions(cast_starter, sid, 0)
    )
    assert scenario.caller.persona.mood == "angry" and scenario.caller.persona.patience == "low"
    assert (
        make_caller("scripted", scenario, cast_starter).patience == 2
    )  # the scripted caller's low patience
    assert (
        cast_starter.scenarios[sid].caller.persona
        == load_suite(STARTER).scenarios[sid].caller.persona
    )  # untouched
    assert (
        cast_scenario(cast_starter, cast_starter.scenarios[sid], {}) is cast_starter.scenarios[sid]
    )


def test_background_noise_spares_caller_facts_and_intrusions_are_recorded():
    bg = Background(
        noise=0.5, intrusion_rate=1.0, intrusions={"en": ["breaking news from the studio"]}
    )
    channel = TextChannel(
        ChannelProgram(),
        {"tracking_id": "SP-0412", "name": "Annabelle"},
        random.Random(1),
        background=bg,
        background_rng=random.Random(2),
        language="en-GB",
    )
    text = (
        "Hello there, my name is Annabelle and my parcel number is SP-0412, please reschedule "
        "delivery tomorrow"
    )
    fragments, records = channel.render(text, 1, ())
    assert "breaking news from the studio" in fragments and len(fragments) == 2
    caller = next(f for f in fragments if f != "breaking news from the studio")
    assert "Annabelle" in caller and "SP-0412" in caller and caller != text
    kinds = {r.kind: r for r in records}
    assert kinds["noise"].origin == "background" and "heard as" in kinds["noise"].detail
    assert (
        kinds["intrusion"].after == "breaking news from the studio"
        and kinds["intrusion"].anchor == "turn 1"
    )
    again = TextChannel(
        ChannelProgram(),
        {"tracking_id": "SP-0412", "name": "Annabelle"},
        random.Random(1),
        background=bg,
        background_rng=random.Random(2),
        language="en-GB",
    ).render(text, 1, ())
    assert again == (fragments, records)  # seeded: the same call hears the same noise


def test_a_clean_background_changes_nothing():
    channel = TextChannel(
        ChannelProgram(),
        {},
        random.Random(1),
        background=Background(),
        background_rng=random.Random(2),
        language="en",
    )
    assert channel.render("Hello, I would like to reschedule", 1, ()) == (
        ["Hello, I would like to reschedule"],
        [],
    )


def test_a_background_brings_its_own_generator():
    """Drawing the background's generator from the channel's would shift the seeded mishearing of
    every call."""
    with pytest.raises(ValueError, match="background_rng"):
        TextChannel(ChannelProgram(), {}, random.Random(1), background=Background(noise=0.1))


def test_every_candidate_gets_the_same_assignment_and_reports_slice_by_it(cast_starter, tmp_path):
    config = RunConfig(
        candidates=("oracle", "noop"),
        repeats=3,
        seed=5,
        scenarios=tuple(sorted(cast_starter.scenarios))[:4],
    )
    result = run_suite(cast_starter, config, tmp_path / "run")
    cards = {(c.candidate, c.scenario_id, c.repeat): c for c in result.scorecards}
    for (_cand, sid, r), card in cards.items():
        assert card.conditions == conditions(cast_starter, sid, r)
        assert cards[("noop", sid, r)].conditions == cards[("oracle", sid, r)].conditions
    assert all(
        c.task.score == 100.0 for c in result.scorecards if c.candidate == "oracle"
    )  # noise never blocks the oracle
    slices = result.report["slices"]
    assert set(slices["background"]["oracle"]) == {"clean", "street", "tv"}
    assert sum(cell["calls"] for cell in slices["background"]["oracle"].values()) == 12
    assert set(slices["persona"]["noop"]) <= {"calm", "angry"}
    other = run_suite(
        cast_starter,
        RunConfig(candidates=("noop",), repeats=3, seed=6, scenarios=config.scenarios[:1]),
        tmp_path / "other-seed",
    )
    assert all(
        c.conditions == cards[("noop", c.scenario_id, c.repeat)].conditions
        for c in other.scorecards
    )  # not the run seed
    tv = [c for c in result.scorecards if c.conditions["background"] == "tv"]
    assert tv  # and a tv call's trace shows what the channel did
    from callbench.call import read_trace

    traces = [read_trace(p) for p in (tmp_path / "run" / "traces").rglob("*.json")]
    assert any(
        e.origin == "background"
        for t in traces
        for turn in t.caller_turns
        for e in turn.channel_events
    )


def test_background_speech_is_required_for_every_suite_language(tmp_path):
    english_only = (
        "\ncasting:\n  backgrounds:\n    tv: { intrusion_rate: 0.2, intrusions: { en: "
        "[news at ten] } }\n"
    )
    with pytest.raises(SuiteError) as info:
        load_suite(with_casting(STARTER, tmp_path, english_only))
    assert "casting.backgrounds.tv.intrusions" in str(info.value) and "['gu', 'hi']" in str(
        info.value
    )
    load_suite(
        with_casting(
            STARTER,
            tmp_path / "any",
            english_only.replace("en: [news at ten]", '"*": [news at ten]'),
        )
    )


def test_bad_casting_is_refused_naming_the_file_and_field(tmp_path):
    bad = CASTING.replace("intrusion_rate: 0.5", "intrusion_rate: 1.5")
    with pytest.raises(SuiteError) as info:
        load_suite(with_casting(STARTER, tmp_path, bad))
    assert "suite.yaml" in str(info.value) and "intrusion_rate" in str(info.value)
    empty = "\ncasting:\n  backgrounds:\n    tv: { intrusion_rate: 0.2 }\n"
    with pytest.raises(SuiteError, match="needs intrusion lines"):
        load_suite(with_casting(STARTER, tmp_path / "e", empty))


def test_the_transcript_marks_background_speech_and_keeps_the_step_on_the_callers_words(tmp_path):
    from callbench.call import read_trace
    from callbench.reports.transcript import render_transcript

    loud = (
        '\ncasting:\n  backgrounds:\n    tv: { intrusion_rate: 1.0, intrusions: { "*": '
        "[breaking news from the studio] } }\n"
    )
    suite = load_suite(with_casting(STARTER, tmp_path, loud))
    run_suite(
        suite,
        RunConfig(candidates=("oracle",), scenarios=("clinic-chest-pain-triage",)),
        tmp_path / "run",
    )
    trace = read_trace(tmp_path / "run/traces/oracle/clinic-chest-pain-triage/r0.json")
    lines = render_transcript(trace).plain.splitlines()
    background = [line for line in lines if "CALLER (background): breaking news" in line]
    assert len(background) == len(trace.caller_turns)  # every turn heard the television once
    stepped = [line for line in lines if "CALLER [step" in line]
    assert stepped and not any("breaking news" in line for line in stepped)
