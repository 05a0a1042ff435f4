"""`callbench validate`: every rule gets a broken copy of the mini suite and must name file + field
path.

Each test copies tests/fixtures/mini into a temporary folder, breaks exactly one
thing, and checks that `check_suite` reports an error whose `file` is the
suite-relative file and whose `path` is the field path of the broken value,
with a message that says what is wrong.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from callbench.cli import app
from callbench.errors import Problem
from callbench.spec import CONVERSATION_CHECK_IDS
from callbench.spec.yamlio import read_yaml
from callbench.suite_check import SuiteCheck, check_suite

MINI = Path(__file__).parent / "fixtures" / "mini"
SCENARIO = "scenarios/parcel-desk/reschedule.yaml"
AGENT = "agents/parcel-desk/agent.yaml"
INSTRUCTIONS = "agents/parcel-desk/instructions.md"
SUITE = "suite.yaml"


# --- helpers --------------------------------------------------------------------------------


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "mini"
    shutil.copytree(MINI, root)
    return root


def replace(root: Path, rel: str, old: str, new: str) -> None:
    """Swap one exact, unique snippet of a file (so each test breaks exactly what it says)."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {rel}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def edit(root: Path, rel: str, change: Callable[[Any], None]) -> None:
    """Change a YAML file as data (read with callbench's own YAML 1.2 loader) and write it back."""
    path = root / rel
    doc, problems = read_yaml(path, rel)
    assert doc is not None and not problems
    change(doc.data)
    path.write_text(yaml.safe_dump(doc.data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def check(root: Path) -> SuiteCheck:
    result = check_suite(root)
    for p in result.problems:
        assert "\n" not in str(p), f"a problem must be one line: {str(p)!r}"
        assert "Traceback" not in p.message
    return result


def expect_error(root: Path, file: str, path: str, *words: str, only: bool = False) -> Problem:
    """The error at `file` / `path` whose message contains every one of `words` (case-insensitive).

    With `only`, it must also be the single error reported: breaking one thing
    should not cascade into noise elsewhere.
    """
    result = check(root)
    listing = "\n".join(map(str, result.problems)) or "(no problems)"
    found = [
        p
        for p in result.errors
        if p.file == file and p.path == path and all(w.lower() in p.message.lower() for w in words)
    ]
    assert found, f"expected an error at {file}: {path} mentioning {words}; got:\n{listing}"
    if only:
        assert len(result.errors) == 1, f"expected exactly one error; got:\n{listing}"
    return found[0]


# --- the valid suite ------------------------------------------------------------------------


def test_mini_suite_is_valid(suite: Path) -> None:
    result = check(suite)
    assert result.problems == []
    assert result.suite is not None and set(result.suite.scenarios) == {"reschedule"}


# --- references resolve: agent, tool, plan step, action ids ---------------------------------


def test_unknown_agent(suite: Path) -> None:
    (suite / "scenarios" / "ghost").mkdir()
    (suite / SCENARIO).rename(suite / "scenarios/ghost/reschedule.yaml")
    replace(suite, "scenarios/ghost/reschedule.yaml", "agent: parcel-desk", "agent: ghost")
    expect_error(
        suite, "scenarios/ghost/reschedule.yaml", "agent", "agent 'ghost' is not defined", only=True
    )


def test_agent_not_matching_its_folder(suite: Path) -> None:
    replace(suite, SCENARIO, "agent: parcel-desk", "agent: ghost")
    expect_error(suite, SCENARIO, "agent", "'ghost'", "folder name 'parcel-desk'")


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        (
            "    lookup_parcel:\n      - expect",
            "    lookup_parcels:\n      - expect",
            "backend.queues.lookup_parcels",
        ),
        ("  defaults:\n    end_call:", "  defaults:\n    end_calls:", "backend.defaults.end_calls"),
        ("    tool: lookup_parcel\n", "    tool: lookup_parcels\n", "expected_actions[0].tool"),
        (
            "calls: [ { tool: lookup_parcel,",
            "calls: [ { tool: lookup_parcels,",
            "reference[2].calls[0].tool",
        ),
    ],
    ids=["queue", "backend-default", "expected-action", "reference-call"],
)
def test_unknown_tool(suite: Path, old: str, new: str, path: str) -> None:
    replace(suite, SCENARIO, old, new)
    name = "end_calls" if "end_calls" in new else "lookup_parcels"
    expect_error(
        suite, SCENARIO, path, f"tool '{name}' is not defined by agent 'parcel-desk'", only=True
    )


def test_unknown_plan_step_in_channel_event(suite: Path) -> None:
    replace(suite, SCENARIO, "step: give_id,", "step: give_idd,")
    expect_error(
        suite, SCENARIO, "channel.events[0].step", "plan step 'give_idd' does not exist", only=True
    )


def test_unknown_action_id_in_after(suite: Path) -> None:
    replace(suite, SCENARIO, "after: [lookup]", "after: [lookupp]")
    expect_error(
        suite,
        SCENARIO,
        "expected_actions[1].after[0]",
        "'lookupp' is neither an expected action nor a plan step",
        only=True,
    )


