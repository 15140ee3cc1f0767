"""`native` (JSONL or a JSON list) and `prototype` (`{"results": [...]}` or a list) records.

Both use the seed's field names. JSONL records are located as "line N" (1-based, as in an
editor); records of a JSON list as "record N" (0-based, as in `data[N]`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.data.readers._fields import (
    Where,
    latency_seconds,
    optional_count,
    optional_id,
    read_qa,
    require_object,
)
from locoscore.benchmarks.locomo.data.readers._load import LoadedFile
from locoscore.errors import InputError

QUESTION_FIELDS = ("question",)
GOLD_FIELDS = ("ground_truth", "answer")
PREDICTION_FIELDS = ("predicted_answer", "response", "prediction")


def parse_native_record(item: object, where: Where) -> PredictionRecord:
    """One record with the native field names (aliases accepted)."""
    fields = require_object(item, where)
    qa = read_qa(
        fields, where, question=QUESTION_FIELDS, gold=GOLD_FIELDS, prediction=PREDICTION_FIELDS
    )
    return qa.record(
        where,
        sample_id=optional_id(fields, "sample_id", where),
        qa_index=optional_count(fields, "qa_index", where),
        conversation=optional_count(fields, "conversation", where),
        search_latency_s=latency_seconds(fields, "search_latency", where),
        total_latency_s=latency_seconds(fields, "total_latency", where),
        context_tokens=optional_count(fields, "context_tokens", where),
    )


def _parse_list(items: list[Any], loaded: LoadedFile) -> list[PredictionRecord]:
    if loaded.jsonl_lines is not None:
        places: list[str | int] = [f"line {n}" for n in loaded.jsonl_lines]
    else:
        places = list(range(len(items)))
    return [
        parse_native_record(item, Where(loaded.file, place))
        for item, place in zip(items, places, strict=True)
    ]


def read_native(loaded: LoadedFile) -> list[PredictionRecord]:
    if not isinstance(loaded.raw, list):
        raise InputError(
            "native format expects JSONL or a JSON list of records, got a JSON object",
            file=loaded.file,
        )
    return _parse_list(loaded.raw, loaded)


def read_prototype(loaded: LoadedFile) -> list[PredictionRecord]:
    raw = loaded.raw
    if isinstance(raw, Mapping):
        if "results" not in raw:
            raise InputError(
                "prototype format expects a list or an object with a 'results' list",
                file=loaded.file,
                field="results",
            )
        raw = raw["results"]
        if not isinstance(raw, list):
            raise InputError("must be a list of records", file=loaded.file, field="results")
    if not isinstance(raw, list):
        raise InputError(
            "prototype format expects a list or an object with a 'results' list", file=loaded.file
        )
    return _parse_list(raw, loaded)
