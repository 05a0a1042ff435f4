"""Word and character error rates: the alignment counts, and the normalisation that keeps a
recogniser's spelling choices (case, punctuation, "472" for "four seven two") from counting as
mishearings."""

import pytest

from callbench.call.audio.wer import (
    WerResult,
    align,
    character_error_rate,
    character_errors,
    normalize,
    word_error_rate,
    word_errors,
)


def test_alignment_counts_each_kind_of_edit():
    assert align("a b c d".split(), "a x c d".split()) == WerResult(1, 0, 0, 4)
    assert align("a b c d".split(), "a c d".split()) == WerResult(0, 1, 0, 4)
    assert align("a b c d".split(), "a b z c d".split()) == WerResult(0, 0, 1, 4)
    assert align("a b c".split(), []) == WerResult(0, 3, 0, 3)
    assert align([], "a b".split()) == WerResult(0, 0, 2, 0)


def test_rate_is_errors_over_reference_words():
    assert word_error_rate("the cat sat on the mat", "the cat sat on a mat", "en") == (
        pytest.approx(1 / 6)
    )
    assert word_error_rate("one two", "one two three four five six", "en") > 1.0
    assert word_error_rate("", "", "en") == 0.0
    assert word_error_rate("", "hello", "en") == 1.0
    assert word_error_rate("hello", "", "en") == 1.0


def test_case_and_punctuation_do_not_count():
    assert (
        word_error_rate("Hello, I'd like to PAY my bill.", "hello i d like to pay my bill", "en")
        == 0
    )
    assert word_error_rate("Can you help?", "can you help", "en") == 0.0


@pytest.mark.parametrize(
    "spoken",
    ["four seven two", "472", "four hundred seventy-two", "Four hundred and seventy two."],
)
def test_numbers_compare_as_digits_whichever_way_they_are_written(spoken):
    assert normalize(spoken, "en") == ["4", "7", "2"]
    assert word_error_rate(f"my code is {spoken}", "My code is 472.", "en") == 0.0


@pytest.mark.parametrize(
    ("words", "digits"),
    [
        ("twenty twenty six", "2026"),
        ("one thousand two hundred", "1200"),
        ("four thousand two hundred", "4200"),
        ("a hundred", "100"),
        ("nine eight seven six five", "98765"),
        ("call oh four five", "045"),
        ("four zero two", "402"),
        ("twelve hundred", "1200"),
    ],
)
def test_english_number_words(words, digits):
    assert "".join(t for t in normalize(words, "en") if t.isdigit()) == digits


def test_one_wrong_digit_is_one_error_not_a_whole_number():
    result = word_errors("my number is 98765 43210", "my number is 98765 43219", "en")
    assert (result.substitutions, result.deletions, result.insertions) == (1, 0, 0)
    assert result.reference_length == 13


def test_a_dropped_digit_is_a_deletion():
    result = word_errors("account four seven two nine", "Account 472.", "en")
    assert result == WerResult(0, 1, 0, 5)


def test_plain_words_are_not_read_as_numbers():
    assert normalize("oh no, I won't", "en") == ["oh", "no", "i", "won", "t"]


@pytest.mark.parametrize(
    ("language", "sentence", "digits"),
    [
        ("hi", "मेरा नंबर चार सात दो है", "मेरा नंबर ४७२ है"),
        ("mr", "माझा क्रमांक चार सात दोन आहे", "माझा क्रमांक 472 आहे"),
        ("bn", "আমার নম্বর চার সাত দুই", "আমার নম্বর ৪৭২"),
        ("ta", "என் எண் நான்கு ஏழு இரண்டு", "என் எண் 472"),
        ("gu", "મારો નંબર ચાર સાત બે છે", "મારો નંબર ૪૭૨ છે"),
    ],
)
def test_indic_digit_words_and_native_digits(language, sentence, digits):
    assert word_error_rate(sentence, digits, language) == 0.0
    wrong = " ".join("473" if any(c.isdecimal() for c in w) else w for w in digits.split())
    assert word_errors(sentence, wrong, language).substitutions == 1


def test_indic_words_keep_their_vowel_signs():
    # Python's \w would split "बिजली" at its vowel signs; one word must stay one token
    assert normalize("बिजली का बिल।", "hi") == ["बिजली", "का", "बिल"]
    assert word_error_rate("बिजली का बिल", "बिजली की बिल", "hi") == pytest.approx(1 / 3)


def test_character_rate_ignores_word_boundaries():
    # a recogniser writing a Tamil compound apart: every word wrong, no character wrong
    ref, hyp = "மின்சாரகட்டணம் செலுத்த", "மின்சார கட்டணம் செலுத்த"
    assert word_error_rate(ref, hyp, "ta") == 1.0
    assert character_error_rate(ref, hyp, "ta") == 0.0
    assert character_errors("abcd", "abxd", "en") == WerResult(1, 0, 0, 4)
