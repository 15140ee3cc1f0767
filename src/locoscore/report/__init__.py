"""Reports from a saved results folder: markdown, self-contained HTML with SVG charts, CSV, JSON.

Names are loaded on first use (PEP 562): importing a light submodule such as
`locoscore.report.spend` does not import NumPy through this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOMES = {
    "Analysis": "locoscore.report.analysis",
    "analyse": "locoscore.report.analysis",
    "build_reports": "locoscore.report.build",
    "Results": "locoscore.report.load",
    "load_results": "locoscore.report.load",
    "format_full_report": "locoscore.report.sections",
    "format_f1_comparison_table": "locoscore.report.tables",
    "format_judge_comparison_table": "locoscore.report.tables",
    "format_latency_comparison_table": "locoscore.report.tables",
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
        raise AttributeError(f"module 'locoscore.report' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
