"""Reports from a saved results folder: markdown, self-contained HTML with SVG charts, CSV, JSON."""

from locoscore.report.analysis import Analysis, analyse
from locoscore.report.build import build_reports
from locoscore.report.load import Results, load_results
from locoscore.report.sections import format_full_report
from locoscore.report.tables import (
    format_f1_comparison_table,
    format_judge_comparison_table,
    format_latency_comparison_table,
)
from locoscore.stats import LatencyStats

__all__ = [
    "Analysis",
    "LatencyStats",
    "Results",
    "analyse",
    "build_reports",
    "format_f1_comparison_table",
    "format_full_report",
    "format_judge_comparison_table",
    "format_latency_comparison_table",
    "load_results",
]
