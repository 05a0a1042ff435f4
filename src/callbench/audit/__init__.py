"""`callbench audit`: the mechanical audits that make a suite, generated or written, trustworthy
beyond `callbench validate`.

Validate proves a suite runs and its reference passes; the audit asks whether a passing call means
what it should: every ordering constraint can be met, the caller's brief holds nothing only the
backend should know, every pinned argument reaches the agent somehow, criterion excerpts are
recorded by hash, scripted lines are short, no two scenarios are the same call, and no slice
dominates the suite. The gameability figure is attached by the command (it needs the sweep).

    report = audit_suite("starter")      # -> AuditReport
    report.errors, report.summary(), report.to_dict()
"""

from .core import audit_suite
from .findings import CHECKS, JSON_SCHEMA_VERSION, AuditReport, Finding

__all__ = ["CHECKS", "JSON_SCHEMA_VERSION", "AuditReport", "Finding", "audit_suite"]
