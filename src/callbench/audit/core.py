"""`audit_suite`: every audit of a suite in one pass, as an `AuditReport`."""

from __future__ import annotations

from pathlib import Path

from ..errors import Problem
from ..recital_check import recital_problems
from ..reference_check import reference_problems
from ..spec import load_suite_files, validate_suite
from ..suites import locate
from .corpus import balance, duplicates
from .findings import AuditReport, Finding
from .pinned import oracle_traces, pinned_arguments
from .scenario_checks import adder, caller_lines, dependencies, excerpt_hashes, isolation


def _label(problem: Problem) -> str:
    """Which audit a `validate` problem belongs to: ordering constraints are dependencies, criterion
    excerpts are excerpts, the rest is the suite's schema and references."""
    path = problem.path
    if path.startswith("expected_actions") and (".after" in path or "cycle" in problem.message):
        return "dependencies"
    if ".excerpts" in path:
        return "excerpts"
    return "schema"


def _finding(check: str, p: Problem) -> Finding:
    return Finding(
        check, p.level if p.level == "error" else "warning", p.file, p.path, p.message, p.line
    )


def audit_suite(suite: str | Path | None = None, *, oracle: bool = True) -> AuditReport:
    """Audit a suite folder or built-in suite id.

    Runs what `callbench validate` runs (`suite_check.check_suite`: schema, references, matcher
    types, excerpts, recital, reference solutions played by the oracle), each problem labelled by
    the check it belongs to, then the audit's own checks. `oracle=False` skips everything that
    plays a call (the reference proof and the pinned-argument check), for a quick look.
    The gameability figure needs the sweep, which sits above this package: the caller runs
    `gameability.measure` and attaches it with `AuditReport.add_gameability`.
    """
    root = locate(suite)
    loaded, problems, docs = load_suite_files(root)
    report = AuditReport(suite=loaded.id if loaded else str(suite), root=str(root), sha256=None)
    report.skipped["gameability"] = "not measured (callbench audit --gameability)"
    if loaded is None:
        report.findings += [_finding("schema", p) for p in problems]
        for check in ("recital", "reference", "dependencies", "isolation", "pinned_arguments"):
            report.skipped[check] = "the suite did not load"
        return report
    report.sha256 = loaded.sha256
    problems += validate_suite(loaded, docs)
    report.findings += [_finding(_label(p), p) for p in problems]
    schema_ok = not any(p.level == "error" for p in problems)
    # the same order and gates as check_suite: a recital or a replay of a broken suite means little
    if schema_ok:
        recital = recital_problems(loaded, docs)
        report.findings += [_finding("recital", p) for p in recital]
        if oracle and not any(p.level == "error" for p in recital):
            report.findings += [_finding("reference", p) for p in reference_problems(loaded, docs)]
        elif oracle:
            report.skipped["reference"] = "recital errors (validate stops there too)"
        report.checked["recital"] = report.checked["reference"] = len(loaded.scenarios)
    else:
        report.skipped["recital"] = report.skipped["reference"] = "the suite has schema errors"
    if not oracle:
        report.skipped["reference"] = report.skipped["pinned_arguments"] = "oracle not played"
    report.checked["schema"] = len(loaded.scenarios) + len(loaded.agents)

    broken = {p.file for p in problems if p.level == "error"}
    playable = [sid for sid, label in loaded.scenario_files.items() if label not in broken]
    traces = oracle_traces(loaded, playable) if oracle else {}
    for check in ("dependencies", "isolation", "caller_lines", "excerpts", "pinned_arguments"):
        report.checked.setdefault(check, 0)
    for sid, sc in loaded.scenarios.items():
        label = loaded.scenario_files[sid]
        doc = docs.get(label)
        report.checked["dependencies"] += dependencies(
            sc, adder(report.findings, "dependencies", label, doc)
        )
        report.checked["isolation"] += isolation(
            sc, adder(report.findings, "isolation", label, doc)
        )
        report.checked["caller_lines"] += caller_lines(
            sc, adder(report.findings, "caller_lines", label, doc)
        )
        rows = excerpt_hashes(loaded, sid, label)
        report.excerpt_hashes += rows
        report.checked["excerpts"] += len(rows)
        if sid in traces:
            report.checked["pinned_arguments"] += pinned_arguments(
                loaded, sid, traces[sid], adder(report.findings, "pinned_arguments", label, doc)
            )
    if oracle and len(playable) < len(loaded.scenarios):
        report.skipped["pinned_arguments"] = (
            f"{len(loaded.scenarios) - len(playable)} scenario(s) with schema errors not played"
        )
    found, pairs = duplicates(loaded)
    report.findings += found
    report.checked["duplicates"] = pairs
    report.balance, slanted = balance(loaded)
    report.findings += slanted
    report.checked["balance"] = len(loaded.scenarios)
    return report