def test_action_after_itself(suite: Path) -> None:
    replace(suite, SCENARIO, "after: [lookup]", "after: [move]")
    expect_error(suite, SCENARIO, "expected_actions[1].after[0]", "cannot come after itself")


def test_ordering_cycle(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        "    count: { exactly: 1 }\n    weight: 2",
        "    count: { exactly: 1 }\n    after: [move]\n    weight: 2",
    )
    p = expect_error(suite, SCENARIO, "expected_actions", "cycle", only=True)
    assert "lookup" in p.message and "move" in p.message


def test_forbidden_action_with_ordering(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        "    after: [lookup]\n    weight: 3",
        "    after: [lookup]\n    weight: 3\n  - id: no_second_move\n"
        "    tool: reschedule_delivery\n    count: { exactly: 0 }\n    after: [move]",
    )
    expect_error(suite, SCENARIO, "expected_actions[2].after", "forbidden action", only=True)


# --- verdict ids: one id, one verdict -------------------------------------------------------


@pytest.mark.parametrize("reserved", [*CONVERSATION_CHECK_IDS, "closing"])
def test_a_verdict_id_of_the_suite_is_reserved(suite: Path, reserved: str) -> None:
    """The built-in conversation checks (spec.CONVERSATION_CHECK_IDS, which grading runs) and the
    suite's rated dimensions ('closing' in mini) own their ids in every scenario's report."""
    replace(suite, SCENARIO, "  - id: looked_up_first", f"  - id: {reserved}")
    expect_error(suite, SCENARIO, "criteria[0].id", f"id '{reserved}' is reserved", only=True)


def test_a_verdict_id_is_not_shared_across_kinds(suite: Path) -> None:
    replace(suite, SCENARIO, "  - id: looked_up_first", "  - id: lookup")
    expect_error(
        suite, SCENARIO, "criteria[0].id", "'lookup' is also used in expected_actions", only=True
    )


# --- ${caller.knows.x} / ${hidden.x} paths --------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "path", "ref"),
    [
        (
            'say: "It\'s ${caller.knows.tracking_id}."',
            'say: "It\'s ${caller.knows.nope}."',
            "caller.plan[1].say",
            "caller.knows.nope",
        ),
        (
            'expect: { tracking_id: { eq: "${caller.knows.tracking_id}" } }',
            'expect: { tracking_id: { eq: "${caller.knows.nope}" } }',
            "backend.queues.lookup_parcel[0].expect.tracking_id.eq",
            "caller.knows.nope",
        ),
        (
            'status: "${hidden.parcel_status}"',
            'status: "${hidden.nope}"',
            "backend.queues.lookup_parcel[0].respond.status",
            "hidden.nope",
        ),
        (
            "mismatch: { found: false }",
            'mismatch: { found: false, why: "${hidden.nope}" }',
            "backend.queues.lookup_parcel[0].mismatch.why",
            "hidden.nope",
        ),
        (
            "    end_call: { status: ended }",
            '    end_call: { status: "${hidden.nope}" }',
            "backend.defaults.end_call.status",
            "hidden.nope",
        ),
        (
            '    args: { tracking_id: { eq: "SP-0412" } }',
            '    args: { tracking_id: { eq: "${hidden.nope}" } }',
            "expected_actions[0].args.tracking_id.eq",
            "hidden.nope",
        ),
        (
            "    args: { reason: { eq: resolved } }",
            '    args: { reason: { not: { eq: "${hidden.nope}" } } }',
            "expected_actions[2].args.reason.not.eq",
            "hidden.nope",
        ),
        (
            'args: { tracking_id: "${caller.knows.tracking_id}" }',
            'args: { tracking_id: "${caller.knows.nope}" }',
            "reference[2].calls[0].args.tracking_id",
            "caller.knows.nope",
        ),
        (
            'say: "Goodbye!"',
            'say: "Goodbye ${caller.knows.nope}!"',
            "reference[4].say",
            "caller.knows.nope",
        ),
        (
            "tags: [ordering]",
            'tags: [ordering]\ncall_context: { caller_id: "${hidden.nope}" }',
            "call_context.caller_id",
            "hidden.nope",
        ),
    ],
    ids=[
        "plan-say",
        "queue-expect",
        "queue-respond",
        "queue-mismatch",
        "backend-default",
        "action-args",
        "nested-matcher",
        "reference-args",
        "reference-say",
        "call-context",
    ],
)
def test_unresolved_reference(suite: Path, old: str, new: str, path: str, ref: str) -> None:
    replace(suite, SCENARIO, old, new)
    p = expect_error(suite, SCENARIO, path, "${" + ref + "}", "does not resolve", only=True)
    assert "'nope'" in p.message
    assert p.line is not None


def test_reference_with_unknown_root(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        'say: "It\'s ${caller.knows.tracking_id}."',
        'say: "It\'s ${caller.tracking_id}."',
    )
    expect_error(
        suite, SCENARIO, "caller.plan[1].say", "${caller.tracking_id}", "must start with", only=True
    )


# --- matcher types agree with the tool parameter schemas ------------------------------------

MOVE_ARGS = '    args: { tracking_id: { eq: "SP-0412" }, day: { eq: thursday } }'


