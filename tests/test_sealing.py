"""Sealed splits and the generation manifest in runs: a sealed split of the starter suite publishes
without its sealed scenarios, verifies against an untampered suite (the report becomes official),
fails on one changed byte, and reveals nothing without the salts; a suite's manifest.json is
recorded in run.json and shown in report.json, the terminal summary and the HTML report."""

import datetime as dt
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from callbench.cli import app
from callbench.reports.html import render_html
from callbench.reports.leaderboard import build_leaderboard
from callbench.reports.model import load_report
from callbench.reports.table import summary_table
from callbench.runs import RunConfig, run_suite
from callbench.runs.manifest import RunManifest
from callbench.runs.rebuild import rebuild_report
from callbench.sealing import SealError, commitment, seal_suite
from callbench.spec.folder import SEAL_SALTS
from callbench.spec.generation import GenerationManifest, ManifestScenario
from callbench.spec.generation_record import MISMATCH, ManifestError
from callbench.spec.loading import suite_hash, suite_hash_without_manifest
from callbench.suite_check import check_suite, load_suite
from callbench.suites import BUILTIN_ROOT

SEALED = ("bijli-known-area-fault", "clinic-late-cancel-fee")
PUBLIC_PICK = ("card-fraud-two-payments",)


@pytest.fixture
def suite_dir(tmp_path):
    """The starter suite with two scenarios tagged split:test."""
    root = tmp_path / "full"
    shutil.copytree(BUILTIN_ROOT / "starter", root)
    for sid in SEALED:
        path = next(root.glob(f"scenarios/*/{sid}.yaml"))
        text = path.read_text(encoding="utf-8")
        assert "\ntags: [" in text
        path.write_text(text.replace("\ntags: [", "\ntags: [split:test, ", 1), encoding="utf-8")
    return root


def _run(suite_root: Path, out: Path, scenarios=SEALED + PUBLIC_PICK, candidates=("oracle",)):
    config = RunConfig(candidates=candidates, repeats=1, seed=1, scenarios=scenarios)
    return run_suite(load_suite(suite_root), config, out)


def _verify(run_dir: Path, public: Path, suite: Path, salts: Path):
    return CliRunner().invoke(
        app,
        [
            "verify-seal",
            str(run_dir),
            "--sealed",
            str(public / "sealed.json"),
            "--suite",
            str(suite),
            "--salts",
            str(salts),
        ],
    )


def test_sealed_split_publishes_without_its_scenarios_and_verifies(suite_dir, tmp_path):
    public, salts = tmp_path / "public", tmp_path / "salts.json"
    res = CliRunner().invoke(
        app, ["seal", str(suite_dir), "--out", str(public), "--salt-file", str(salts)]
    )
    assert res.exit_code == 0, res.output
    sealed = json.loads((public / "sealed.json").read_text())
    assert [s["id"] for s in sealed["scenarios"]] == list(SEALED)
    assert sealed["selection"] == {"by": "tag", "tag": "split:test", "fraction": None, "seed": None}
    # the public folder is a valid suite of the other 14 scenarios
    check = check_suite(public)
    assert check.errors == [] and check.suite is not None
    assert len(check.suite.scenarios) == 14 and not set(SEALED) & set(check.suite.scenarios)
    # each commitment is sha256(salt || file bytes) with the salt from the private file
    opened = json.loads(salts.read_text())
    for entry in sealed["scenarios"]:
        data = (suite_dir / entry["file"]).read_bytes()
        assert entry["commitment"] == commitment(bytes.fromhex(opened["salts"][entry["id"]]), data)
        assert entry["commitment"] != hashlib.sha256(data).hexdigest()

    run = tmp_path / "run"
    _run(suite_dir, run)
    assert not load_report(run / "report.json").official  # never verified: not official
    res = _verify(run, public, suite_dir, salts)
    assert res.exit_code == 0, res.output
    report = load_report(run / "report.json")
    assert report.official and report.seal is not None
    assert report.seal.verified == list(SEALED) and report.seal.reasons == []
    # rebuilding the report from the store keeps the verdict (the suite cannot have changed)
    _, rebuilt = rebuild_report(run)
    assert rebuilt["seal"]["official"] is True
    assert "official: sealed split 'test' verified" in _caption(run)
    board = build_leaderboard([run], tmp_path / "board")
    assert [r["official"] for r in board["ranked"]] == [True]
    assert "| yes |" in (tmp_path / "board" / "leaderboard.md").read_text()
    assert (tmp_path / "board" / "leaderboard.csv").read_text().splitlines()[1].endswith(",yes")


