"""`callbench generate scenarios` end to end, with recorded model replies served by the fake
OpenAI-compatible provider (tests/fixtures/generate-clinic/README.md says what each reply is)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from callbench.audit import audit_suite
from callbench.cli import app
from callbench.generate.scenarios import (
    GenerateSettings,
    generate_scenarios,
    parse_targets,
    prompt_hashes,
    read_agent,
)
from callbench.models import ProviderServerError, ScriptedModel
from callbench.spec.generation import GenerationManifest, manifest_json, manifest_mismatches
from callbench.spec.generation_record import load_generation_manifest, read_generation_record
from callbench.spec.loading import suite_hash_without_manifest
from callbench.suite_check import check_suite
from callbench.suites import BUILTIN_ROOT
from callbench.testing.fake_provider import FakeProvider

AGENT = BUILTIN_ROOT / "starter" / "agents" / "clinic-appointments"
FIXTURES = Path(__file__).parent / "fixtures" / "generate-clinic"
REPLIES = sorted(p for p in FIXTURES.glob("*.txt"))


def read_manifest(root: Path) -> GenerationManifest | None:
    loaded = load_generation_manifest(root)
    return None if loaded is None else loaded[0]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """One CLI run over the recorded replies: (output folder, CLI result, request bodies)."""
    replies = [p.read_text(encoding="utf-8") for p in REPLIES]
    out = tmp_path_factory.mktemp("gen") / "clinic-generated"
    with FakeProvider(lambda body: replies.pop(0)) as fp:
        result = CliRunner().invoke(
            app,
            [
                "generate",
                "scenarios",
                "--agent",
                str(AGENT),
                "--count",
                "4",
                "--model",
                f"openai-compatible:{fp.base_url}#fake-model",
                "--out",
                str(out),
                "--difficulty",
                "easy=1,medium=2,hard=1",
                "--track",
                "routine",
                "--track",
                "safety",
                "--seed",
                "7",
            ],
        )
        bodies = list(fp.requests)
    assert replies == [], "every recorded reply was asked for"
    return out, result, bodies


def test_accepted_scenarios_pass_validate_and_the_oracle(generated):
    out, result, _ = generated
    assert result.exit_code == 0, result.output
    files = sorted(p.name for p in (out / "scenarios" / "clinic-appointments").glob("*.yaml"))
    assert files == [
        "clinic-cancel-next-week-no-fee.yaml",
        "clinic-reschedule-breathless-at-rest.yaml",
        "clinic-sudden-headache-same-day.yaml",
    ]
    check = check_suite(out)  # the whole written suite: validate, recital and the oracle
    assert check.errors == []
    assert check.suite is not None and len(check.suite.scenarios) == 3
    assert "3 of 4 scenarios" in result.output and "1 rejected" in result.output
    audit = audit_suite(out)  # and the audit, on the suite as written (rejected/ included)
    assert audit.errors == [], [str(f) for f in audit.errors]
    assert audit.checked["pinned_arguments"] > 0 and audit.checked["isolation"] > 0


def test_the_draft_that_never_passed_is_kept_with_its_reasons(generated):
    out, result, _ = generated
    manifest = read_manifest(out)
    assert manifest is not None
    (rejected,) = manifest.rejected
    assert rejected["file"] == "rejected/draft-003.json"
    assert rejected["attempts"] == 3
    assert (rejected["difficulty"], rejected["track"]) == ("medium", "routine")
    assert any("never reaches plan step" in r for r in rejected["reasons"])
    assert any(r.startswith("[pinned_arguments]") for r in rejected["reasons"])  # the audit's
    first, second, third = rejected["by_attempt"]
    assert first == third == rejected["reasons"]
    assert second == [
        "the answer holds no JSON object with the scenario's keys (caller, reference, ...)"
    ]
    kept = json.loads((out / "rejected" / "draft-003.json").read_text(encoding="utf-8"))
    assert kept["id"] == "clinic-cancel-dermatology-school-run"
    beside = json.loads((out / "rejected" / "draft-003.reasons.json").read_text())
    assert beside["reasons"] == rejected["reasons"]
    assert beside["by_attempt"] == rejected["by_attempt"]
    assert "rejected" in result.output and "never reaches plan step" in result.output


def test_manifest_round_trips_and_its_hashes_match_the_files(generated):
    out, _, _ = generated
    text = (out / "manifest.json").read_text(encoding="utf-8")
    manifest = read_manifest(out)
    assert isinstance(manifest, GenerationManifest)
    assert manifest_json(manifest) == text  # read back and written again: the same bytes
    assert GenerationManifest.model_validate_json(manifest.model_dump_json()) == manifest
    assert manifest.generator == "callbench generate scenarios"
    assert manifest.model is not None and manifest.model.startswith("openai-compatible:")
    assert manifest.model.endswith("#fake-model")
    assert manifest.prompts == prompt_hashes()
    assert manifest.seed == 7
    assert manifest.suite_sha256 == suite_hash_without_manifest(out)
    assert manifest.settings["difficulty"] == {"easy": 1, "medium": 2, "hard": 1}
    assert manifest.settings["tracks"] == {"routine": 1, "safety": 1}
    by_id = {s.id: s for s in manifest.scenarios}
    assert {k: v.attempts for k, v in by_id.items()} == {
        "clinic-cancel-next-week-no-fee": 1,
        "clinic-sudden-headache-same-day": 2,
        "clinic-reschedule-breathless-at-rest": 1,
    }
    assert [s.seed for s in manifest.scenarios] == [7, 8, 10]
    assert manifest.audit["ok"] is True and manifest.audit["counts"]["errors"] == 0
    assert manifest.audit["balance"]["difficulty"] == {"easy": 1, "medium": 1, "hard": 1}
    assert {k: v.audit for k, v in by_id.items()} == {
        "clinic-cancel-next-week-no-fee": "warnings",  # plan cues printed in the instructions
        "clinic-sudden-headache-same-day": "warnings",
        "clinic-reschedule-breathless-at-rest": "passed",
    }
    assert "[recital]" in by_id["clinic-sudden-headache-same-day"].notes
    for entry in manifest.scenarios:
        assert entry.sha256 == sha(out / entry.file)
        assert entry.origin == "generated" and entry.reviewer is None and entry.reviewed_on is None
        assert entry.sources["agents/clinic-appointments/agent.yaml"] == sha(AGENT / "agent.yaml")
        assert entry.sources["agents/clinic-appointments/instructions.md"] == sha(
            AGENT / "instructions.md"
        )
    # what `callbench run` records of it: the same manifest, vouching for this very suite
    record = read_generation_record(out)
    assert record is not None and record.matches_suite and record.note is None
    assert record.sha256 == sha(out / "manifest.json")
    assert (record.generator, record.model, record.scenarios) == (
        "callbench generate scenarios",
        manifest.model,
        3,
    )
    assert record.reviewed == 0 and record.scenario_audits == {"passed": 1, "warnings": 2}
    # an edited scenario no longer matches what the manifest vouches for
    first = out / manifest.scenarios[0].file
    assert manifest_mismatches(out, manifest) == []
    original = first.read_bytes()
    try:
        first.write_bytes(original + b"# edited\n")
        assert manifest_mismatches(out, manifest) == [
            f"{manifest.scenarios[0].file}: changed since the manifest was written",
            "suite_sha256: the suite's files changed since the manifest was written",
        ]
    finally:
        first.write_bytes(original)


def test_prompts_hold_the_whole_definition_and_repairs_name_the_problems(generated):
    _, _, bodies = generated
    assert len(bodies) == 7  # 1 + 2 + 3 + 1 answers
    agent = read_agent(AGENT)
    first = bodies[0]["messages"]
    request = first[-1]["content"]
    assert agent.instructions.strip() in request  # the rendered document, whole
    assert agent.agent_yaml.strip() in request  # every tool with its schema
    assert "difficulty `easy`" in request and "track `routine`" in request
    assert "Language: `en`" in request
    assert "{{" not in agent.instructions and "Larkspur Valley Medical Group" in request
    repair = bodies[2]["messages"]  # scenario 2, second attempt
    assert repair[-2]["role"] == "assistant" and "still_there" in repair[-2]["content"]
    note = repair[-1]["content"]
    assert "'still_there' is neither an expected action nor a plan step" in note
    assert "excerpt does not occur verbatim" in note
    later = bodies[6]["messages"][-1]["content"]  # scenario 4 is told which ids are taken
    assert "clinic-sudden-headache-same-day" in later and "difficulty `hard`" in later
    assert all(b.get("response_format") for b in bodies)  # asked in JSON mode


def test_a_provider_failure_rejects_only_its_draft(tmp_path):
    good = (FIXTURES / "1-easy-routine.txt").read_text(encoding="utf-8")
    model = ScriptedModel([ProviderServerError("boom: 500"), good])
    result = asyncio.run(
        generate_scenarios(
            AGENT,
            tmp_path / "out",
            model,
            "fake:scripted",
            GenerateSettings(count=2, difficulty={"easy": 1}, tracks={"routine": 1}),
        )
    )
    assert [p.name for p in result.written] == ["clinic-cancel-next-week-no-fee.yaml"]
    (rejection,) = result.rejected
    assert rejection.reasons[0].startswith("provider: ProviderServerError")
    assert result.manifest.rejected[0]["reasons"] == rejection.reasons


def test_targets_cycle_and_parse():
    settings = GenerateSettings(
        count=5, difficulty=parse_targets("easy=1,medium=2,hard=1", {}), tracks={"a": 1, "b": 1}
    )
    assert settings.targets() == [
        ("easy", "a"),
        ("medium", "b"),
        ("medium", "a"),
        ("hard", "b"),
        ("easy", "a"),
    ]
    assert parse_targets("medium", {}) == {"medium": 1}
    assert parse_targets(None, {"hard": 1}) == {"hard": 1}
    with pytest.raises(ValueError, match="name=count"):
        parse_targets("easy=x", {})


def test_refuses_a_non_empty_folder_and_another_language(tmp_path):
    (tmp_path / "keep.txt").write_text("reviewed work")
    runner = CliRunner()
    base = ["generate", "scenarios", "--agent", str(AGENT), "--count", "1"]
    model = ["--model", "openai-compatible:http://127.0.0.1:9/v1#x"]
    refused = runner.invoke(app, [*base, *model, "--out", str(tmp_path)])
    assert refused.exit_code == 2 and "not empty" in refused.output
    other = runner.invoke(app, [*base, *model, "--language", "hi", "--out", str(tmp_path / "n")])
    assert other.exit_code == 2 and "never translated" in other.output
    assert not (tmp_path / "n").exists()


def test_a_suite_without_a_manifest_reads_as_none():
    assert read_manifest(BUILTIN_ROOT / "starter") is None


def test_the_written_suite_has_its_own_id(generated):
    out, _, _ = generated
    check = check_suite(out)
    assert check.suite is not None and check.suite.manifest.id == "clinic-generated"
