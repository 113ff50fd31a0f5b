"""Compatibility: the report writers moved to ``verifier.writers`` (``json`` and ``table``)."""

from verifier.writers.json import jsonable, report_to_dict
from verifier.writers.table import print_report, print_totals

__all__ = ["jsonable", "print_report", "print_totals", "report_to_dict"]
