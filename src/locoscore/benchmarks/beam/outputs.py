"""A finished BEAM run into its folder: answers counted, evidence recall@k on the questions'
`source_chat_ids`, answer length, the data's anomalies. The rubric scores come from
`locoscore judge --benchmark beam` (they need a judge)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, write_json_atomic
from locoscore.benchmarks.beam.data import ABILITIES, BeamDataset
from locoscore.results.folder import load_summary
from locoscore.results.layout import PREDICTIONS, RUN_JSON, SUMMARY
from locoscore.summation import ordered_mean

RECALL_KS = (1, 3, 5, 10)


def recall_at_k(evidence: Sequence[str], retrieved: Sequence[dict[str, Any]], k: int) -> float:
    """The share of the evidence messages found in the first `k` retrieved items."""
    found: set[str] = set()
    for item in retrieved[:k]:
        found.update(str(d) for d in item.get("dia_ids") or ())
    return sum(1 for e in evidence if e in found) / len(evidence)


def _mean(values: Sequence[float]) -> float | None:
    return ordered_mean(values) if values else None


def run_summary(records: list[dict[str, Any]], data: BeamDataset) -> dict[str, Any]:
    by_id = {q.question_id: q for q in data.questions}
    answered = [r for r in records if not r.get("error")]
    recall: dict[str, Any] = {}
    for k in RECALL_KS:
        per_ability: dict[str, float | None] = {}
        everything: list[float] = []
        for ability in ABILITIES:
            values = [
                recall_at_k(by_id[r["question_id"]].evidence, r.get("retrieved") or [], k)
                for r in answered
                if by_id[r["question_id"]].ability == ability and by_id[r["question_id"]].evidence
            ]
            per_ability[ability] = _mean(values)
            everything += values
        recall[f"@{k}"] = {
            "per_ability": per_ability,
            "overall": _mean(everything),
            "n": len(everything),
        }
    words = [len(str(r.get("prediction", "")).split()) for r in answered]
    return {
        "answers": {
            "questions": len(records),
            "answered": len(answered),
            "failed": len(records) - len(answered),
        },
        "evidence_recall": recall,
        "answer_words": {"mean": _mean(words), "n": len(words)},
        "anomalies": data.anomalies.to_json(),
    }


def write_outputs(
    predictions: Path, data: BeamDataset, out: Path, run_section: dict[str, Any], benchmark: str
) -> dict[str, Any]:
    records = read_jsonl(predictions)
    # the judge's section (and any other command's) stays: a rerun of the same answers
    # leaves judgments.jsonl and scores.jsonl in place, so their summary must stay too
    summary = {
        **load_summary(out),
        "benchmark": benchmark,
        "data": data.describe(),
        "run": run_section,
        **run_summary(records, data),
    }
    write_json_atomic(out / SUMMARY, summary)
    return {**summary, "_written": (PREDICTIONS, RUN_JSON, SUMMARY)}
