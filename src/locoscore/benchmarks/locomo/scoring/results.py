"""The seed's result-list API: score a list of result records, aggregate by category."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from locoscore.benchmarks.locomo.categories import parse_category
from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.scoring.aggregate import category_stats, group_by_category
from locoscore.benchmarks.locomo.scoring.protocols import get_protocol
from locoscore.summation import ordered_mean

_PREDICTION_FIELDS = ("predicted_answer", "prediction", "response")
_GOLD_FIELDS = ("ground_truth", "answer", "golden_answer")


def _first(record: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        if name in record:
            return record[name]
    raise KeyError(f"record has none of the fields {', '.join(names)}")


def score_f1(
    prediction: str, answer: str | int, category: int | str, protocol: str = "locomo"
) -> float:
    """F1 (0-1) of one prediction under a named protocol: `locomo`, `mem0` or `spec`."""
    return get_protocol(protocol).metrics["f1"](prediction, answer, parse_category(category))


def score_results_f1(
    results: Iterable[Mapping[str, Any] | PredictionRecord], protocol: str = "locomo"
) -> list[dict[str, Any]]:
    """Copy each result record with an added `f1` field (and `f1_protocol`, its signature).

    Records are dicts with the seed's names (`predicted_answer`, `ground_truth`,
    `category`; aliases accepted) or `PredictionRecord`s.
    """
    proto = get_protocol(protocol)
    scored = []
    for result in results:
        record: dict[str, Any]
        if isinstance(result, PredictionRecord):
            record = result.base_row()
            prediction, answer = result.prediction, result.answer
        else:
            record = dict(result)
            prediction, answer = _first(record, _PREDICTION_FIELDS), _first(record, _GOLD_FIELDS)
        category = parse_category(record["category"])
        record["f1"] = proto.metrics["f1"](prediction, answer, category)
        record["f1_protocol"] = proto.signature
        scored.append(record)
    return scored


def aggregate_f1_by_category(
    scored: Iterable[Mapping[str, Any]], field: str = "f1"
) -> dict[Hashable, dict[str, float | int]]:
    """Category (as given in the records) -> {mean, count, min, max} of `field`."""
    return {cat: category_stats(vals) for cat, vals in group_by_category(scored, field).items()}


def compute_overall_f1(scored: Iterable[Mapping[str, Any]], field: str = "f1") -> float:
    """Question-weighted mean of `field` over all records (0.0 when there are none)."""
    values = [float(r[field]) for r in scored if r.get(field) is not None]
    return ordered_mean(values) if values else 0.0
