"""Loading a suite for use: parse, validate every rule, and prove each reference solution passes.

`check_suite` reports everything (errors and warnings) for `callbench validate`;
`load_suite` is what a run uses, and refuses a suite with any error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import Problem, SuiteError
from .recital_check import recital_problems
from .reference_check import reference_problems
from .spec import Suite, load_suite_files, validate_suite
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
    if not any(p.level == "error" for p in problems):
        problems += recital_problems(loaded, docs)
    if not any(p.level == "error" for p in problems):
        problems += reference_problems(loaded, docs)
    return SuiteCheck(loaded, problems)


def load_suite(suite: str | Path | None = None) -> Suite:
    """The suite, fully validated; raises SuiteError listing every error."""
    result = check_suite(suite)
    if result.errors or result.suite is None:
        raise SuiteError(result.errors or [Problem(str(suite), "", "suite could not be loaded")])
    return result.suite


__all__ = ["SuiteCheck", "check_suite", "load_suite"]
