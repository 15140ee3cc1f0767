"""`locomo`: a locomo10.json-shaped file whose QA items carry `<key>_prediction`.

This is what the official LoCoMo evaluation writes (RAG runs use keys such as
`<model>_<mode>_top_<k>`); a file may hold several models' predictions side by side.
Identity comes from the file itself: `sample_id`, and the item's index in `qa`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.data.readers._fields import (
    Where,
    check_utf8,
    read_qa,
    recorded_number,
    require_object,
)
from locoscore.benchmarks.locomo.data.readers._load import LoadedFile
from locoscore.errors import InputError

SUFFIX = "_prediction"


def _samples(loaded: LoadedFile) -> list[tuple[str, list[Any]]]:
    """(sample_id, qa list) per sample, checking the shape."""
    if not isinstance(loaded.raw, list):
        raise InputError(
            "locomo format expects a JSON list of samples (locomo10.json's shape)",
            file=loaded.file,
        )
    samples = []
    for position, sample in enumerate(loaded.raw):
        fields = require_object(sample, Where(loaded.file, position))
        sample_id = fields.get("sample_id")
        if not isinstance(sample_id, str) or not sample_id:
            raise InputError(
                "missing or not a string", file=loaded.file, record=position, field="sample_id"
            )
        check_utf8(sample_id, "sample_id", Where(loaded.file, position))
        qa = fields.get("qa")
        if not isinstance(qa, list):
            raise InputError(
                "missing or not a list", file=loaded.file, record=sample_id, field="qa"
            )
        samples.append((sample_id, qa))
    return samples


def prediction_keys(samples: list[tuple[str, list[Any]]]) -> list[str]:
    """Every `<key>` that has a `<key>_prediction` on some QA item, in order of appearance."""
    keys: dict[str, None] = {}
    for _, qa in samples:
        for item in qa:
            if isinstance(item, Mapping):
                for name in item:
                    if name.endswith(SUFFIX) and len(name) > len(SUFFIX):
                        keys.setdefault(name[: -len(SUFFIX)], None)
    return list(keys)


def choose_key(available: list[str], requested: str | None, file: str) -> str:
    listing = ", ".join(available)
    if requested is not None:
        if requested in available:
            return requested
        known = f"; the file has: {listing}" if available else "; the file has none"
        raise InputError(
            f"no '{requested}{SUFFIX}' fields{known}", file=file, field="--prediction-key"
        )
    if not available:
        raise InputError(f"no QA item has a '<key>{SUFFIX}' field", file=file)
    if len(available) > 1:
        raise InputError(
            f"several prediction keys ({listing}); choose one with --prediction-key",
            file=file,
            field="--prediction-key",
        )
    return available[0]


def parse_locomo_item(
    item: object, key: str, sample_id: str, qa_index: int, conversation: int, where: Where
) -> PredictionRecord:
    fields = require_object(item, where)
    qa = read_qa(fields, where, gold=("answer",), prediction=(key + SUFFIX,))
    recorded = {}
    # The official scorer writes its per-question F1 back as `<key>_f1` (3 decimals).
    if fields.get(f"{key}_f1") is not None:
        recorded["f1"] = recorded_number(fields[f"{key}_f1"], f"{key}_f1", where)
    return qa.record(
        where,
        sample_id=sample_id,
        qa_index=qa_index,
        conversation=conversation,
        recorded=recorded,
    )


def read_locomo(
    loaded: LoadedFile, prediction_key: str | None
) -> tuple[list[PredictionRecord], str]:
    """All QA items' predictions under the chosen key, and that key."""
    samples = _samples(loaded)
    key = choose_key(prediction_keys(samples), prediction_key, loaded.file)
    records = [
        parse_locomo_item(
            item, key, sample_id, index, conversation, Where(loaded.file, f"{sample_id}[{index}]")
        )
        for conversation, (sample_id, qa) in enumerate(samples)
        for index, item in enumerate(qa)
    ]
    return records, key
