"""`locoscore report DIR`: rebuild report.md, report.html, scores.csv and summary.json from
the benchmark's declared parts (`generic.report_parts`).

Everything is computed before anything is written, and each file is written atomically, so a
failure leaves the folder as it was.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from locoscore._io import dumps_json, sha256_file, write_text_atomic
from locoscore._version import __version__
from locoscore.claim.benchmark import ClaimedBenchmark
from locoscore.claim.refresh import recorded_claim
from locoscore.claim.render import card_blocks
from locoscore.generic.audit_view import audit_summary
from locoscore.generic.folder_analysis import Analysis, analyse
from locoscore.generic.metric_stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CellStats,
    MetricStats,
)
from locoscore.generic.report_opening import report_title
from locoscore.generic.report_parts import ReportParts
from locoscore.generic.report_sections import full_report_blocks
from locoscore.generic.scored_folder import load_results
from locoscore.report.csv import scores_csv
from locoscore.report.document import Figure
from locoscore.report.html import render_html
from locoscore.report.markdown import render_markdown
from locoscore.results.layout import REPORT_HTML, REPORT_MD, SCORES, SCORES_CSV, SUMMARY
from locoscore.stats import Interval

REPORT_SCHEMA_VERSION = 1


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _interval(ci: Interval) -> dict[str, Any]:
    """Bounds are null where undefined (a clustered interval needs two conversations)."""
    return {"low": _finite(ci.low), "high": _finite(ci.high), "se": _finite(ci.se)}


def _cell(cell: CellStats) -> dict[str, Any]:
    out: dict[str, Any] = {
        "n": cell.n,
        "mean": cell.mean,
        "ci95_bootstrap": _interval(cell.bootstrap),
        "ci95_clustered": _interval(cell.clustered),
    }
    if cell.run_std is not None:
        out["run_std"] = cell.run_std
    return out


def metrics_section(metrics: list[MetricStats], parts: ReportParts) -> dict[str, Any]:
    """Every metric's statistics, by column (summary.json's `report.metrics`)."""
    return {
        ms.metric.column: {
            "protocol": ms.metric.protocol,
            parts.includes_key: ms.overall_includes_excluded,
            "overall": _cell(ms.overall),
            "by_category": {str(cid): _cell(c) for cid, c in ms.by_category.items()},
        }
        for ms in metrics
    }


def statistics_section(a: Analysis) -> dict[str, Any]:
    """The `report` key of summary.json (schema documented in the README)."""
    scores = a.results.path / SCORES
    section: dict[str, Any] = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "built_by": f"locoscore {__version__}",
        "computed_from": {"scores_sha256": sha256_file(scores)},
        "scale": a.parts.folder.scales,
        "intervals": {
            "level": 0.95,
            "bootstrap": {
                "resamples": BOOTSTRAP_RESAMPLES,
                "seed": BOOTSTRAP_SEED,
                "unit": "question",
                "method": "percentile",
            },
            "clustered": {"unit": a.parts.cluster_unit, "method": "CR1 SE, t(G-1)"},
        },
        "metrics": metrics_section(a.metrics, a.parts),
        "latency": {name: asdict(lat) for name, lat in a.latency.items()},
    }
    if a.rows_sample is not None or a.judge_sample is not None:
        # which numbers are a subset: the folder's questions (run --limit) or only J
        section["sample"] = {
            "questions": (a.rows_sample or {}).get("signature"),
            "j": (a.judge_sample or a.rows_sample or {}).get("signature"),
        }
    if (audit := audit_summary(a)) is not None:
        section["audit"] = audit
    if a.answer_lengths is not None:
        section["answer_length"] = a.answer_lengths.to_dict()
    if a.view is not None and a.parts.view is not None:
        section[a.parts.view.key] = a.view.summary()
    if a.judge is not None:
        j = a.judge
        section["judge"] = {
            "per_run_means": j.run_level.per_run_means,
            "run_level_mean": j.run_level.mean,
            "run_level_std": j.run_level.std,
            "pooled_within_question_std": j.pooled_within_std,
            "unanimity": j.unanimity,
            "agreement": {"name": j.agreement_name, "value": j.agreement},
            "runs_attempted": j.runs_attempted,
            "runs_failed": j.runs_failed,
        }
    return section


def svg_file_text(figure: Figure) -> str:
    """A standalone .svg: the inline markup plus the SVG namespace."""
    return figure.svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1) + "\n"


def _csv_rows(a: Analysis) -> list[dict[str, Any]]:
    """The folder's rows; with the declared view, each also names its flag (empty if none)."""
    view, parts = a.view, a.parts.view
    if view is None or parts is None:
        return a.results.rows
    return [{**row, parts.flag_column: view.flag(row)} for row in a.results.rows]


@dataclass(frozen=True)
class BuiltReports:
    paths: list[Path]
    analysis: Analysis


def build_reports(
    directory: Path,
    bench: ClaimedBenchmark,
    parts: ReportParts,
    paper_columns: bool = False,
    svg_dir: Path | None = None,
    recorded: Mapping[str, Any] | None = None,
    compare_anyway: bool = False,
) -> BuiltReports:
    """Rebuild every report file in `directory` from its saved results (and the claim
    card in summary.json).

    `recorded` (re)records sections of summary.json first (the gold errata the declared
    view reads); without it, those recorded earlier still give the view. `bench`: the
    benchmark whose folder it is, which the claim card asks (the caller's, so this part
    never imports its package face).
    """
    results = load_results(directory, parts.folder)
    if recorded:
        results = replace(results, summary={**results.summary, **recorded})
    analysis = analyse(results, parts)
    blocks = full_report_blocks(analysis, paper_columns, compare_anyway)
    title = report_title(analysis)
    summary = dict(results.summary)
    summary["report"] = statistics_section(analysis)
    # the claim card reads the folder as it now stands (errata and report recorded), and
    # is the report's first box, under its title
    write_text_atomic(directory / SUMMARY, dumps_json(summary))
    summary["claim"] = recorded_claim(directory, bench)
    blocks = [*blocks[:1], *card_blocks(summary["claim"]), *blocks[1:]]
    outputs: dict[Path, str] = {
        directory / REPORT_MD: render_markdown(blocks),
        directory / REPORT_HTML: render_html(blocks, title),
        directory / SCORES_CSV: scores_csv(_csv_rows(analysis), parts.csv_columns),
        directory / SUMMARY: dumps_json(summary),
    }
    if svg_dir is not None:
        for block in blocks:
            if isinstance(block, Figure):
                outputs[svg_dir / f"{block.name}.svg"] = svg_file_text(block)
    for path, text in outputs.items():
        write_text_atomic(path, text)
    return BuiltReports(list(outputs), analysis)
