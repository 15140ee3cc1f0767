"""A finished LongMemEval run into its folder: the predictions annotated with the dataset's
own names of every retrieved turn, the official hypothesis file, and the retrieval metrics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, write_json_atomic, write_jsonl_atomic
from locoscore.benchmarks.longmemeval import conversations as convs
from locoscore.benchmarks.longmemeval import retrieval
from locoscore.benchmarks.longmemeval.data import QUESTION_TYPES, LongMemEvalData
from locoscore.results.folder import load_summary
from locoscore.results.layout import HYPOTHESES, PREDICTIONS, RUN_JSON, SUMMARY


def annotate(records: list[dict[str, Any]], data: LongMemEvalData) -> list[dict[str, Any]]:
    """Each retrieved item gains `sources`: the dataset's session id and turn key per turn."""
    by_id = {m.question_id: m for m in data.questions}
    for record in records:
        meta = by_id[record["question_id"]]
        for item in record.get("retrieved") or ():
            item["sources"] = convs.sources(meta, item.get("dia_ids") or ())
    return records


def hypothesis_lines(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The official evaluator's input: one line per answered question (failed ones left out,
    so its "over submitted answers" figure matches ours)."""
    return [
        {"question_id": r["question_id"], "hypothesis": r["prediction"]}
        for r in records
        if r.get("error") is None
    ]


def write_outputs(
    predictions: Path, data: LongMemEvalData, out: Path, run_section: dict[str, Any]
) -> dict[str, Any]:
    records = annotate(read_jsonl(predictions), data)
    write_jsonl_atomic(predictions, records)
    hypotheses = hypothesis_lines(records)
    write_jsonl_atomic(out / HYPOTHESES, hypotheses)
    wanted = {r["question_id"] for r in records}
    metas = [m for m in data.questions if m.question_id in wanted]
    retrieved = {r["question_id"]: r.get("retrieved") or [] for r in records}
    # the judge's section (and any other command's) stays: a rerun of the same answers
    # leaves judgments.jsonl and scores.jsonl in place, so their summary must stay too
    summary = {
        **load_summary(out),
        "benchmark": "longmemeval",
        "run": run_section,
        "answers": {
            "questions": len(records),
            "submitted": len(hypotheses),
            "missing": len(records) - len(hypotheses),
        },
        "retrieval": retrieval.aggregate(metas, retrieved, {t: t for t in QUESTION_TYPES}),
    }
    write_json_atomic(out / SUMMARY, summary)
    return {**summary, "_written": (PREDICTIONS, RUN_JSON, HYPOTHESES, SUMMARY)}
