"""What an audit found: one `Finding` per defect (check, level, file, line, field path), and the
`AuditReport` that gathers them with a summary per check, for the terminal table and for CI JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

CHECKS: tuple[str, ...] = (
    "schema",
    "recital",
    "reference",
    "dependencies",
    "isolation",
    "pinned_arguments",
    "excerpts",
    "caller_lines",
    "duplicates",
    "balance",
    "gameability",
)
"""Every check in the order they run and are printed. `schema`, `recital` and `reference` are
`callbench validate` (`suite_check.check_suite`) labelled by what they found; the rest are the
audit's own."""

JSON_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Finding:
    check: str
    level: str
    """'error' (the suite is not trustworthy as it stands) or 'warning' (worth a look)."""
    file: str
    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        field_path = f" {self.path}:" if self.path else ""
        return f"{self.level}: [{self.check}] {where}:{field_path} {self.message}"


@dataclass
class AuditReport:
    suite: str
    root: str
    sha256: str | None
    findings: list[Finding] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)
    """How many items each check looked at (scenarios, actions, excerpts, pairs...), so a check
    that found nothing can be told from a check that saw nothing."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Checks that did not run, with why (e.g. the suite has schema errors, no --gameability)."""
    balance: dict[str, dict[str, int]] = field(default_factory=dict)
    """Counts per difficulty, language, agent and tag family (`requests-4` -> requests: 4)."""
    excerpt_hashes: list[dict[str, Any]] = field(default_factory=list)
    """One row per criterion excerpt: file, path, criterion, sha256 of the space-normalised text,
    and whether it occurs verbatim in the agent's instructions."""
    gameability: dict[str, Any] | None = None

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.level != "error"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def by_check(self, check: str) -> list[Finding]:
        return [f for f in self.findings if f.check == check]

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per check: errors, warnings, items checked and, when it did not run, why."""
        out: dict[str, dict[str, Any]] = {}
        for check in CHECKS:
            found = self.by_check(check)
            out[check] = {
                "errors": sum(f.level == "error" for f in found),
                "warnings": sum(f.level != "error" for f in found),
                "checked": self.checked.get(check, 0),
                "skipped": self.skipped.get(check),
            }
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": JSON_SCHEMA_VERSION,
            "suite": self.suite,
            "root": self.root,
            "sha256": self.sha256,
            "ok": self.ok,
            "counts": {"errors": len(self.errors), "warnings": len(self.warnings)},
            "summary": self.summary(),
            "findings": [asdict(f) for f in self.findings],
            "balance": self.balance,
            "excerpt_hashes": self.excerpt_hashes,
            "gameability": self.gameability,
        }

    def add_gameability(self, measured: dict[str, Any], limit: float) -> None:
        """Attach the figure from `gameability.measure` (run by the caller of the audit: the audit
        sits below the sweep it needs) and flag it when a script with no model earns more than
        `limit` above the noop."""
        self.gameability = {**measured, "limit": limit}
        self.skipped.pop("gameability", None)
        self.checked["gameability"] = len(measured.get("task", {}))
        figure = measured.get("figure")
        if figure is not None and figure > limit:
            worst = ", ".join(
                f"{r['scenario']} {r['above_noop']:+.1f}" for r in measured["worst_scenarios"]
            )
            self.findings.append(
                Finding(
                    "gameability",
                    "error",
                    "suite.yaml",
                    "",
                    f"a script with no model earns {figure:.1f} above the noop on the task pillar "
                    f"(limit {limit:g}); most above the noop: {worst or 'none'}",
                )
            )
