import pytest
from pydantic import TypeAdapter, ValidationError

from callbench.spec import MISSING, Matcher, evaluate, evaluate_args, type_problems

M = TypeAdapter(Matcher)


def ev(spec, actual, resolve=lambda v: v):
    return evaluate(M.validate_python(spec), actual, "x", resolve)


@pytest.mark.parametrize(
    "spec,actual,ok",
    [
        ({"eq": "evening"}, "evening", True),
        ({"eq": "evening"}, "Evening", False),
        ({"eq": 1}, True, False),  # a boolean is never equal to 1
        ({"eq": 3}, 3.0, True),
        ({"present": True}, MISSING, False),
        ({"present": True}, None, False),
        ({"present": True}, "", True),
        ({"absent": True}, MISSING, True),
        ({"absent": True}, 0, False),
        ({"one_of": ["a", "b"]}, "b", True),
        ({"one_of": ["a", "b"]}, "c", False),
        ({"range": {"min": 1, "max": 5}}, 5, True),
        ({"range": {"min": 1, "max": 5}}, 5.01, False),
        ({"range": {"min": 1}}, "3", False),
        ({"regex": "^SP-\\d{4}$"}, "SP-0412", True),
        ({"regex": "^SP-\\d{4}$"}, 412, False),
        ({"contains": "t2"}, ["t1", "t2"], True),
        ({"contains": ["t1", "t3"]}, ["t1", "t2"], False),
        ({"subset": {"a": 1}}, {"a": 1, "b": 2}, True),
        ({"subset": {"a": 1}}, {"a": 2}, False),
        ({"all": [{"present": True}, {"regex": "^a"}]}, "abc", True),
        ({"any": [{"eq": 1}, {"eq": 2}]}, 3, False),
        ({"not": {"eq": 0}}, 0, False),
        ({"not": {"eq": 0}}, 1, True),
    ],
)
def test_matcher_semantics(spec, actual, ok):
    assert ev(spec, actual).ok is ok


def test_failed_result_says_what_was_compared_and_why():
    r = ev({"range": {"min": 10}}, 3)
    assert (r.ok, r.matcher, r.path, r.actual, r.reason) == (False, "range", "x", 3, "below min")
    r = ev({"eq": "a"}, MISSING)
    assert r.reason == "value is missing" and r.actual == "<missing>"


def test_templates_are_resolved_at_evaluation():
    assert ev(
        {"eq": "${hidden.c}"}, "ANAND-07", resolve=lambda v: "ANAND-07" if v == "${hidden.c}" else v
    ).ok


def test_unparseable_arguments_fail_every_matcher_but_absent():
    results = evaluate_args(
        {"a": M.validate_python({"eq": 1}), "b": M.validate_python({"absent": True})}, None
    )
    assert [r.ok for r in results] == [False, True]


@pytest.mark.parametrize(
    "bad",
    [
        {"foo": 1},
        {"eq": 1, "regex": "a"},
        {"regex": "("},
        {"range": {}},
        {"range": {"min": 5, "max": 1}},
        {"one_of": []},
        "eq",
    ],
)
def test_malformed_matchers_are_refused(bad):
    with pytest.raises(ValidationError):
        M.validate_python(bad)


def test_type_agreement_with_json_schema():
    assert type_problems(M.validate_python({"range": {"min": 1}}), {"type": "string"})
    assert type_problems(M.validate_python({"regex": "x"}), {"type": "integer"})
    assert type_problems(M.validate_python({"eq": "x"}), {"type": "integer"})
    assert type_problems(M.validate_python({"eq": "x"}), {"type": "string", "enum": ["y"]})
    assert type_problems(M.validate_python({"not": {"range": {"min": 1}}}), {"type": "string"})
    assert not type_problems(M.validate_python({"eq": 2}), {"type": "number"})
    assert not type_problems(M.validate_python({"contains": "x"}), {"type": "array"})
    assert not type_problems(M.validate_python({"present": True}), {"type": "object"})
