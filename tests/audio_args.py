"""The command line of one call through the audio channel, which several tests run
(test_audio_channel, test_html_audio, test_voice_candidates): written once, so a flag the audio
run gains or renames is changed in one place."""

from __future__ import annotations

from pathlib import Path


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
