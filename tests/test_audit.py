"""`callbench audit`: each check catches a defect seeded into a copy of a built-in suite, the
built-in suites audit without errors, and the JSON output and exit codes are what CI reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from callbench.audit import CHECKS, JSON_SCHEMA_VERSION, audit_suite
from callbench.audit.corpus import balance
from callbench.audit.matching import says
from callbench.cli import app
from callbench.suite_check import check_suite
from callbench.suites import locate

FIRE = "scenarios/bijli-helpline/bijli-fallen-wire-emergency.yaml"
CARD = "scenarios/card-services/card-stolen-bag-snatched.yaml"


@pytest.fixture
def starter(tmp_path: Path) -> Path:
    root = tmp_path / "starter"
    shutil.copytree(locate("starter"), root)
    return root


def edit(root: Path, label: str, old: str, new: str) -> None:
    path = root / label
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} is not once in {label}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_clean_copy_has_no_errors_and_checks_ran(starter: Path) -> None:
    report = audit_suite(starter)
    assert report.errors == []
    summary = report.summary()
    assert list(summary) == list(CHECKS)
    for check in ("dependencies", "isolation", "pinned_arguments", "excerpts", "duplicates"):
        assert summary[check]["checked"] > 0, check
        assert summary[check]["skipped"] is None, check
    assert summary["gameability"]["skipped"]


def test_validate_findings_are_check_suites_problems(starter: Path) -> None:
    """The audit runs what validate runs: the same problems, only labelled by check."""
    edit(starter, FIRE, "after: [emergency_raised, sms_ok]", "after: [emergency_raised, nowhere]")
    edit(starter, CARD, "id: card-stolen-bag-snatched", "id: card-stolen-bag-snatched\nbogus: 1")
    report = audit_suite(starter)
    ours = {
        (f.file, f.path, f.message, f.level)
        for f in report.findings
        if f.check in ("schema", "recital", "reference", "excerpts")
        or (f.check == "dependencies" and "waits for" not in f.message)
    }
    theirs = {(p.file, p.path, p.message, p.level) for p in check_suite(starter).problems}
    assert ours == theirs and theirs
    assert any(f.check == "dependencies" and "nowhere" in f.message for f in report.errors)


def test_after_cycle_is_a_dependency_error(starter: Path) -> None:
    edit(
        starter,
        FIRE,
        "    count: { min: 1 }\n    guard: true\n    weight: 2",
        "    count: { min: 1 }\n    guard: true\n    weight: 2\n    after: [emergency_raised]",
    )
    report = audit_suite(starter)
    found = [f for f in report.by_check("dependencies") if "cycle" in f.message]
    assert len(found) == 1 and found[0].level == "error" and found[0].file == FIRE
    assert "lookup_joined_id" in found[0].message and "emergency_raised" in found[0].message


def test_action_after_a_forbidden_action_is_unreachable(starter: Path) -> None:
    edit(starter, FIRE, "after: [emergency_raised, sms_ok]", "after: [no_normal_complaint, sms_ok]")
    report = audit_suite(starter, oracle=False)
    found = report.by_check("dependencies")
    assert len(found) == 1
    assert found[0].level == "error" and found[0].path == "expected_actions[4].after[0]"
    assert "no_normal_complaint" in found[0].message and "forbidden" in found[0].message
    assert found[0].line is not None


def test_hidden_value_in_the_brief_is_an_isolation_error(starter: Path) -> None:
    assert audit_suite(starter, oracle=False).by_check("isolation") == []
    edit(
        starter,
        FIRE,
        "आपका बिजली का बिल आपके हाथ में है।",
        "आपका बिजली का बिल आपके हाथ में है। पिछली बार का टिकट EMG-40517 था।",
    )
    found = audit_suite(starter, oracle=False).by_check("isolation")
    assert [(f.level, f.file, f.path) for f in found] == [("error", FIRE, "caller.context")]
    assert "EMG-40517" in found[0].message and "backend.hidden.emergency_id" in found[0].message


def test_hidden_value_the_caller_knows_is_allowed(starter: Path) -> None:
    edit(starter, FIRE, "आपका बिजली का बिल आपके हाथ में है।", "फ़ीडर SJN-F12 है।")
    assert len(audit_suite(starter, oracle=False).by_check("isolation")) == 1
    edit(starter, FIRE, "    injured: किसी को चोट नहीं लगी", "    injured: नहीं\n    feeder: SJN-F12")
    assert audit_suite(starter, oracle=False).by_check("isolation") == []


def test_pinned_argument_nobody_says(starter: Path) -> None:
    """The feeder code reaches the agent only through the consumer lookup: take it out of the
    lookup's answer and the emergency's pinned feeder_id comes from nowhere (the emergency tool's
    own answer repeats it, too late), though the oracle, which reads the reference, still
    passes."""
    assert audit_suite(starter).by_check("pinned_arguments") == []
    edit(
        starter,
        FIRE,
        'locality: "शिवाजी नगर, गली 3"\n          feeder_id: "${hidden.feeder_id}"\n',
        'locality: "शिवाजी नगर, गली 3"\n',
    )
    assert "फ़ीडर SJN-F12 बंद" in (starter / FIRE).read_text(encoding="utf-8")
    report = audit_suite(starter)
    found = report.by_check("pinned_arguments")
    assert [(f.level, f.file, f.path) for f in found] == [
        ("error", FIRE, "expected_actions[1].args.feeder_id")
    ]
    assert "'SJN-F12'" in found[0].message and found[0].line is not None
    assert report.by_check("reference") == []


def test_pinned_argument_checks_the_openvoicecs_import(tmp_path: Path) -> None:
    """The importer's own finding: the refund amount of the damaged blender is never said."""
    out = tmp_path / "ovcs"
    fixture = Path(__file__).parent / "fixtures/openvoicecs/openvoicecs-sample.json"
    result = CliRunner().invoke(app, ["import", "openvoicecs", str(fixture), str(out)])
    assert result.exit_code == 0, result.output
    found = audit_suite(out).by_check("pinned_arguments")
    pinned = {(Path(f.file).stem, f.path) for f in found}
    assert ("retail-refund-damaged-item-001", "expected_actions[1].args.amount_cents") in pinned
    # "a 248 dollar charge" gives amount_cents 24800: converting is the agent's job
    assert not any("fintech-fraud-card-replacement-001" in f.file for f in found)