@pytest.mark.parametrize(
    ("new", "path", "words"),
    [
        (
            '    args: { tracking_id: { eq: "SP-0412" }, day: { range: { min: 1, max: 5 } } }',
            "expected_actions[1].args.day",
            ["matcher 'range' cannot apply to a string parameter"],
        ),
        (
            '    args: { tracking_id: { eq: "SP-0412" }, day: { eq: thursday }, attempts: { regex: '
            '"^[0-9]+$" } }',
            "expected_actions[1].args.attempts",
            ["matcher 'regex' cannot apply", "integer"],
        ),
        (
            '    args: { tracking_id: { eq: "SP-0412" }, day: { eq: saturday } }',
            "expected_actions[1].args.day",
            ["'saturday'", "not in the parameter's enum"],
        ),
        (
            '    args: { tracking_id: { eq: "SP-0412" }, day: { one_of: [thursday, sunday] } }',
            "expected_actions[1].args.day",
            ["'sunday'", "enum"],
        ),
        (
            '    args: { tracking_id: { eq: "SP-0412" }, day: { eq: thursday }, attempts: { eq: '
            "two } }",
            "expected_actions[1].args.attempts",
            ["'two'", "is not an integer"],
        ),
        (
            '    args: { tracking_id: { eq: "SP-0412" }, day: { eq: thursday }, attempts: { eq: '
            "true } }",
            "expected_actions[1].args.attempts",
            ["True", "is not an integer"],
        ),
        (
            "    args: { tracking_id: { eq: 412 }, day: { eq: thursday } }",
            "expected_actions[1].args.tracking_id",
            ["412", "is not a string"],
        ),
        (
            '    args: { tracking_id: { eq: "SP-0412" }, day: { not: { range: { max: 3 } } } }',
            "expected_actions[1].args.day",
            ["matcher 'range' cannot apply to a string parameter"],
        ),
        (
            '    args: { tracking_id: { contains: "SP" }, day: { eq: thursday } }',
            "expected_actions[1].args.tracking_id",
            ["matcher 'contains' cannot apply to a string parameter"],
        ),
        (
            '    args: { tracking_id: { eq: "SP-0412" }, day: { eq: thursday }, attempts: { '
            "subset: { a: 1 } } }",
            "expected_actions[1].args.attempts",
            ["matcher 'subset' cannot apply", "integer"],
        ),
        (
            '    args: { tracking_id: { eq: "SP-0412" }, day: { eq: thursday }, attempts: { eq: '
            '"${caller.knows.name}" } }',
            "expected_actions[1].args.attempts",
            ["'Ana'", "is not an integer"],
        ),
    ],
    ids=[
        "range-on-string",
        "regex-on-integer",
        "eq-not-in-enum",
        "one-of-not-in-enum",
        "eq-string-on-integer",
        "eq-bool-on-integer",
        "eq-number-on-string",
        "nested-not-range",
        "contains-on-string",
        "subset-on-integer",
        "resolved-reference-wrong-type",
    ],
)
def test_matcher_disagrees_with_schema(suite: Path, new: str, path: str, words: list[str]) -> None:
    replace(suite, SCENARIO, MOVE_ARGS, new)
    expect_error(suite, SCENARIO, path, *words, only=True)


def test_matcher_disagrees_with_schema_in_queue(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        'expect: { tracking_id: { eq: "SP-0412" }, day: { eq: thursday } }',
        'expect: { tracking_id: { eq: "SP-0412" }, day: { range: { min: 1 } } }',
    )
    expect_error(
        suite,
        SCENARIO,
        "backend.queues.reschedule_delivery[0].expect.day",
        "matcher 'range' cannot apply to a string parameter",
        only=True,
    )


@pytest.mark.parametrize(
    ("old", "new", "path", "tool"),
    [
        (
            '    args: { tracking_id: { eq: "SP-0412" } }',
            '    args: { tracking: { eq: "SP-0412" } }',
            "expected_actions[0].args.tracking",
            "lookup_parcel",
        ),
        (
            'expect: { tracking_id: { eq: "SP-0412" }, day: { eq: thursday } }',
            'expect: { tracking_id: { eq: "SP-0412" }, weekday: { eq: thursday } }',
            "backend.queues.reschedule_delivery[0].expect.weekday",
            "reschedule_delivery",
        ),
    ],
    ids=["expected-action", "queue"],
)
def test_unknown_parameter_in_matcher_args(
    suite: Path, old: str, new: str, path: str, tool: str
) -> None:
    replace(suite, SCENARIO, old, new)
    name = path.rsplit(".", 1)[1]
    expect_error(suite, SCENARIO, path, f"tool '{tool}' has no parameter '{name}'", only=True)


def test_matcher_of_unknown_kind(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        MOVE_ARGS,
        '    args: { tracking_id: { eq: "SP-0412" }, day: { equals: thursday } }',
    )
    expect_error(
        suite,
        SCENARIO,
        "expected_actions[1].args.day",
        "a matcher is a mapping with exactly one of",
        only=True,
    )


