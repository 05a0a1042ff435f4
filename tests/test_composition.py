"""A suite's composition is computed from its files: counts agree with the loaded suite, and the
coverage it reports comes from each call's structure, so a tag cannot claim what a call lacks."""

import json
import statistics

from typer.testing import CliRunner

from callbench.cli import app
from callbench.spec.composition import composition, features
from callbench.suite_check import load_suite


def test_counts_agree_with_the_loaded_suite():
    suite = load_suite("starter")
    made = composition(suite)
    assert made.agents == len(suite.agents) == 4
    assert made.calls == len(suite.scenarios) == 16
    lengths = sorted(len(a.instructions) for a in suite.agents.values())
    assert made.instruction_chars.minimum == lengths[0]
    assert made.instruction_chars.maximum == lengths[-1]
    assert made.instruction_chars.median == statistics.median(lengths)
    assert made.tools.total == sum(len(a.definition.tools) for a in suite.agents.values())
    assert sum(made.calls_by_language.values()) == made.calls
    assert sum(made.calls_by_difficulty.values()) == made.calls
    assert sum(made.agents_by_direction.values()) == made.agents
    assert made.agents_by_direction["outbound"] == 1
    grid_total = sum(sum(row.values()) for row in made.agents_by_domain_language.values())
    assert grid_total == made.agents
    assert set(made.agents_by_domain_language) == {"(none)"}  # starter declares no domain


def test_coverage_is_read_from_structure_not_tags():
    suite = load_suite("starter")
    scenario = next(sc for sc in suite.scenarios.values() if sc.channel.events)
    ends = {t.name for t in suite.agents[scenario.agent].definition.end_tools}
    found = features(scenario, ends)
    assert {f"channel: {e.kind}" for e in scenario.channel.events} <= found
    stripped = scenario.model_copy(
        update={
            "channel": scenario.channel.model_copy(
                update={"events": [], "seeded_first_turn": False}
            ),
            "tags": ["asr_substitution", "vad_split", "refusal", "transfer"],
        }
    )
    assert not any(f.startswith("channel:") for f in features(stripped, ends))


def test_the_phone_agents_bundle_declares_every_domain():
    made = composition(load_suite("phone-agents"))
    assert "(none)" not in made.agents_by_domain_language
    assert made.coverage["failed call-ending tool"] > 0
    assert made.coverage["injected failure"] > 0


def test_describe_prints_and_writes_json(tmp_path):
    out = tmp_path / "composition.json"
    result = CliRunner().invoke(app, ["describe", "starter", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "16 calls" in result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["calls"] == 16 and data["instruction_chars"]["total"] > 0
    bad = CliRunner().invoke(app, ["describe", str(tmp_path / "nowhere")])
    assert bad.exit_code == 2
