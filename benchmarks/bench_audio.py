"""What the audio channel costs per caller turn, and how much each background condition damages the
caller's words (issue 17).

`python benchmarks/bench_audio.py` (or `python benchmarks/run.py audio`) writes
benchmarks/results/audio.json. Material: every scripted caller line of the English starter calls
(the plan steps' `say` lines, facts filled in), the way the caller says them in a run.

1. Real-time factor per caller turn: the seconds one turn takes through the whole channel —
   synthesis, the background mixed in, the telephone line (8 kHz, G.711 mu-law), recognition —
   divided by the seconds of speech it carries, with Whisper tiny.en on the threads this machine
   gives it (the channel recognises one turn at a time per process). Each stage is reported apart,
   espeak-ng and Piper side by side in one run (turns interleaved, so the machine's load falls on
   both alike). Median and 90th percentile over the turns.
2. Word error rate by background condition: each line through each condition (clean, street,
   cafe, television) with espeak-ng and with Piper, recognised by tiny.en; WER weighted by the
   words meant, numbers compared as digits (call/audio/wer.py). Seeds are fixed, so a rerun makes
   the same sound; the recogniser is greedy, so the same sound gives the same words. Beside it,
   the clean speech recognised without the telephone line (full bandwidth): what the 4 kHz band
   and mu-law cost each voice on their own.

No timed assertion anywhere: figures are reported, never checked against a bound.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from _results import RESULTS, save

CONDITIONS = ("clean", "street", "cafe", "television")


def caller_lines() -> list[str]:
    """The scripted caller's lines of the English starter calls, facts filled in."""
    from callbench.spec.templates import make_scope, resolve
    from callbench.suite_check import load_suite

    suite = load_suite("starter")
    lines = []
    for sc in suite.scenarios.values():
        if sc.language != "en":
            continue
        scope = make_scope(sc.caller.knows, {})
        for step in sc.caller.plan:
            if step.say:
                lines.append(str(resolve(step.say, scope)))
    return lines


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=RESULTS / "audio.json")
    parser.add_argument("--limit", type=int, default=0, help="only the first N lines")
    args = parser.parse_args(argv)

    import numpy as np

    from callbench.call.audio.backgrounds import mix
    from callbench.call.audio.line import TelephoneLine
    from callbench.call.audio.recognize import make_recognizer
    from callbench.call.audio.synth import make_synthesizer, voice_for
    from callbench.call.audio.wer import word_error_rate

    lines = caller_lines()
    if args.limit:
        lines = lines[: args.limit]
    synths = {
        "espeak-ng": make_synthesizer("espeak-ng"),
        "piper:joe": make_synthesizer("piper:joe"),
    }
    ears = make_recognizer("whisper:tiny.en")
    voice = voice_for("calm", 0)
    # warm both synthesizers and the model (loading is a one-off, reported apart)
    t0 = time.perf_counter()
    for synth in synths.values():
        ears.transcribe(synth.synthesize("Hello, warming up.", "en", voice), "en")
    warm_s = time.perf_counter() - t0

    rows: list[dict[str, Any]] = []
    wide: list[dict[str, Any]] = []
    for i, line in enumerate(lines):
        for name in synths if i % 2 == 0 else reversed(list(synths)):
            synth = synths[name]
            for condition in CONDITIONS:
                rng = np.random.default_rng(1000 + i)
                a = time.perf_counter()
                speech = synth.synthesize(line, "en", voice)
                b = time.perf_counter()
                mixed = speech if condition == "clean" else mix(speech, condition, rng, "en")
                heard = TelephoneLine().transmit(mixed, rng)
                c = time.perf_counter()
                text = ears.transcribe(heard, "en")
                d = time.perf_counter()
                rows.append(
                    {
                        "synth": name,
                        "condition": condition,
                        "words": len(line.split()),
                        "speech_s": speech.seconds,
                        "synth_s": b - a,
                        "line_s": c - b,
                        "recognise_s": d - c,
                        "wer": word_error_rate(line, text, "en"),
                    }
                )
            # the same clean speech without the line (full bandwidth): what the line itself costs
            wide_text = ears.transcribe(synth.synthesize(line, "en", voice), "en")
            wide.append(
                {"synth": name, "words": len(line.split()),
                 "wer": word_error_rate(line, wide_text, "en")}
            )  # fmt: skip

    def rtf(group: list[dict[str, Any]], key: str | None = None) -> dict[str, float]:
        values = [
            (r[key] if key else r["synth_s"] + r["line_s"] + r["recognise_s"]) / r["speech_s"]
            for r in group
        ]
        values.sort()
        return {
            "median": round(statistics.median(values), 3),
            "p90": round(values[int(0.9 * (len(values) - 1))], 3),
        }

    def wer(group: list[dict[str, Any]]) -> float:
        words = sum(r["words"] for r in group)
        return round(sum(r["wer"] * r["words"] for r in group) / words, 4)

    result: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "lines": len(lines),
        "words": sum(len(x.split()) for x in lines),
        "recognizer": "whisper:tiny.en (faster-whisper, int8, greedy)",
        "warm_up_s": round(warm_s, 2),
        "real_time_factor": {},
        "wer_by_condition": {},
        "wer_clean_without_line": {},
    }
    for name in synths:
        mine = [r for r in rows if r["synth"] == name]
        result["real_time_factor"][name] = {
            "whole_turn": rtf(mine),
            "synthesis": rtf(mine, "synth_s"),
            "background_and_line": rtf(mine, "line_s"),
            "recognition": rtf(mine, "recognise_s"),
        }
        result["wer_by_condition"][name] = {
            c: wer([r for r in mine if r["condition"] == c]) for c in CONDITIONS
        }
        result["wer_clean_without_line"][name] = wer([r for r in wide if r["synth"] == name])
    return save(result, args.out)


if __name__ == "__main__":
    main()
