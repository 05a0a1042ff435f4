"""Where the speaker's sentences end, carried from what was said onto what was heard.

A recogniser writes words and guesses punctuation, and Whisper guesses often wrong: it ends a
question half-way ("... in the morning? Both with Dr. Okafor ...") or drops its question mark. A
listener does not read punctuation; they hear the pause at the end of a sentence and the rise of a
question, and both are in the sound — espeak-ng and Piper make them from the speaker's own
punctuation. So the caller hears the recognised words with the speaker's sentence ends:
`punctuate_like(said, heard)` aligns the two word sequences (as heard, numbers as digits), strips
the recogniser's own sentence marks and puts each of the speaker's after the heard word aligned
with the last word of that sentence. The words are the recogniser's, every one: a sentence whose
words were lost keeps its end only where a heard word stands for it.
"""

from __future__ import annotations

from ...speech import sentences
from .wer import heard_form

ENDS = ".?!।॥？！"
"""Sentence-ending marks (Latin, Devanagari danda, full-width)."""


SNAP_WORDS = 2
"""How far (in heard words) a sentence end may move to where the recogniser put one."""


def _strip_end(token: str) -> str:
    """A word without the sentence marks a recogniser put after it ("afternoon?" -> "afternoon";
    "3.30" keeps its point, which is inside the number)."""
    core = token.rstrip("\"'”’)»")
    tail = token[len(core) :]
    while core and core[-1] in ENDS:
        core = core[:-1]
    return core + tail if core else core


def _align(said: list[str], heard: list[str]) -> list[int]:
    """For each prefix of `said` (0..n words), how many `heard` words an edit-distance alignment
    has consumed when that prefix is consumed."""
    n, m = len(said), len(heard)
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        cost[i][0] = i
    for j in range(m + 1):
        cost[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            same = 0 if said[i - 1] == heard[j - 1] else 1
            cost[i][j] = min(cost[i - 1][j - 1] + same, cost[i - 1][j] + 1, cost[i][j - 1] + 1)
    consumed = [0] * (n + 1)
    i, j = n, m
    consumed[n] = m
    while i > 0:
        same = 0 if j > 0 and said[i - 1] == heard[j - 1] else 1
        if j > 0 and cost[i][j] == cost[i - 1][j - 1] + same:
            i, j = i - 1, j - 1
        elif cost[i][j] == cost[i - 1][j] + 1:
            i -= 1
        else:
            j -= 1
            continue
        consumed[i] = j
    return consumed


def punctuate_like(said: str, heard: str, language: str) -> str:
    """`heard`'s words with `said`'s sentence ends (see the module docstring)."""
    heard_tokens = heard.split()
    if not heard_tokens or not said.strip():
        return heard
    said_tokens: list[str] = []
    ends: dict[int, str] = {}  # said-token count at a sentence end -> its mark
    for sentence in sentences(said):
        said_tokens += sentence.split()
        plain = sentence.rstrip("\"'”’)»").rstrip()
        ends[len(said_tokens)] = plain[-1] if plain and plain[-1] in ENDS else "."
    consumed = _align(
        [heard_form(t, language) for t in said_tokens],
        [heard_form(t, language) for t in heard_tokens],
    )
    words = [_strip_end(t) for t in heard_tokens]
    if not any(words):
        return heard
    # where the recogniser itself ended a sentence: an alignment through misheard words is
    # ambiguous by a word or two, and a nearby end the recogniser heard is the better place
    own_ends = [k for k, t in enumerate(heard_tokens) if _strip_end(t) != t]
    marks: dict[int, str] = {}
    for count, mark in ends.items():
        at = consumed[count] - 1
        near = [k for k in own_ends if abs(k - at) <= SNAP_WORDS]
        if near:
            at = min(near, key=lambda k: (abs(k - at), k))
        if at >= 0:
            marks[at] = mark  # two ends on one heard word: the later sentence's
    marks[len(words) - 1] = ends[len(said_tokens)]  # the turn ends as the speaker ended it
    out = [w.rstrip(",;:") + marks[k] if k in marks else w for k, w in enumerate(words)]
    return " ".join(w for w in out if w)


__all__ = ["ENDS", "punctuate_like"]