def test_regex_that_does_not_compile(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        '    args: { tracking_id: { eq: "SP-0412" } }',
        '    args: { tracking_id: { regex: "SP-(" } }',
    )
    expect_error(
        suite,
        SCENARIO,
        "expected_actions[0].args.tracking_id.regex",
        "regex does not compile",
        only=True,
    )


def test_range_with_min_above_max(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        '    args: { tracking_id: { eq: "SP-0412" } }',
        "    args: { tracking_id: { range: { min: 5, max: 1 } } }",
    )
    expect_error(
        suite,
        SCENARIO,
        "expected_actions[0].args.tracking_id.range",
        "min 5.0 is greater than max 1.0",
    )


def test_yaml_1_1_values_agree_with_string_schema(suite: Path) -> None:
    """Unquoted `0412` is a string in YAML 1.2, so it agrees with a string parameter (no octal
    266)."""
    replace(
        suite,
        SCENARIO,
        '    args: { tracking_id: { eq: "SP-0412" } }',
        "    args: { tracking_id: { one_of: [0412, no] } }",
    )
    result = check(suite)
    assert not [p for p in result.errors if p.path.startswith("expected_actions[0].args")]


# --- excerpts occur verbatim in the rendered instructions; the hash is recorded --------------

EXCERPT = 'excerpts: ["Always look the parcel up before changing anything about it."]'


def test_excerpt_not_in_instructions(suite: Path) -> None:
    replace(
        suite, SCENARIO, EXCERPT, 'excerpts: ["Always look the parcel up before doing anything."]'
    )
    expect_error(
        suite,
        SCENARIO,
        "criteria[0].excerpts[0]",
        "does not occur verbatim",
        "parcel-desk",
        only=True,
    )


def test_editing_instructions_breaks_quoting_criteria(suite: Path) -> None:
    replace(suite, INSTRUCTIONS, "Always look the parcel up", "Look the parcel up")
    expect_error(suite, SCENARIO, "criteria[0].excerpts[0]", "does not occur verbatim", only=True)


def test_excerpt_is_checked_against_rendered_text(suite: Path) -> None:
    replace(suite, SCENARIO, EXCERPT, 'excerpts: ["You are the phone agent of {{company}}."]')
    expect_error(suite, SCENARIO, "criteria[0].excerpts[0]", "does not occur verbatim", only=True)


def test_excerpt_matches_rendered_text_with_folded_space(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        EXCERPT,
        'excerpts: ["You are the  phone agent of Swift Parcels.\\nAlways look"]',
    )
    assert check(suite).problems == []


def test_instructions_sha256_is_recorded_and_follows_the_text(suite: Path) -> None:
    loaded = check(suite).suite.agents["parcel-desk"]
    rendered = (
        (suite / INSTRUCTIONS).read_text(encoding="utf-8").replace("{{company}}", "Swift Parcels")
    )
    assert loaded.instructions == rendered
    assert loaded.instructions_sha256 == hashlib.sha256(rendered.encode("utf-8")).hexdigest()

    replace(
        suite,
        INSTRUCTIONS,
        "Never reschedule a delivery to a weekend.",
        "Never reschedule to a Sunday.",
    )
    changed = check(suite).suite.agents["parcel-desk"].instructions_sha256
    assert changed != loaded.instructions_sha256

    replace(
        suite,
        AGENT,
        "variables: { company: Swift Parcels }",
        "variables: { company: Slow Parcels }",
    )
    assert check(suite).suite.agents["parcel-desk"].instructions_sha256 not in (
        changed,
        loaded.instructions_sha256,
    )


def test_instructions_variable_without_value(suite: Path) -> None:
    replace(suite, INSTRUCTIONS, "{{company}}", "{{company}} in {{city}}")
    expect_error(suite, AGENT, "variables", "{{city}}", "no variable 'city'", only=True)


# --- call-ending tools declare success; tools are well formed -------------------------------


def test_call_ending_tool_without_success_condition(suite: Path) -> None:
    replace(suite, AGENT, "    success: { path: status, equals: ended }\n", "")
    expect_error(
        suite,
        AGENT,
        "tools[2].success",
        "call-ending tool 'end_call' must declare a success condition",
        only=True,
    )


def test_success_condition_on_tool_that_does_not_end_the_call(suite: Path) -> None:
    replace(suite, AGENT, "    ends_call: true\n", "")
    expect_error(suite, AGENT, "tools[2].success", "does not end the call", only=True)


def test_success_condition_needs_equals_or_match(suite: Path) -> None:
    replace(suite, AGENT, "success: { path: status, equals: ended }", "success: { path: status }")
    expect_error(suite, AGENT, "tools[2].success", "exactly one of 'equals' or 'match'", only=True)


def test_duplicate_tool_name(suite: Path) -> None:
    replace(suite, AGENT, "  - name: reschedule_delivery", "  - name: lookup_parcel")
    expect_error(suite, AGENT, "tools[1].name", "tool name 'lookup_parcel' is used twice")


