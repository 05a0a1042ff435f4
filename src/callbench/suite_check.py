"""Loading a suite for use: parse, validate every rule, and prove each reference solution passes.

`check_suite` reports everything (errors and warnings) for `callbench validate`;
`load_suite` is what a run uses, and refuses a suite with any error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import Problem, SuiteError
from .grading.spoken_langs import TABLES, table_for
from .recital_check import recital_problems
from .reference_check import reference_problems
from .spec import Suite, load_suite_files, validate_suite
from .spec.yamlio import YamlDocument
from .suites import locate


@dataclass
class SuiteCheck:
    suite: Suite | None
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.level == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.level != "error"]


def check_suite(suite: str | Path | None = None) -> SuiteCheck:
    root = locate(suite)
    loaded, problems, docs = load_suite_files(root)
    if loaded is None:
        return SuiteCheck(None, problems)
    problems += validate_suite(loaded, docs)
    problems += spoken_language_problems(loaded, docs)
    if not any(p.level == "error" for p in problems):
        problems += recital_problems(loaded, docs)
    if not any(p.level == "error" for p in problems):
        problems += reference_problems(loaded, docs)
    return SuiteCheck(loaded, problems)


def spoken_language_problems(suite: Suite, docs: dict[str, YamlDocument]) -> list[Problem]:
    """A scenario with spoken checks in a language the spoken-value parser has no tables for is an
    error: its checks would read no number word, date or currency in its language, and fail (or,
    for a `not_state` guard, pass) without saying why."""
    out: list[Problem] = []
    for sid, sc in suite.scenarios.items():
        if not sc.spoken_checks or table_for(sc.language) is not None:
            continue
        label = suite.scenario_files[sid]
        doc = docs.get(label)
        out.append(
            Problem(
                label,
                "language",
                f"scenario '{sid}' has {len(sc.spoken_checks)} spoken check(s) "
                f"(spoken_checks[0] is '{sc.spoken_checks[0].id}') in language '{sc.language}', "
                "for which the spoken-value parser has no tables (it reads "
                f"{', '.join(sorted(TABLES))}): add a table under "
                "callbench/grading/spoken_langs, or remove the spoken checks",
                doc.line_of(("language",)) if doc else None,
            )
        )
    return out


def load_suite(suite: str | Path | None = None) -> Suite:
    """The suite, fully validated; raises SuiteError listing every error."""
    result = check_suite(suite)
    if result.errors or result.suite is None:
        raise SuiteError(result.errors or [Problem(str(suite), "", "suite could not be loaded")])
    return result.suite


__all__ = ["SuiteCheck", "check_suite", "load_suite", "spoken_language_problems"]