def test_one_changed_byte_fails_verification(suite_dir, tmp_path):
    public, salts = tmp_path / "public", tmp_path / "salts.json"
    seal_suite(suite_dir, "test", public, salts)
    path = next(suite_dir.glob(f"scenarios/*/{SEALED[1]}.yaml"))
    data = bytearray(path.read_bytes())
    assert data[-1:] == b"\n"
    data[-1:] = b" "  # one byte: the file still loads, but is not the file committed to
    path.write_bytes(bytes(data))
    run = tmp_path / "run"
    _run(suite_dir, run)  # run on the tampered suite: the suite hash matches, the commitment not
    res = _verify(run, public, suite_dir, salts)
    assert res.exit_code == 1 and "do not match their commitment" in res.output
    seal = load_report(run / "report.json").seal
    assert seal is not None and not seal.official
    assert seal.failed == [SEALED[1]] and seal.verified == [SEALED[0]] and seal.suite_matches

    board = build_leaderboard([run], tmp_path / "board")
    assert {r["official"] for r in board["ranked"]} == {False}
    assert "| yes |" not in (tmp_path / "board" / "leaderboard.md").read_text()


def test_a_run_that_leaves_out_sealed_scenarios_or_a_changed_suite_is_not_official(
    suite_dir, tmp_path
):
    public, salts = tmp_path / "public", tmp_path / "salts.json"
    seal_suite(suite_dir, "test", public, salts)
    partial = tmp_path / "partial"
    _run(suite_dir, partial, scenarios=(SEALED[0],) + PUBLIC_PICK)
    assert _verify(partial, public, suite_dir, salts).exit_code == 1
    seal = load_report(partial / "report.json").seal
    assert seal is not None and seal.not_run == [SEALED[1]] and not seal.official

    full = tmp_path / "full-run"
    _run(suite_dir, full)
    public_only = next(suite_dir.glob(f"scenarios/*/{PUBLIC_PICK[0]}.yaml"))
    public_only.write_text(public_only.read_text() + "# edited after the run\n")
    assert _verify(full, public, suite_dir, salts).exit_code == 1
    seal = load_report(full / "report.json").seal
    assert seal is not None and not seal.suite_matches and seal.failed == []


def test_salts_stay_private_and_make_each_seal_different(suite_dir, tmp_path):
    one = seal_suite(suite_dir, "test", tmp_path / "one", tmp_path / "one.json")
    two = seal_suite(suite_dir, "test", tmp_path / "two", tmp_path / "two.json")
    first = json.loads((tmp_path / "one" / "sealed.json").read_text())["scenarios"]
    second = json.loads((tmp_path / "two" / "sealed.json").read_text())["scenarios"]
    assert [s["id"] for s in first] == [s["id"] for s in second] == list(SEALED)
    assert all(a["commitment"] != b["commitment"] for a, b in zip(first, second))
    for result in (one, two):
        salts = json.loads(result.salts_file.read_text())["salts"]
        published = b"".join(p.read_bytes() for p in result.public.rglob("*") if p.is_file())
        for salt in salts.values():
            assert salt.encode() not in published and bytes.fromhex(salt) not in published
        assert not list(result.public.rglob("*salt*"))
        assert result.salts_file.stat().st_mode & 0o077 == 0
    # the default salts file sits in the suite folder, outside its hash and its public copy
    before = suite_hash(suite_dir)
    default = seal_suite(suite_dir, "test", tmp_path / "three")
    assert default.salts_file == suite_dir / SEAL_SALTS and suite_hash(suite_dir) == before
    with pytest.raises(SealError, match="exists"):  # never overwrite salts an earlier seal needs
        seal_suite(suite_dir, "test", tmp_path / "four")


def test_untagged_suite_seals_a_stable_fraction(tmp_path):
    root = tmp_path / "starter"
    shutil.copytree(BUILTIN_ROOT / "starter", root)
    a = seal_suite(root, "test", tmp_path / "a", tmp_path / "a.json", fraction=0.25, seed=3)
    b = seal_suite(root, "test", tmp_path / "b", tmp_path / "b.json", fraction=0.25, seed=3)
    c = seal_suite(root, "test", tmp_path / "c", tmp_path / "c.json", fraction=0.25, seed=4)
    assert a.sealed == b.sealed and len(a.sealed) == 4 and a.sealed != c.sealed
    assert a.public_scenarios == 12
    with pytest.raises(SealError, match="no scenario carries a split:"):
        seal_suite(root, "test", tmp_path / "d", tmp_path / "d.json")


def test_fraction_is_refused_for_a_tagged_suite(suite_dir, tmp_path):
    with pytest.raises(SealError, match="tags its splits"):
        seal_suite(suite_dir, "test", tmp_path / "p", tmp_path / "s.json", fraction=0.3)
    with pytest.raises(SealError, match="no scenario is tagged split:dev"):
        seal_suite(suite_dir, "dev", tmp_path / "p", tmp_path / "s.json")


