"""Reports built from stored results only."""

from .model import Report, as_report, load_report, report_schema
from .report import REPORT_SCHEMA_VERSION, build_report, make_report, write_report
from .summary import COVERAGE_FLOOR, candidate_summary

__all__ = [
    "COVERAGE_FLOOR",
    "REPORT_SCHEMA_VERSION",
    "Report",
    "as_report",
    "build_report",
    "candidate_summary",
    "load_report",
    "make_report",
    "report_schema",
    "write_report",
]