@pytest.mark.parametrize(
    ("old", "new", "path", "words"),
    [
        (
            "attempts: { type: integer }",
            "attempts: { type: integr }",
            "tools[1].parameters.properties.attempts.type",
            ["not a valid JSON Schema", "'integr'"],
        ),
        (
            "      required: [tracking_id, day]",
            "      required: tracking_id",
            "tools[1].parameters.required",
            ["not a valid JSON Schema"],
        ),
        (
            "day: { type: string, enum: [monday, tuesday, wednesday, thursday, friday] }",
            "day: { type: string, enum: monday }",
            "tools[1].parameters.properties.day.enum",
            ["not a valid JSON Schema"],
        ),
    ],
    ids=["unknown-type", "required-not-a-list", "enum-not-a-list"],
)
def test_invalid_json_schema_in_tool_parameters(
    suite: Path, old: str, new: str, path: str, words: list[str]
) -> None:
    replace(suite, AGENT, old, new)
    expect_error(suite, AGENT, path, *words)


def test_tool_parameters_not_an_object_schema(suite: Path) -> None:
    edit(suite, AGENT, lambda d: d["tools"][0]["parameters"].update(type="array"))
    expect_error(suite, AGENT, "tools[0].parameters.type", "of type 'object'", only=True)


def test_tool_properties_not_a_mapping_is_reported_not_raised(suite: Path) -> None:
    edit(
        suite,
        AGENT,
        lambda d: d["tools"][1]["parameters"].update(properties=["tracking_id", "day"]),
    )
    expect_error(suite, AGENT, "tools[1].parameters.properties", "not a valid JSON Schema")


def test_required_parameter_without_property(suite: Path) -> None:
    replace(
        suite, AGENT, "      required: [tracking_id]\n", "      required: [tracking_id, parcel]\n"
    )
    expect_error(
        suite,
        AGENT,
        "tools[0].parameters.required",
        "required parameter 'parcel' has no entry",
        only=True,
    )


# --- ids are unique ---------------------------------------------------------------------------


def test_duplicate_plan_step_ids(suite: Path) -> None:
    replace(suite, SCENARIO, "    - id: day\n", "    - id: ask\n")
    expect_error(
        suite, SCENARIO, "caller.plan[2].id", "plan step id 'ask' is used twice", only=True
    )


def test_duplicate_action_ids(suite: Path) -> None:
    replace(suite, SCENARIO, "  - id: end\n", "  - id: move\n")
    expect_error(
        suite, SCENARIO, "expected_actions[2].id", "action id 'move' is used twice", only=True
    )


def test_duplicate_criterion_ids(suite: Path) -> None:
    edit(suite, SCENARIO, lambda d: d["criteria"].append(dict(d["criteria"][0])))
    expect_error(
        suite, SCENARIO, "criteria[1].id", "criterion id 'looked_up_first' is used twice", only=True
    )


# --- channel events -------------------------------------------------------------------------


def test_split_span_not_in_say_line(suite: Path) -> None:
    replace(suite, SCENARIO, 'after: ["SP-04"]', 'after: ["SP-99"]')
    expect_error(
        suite,
        SCENARIO,
        "channel.events[0].after[0]",
        "'SP-99'",
        "does not occur in the 'say' line of step 'give_id'",
        only=True,
    )


def test_substitute_span_not_in_say_line(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        '{ step: give_id, kind: split, after: ["SP-04"] }',
        "{ step: day, kind: substitute, span: Friday, with: fried egg }",
    )
    expect_error(suite, SCENARIO, "channel.events[0].span", "'Friday'", "does not occur", only=True)


def test_channel_event_needs_one_anchor(suite: Path) -> None:
    replace(
        suite, SCENARIO, "{ step: give_id, kind: split,", "{ step: give_id, turn: 2, kind: split,"
    )
    expect_error(suite, SCENARIO, "channel.events[0]", "exactly one of 'turn' or 'step'", only=True)


# --- the reference solution passes the scenario's own deterministic checks ------------------


def test_reference_fails_its_own_expected_action(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        'args: { tracking_id: "SP-0412", day: thursday }',
        'args: { tracking_id: "SP-0412", day: friday }',
    )
    p = expect_error(suite, SCENARIO, "reference", "fails expected action 'move'", only=True)
    assert p.line is not None


def test_reference_that_never_ends_the_call(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        '  - calls: [ { tool: end_call, args: { reason: resolved } } ]\n    say: "Goodbye!"',
        '  - say: "Goodbye!"',
    )
    expect_error(
        suite, SCENARIO, "reference", "does not end the call through a successful call-ending tool"
    )


def test_reference_whose_end_tool_does_not_succeed(suite: Path) -> None:
    replace(
        suite, SCENARIO, "      - respond: { status: ended }", "      - respond: { status: failed }"
    )
    replace(suite, SCENARIO, "    end_call: { status: ended }", "    end_call: { status: failed }")
    expect_error(
        suite,
        SCENARIO,
        "reference",
        "does not end the call through a successful call-ending tool",
        only=True,
    )


def test_reference_call_args_must_fit_the_tool_schema(suite: Path) -> None:
    """A reference that sends arguments the schema forbids proves nothing about a schema-following
    candidate."""
    replace(
        suite,
        SCENARIO,
        'args: { tracking_id: "SP-0412", day: thursday }',
        'args: { tracking_id: "SP-0412", day: thursday, attempts: two }',
    )
    expect_error(
        suite, SCENARIO, "reference[3].calls[0].args.attempts", "'two'", "integer", only=True
    )


