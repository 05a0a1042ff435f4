"""The text channel: what stands between the caller's intended words and what the candidate reads.

Authored ASR events (substitute, drop, double a span) and VAD splits fire on the
caller turn or plan step they are keyed to; the seeded first-turn mode changes
one eligible word of the first caller turn. A background condition (spec/casting.py)
then mishears eligible words of each fragment at its noise rate and may add a line of
background speech as a fragment of its own. Each event is recorded with what it
changed, or why it did not apply. The intended text is kept by the trace and
never passed on.

Order matters: authored events find their spans in the caller's own words, so they
apply before the background damages them.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from ..spec import Background, ChannelProgram
from ..spec.scenario import Double, Drop, Split, Substitute
from ..text import find_span, fold, graphemes, letter_count, words
from .trace import AudioTurnRecord, ChannelEventRecord

VOWELS = "aeiou"


class Channel(Protocol):
    """What the turn loop needs of a channel: the text channel here, the audio channel
    (call/audio/channel.py) beside it."""

    kind: str
    blocking: bool

    def render(
        self, text: str, turn: int, steps: tuple[str, ...]
    ) -> tuple[list[str], list[ChannelEventRecord]]: ...

    def unfired(self) -> list[ChannelEventRecord]: ...

    def take_audio(self) -> list[AudioTurnRecord]: ...

    def hear_agent(self, text: str) -> tuple[str, AudioTurnRecord | None]: ...


class TextChannel:
    kind = "text"
    blocking = False
    """renders in microseconds: the episode calls it inline"""

    def __init__(
        self,
        program: ChannelProgram,
        knows: dict[str, Any],
        rng: random.Random,
        background: Background | None = None,
        background_rng: random.Random | None = None,
        language: str = "",
    ):
        self.program = program
        self.rng = rng
        if background is not None and background_rng is None:
            raise ValueError(
                "a background needs its own background_rng (drawing it from rng would shift the "
                "channel's own draws)"
            )
        self.background = background
        self.background_rng = background_rng
        self.intrusions = background.lines_for(language) if background is not None else []
        self.protected = {fold(w) for v in knows.values() for _, _, w in words(str(v))}
        self.fired: set[int] = set()

    def render(
        self, text: str, turn: int, steps: tuple[str, ...]
    ) -> tuple[list[str], list[ChannelEventRecord]]:
        records: list[ChannelEventRecord] = []
        if turn == 1 and self.program.seeded_first_turn:
            text, record = self._seeded(text)
            records.append(record)
        splits: list[tuple[Split, str]] = []
        for i, event in enumerate(self.program.events):
            anchor = f"turn {event.turn}" if event.turn is not None else f"step {event.step}"
            if i in self.fired or not (
                event.turn == turn or (event.step is not None and event.step in steps)
            ):
                continue
            self.fired.add(i)
            if isinstance(event, Split):
                splits.append((event, anchor))
                continue
            text, record = _edit(event, text, anchor)
            records.append(record)
        fragments = [text]
        for event, anchor in splits:
            fragments, record = _split(event, fragments, anchor)
            records.append(record)
        if self.background is not None:
            fragments = self._background(fragments, turn, records)
        return fragments, records

    def _mishearable(self, word: str) -> bool:
        """A word the channel may mishear: 4+ letters, no digits, not one of the caller's facts
        (which would
        make the task unsolvable rather than harder)."""
        return (
            letter_count(word) >= 4
            and not any(ch.isdigit() for ch in word)
            and fold(word) not in self.protected
        )

    def _background(
        self, fragments: list[str], turn: int, records: list[ChannelEventRecord]
    ) -> list[str]:
        bg, rng, anchor = self.background, self.background_rng, f"turn {turn}"
        assert bg is not None and rng is not None
        changes: list[str] = []
        if bg.noise > 0:
            out = []
            for fragment in fragments:
                pieces, last = [], 0
                for start, end, word in words(fragment):
                    if self._mishearable(word) and rng.random() < bg.noise:
                        heard = _mangle(word, rng)
                        pieces += [fragment[last:start], heard]
                        last = end
                        changes.append(f"'{word}' heard as '{heard}'")
                out.append("".join(pieces) + fragment[last:])
            fragments = out
        if changes:
            records.append(
                ChannelEventRecord(
                    kind="noise",
                    origin="background",
                    anchor=anchor,
                    applied=True,
                    detail="; ".join(changes),
                )
            )
        if self.intrusions and bg.intrusion_rate > 0 and rng.random() < bg.intrusion_rate:
            line = self.intrusions[rng.randrange(len(self.intrusions))]
            at = rng.randrange(len(fragments) + 1)
            fragments = fragments[:at] + [line] + fragments[at:]
            records.append(
                ChannelEventRecord(
                    kind="intrusion",
                    origin="background",
                    anchor=anchor,
                    applied=True,
                    after=line,
                    detail=f"background speech heard as fragment {at + 1} of {len(fragments)}",
                )
            )
        return fragments

    def take_audio(self) -> list[AudioTurnRecord]:
        return []

    def hear_agent(self, text: str) -> tuple[str, AudioTurnRecord | None]:
        """The caller reads the agent's words as written: text has no way back to damage."""
        return text, None

    def unfired(self) -> list[ChannelEventRecord]:
        """Events whose turn or step never came: recorded as not applied, never silently dropped."""
        out = []
        for i, event in enumerate(self.program.events):
            if i not in self.fired:
                anchor = f"turn {event.turn}" if event.turn is not None else f"step {event.step}"
                out.append(
                    ChannelEventRecord(
                        kind=event.kind,
                        origin="authored",
                        anchor=anchor,
                        applied=False,
                        detail="the call never reached this " + anchor.split(" ")[0],
                    )
                )
        return out

    def _seeded(self, text: str) -> tuple[str, ChannelEventRecord]:
        eligible = [(s, e, w) for s, e, w in words(text) if self._mishearable(w)]
        if not eligible:
            return text, ChannelEventRecord(
                kind="substitute",
                origin="seeded",
                anchor="turn 1",
                applied=False,
                detail="no eligible word (4+ letters, not a caller fact)",
            )
        start, end, word = eligible[self.rng.randrange(len(eligible))]
        changed = _mangle(word, self.rng)
        return text[:start] + changed + text[end:], ChannelEventRecord(
            kind="substitute",
            origin="seeded",
            anchor="turn 1",
            applied=True,
            before=word,
            after=changed,
            detail=f"changed '{word}' to '{changed}'",
        )


