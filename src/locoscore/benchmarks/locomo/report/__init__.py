"""LoCoMo's report of a results folder: the analysis (scores, intervals, per category,
verified gold), its tables, sections and figures, and the build of report.md/html and
scores.csv (rendered by `locoscore.report`'s renderers).

Names are loaded on first use (PEP 562): importing a light submodule does not import NumPy
through this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from locoscore.benchmarks.locomo.report.analysis import Analysis, analyse
    from locoscore.benchmarks.locomo.report.build import build_reports
    from locoscore.benchmarks.locomo.report.load import Results, load_results
    from locoscore.benchmarks.locomo.report.sections import format_full_report
    from locoscore.benchmarks.locomo.report.tables import (
        format_f1_comparison_table,
        format_judge_comparison_table,
        format_latency_comparison_table,
    )
    from locoscore.stats import LatencyStats

_HOMES = {
    "Analysis": "locoscore.benchmarks.locomo.report.analysis",
    "analyse": "locoscore.benchmarks.locomo.report.analysis",
    "build_reports": "locoscore.benchmarks.locomo.report.build",
    "Results": "locoscore.benchmarks.locomo.report.load",
    "load_results": "locoscore.benchmarks.locomo.report.load",
    "format_full_report": "locoscore.benchmarks.locomo.report.sections",
    "format_f1_comparison_table": "locoscore.benchmarks.locomo.report.tables",
    "format_judge_comparison_table": "locoscore.benchmarks.locomo.report.tables",
    "format_latency_comparison_table": "locoscore.benchmarks.locomo.report.tables",
    "LatencyStats": "locoscore.stats",
}

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(
            f"module 'locoscore.benchmarks.locomo.report' has no attribute {name!r}"
        )
    return getattr(importlib.import_module(home), name)
