"""An authored suite's manifest records each call's sources by hash, its audit status and its
review, and a review ledger that names what the suite lacks is refused with the file and field."""

import hashlib
import json
import shutil

import pytest
from typer.testing import CliRunner

from callbench.cli import app
from callbench.errors import CallbenchError
from callbench.generate.authored import write_authored_manifest
from callbench.spec.generation_record import read_generation_record
from callbench.suites import BUILTIN_ROOT


@pytest.fixture
def suite(tmp_path):
    root = tmp_path / "starter"
    shutil.copytree(BUILTIN_ROOT / "starter", root)
    return root


def _ledger(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_manifest_vouches_for_the_suite_and_names_each_review(suite, tmp_path):
    brief = _ledger(tmp_path / "BRIEF.md", "write one agent\n")
    first = sorted(p.stem for p in (suite / "scenarios").rglob("*.yaml"))[0]
    ledger = _ledger(
        tmp_path / "reviews.yaml",
        f"{first}: {{reviewer: gu-review, reviewed_on: 2026-12-01, notes: fixed a date}}\n",
    )
    path = write_authored_manifest(
        suite,
        generator="authoring sessions",
        model=None,
        origin="hand_written",
        briefs=[brief],
        reviews=ledger,
    )
    record = read_generation_record(suite)
    assert record is not None and record.matches_suite
    assert record.reviewed == 1 and record.scenarios == 16
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["prompts"] == {"BRIEF.md": hashlib.sha256(b"write one agent\n").hexdigest()}
    entry = next(e for e in data["scenarios"] if e["id"] == first)
    assert entry["reviewer"] == "gu-review" and entry["notes"] == "fixed a date"
    for rel, digest in entry["sources"].items():
        assert hashlib.sha256((suite / rel).read_bytes()).hexdigest() == digest
    assert {e["audit"] for e in data["scenarios"]} <= {"passed", "warnings"}
    # editing a call afterwards is seen: the manifest no longer matches
    scenario = suite / entry["file"]
    scenario.write_text(scenario.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert not read_generation_record(suite).matches_suite


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("nosuchcall: {reviewer: a, reviewed_on: 2026-12-01}\n", "nosuchcall: no such scenario"),
        ("FIRST: {reviewed_on: 2026-12-01}\n", "FIRST.reviewer: required"),
        ("FIRST: {reviewer: a, reviewed_on: soon}\n", "FIRST.reviewed_on: not a date"),
        ("FIRST: {reviewer: a, reviewed_on: 2026-12-01, grade: 5}\n", "FIRST.grade: unknown"),
    ],
)
def test_a_bad_ledger_names_the_file_and_field(suite, tmp_path, text, field):
    first = sorted(p.stem for p in (suite / "scenarios").rglob("*.yaml"))[0]
    ledger = _ledger(tmp_path / "reviews.yaml", text.replace("FIRST", first))
    with pytest.raises(CallbenchError) as err:
        write_authored_manifest(
            suite, generator="g", model=None, origin="hand_written", briefs=[], reviews=ledger
        )
    assert "reviews.yaml" in str(err.value) and field.replace("FIRST", first) in str(err.value)
    assert not (suite / "manifest.json").exists()


def test_cli_requires_every_review_when_asked(suite, tmp_path):
    ledger = _ledger(tmp_path / "reviews.yaml", "{}\n")
    runner = CliRunner()
    args = ["generate", "manifest", str(suite), "--generator", "g", "--reviews", str(ledger)]
    res = runner.invoke(app, [*args, "--require-reviews"])
    assert res.exit_code == 2 and "16 scenario(s) without a review" in res.output
    res = runner.invoke(app, args)
    assert res.exit_code == 0 and (suite / "manifest.json").is_file()
    res = runner.invoke(app, [*args, "--origin", "dreamed"])
    assert res.exit_code == 2 and "--origin" in res.output