def _write_manifest(root: Path, suite_sha: str | None = None) -> GenerationManifest:
    suite = load_suite(root)
    manifest = GenerationManifest(
        generator="callbench generate scenarios",
        generator_version="0.0-test",
        model="scripted:fake",
        created=dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC),
        suite_sha256=suite_sha or suite_hash_without_manifest(root),
        scenarios=[
            ManifestScenario(
                id=sid,
                file=rel,
                sha256=hashlib.sha256((root / rel).read_bytes()).hexdigest(),
                audit="passed",
                reviewer="reviewer@example.org" if i == 0 else None,
            )
            for i, (sid, rel) in enumerate(sorted(suite.scenario_files.items()))
        ],
        audit={"errors": 0, "warnings": 2},
    )
    (root / "manifest.json").write_text(json.dumps(manifest.model_dump(mode="json"), indent=1))
    return manifest


def _caption(run: Path) -> str:
    """The terminal summary's notes under the table (as printed, before wrapping)."""
    return str(summary_table(load_report(run / "report.json")).caption)


def test_generation_manifest_round_trips_into_run_and_report(tmp_path):
    root = tmp_path / "gen"
    shutil.copytree(BUILTIN_ROOT / "starter", root)
    _write_manifest(root)
    digest = hashlib.sha256((root / "manifest.json").read_bytes()).hexdigest()
    run = tmp_path / "run"
    _run(root, run, scenarios=PUBLIC_PICK)
    recorded = RunManifest.read(run).generation
    assert recorded is not None and recorded.sha256 == digest and recorded.matches_suite
    assert (recorded.generator, recorded.model, recorded.scenarios, recorded.reviewed) == (
        "callbench generate scenarios",
        "scripted:fake",
        16,
        1,
    )
    assert recorded.scenario_audits == {"passed": 16} and recorded.audit["warnings"] == 2
    report = load_report(run / "report.json")
    assert report.generation == recorded and report.schema_version == 6
    caption = _caption(run)
    assert "suite generated by callbench generate scenarios (model scripted:fake)" in caption
    assert MISMATCH not in caption
    html = render_html(run, run / "report.html").read_text()
    assert 'class="provenance"' in html and digest[:12] in html and "matches the suite" in html


def test_a_manifest_that_does_not_match_the_suite_is_flagged_not_fatal(tmp_path):
    root = tmp_path / "gen"
    shutil.copytree(BUILTIN_ROOT / "starter", root)
    _write_manifest(root, suite_sha="0" * 64)
    run = tmp_path / "run"
    _run(root, run, scenarios=PUBLIC_PICK)
    report = load_report(run / "report.json")
    assert report.generation is not None and not report.generation.matches_suite
    assert report.generation.note == MISMATCH and MISMATCH in _caption(run)
    assert MISMATCH in render_html(run, run / "report.html").read_text()


def test_a_malformed_manifest_stops_the_run_naming_file_and_field(tmp_path):
    root = tmp_path / "gen"
    shutil.copytree(BUILTIN_ROOT / "starter", root)
    _write_manifest(root)
    data = json.loads((root / "manifest.json").read_text())
    data["scenarios"][0]["attempts"] = 0
    (root / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(ManifestError, match=r"manifest.json: .*field scenarios\.0\.attempts"):
        _run(root, tmp_path / "run", scenarios=PUBLIC_PICK)
    assert not (tmp_path / "run").exists()
    (root / "manifest.json").write_text("{not json")
    with pytest.raises(ManifestError, match="manifest.json: not valid JSON"):
        _run(root, tmp_path / "run", scenarios=PUBLIC_PICK)


def test_sealing_a_generated_suite_keeps_sealed_file_hashes_out_of_the_public_manifest(
    suite_dir, tmp_path
):
    _write_manifest(suite_dir)
    public = tmp_path / "public"
    result = seal_suite(suite_dir, "test", public, tmp_path / "salts.json")
    assert result.notes and "manifest.json" in result.notes[0]
    manifest = json.loads((public / "manifest.json").read_text())
    assert not {s["id"] for s in manifest["scenarios"]} & set(SEALED)
    assert len(manifest["scenarios"]) == 14 and manifest["settings"]["sealed_split"]["split"]
    assert manifest["suite_sha256"] == suite_hash_without_manifest(public)
    published = b"".join(p.read_bytes() for p in public.rglob("*") if p.is_file())
    for sid in SEALED:
        sealed_hash = hashlib.sha256(next(suite_dir.glob(f"scenarios/*/{sid}.yaml")).read_bytes())
        assert sealed_hash.hexdigest().encode() not in published
    assert suite_hash(suite_dir).encode() not in published