def test_long_scripted_line_is_a_warning(starter: Path) -> None:
    before = audit_suite(starter, oracle=False).by_check("caller_lines")
    line = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
    edit(starter, FIRE, 'say: "अच्छा, ठीक है। हाँ, मैसेज भेज दीजिए।"', f'say: "{line}"')
    assert audit_suite(starter, oracle=False).by_check("caller_lines") == before  # 14 words
    edit(starter, FIRE, f'say: "{line}"', f'say: "{line} fifteen sixteen"')
    after = audit_suite(starter, oracle=False).by_check("caller_lines")
    new = [f for f in after if f not in before]
    assert [(f.level, f.file, f.path) for f in new] == [("warning", FIRE, "caller.plan[4].say")]
    assert "16 words" in new[0].message


def test_duplicate_scenario_names_both(starter: Path) -> None:
    assert audit_suite(starter, oracle=False).by_check("duplicates") == []
    copy = "scenarios/bijli-helpline/bijli-fallen-wire-copy.yaml"
    text = (starter / FIRE).read_text(encoding="utf-8")
    text = text.replace("id: bijli-fallen-wire-emergency", "id: bijli-fallen-wire-copy", 1)
    (starter / copy).write_text(text.replace("रेखा शर्मा हैं", "रेखा वर्मा हैं"), encoding="utf-8")
    found = audit_suite(starter, oracle=False).by_check("duplicates")
    assert len(found) == 1 and found[0].level == "warning"
    assert {found[0].file, *[w for w in (copy, FIRE) if w in found[0].message]} == {FIRE, copy}
    assert "bijli-fallen-wire-copy" in found[0].message + found[0].file


