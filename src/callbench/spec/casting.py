"""Casting: caller personas and background conditions a suite assigns to its calls.

A benchmark that varies who calls (calm, angry) and what else the microphone hears (street, café,
television) must give every candidate the same assignment for the same scenario and repeat, or the
comparison mixes candidates with conditions. A suite names its personas and backgrounds here; the
run
assigns them from the suite's own casting seed (play/casting.py), never from the run seed, so two
runs
and every candidate in them agree.

A background is rendered by the text channel as what speech recognition makes of a noisy room:
`noise` mishears words of the caller's turn (never the facts the caller knows, so the task stays
solvable), and `intrusions` are lines of background speech (a television, other people) that reach
the transcript beside the caller's words, as a recogniser picks them up.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from .base import Identifier, SpecModel
from .scenario import Persona

SOUNDS = ("clean", "street", "cafe", "café", "television", "tv")


class Background(SpecModel):
    noise: float = Field(
        default=0.0,
        ge=0.0,
        le=0.5,
        description="chance that each eligible word of a caller turn is misheard",
    )
    intrusion_rate: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="chance that a caller turn also carries one line of background speech",
    )
    intrusions: dict[str, list[str]] = Field(
        default_factory=dict,
        description="background speech by language code ('*' for any language)",
    )
    sound: Literal["clean", "street", "cafe", "television"] | None = Field(
        default=None,
        description="what the audio channel mixes in for this condition (default: the "
        "condition's own name when it is one of these, 'tv' for television, else clean)",
    )

    def sound_for(self, name: str) -> str:
        if self.sound is not None:
            return self.sound
        return {"tv": "television", "café": "cafe"}.get(name, name) if name in SOUNDS else "clean"

    @model_validator(mode="after")
    def _lines_for_a_rate(self) -> Background:
        if self.intrusion_rate > 0 and not any(lines for lines in self.intrusions.values()):
            raise ValueError("an intrusion_rate above 0 needs intrusion lines")
        if any(not line.strip() for lines in self.intrusions.values() for line in lines):
            raise ValueError("intrusion lines must not be empty")
        return self

    def lines_for(self, language: str) -> list[str]:
        primary = language.split("-")[0].lower()
        return (
            self.intrusions.get(language)
            or self.intrusions.get(primary)
            or self.intrusions.get("*")
            or []
        )


class Casting(SpecModel):
    """`personas` replace every scenario's own persona (each scenario keeps one persona across its
    repeats,
    balanced over the suite); `backgrounds` rotate over a scenario's repeats in a shuffled order."""

    seed: int = Field(
        default=0, description="the casting seed: change it to draw another assignment"
    )
    personas: dict[Identifier, Persona] = Field(default_factory=dict)
    backgrounds: dict[Identifier, Background] = Field(default_factory=dict)
