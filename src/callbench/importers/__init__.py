"""Importers: convert scenarios written for other benchmarks into callbench suites.

Every importer returns a report of what it converted, what it approximated and what it
dropped, per scenario, so nothing in the source is lost without saying so.
"""

from .openvoicecs import (
    ConversionReport,
    ImportFormatError,
    ScenarioConversion,
    convert_openvoicecs,
)

__all__ = ["ConversionReport", "ImportFormatError", "ScenarioConversion", "convert_openvoicecs"]
