"""Reports built from stored results only."""

from .report import REPORT_SCHEMA_VERSION, build_report
from .summary import COVERAGE_FLOOR, candidate_summary

__all__ = ["COVERAGE_FLOOR", "REPORT_SCHEMA_VERSION", "build_report", "candidate_summary"]
