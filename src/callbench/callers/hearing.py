"""How a caller hears a cue in what the agent said: by its sound, not its spelling.

The scripted caller fires a plan step when one of the step's cues starts a word in the agent's
closing ask. Cues are compared in `heard_form` (call/audio/wer.py): folded, punctuation dropped and
every number as its digits, so "ten forty", "10:40" and "10.40" are the same words to the caller,
as they are to a person on the phone. This matters on both channels: a text candidate may write
the digits an author wrote as words, and through the audio channel the recogniser writes numbers
in its own style whatever the agent wrote. A cue found as written still counts (the old rule),
so nothing a caller heard before is lost; nothing else is loosened — a cue the agent did not say
is not heard.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..call.audio.wer import heard_form
from ..text import find_cue, is_word_char


def _starts_word(needle: str, hay: str) -> bool:
    """True when `needle` starts a word of `hay` (inflected endings allowed, as `find_cue`), and a
    number in it is the whole number heard: "39" is not heard in "390", nor "December 2" in
    "December 2026"."""
    whole = needle[-1:].isdigit()
    at = hay.find(needle)
    while at >= 0:
        after = at + len(needle)
        if (at == 0 or not is_word_char(hay[at - 1])) and not (
            whole and after < len(hay) and hay[after].isdigit()
        ):
            return True
        at = hay.find(needle, at + 1)
    return False


@dataclass(frozen=True)
class Heard:
    """A text as the caller compares cues with it, in both forms, made once per turn.
    `transcribed`: the text is what a recogniser wrote of the agent's audio."""

    text: str
    heard: str
    transcribed: bool = False

    @classmethod
    def of(cls, text: str, language: str, transcribed: bool = False) -> Heard:
        return cls(text, heard_form(text, language), transcribed)


MIN_SOUND_CODE = 3
"""A cue is heard by its sound only when its phonetic code has at least this many letters: "Shah"
(code X) would otherwise be heard in "she" and "show"."""


def _sounds(needle: str, heard: str) -> bool:
    """Through a recogniser, a cue is also heard when consecutive heard words, run together, start
    with it ("pass code" for "passcode": the recogniser chose where the word breaks) or, for words
    in Latin letters, sound the same (equal Metaphone codes: "Sainsburys" for "Sainsbury's")."""
    import jellyfish  # a core dependency; imported here because only audio runs need it

    cue_words = needle.split()
    joined = "".join(cue_words)
    latin = joined.isascii() and joined.isalpha()
    code = jellyfish.metaphone(joined) if latin else ""
    words = heard.split()
    for i in range(len(words)):
        for k in range(1, len(cue_words) + 2):
            if i + k > len(words):
                break
            window = "".join(words[i : i + k])
            if window.startswith(joined):
                return True
            if len(code) >= MIN_SOUND_CODE and window.isascii() and window.isalpha():
                if jellyfish.metaphone(window) == code:
                    return True
    return False


def cue_finder(cues: Iterable[str], language: str) -> Callable[[Heard], bool]:
    """A predicate over a `Heard` text: does one of `cues` start a word in it, as written
    (`find_cue`) or as heard (`heard_form`)? The written match is kept because the number reader
    of `heard_form` is small outside English: a number it reads only in part ("पाँच हज़ार एक सौ
    पचासी") is found as written. Through a recogniser a cue may also be heard by its sound
    (`_sounds`)."""
    cues = [c for c in cues if c.strip()]
    needles = [n for n in (heard_form(c, language) for c in cues) if n]

    def found(said: Heard) -> bool:
        if any(find_cue(c, said.text) for c in cues):
            return True
        if any(_starts_word(n, said.heard) for n in needles):
            return True
        return said.transcribed and any(_sounds(n, said.heard) for n in needles)

    return found


def hears(cue: str, text: str, language: str, transcribed: bool = False) -> bool:
    """Does `cue` start a word in `text`, as written or as heard?"""
    return cue_finder([cue], language)(Heard.of(text, language, transcribed))


__all__ = ["Heard", "cue_finder", "heard_form", "hears"]
