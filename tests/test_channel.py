import random

from callbench.call import TextChannel
from callbench.spec import ChannelProgram


def channel(events=(), seeded=False, knows=None, seed=0):
    program = ChannelProgram.model_validate({"seeded_first_turn": seeded, "events": list(events)})
    return TextChannel(program, knows or {}, random.Random(seed))


def test_substitute_drop_double_record_what_changed():
    ch = channel(
        [
            {"turn": 1, "kind": "substitute", "span": "twelve", "with": "two"},
            {"turn": 2, "kind": "drop", "span": "not"},
            {"turn": 3, "kind": "double", "span": "I"},
        ]
    )
    frags, (ev,) = ch.render("It is twelve litres", 1, ())
    assert (
        frags == ["It is two litres"] and ev.applied and (ev.before, ev.after) == ("twelve", "two")
    )
    frags, (ev,) = ch.render("I do not want it", 2, ())
    assert frags == ["I do want it"] and ev.applied
    frags, (ev,) = ch.render("I want it", 3, ())
    assert frags == ["I I want it"]


def test_event_that_misses_its_span_is_recorded_as_not_applied():
    ch = channel([{"turn": 1, "kind": "substitute", "span": "fifteen", "with": "fifty"}])
    frags, (ev,) = ch.render("Hello there", 1, ())
    assert frags == ["Hello there"] and not ev.applied and "not found" in ev.detail


def test_step_anchored_split_inside_identifier_at_most_three_fragments():
    ch = channel([{"step": "give_id", "kind": "split", "after": ["GJ-04", "12"]}])
    frags, (ev,) = ch.render("My number is GJ-0412 ok", 4, ("give_id",))
    assert (
        frags == ["My number is GJ-04", "12", "ok"] and ev.applied and ev.anchor == "step give_id"
    )
    # it fires once only
    frags, evs = ch.render("My number is GJ-0412 ok", 5, ("give_id",))
    assert frags == ["My number is GJ-0412 ok"] and evs == []


def test_events_whose_turn_never_came_are_reported():
    ch = channel(
        [{"turn": 9, "kind": "drop", "span": "x"}, {"step": "late", "kind": "drop", "span": "y"}]
    )
    ch.render("hello", 1, ())
    unfired = ch.unfired()
    assert [e.anchor for e in unfired] == ["turn 9", "step late"] and not any(
        e.applied for e in unfired
    )


def test_seeded_first_turn_changes_one_eligible_word_never_a_caller_fact():
    text = "Hello this is Savitaben calling about twelve litres"
    for seed in range(40):
        ch = channel(seeded=True, knows={"name": "Savitaben", "litres": "twelve"}, seed=seed)
        (frag,), (ev,) = ch.render(text, 1, ())
        assert ev.applied and ev.origin == "seeded"
        assert ev.before not in ("Savitaben", "twelve", "is") and len(ev.before) >= 4
        changed = [(a, b) for a, b in zip(text.split(), frag.split()) if a != b]
        assert len(changed) == 1 and changed[0][0] == ev.before
        # only the first turn is touched
        assert ch.render(text, 2, ())[0] == [text]


def test_seeded_mode_handles_indic_scripts_as_whole_words():
    ch = channel(seeded=True, knows={"name": "સવિતાબેન"}, seed=3)
    (frag,), (ev,) = ch.render("આજે સાંજે દૂધ નહીં આવે સવિતાબેન", 1, ())
    assert ev.applied and ev.before in ("સાંજે", "નહીં") and "સવિતાબેન" in frag


def test_seeded_mode_same_seed_same_damage():
    a = channel(seeded=True, seed=11).render("Please reschedule tomorrow's delivery", 1, ())
    b = channel(seeded=True, seed=11).render("Please reschedule tomorrow's delivery", 1, ())
    assert a == b
