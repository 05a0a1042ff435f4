from callbench.call.audio.prosody import punctuate_like
from callbench.call.audio.wer import heard_form


def test_a_question_the_recogniser_cut_in_two_ends_where_the_speaker_ended_it():
    said = (
        "Would you like ten forty in the morning or three thirty in the afternoon, "
        "or Friday at two fifteen with Dr. Lindqvist?"
    )
    heard = (
        "will you like 10 already in the morning or 3.30 in the afternoon? "
        "Or Friday at 2.15 with Dr. Lynn Kvitz."
    )
    out = punctuate_like(said, heard, "en")
    assert out.endswith("Lynn Kvitz?") and out.count("?") == 1 and "afternoon?" not in out
    # the words are the recogniser's, every one
    assert [w.strip(".?,") for w in out.split()] == [w.strip(".?,") for w in heard.split()]


def test_a_dropped_question_mark_and_a_missing_sentence_end_are_restored():
    said = "Thank you. I have your number. Could you give me your date of birth?"
    heard = "Thank you I have your number could you give me your date of birth"
    assert punctuate_like(said, heard, "en") == (
        "Thank you. I have your number. could you give me your date of birth?"
    )


def test_an_end_moves_to_a_nearby_end_the_recogniser_heard():
    said = "Thank you. Because this is a fraud replacement, express is free."
    heard = "Thank you. We can't live in a fraud replacement, express is free."
    out = punctuate_like(said, heard, "en")
    assert out.startswith("Thank you. We") and out.endswith("free.")


def test_nothing_said_or_nothing_heard_leaves_the_heard_text():
    assert punctuate_like("", "some words", "en") == "some words"
    assert punctuate_like("Hello there.", "", "en") == ""
    assert punctuate_like("Hello there.", "...", "en") == "..."


def test_heard_form_writes_every_number_as_its_digits():
    assert heard_form("ten forty", "en") == heard_form("10:40", "en") == "1040"
    assert heard_form("three thirty", "en") == heard_form("3.30", "en") == "330"
    assert heard_form("March twelfth", "en") == heard_form("March 12th", "en") == "march 12"
    assert heard_form("twenty-first", "en") == "21" and heard_form("a second", "en") == "a second"
    assert heard_form("5, 1, 2, 7", "en") == heard_form("five one two seven", "en") == "5127"
    assert heard_form("March 12, 10:40", "en") == "march 12 1040"  # two numbers stay two
    assert heard_form("June 13th, 1974", "en") == "june 13 1974"


def test_heard_form_keeps_what_punctuation_still_means():
    from callbench.callers.hearing import hears

    assert heard_form("It costs £4. Then", "en") == "it costs 4 gbp | then"
    assert not hears("£4", "a 4 digit pin", "en")  # an amount is not a bare number
    assert not hears("pincode of", "by pincode. Offer pickup", "en")  # not across a sentence end
    assert hears("pincode of", "what is the pincode of the area?", "en")
    assert not hears("ત્રણ નવ", "ભાડું 390 રૂપિયા", "gu")  # 39 is not heard in 390
    assert hears("ten forty", "at 10:40?", "en") and not hears("ten", "at 10:40?", "en")