def _mangle(word: str, rng: random.Random) -> str:
    """A mis-hearing: a different vowel in a Latin word; elsewhere one inner written character
    (a whole grapheme: letter with its vowel signs, or a conjunct) is lost, so the script stays
    well formed."""
    vowels = [i for i, ch in enumerate(word) if ch.lower() in VOWELS and 0 < i]
    if vowels and word.isascii():
        i = vowels[rng.randrange(len(vowels))]
        options = [v for v in VOWELS if v != word[i].lower()]
        new = options[rng.randrange(len(options))]
        return word[:i] + (new.upper() if word[i].isupper() else new) + word[i + 1 :]
    clusters = graphemes(word)
    if len(clusters) < 2:
        return word[::-1] if len(word) > 1 else word + word
    i = 1 + rng.randrange(len(clusters) - 1)
    return "".join(clusters[:i] + clusters[i + 1 :])


def _edit(
    event: Substitute | Drop | Double, text: str, anchor: str
) -> tuple[str, ChannelEventRecord]:
    at = find_span(event.span, text)
    if at is None:
        return text, ChannelEventRecord(
            kind=event.kind,
            origin="authored",
            anchor=anchor,
            applied=False,
            detail=f"span {event.span!r} not found in the turn",
        )
    start, end = at
    found = text[start:end]
    if isinstance(event, Substitute):
        new, detail = event.with_, f"'{found}' heard as '{event.with_}'"
    elif isinstance(event, Drop):
        new, detail = "", f"'{found}' lost"
    else:
        new, detail = f"{found} {found}", f"'{found}' doubled"
    edited = (
        " ".join((text[:start] + new + text[end:]).split())
        if isinstance(event, Drop)
        else text[:start] + new + text[end:]
    )
    return edited, ChannelEventRecord(
        kind=event.kind,
        origin="authored",
        anchor=anchor,
        applied=True,
        before=found,
        after=new,
        detail=detail,
    )


def _split(event: Split, fragments: list[str], anchor: str) -> tuple[list[str], ChannelEventRecord]:
    if len(fragments) != 1:
        return fragments, ChannelEventRecord(
            kind="split",
            origin="authored",
            anchor=anchor,
            applied=False,
            detail="the turn was already split",
        )
    text, cuts, offset = fragments[0], [], 0
    for span in event.after:
        at = find_span(span, text[offset:])
        if at is None:
            return fragments, ChannelEventRecord(
                kind="split",
                origin="authored",
                anchor=anchor,
                applied=False,
                detail=f"span {span!r} not found after position {offset}",
            )
        offset += at[1]
        cuts.append(offset)
    pieces = [text[a:b].strip() for a, b in zip([0] + cuts, cuts + [len(text)])]
    pieces = [p for p in pieces if p]
    if len(pieces) < 2:
        return fragments, ChannelEventRecord(
            kind="split",
            origin="authored",
            anchor=anchor,
            applied=False,
            detail="the split would leave a single fragment",
        )
    return pieces, ChannelEventRecord(
        kind="split",
        origin="authored",
        anchor=anchor,
        applied=True,
        detail=f"split into {len(pieces)} fragments",
        after=" | ".join(pieces),
    )