def test_similar_briefs_graded_differently_are_not_duplicates(starter: Path) -> None:
    copy = "scenarios/bijli-helpline/bijli-fallen-wire-copy.yaml"
    text = (starter / FIRE).read_text(encoding="utf-8")
    text = text.replace("id: bijli-fallen-wire-emergency", "id: bijli-fallen-wire-copy", 1)
    (starter / copy).write_text(text.replace("hazard: { eq: fallen_wire }", "hazard: { eq: x }"))
    assert audit_suite(starter, oracle=False).by_check("duplicates") == []


def test_excerpt_hashes_are_recorded(starter: Path) -> None:
    report = audit_suite(starter, oracle=False)
    rows = report.excerpt_hashes
    assert len(rows) == report.checked["excerpts"] > 0
    assert all(len(r["sha256"]) == 64 and r["verbatim"] for r in rows)
    assert len({r["sha256"] for r in rows}) > 1


def test_balance_on_the_built_in_suites() -> None:
    suite = check_suite("utility-billing").suite
    table, found = balance(suite)  # type: ignore[arg-type]
    assert found == [] and set(table["difficulty"]) == {"easy", "medium", "hard"}
    assert "tag:requests" in table
    # the same suite with every call labelled hard is flagged, and only for that
    assert suite is not None
    hard = suite.model_copy(
        update={
            "scenarios": {
                k: sc.model_copy(update={"difficulty": "hard"}) for k, sc in suite.scenarios.items()
            }
        }
    )
    table, found = balance(hard)
    assert [f.path for f in found] == ["difficulty"]  # one language by design: not judged
    table, found = balance(check_suite("starter").suite)  # type: ignore[arg-type]
    assert found == [] and table["language"] == {"en": 8, "gu": 4, "hi": 4}


@pytest.mark.parametrize(
    "suite", ["starter", "customer-service", "utility-billing", "phone-agents"]
)
def test_built_in_suites_audit_without_errors(suite: str) -> None:
    report = audit_suite(suite)
    assert report.errors == [], "\n".join(map(str, report.errors))
    assert report.checked["pinned_arguments"] > 0


def test_matching_is_word_aligned() -> None:
    assert says("कंज्यूमर नंबर है 3105 7248 190।", "31057248190")
    assert says("નવો નંબર ૯૮૨૫૦ ૪૧૭૩૬", "9825041736")
    assert says("a charge of $52.99", 5299)
    assert not says("reference 41235", "123")
    assert not says("anything", True)


def test_cli_json_and_exit_codes(starter: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    result = CliRunner().invoke(app, ["audit", str(starter), "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["schema_version"] == JSON_SCHEMA_VERSION and data["ok"] is True
    assert set(data) >= {"suite", "sha256", "counts", "summary", "findings", "balance"}
    assert set(data["summary"]) == set(CHECKS)
    assert data["counts"]["errors"] == 0
    assert all(
        set(f) == {"check", "level", "file", "path", "message", "line"} for f in data["findings"]
    )
    assert len(data["excerpt_hashes"]) == data["summary"]["excerpts"]["checked"]

    edit(starter, FIRE, "आपका बिजली का बिल आपके हाथ में है।", "टिकट EMG-40517 है।")
    result = CliRunner().invoke(app, ["audit", str(starter), "--json", str(out)])
    assert result.exit_code == 1
    assert f"error: [isolation] {FIRE}:" in result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["ok"] is False and data["counts"]["errors"] == 1
    assert data["findings"][0]["check"] == "isolation" or any(
        f["check"] == "isolation" and f["level"] == "error" for f in data["findings"]
    )

    missing = CliRunner().invoke(app, ["audit", str(tmp_path / "nowhere")])
    assert missing.exit_code != 0


def test_cli_gameability(starter: Path) -> None:
    result = CliRunner().invoke(app, ["audit", str(starter), "--gameability"])
    assert result.exit_code == 0, result.output
    assert "gameability +0.0" in result.output
    strict = CliRunner().invoke(
        app, ["audit", str(starter), "--gameability", "--max-gameability", "-1"]
    )
    assert strict.exit_code == 1 and "[gameability]" in strict.output