def test_reference_call_args_missing_required(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        "calls: [ { tool: end_call, args: { reason: resolved } } ]",
        "calls: [ { tool: end_call, args: {} } ]",
    )
    expect_error(suite, SCENARIO, "reference[4].calls[0].args", "'reason' is a required property")


def test_same_turn_without_a_tool_chain_to_follow(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        '  - say: "Sure, what is your tracking number?"',
        '  - say: "Sure, what is your tracking number?"\n    same_turn: true',
    )
    expect_error(
        suite,
        SCENARIO,
        "reference[1].same_turn",
        "needs a previous reference entry with tool calls",
        only=True,
    )


# --- files: malformed YAML, unknown keys, wrong types, missing and empty files ---------------


def test_malformed_yaml_names_the_line(suite: Path) -> None:
    replace(suite, SCENARIO, "tags: [ordering]", "tags: [ordering")
    p = expect_error(suite, SCENARIO, "", "malformed YAML", only=True)
    assert p.line is not None and 5 <= p.line <= 7
    assert str(p).startswith(f"{SCENARIO}:{p.line}: malformed YAML")


def test_malformed_yaml_tab_indentation(suite: Path) -> None:
    replace(suite, SUITE, "  - id: closing", "\t- id: closing")
    p = expect_error(suite, SUITE, "", "malformed YAML", only=True)
    assert p.line == 6


def test_malformed_yaml_colon_in_plain_value_gets_a_hint(suite: Path) -> None:
    replace(
        suite, SUITE, "statement: The call ends with a goodbye.", "statement: Ends with: a goodbye."
    )
    p = expect_error(
        suite, SUITE, "", "mapping values are not allowed", "quote the value", only=True
    )
    assert p.line == 7


def test_more_than_one_yaml_document(suite: Path) -> None:
    replace(suite, SCENARIO, "difficulty: easy", "difficulty: easy\n---\ntitle: second")
    expect_error(suite, SCENARIO, "", "expected a single document", only=True)


def test_list_as_mapping_key_is_reported_not_raised(suite: Path) -> None:
    replace(suite, SCENARIO, "tags: [ordering]", "tags: [ordering]\n? [a, b]\n: c")
    expect_error(suite, SCENARIO, "", "malformed YAML", "unhashable key", only=True)


def test_file_that_is_not_utf8(suite: Path) -> None:
    (suite / SCENARIO).write_bytes("id: r\xe9schedule\n".encode("latin-1"))
    expect_error(suite, SCENARIO, "", "cannot read file", only=True)


@pytest.mark.parametrize(
    ("file", "old", "new", "path"),
    [
        (SCENARIO, "difficulty: easy", "difficulty: easy\nmood: calm", "mood"),
        (
            SCENARIO,
            "      cue: [help, hello]",
            "      cue: [help, hello]\n      sya: hi",
            "caller.plan[0].sya",
        ),
        (
            SCENARIO,
            "    weight: 3\n",
            "    weight: 3\n    weigth: 2\n",
            "expected_actions[1].weigth",
        ),
        (
            AGENT,
            "    ends_call: true",
            "    ends_call: true\n    end_call: true",
            "tools[2].end_call",
        ),
        (
            SUITE,
            "title: a minimal suite for tests",
            "title: a minimal suite for tests\ntitel: oops",
            "titel",
        ),
    ],
    ids=["scenario-top", "plan-step", "expected-action", "agent-tool", "suite"],
)
def test_unknown_key(suite: Path, file: str, old: str, new: str, path: str) -> None:
    replace(suite, file, old, new)
    p = expect_error(suite, file, path, "unknown key", only=True)
    assert p.line is not None


@pytest.mark.parametrize(
    ("file", "old", "new", "path", "word"),
    [
        (
            SCENARIO,
            "    weight: 2\n  - id: move",
            "    weight: heavy\n  - id: move",
            "expected_actions[0].weight",
            "integer",
        ),
        (
            SCENARIO,
            "    weight: 3",
            "    weight: 7",
            "expected_actions[1].weight",
            "less than or equal to 3",
        ),
        (SCENARIO, "tags: [ordering]", "tags: ordering", "tags", "list"),
        (
            SCENARIO,
            "difficulty: easy",
            "difficulty: trivial",
            "difficulty",
            "'easy', 'medium' or 'hard'",
        ),
        (
            SCENARIO,
            "datetime: 2026-11-12T10:00:00+00:00",
            "datetime: next tuesday",
            "caller.datetime",
            "datetime",
        ),
        (
            SCENARIO,
            "count: { exactly: 1 }\n    after",
            "count: { exactly: 1, min: 1 }\n    after",
            "expected_actions[1].count",
            "either 'exactly'",
        ),
        (AGENT, "    ends_call: true", "    ends_call: sometimes", "tools[2].ends_call", "boolean"),
        (SUITE, 'version: "1"', "version: 1.10", "version", "string"),
    ],
    ids=[
        "weight-not-int",
        "weight-too-big",
        "tags-not-list",
        "difficulty-literal",
        "datetime",
        "count",
        "ends-call-bool",
        "version-float",
    ],
)
def test_wrong_type(suite: Path, file: str, old: str, new: str, path: str, word: str) -> None:
    replace(suite, file, old, new)
    expect_error(suite, file, path, word, only=True)


