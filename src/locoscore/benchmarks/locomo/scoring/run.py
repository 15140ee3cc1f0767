"""Score prediction records under several lexical protocols; build the summary block."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.scoring.aggregate import summarise_metric
from locoscore.benchmarks.locomo.scoring.protocols import LexicalProtocol


def score_records(
    records: Sequence[PredictionRecord], protocols: Sequence[LexicalProtocol]
) -> list[dict[str, Any]]:
    """One `scores.jsonl` row per record: identity, texts, one column per protocol metric
    (null where the protocol does not score the category)."""
    rows = []
    for record in records:
        row = record.base_row()
        for protocol in protocols:
            scored = protocol.scores_category(record.category)
            for metric, fn in protocol.metrics.items():
                row[protocol.column(metric)] = (
                    fn(record.prediction, record.answer, record.category) if scored else None
                )
        rows.append(row)
    return rows


def lexical_summary(
    rows: Sequence[dict[str, Any]], protocols: Sequence[LexicalProtocol]
) -> dict[str, Any]:
    return {
        protocol.name: {
            "signature": protocol.signature,
            "description": protocol.description,
            "metrics": {
                metric: summarise_metric(
                    rows,
                    protocol.column(metric),
                    includes_adversarial=protocol.overall_includes_adversarial,
                )
                for metric in protocol.metrics
            },
        }
        for protocol in protocols
    }
