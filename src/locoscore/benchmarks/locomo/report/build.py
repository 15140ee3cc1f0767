"""`locoscore report DIR`: rebuild report.md, report.html, scores.csv and summary.json.

Everything is computed before anything is written, and each file is written atomically, so a
failure leaves the folder as it was.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from locoscore._io import dumps_json, sha256_file, write_text_atomic
from locoscore._version import __version__
from locoscore.benchmarks.locomo.data.errata import SCORE_CHANGING, Errata
from locoscore.benchmarks.locomo.report import analysis as an
from locoscore.benchmarks.locomo.report.analysis import (
    Analysis,
    CellStats,
    MetricStats,
    VerifiedGoldView,
)
from locoscore.benchmarks.locomo.report.audit_view import audit_summary
from locoscore.benchmarks.locomo.report.headline import report_title
from locoscore.benchmarks.locomo.report.load import load_results
from locoscore.benchmarks.locomo.report.sections import full_report_blocks
from locoscore.claim.benchmark import ClaimedBenchmark
from locoscore.claim.refresh import recorded_claim
from locoscore.claim.render import card_blocks
from locoscore.generic.metric_stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from locoscore.report.csv import scores_csv
from locoscore.report.document import Figure
from locoscore.report.html import render_html
from locoscore.report.markdown import render_markdown
from locoscore.results.layout import REPORT_HTML, REPORT_MD, SCORES, SCORES_CSV, SUMMARY
from locoscore.stats import Interval

REPORT_SCHEMA_VERSION = 1
# scores.csv: these first (those the rows have), then every other field sorted
CSV_LEADING_COLUMNS = (
    "sample_id",
    "qa_index",
    "category",
    "category_name",
    "question",
    "answer",
    "prediction",
    "f1_locomo",
    "f1_mem0",
    "bleu1_mem0",
    "f1_spec",
    "j_mean",
    "j_std",
    "j_runs",
    "j_failures",
    "j_protocol",
    "j_scores",
    "search_latency_s",
    "total_latency_s",
    "context_tokens",
)


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


def _metrics(metrics: list[MetricStats]) -> dict[str, Any]:
    return {
        ms.metric.column: {
            "protocol": ms.metric.protocol,
            "overall_includes_adversarial": ms.overall_includes_excluded,
            "overall": _cell(ms.overall),
            "by_category": {str(cid): _cell(c) for cid, c in ms.by_category.items()},
        }
        for ms in metrics
    }


def _verified_gold(view: VerifiedGoldView) -> dict[str, Any]:
    """`report.verified_gold`: the same `metrics` schema, on the questions whose gold stands."""
    return {
        "view": "questions whose gold answer stands: errata types "
        + ", ".join(SCORE_CHANGING)
        + " excluded; WRONG_CITATION kept",
        "errata_sha256": view.errata.sha256,
        "errata_source": view.errata.source,
        "questions": view.questions,
        "excluded": view.excluded,
        "excluded_by_category": {str(c): n for c, n in view.excluded_by_category.items()},
        "ceiling": view.ceilings.to_dict(),
        "metrics": _metrics(view.metrics),
    }


def statistics_section(a: Analysis) -> dict[str, Any]:
    """The `report` key of summary.json (schema documented in the README)."""
    scores = a.results.path / SCORES
    section: dict[str, Any] = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "built_by": f"locoscore {__version__}",
        "computed_from": {"scores_sha256": sha256_file(scores)},
        "scale": "F1 and BLEU-1 x100, J 0-100",
        "intervals": {
            "level": 0.95,
            "bootstrap": {
                "resamples": BOOTSTRAP_RESAMPLES,
                "seed": BOOTSTRAP_SEED,
                "unit": "question",
                "method": "percentile",
            },
            "clustered": {"unit": "conversation (sample_id)", "method": "CR1 SE, t(G-1)"},
        },
        "metrics": _metrics(a.metrics),
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
    if a.verified is not None:
        section["verified_gold"] = _verified_gold(a.verified)
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
    """The folder's rows; with errata, each also names its gold error type (empty if none)."""
    if a.verified is None:
        return a.results.rows
    flags = a.verified.errata
    return [{**row, "gold_error": flags.error_type(row)} for row in a.results.rows]


@dataclass(frozen=True)
class BuiltReports:
    paths: list[Path]
    analysis: Analysis


def build_reports(
    directory: Path,
    bench: ClaimedBenchmark,
    paper_columns: bool = False,
    svg_dir: Path | None = None,
    errata: Errata | None = None,
    compare_anyway: bool = False,
) -> BuiltReports:
    """Rebuild every report file in `directory` from its saved results (and the claim
    card in summary.json).

    `errata` (re)records the gold errata in summary.json; without it, errata recorded
    earlier still give the verified-gold view. `bench`: the LoCoMo benchmark whose folder it
    is, which the claim card asks (the caller's, so this part never imports its package face).
    """
    results = load_results(directory)
    if errata is not None:
        results = replace(results, summary={**results.summary, "errata": errata.summary_section()})
    analysis = an.analyse(results)
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
        directory / SCORES_CSV: scores_csv(_csv_rows(analysis), CSV_LEADING_COLUMNS),
        directory / SUMMARY: dumps_json(summary),
    }
    if svg_dir is not None:
        for block in blocks:
            if isinstance(block, Figure):
                outputs[svg_dir / f"{block.name}.svg"] = svg_file_text(block)
    for path, text in outputs.items():
        write_text_atomic(path, text)
    return BuiltReports(list(outputs), analysis)
