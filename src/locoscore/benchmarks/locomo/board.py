"""LoCoMo results folders as board rows, from the statistics its report writes.

The numbers are the folder's report statistics, computed by the code that writes
summary.json's `report` section (`generic.report_build.statistics_section`), so a board row always
equals the folder's own report. A folder whose summary.json records gold errata gives a
second row, on the questions whose gold stands (the verified-gold view). The headline is J
when judged, else the first lexical metric the folder has (`METRICS` order); the per-question
headline scores follow each protocol's own convention for adversarial questions, as
`locoscore compare` pairs them (exact differences, no rounding).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from locoscore.benchmarks.locomo.categories import ADVERSARIAL, CATEGORY_NAMES
from locoscore.benchmarks.locomo.metrics import METRICS, Metric
from locoscore.benchmarks.locomo.report_parts import analyse, load_results
from locoscore.errors import InputError
from locoscore.generic.errata_view import verified_of
from locoscore.generic.recorded_judge import recorded_judge
from locoscore.generic.report_build import statistics_section
from locoscore.generic.scored_folder import Results
from locoscore.results.board_row import (
    ALL_QUESTIONS,
    SHA_SHOWN,
    BoardCell,
    BoardMetric,
    BoardRow,
    RowFigures,
    dig,
)
from locoscore.results.folder import row_key
from locoscore.results.layout import SUMMARY

TYPE_WORD = "category"


def _cell(cell: dict[str, Any]) -> BoardCell:
    ci = cell.get("ci95_bootstrap") or {}
    n = cell.get("n")
    return BoardCell(cell.get("mean"), ci.get("low"), ci.get("high"), n if type(n) is int else None)


def _type_name(key: str) -> str:
    return CATEGORY_NAMES.get(int(key), key) if key.isdigit() else key


def _metric(metric: Metric, block: dict[str, Any]) -> BoardMetric:
    by_category = block.get("by_category") or {}
    return BoardMetric(
        metric.column,
        metric.label,
        _cell(block.get("overall") or {}),
        {_type_name(k): _cell(c or {}) for k, c in by_category.items()},
        decimals=metric.decimals,
    )


def _scores(results: Results, rows: list[dict[str, Any]], metric: Metric) -> dict[str, float]:
    """Question key -> the headline x its scale, on the questions its overall counts."""
    if metric.is_judge:
        includes = bool((results.judge or {}).get("include_adversarial", False))
    else:
        includes = metric.overall_includes_excluded
    return {
        row_key(r): float(r[metric.column]) * metric.scale
        for r in rows
        if r.get(metric.column) is not None and (includes or r["category"] != ADVERSARIAL)
    }


def _row(
    results: Results,
    rows: list[dict[str, Any]],
    view: str,
    metrics: dict[str, Any],
    section: dict[str, Any],
) -> BoardRow:
    summary = results.summary
    present = [m for m in METRICS if m.column in metrics]
    judged = [m for m in present if m.is_judge]
    ranked = judged or present
    ordered = [ranked[0], *(m for m in present if m != ranked[0])] if ranked else []
    measures = dig(summary, "run", "measures")
    failed = measures.get("failed") if isinstance(measures, dict) else None
    failed = failed if isinstance(failed, int) else None
    judge = results.judge.get("signature") if results.judge else None
    latency = section.get("latency") or {}
    figures = RowFigures(
        dig(latency, "context_tokens", "mean"),
        (dig(latency, "search_latency_s", "p50"), dig(latency, "search_latency_s", "p95")),
        (dig(latency, "total_latency_s", "p50"), dig(latency, "total_latency_s", "p95")),
        dig(section, "answer_length", "overall", "mean"),
    )
    lexical = sorted(
        (name, str(block.get("signature") if isinstance(block, dict) else None))
        for name, block in (summary.get("lexical") or {}).items()
    )
    return BoardRow(
        tuple(_metric(m, metrics[m.column]) for m in ordered),
        tuple(row_key(r) for r in rows),
        None if failed is None else len(rows) - failed,
        failed,
        _scores(results, rows, ordered[0]) if ordered else {},
        None if judge is None else str(judge),
        judge_run_std=dig(section, "judge", "run_level_std"),
        type_word=TYPE_WORD,
        view=view,
        lexical=tuple(lexical),
        figures=figures,
        recorded_j=dig(recorded_judge(summary), "overall", "mean"),
        recorded_metrics=metrics,
        paired_decimals=None,  # as `compare` pairs them
    )


def board_rows(directory: Path) -> list[BoardRow]:
    """All questions, and the verified-gold view when summary.json records gold errata.
    Bad input raises InputError naming the file."""
    results = load_results(directory)
    if not isinstance(results.summary.get("lexical", {}), dict):
        raise InputError("expected an object", file=str(directory / SUMMARY), field="lexical")
    analysis = analyse(results)
    section = statistics_section(analysis)
    found = [_row(results, results.rows, ALL_QUESTIONS, section["metrics"], section)]
    view = verified_of(analysis)
    if view is not None:
        keep: Callable[[dict[str, Any]], bool] = view.errata.gold_stands
        kept = [r for r in results.rows if keep(r)]
        name = f"verified gold (errata {view.errata.sha256[:SHA_SHOWN]})"
        found.append(_row(results, kept, name, section["verified_gold"]["metrics"], section))
    return found