@pytest.mark.parametrize(
    ("old", "new", "path", "words"),
    [
        ("  kind: queue", "  kinds: queue", "backend.kind", ["required field is missing"]),
        (
            "  kind: queue",
            "  kind: database",
            "backend.kind",
            ["'database' is not one of", "queue"],
        ),
        (
            "kind: split,",
            "kind: splat,",
            "channel.events[0].kind",
            ["'splat' is not one of", "substitute"],
        ),
    ],
    ids=["missing", "unknown", "channel-event"],
)
def test_kind_of_tagged_block(suite: Path, old: str, new: str, path: str, words: list[str]) -> None:
    replace(suite, SCENARIO, old, new)
    expect_error(suite, SCENARIO, path, *words, only=True)


def test_missing_required_field(suite: Path) -> None:
    replace(suite, SCENARIO, "      meaning: Thursday\n", "")
    expect_error(suite, SCENARIO, "caller.plan[2].meaning", "required field is missing", only=True)


def test_top_level_not_a_mapping(suite: Path) -> None:
    (suite / SCENARIO).write_text("- id: reschedule\n", encoding="utf-8")
    expect_error(suite, SCENARIO, "", "expected a mapping at the top level", only=True)


def test_missing_instructions_file(suite: Path) -> None:
    (suite / INSTRUCTIONS).unlink()
    expect_error(
        suite, AGENT, "instructions", "instructions file 'instructions.md' not found", only=True
    )


def test_missing_suite_yaml(suite: Path) -> None:
    (suite / SUITE).unlink()
    expect_error(suite, SUITE, "", "file not found", only=True)


def test_missing_agent_yaml(suite: Path) -> None:
    (suite / AGENT).unlink()
    expect_error(suite, AGENT, "", "file not found", only=True)


def test_broken_agent_does_not_cascade_into_its_scenarios(suite: Path) -> None:
    replace(suite, AGENT, "direction: inbound", "direction: sideways")
    expect_error(suite, AGENT, "direction", "'inbound' or 'outbound'", only=True)


@pytest.mark.parametrize(
    "text", ["", "\n\n", "# only a comment\n"], ids=["empty", "blank", "comment"]
)
def test_empty_file(suite: Path, text: str) -> None:
    (suite / SCENARIO).write_text(text, encoding="utf-8")
    expect_error(suite, SCENARIO, "", "file is empty", only=True)


def test_stray_scenario_file_is_not_silently_ignored(suite: Path) -> None:
    shutil.copy(suite / SCENARIO, suite / "scenarios/parcel-desk/other.yml")
    expect_error(suite, "scenarios/parcel-desk/other.yml", "", "not a scenario file", only=True)


def test_duplicate_key_names_path_and_line(suite: Path) -> None:
    replace(suite, SCENARIO, "difficulty: easy", "difficulty: easy\ndifficulty: hard")
    p = expect_error(suite, SCENARIO, "difficulty", "duplicate key 'difficulty'", only=True)
    assert p.line == 5


def test_nested_duplicate_key(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        'knows: { tracking_id: "SP-0412", name: Ana }',
        'knows: { tracking_id: "SP-0412", name: Ana, name: Bo }',
    )
    expect_error(suite, SCENARIO, "caller.knows.name", "duplicate key 'name'", only=True)


def test_yaml_1_1_traps_stay_strings(suite: Path) -> None:
    replace(
        suite,
        SCENARIO,
        'knows: { tracking_id: "SP-0412", name: Ana }',
        'knows: { tracking_id: "SP-0412", name: Ana, pin: 0412, country: NO, answer: no, ok: yes, '
        "light: on, n: 12, t: true }",
    )
    result = check(suite)
    assert result.errors == []
    knows = result.suite.scenarios["reschedule"].caller.knows
    assert knows["pin"] == "0412"
    assert (
        knows["country"] == "NO"
        and knows["answer"] == "no"
        and knows["ok"] == "yes"
        and knows["light"] == "on"
    )
    assert knows["n"] == 12 and knows["t"] is True


def test_unquoted_dates_stay_strings(suite: Path) -> None:
    """A date in a tool result must reach JSON tool results and traces; as a `date` object it
    crashed the reference check."""
    replace(
        suite,
        SCENARIO,
        "respond: { status: rescheduled }",
        "respond: { status: rescheduled, on: 2026-11-19 }",
    )
    replace(
        suite,
        SCENARIO,
        "hidden: { parcel_status: in_transit }",
        "hidden: { parcel_status: in_transit, since: 2026-11-10 }",
    )
    result = check(suite)
    assert result.problems == []
    scenario = result.suite.scenarios["reschedule"]
    assert scenario.backend.hidden["since"] == "2026-11-10"
    assert scenario.backend.queues["reschedule_delivery"][0].respond["on"] == "2026-11-19"
    assert (
        scenario.caller.datetime.isoformat() == "2026-11-12T10:00:00+00:00"
    )  # typed fields still parse


