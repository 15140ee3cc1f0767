"""A finished run scored with the benchmark's declared metric: scores.jsonl (one line per
question) and summary.json (the metric overall and per type, with bootstrap 95 % intervals).

A failed answer (the run recorded an error) scores 0 and stays in the denominator: the
headline is always over every question the folder holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, write_json_atomic, write_jsonl_atomic
from locoscore.generic.parts import Metric
from locoscore.results.layout import SCORES, SUMMARY
from locoscore.stats import mean_ci_by_type as aggregate


def score_run(
    predictions: Path,
    metric: Metric | None,
    type_names: Mapping[int, str],
    benchmark: dict[str, Any],
    out: Path,
    run_section: dict[str, Any],
) -> dict[str, Any]:
    """scores.jsonl and summary.json of a run folder; the summary (`benchmark`: its
    `benchmark` and `benchmark_source` fields)."""
    records = read_jsonl(predictions)
    rows = []
    for record in records:
        failed = record.get("error") is not None
        value = None
        if metric is not None:
            value = (
                0.0 if failed else float(metric.score(record["prediction"], str(record["answer"])))
            )
        rows.append(
            {
                "question_id": record["question_id"],
                "type": type_names.get(record["category"], str(record["category"])),
                "answered": not failed,
                "metric": value,
            }
        )
    types = {r["question_id"]: r["type"] for r in rows}
    summary: dict[str, Any] = {
        **benchmark,
        "run": run_section,
        "answers": {
            "questions": len(rows),
            "answered": sum(r["answered"] for r in rows),
            "failed": sum(not r["answered"] for r in rows),
        },
    }
    if metric is not None:
        values = {r["question_id"]: r["metric"] for r in rows}
        summary["metric"] = {
            "name": metric.name,
            "label": metric.label,
            **aggregate(values, types, list(type_names.values())),
        }
    write_jsonl_atomic(out / SCORES, rows)
    write_json_atomic(out / SUMMARY, summary)
    return summary
