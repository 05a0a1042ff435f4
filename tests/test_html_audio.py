"""The HTML report of a run through the audio channel: every turn's sound is in the page (data
URIs, no run folder needed) and plays in a real headless Chromium; a missing or altered audio file
is listed as a problem, never played."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from callbench.cli import app
from callbench.reports.html import load_calls
from callbench.reports.model import load_report
from tests.audio_args import audio_run_args, needs_voices
from tests.test_html_report import CHROMIUM, CHROMIUM_ARGS

ARGS = [*CHROMIUM_ARGS, "--autoplay-policy=no-user-gesture-required"]
SCENARIO = "card-stolen-bag-snatched"

pytestmark = needs_voices


@pytest.fixture(scope="module")
def audio_run(tmp_path_factory):
    pytest.importorskip("faster_whisper", reason="faster-whisper is in the 'voice' extra")
    out = tmp_path_factory.mktemp("audio") / "run"
    page = out.parent / "report.html"
    res = CliRunner().invoke(app, audio_run_args("oracle", SCENARIO, out, "--html", str(page)))
    assert res.exit_code == 0, res.output
    return out, page


def test_every_turn_of_the_call_is_in_the_page(audio_run):
    out, _ = audio_run
    calls, problems = load_calls(out, load_report(out / "report.json"))
    assert problems == []
    (call,) = calls
    records = [r for t in call["trace"]["caller_turns"] for r in t["audio"]]
    records += call["trace"]["agent_audio"]
    assert records and {r["audio_path"] for r in records} == set(call["audio"])
    assert all(uri.startswith("data:audio/flac;base64,") for uri in call["audio"].values())


def test_an_altered_audio_file_is_a_problem_not_a_sound(audio_run, tmp_path):
    out, _ = audio_run
    copy = tmp_path / "run"
    shutil.copytree(out, copy)
    trace = json.loads(next((copy / "traces").rglob("r0.json")).read_text(encoding="utf-8"))
    victim = copy / trace["caller_turns"][0]["audio"][0]["audio_path"]
    victim.write_bytes(victim.read_bytes()[:-10] + b"0123456789")
    calls, problems = load_calls(copy, load_report(copy / "report.json"))
    assert any("does not match its hash" in p for p in problems)
    assert trace["caller_turns"][0]["audio"][0]["audio_path"] not in calls[0]["audio"]


def test_the_page_plays_each_turn_in_a_real_browser(audio_run):
    _, page_path = audio_run
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (bash scripts/install --test installs Debian chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in 'test'")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(Path(page_path).resolve().as_uri())
        page.wait_for_selector('#call-list[data-state="ready"]', state="attached")
        page.click(f'button.call-link[data-call="oracle/{SCENARIO}/r0"]')
        page.wait_for_selector("#call-view .entry")
        players = page.locator("#call-view audio[data-audio]")
        assert players.count() >= 4
        heard = page.locator("#call-view .audio").first.inner_text()
        assert "heard:" in heard
        state = players.first.evaluate(
            """a => a.play()
                .then(() => new Promise(r => setTimeout(r, 400)))
                .then(() => ({
                    time: a.currentTime, duration: a.duration, error: a.error && a.error.code
                }))"""
        )
        browser.close()
    assert state["error"] is None
    assert state["duration"] > 0.3 and state["time"] > 0.05
    assert errors == []