@pytest.mark.parametrize(
    ("value", "kind"),
    [("!!binary aGVsbG8=", "bytes"), ("!!timestamp 2026-11-19", "date"), ("!!set {a, b}", "set")],
)
def test_explicit_tags_that_json_cannot_hold(suite: Path, value: str, kind: str) -> None:
    replace(
        suite,
        SCENARIO,
        "respond: { status: rescheduled }",
        f"respond: {{ status: rescheduled, extra: {value} }}",
    )
    p = expect_error(
        suite,
        SCENARIO,
        "backend.queues.reschedule_delivery[0].respond.extra",
        f"a {kind} value is not allowed",
        only=True,
    )
    assert p.line == 38


def test_scenario_id_must_match_file_name(suite: Path) -> None:
    replace(suite, SCENARIO, "id: reschedule\n", "id: reschedule-two\n")
    expect_error(
        suite, SCENARIO, "id", "'reschedule-two' must equal the file name 'reschedule'", only=True
    )


def test_agent_id_must_match_folder_name(suite: Path) -> None:
    replace(suite, AGENT, "id: parcel-desk", "id: parcel-counter")
    expect_error(suite, AGENT, "id", "'parcel-counter' must equal the folder name 'parcel-desk'")


def test_language_not_in_suite(suite: Path) -> None:
    replace(suite, SCENARIO, "language: en", "language: fr")
    expect_error(suite, SCENARIO, "language", "'fr' is not one of the suite's languages")


# --- every problem at once -------------------------------------------------------------------


def test_all_problems_are_reported_at_once(suite: Path) -> None:
    replace(suite, SCENARIO, "after: [lookup]", "after: [lookupp]")
    replace(suite, SCENARIO, EXCERPT, 'excerpts: ["Not in the instructions."]')
    replace(suite, AGENT, "    success: { path: status, equals: ended }\n", "")
    errors = check(suite).errors
    assert {(p.file, p.path) for p in errors} == {
        (SCENARIO, "expected_actions[1].after[0]"),
        (SCENARIO, "criteria[0].excerpts[0]"),
        (AGENT, "tools[2].success"),
    }


def test_all_parse_problems_are_reported_at_once(suite: Path) -> None:
    replace(
        suite,
        SUITE,
        "title: a minimal suite for tests",
        "title: a minimal suite for tests\ntitel: oops",
    )
    replace(suite, SCENARIO, "tags: [ordering]", "tags: [ordering")
    errors = check(suite).errors
    assert [(p.file, p.path) for p in errors] == [(SUITE, "titel"), (SCENARIO, "")]


# --- the CLI ----------------------------------------------------------------------------------


def run_cli(*args: str):
    return CliRunner().invoke(app, ["validate", *args])


def test_cli_ok_on_valid_suite(suite: Path) -> None:
    result = run_cli(str(suite))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: suite 'mini'")
    assert "Traceback" not in result.output


def test_cli_lists_every_problem_and_exits_1(suite: Path) -> None:
    replace(suite, SCENARIO, "after: [lookup]", "after: [lookupp]")
    replace(
        suite,
        SCENARIO,
        MOVE_ARGS,
        '    args: { tracking_id: { eq: "SP-0412" }, day: { range: { min: 1 } } }',
    )
    result = run_cli(str(suite))
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert any(
        line.startswith(f"{SCENARIO}:")
        and ": expected_actions[1].after[0]: 'lookupp' is neither an expected action nor a plan "
        "step"
        in line
        for line in lines
    ), result.stderr
    assert any(
        line.startswith(f"{SCENARIO}:")
        and ": expected_actions[1].args.day: matcher 'range' cannot apply to a string parameter"
        in line
        for line in lines
    ), result.stderr
    assert lines[-1] == "2 error(s), 0 warning(s)"


@pytest.mark.parametrize(
    ("file", "old", "new"),
    [
        (SCENARIO, "tags: [ordering]", "tags: [ordering"),
        (SCENARIO, "difficulty: easy", "difficulty: easy\ndifficulty: hard"),
        (AGENT, "    ends_call: true", "    ends_call: sometimes"),
        (AGENT, "attempts: { type: integer }", "attempts: { type: integr }"),
    ],
    ids=["malformed", "duplicate-key", "wrong-type", "bad-schema"],
)
def test_cli_never_prints_a_traceback(suite: Path, file: str, old: str, new: str) -> None:
    replace(suite, file, old, new)
    result = run_cli(str(suite))
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert any(line.startswith(file) for line in result.stderr.splitlines()), result.stderr


def test_cli_missing_file(suite: Path) -> None:
    (suite / INSTRUCTIONS).unlink()
    result = run_cli(str(suite))
    assert result.exit_code == 1
    assert (
        f"{AGENT}:5: instructions: instructions file 'instructions.md' not found or unreadable"
        in result.stderr
    )


def test_cli_nonexistent_path(tmp_path: Path) -> None:
    result = run_cli(str(tmp_path / "nowhere"))
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert result.stderr.startswith("error: no suite folder at")
    assert len(result.stderr.strip().splitlines()) == 1
