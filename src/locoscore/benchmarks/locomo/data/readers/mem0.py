"""`mem0`: Mem0-harness result files, `{"<conversation index>": [item, ...]}`.

Items carry `question`, `answer` (gold), `response` (the system's answer), `category` (int
or string) and timing fields in seconds; scored files add `f1_score`, `bleu_score` and
`llm_score`, kept in `recorded` so they can be compared with locoscore's own numbers.
Harnesses write conversations in completion order; records come out sorted by
conversation, file order within one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.data.readers._fields import (
    Where,
    optional_seconds,
    read_qa,
    recorded_number,
    require_object,
)
from locoscore.benchmarks.locomo.data.readers._load import LoadedFile
from locoscore.errors import InputError

RECORDED_FIELDS = ("f1_score", "bleu_score", "llm_score")


def _search_seconds(item: Mapping[str, Any], where: Where) -> float | None:
    """Retrieval time: `search_time`, else both speakers' memory searches, else one search."""
    search = optional_seconds(item, "search_time", where)
    if search is not None:
        return search
    # The harness searches each speaker's memory in turn, so the two times add up.
    speakers = [
        optional_seconds(item, name, where)
        for name in ("speaker_1_memory_time", "speaker_2_memory_time")
    ]
    if any(t is not None for t in speakers):
        return sum(t for t in speakers if t is not None)
    return optional_seconds(item, "search_memory_time", where)


def parse_mem0_item(item: object, conversation: int, where: Where) -> PredictionRecord:
    fields = require_object(item, where)
    qa = read_qa(fields, where, gold=("answer",), prediction=("response",))
    search = _search_seconds(fields, where)
    response = optional_seconds(fields, "response_time", where)
    total = search + response if search is not None and response is not None else None
    recorded = {
        name: recorded_number(fields[name], name, where)
        for name in RECORDED_FIELDS
        if fields.get(name) is not None
    }
    return qa.record(
        where,
        conversation=conversation,
        search_latency_s=search,
        total_latency_s=total,
        recorded=recorded,
    )


def read_mem0(loaded: LoadedFile) -> list[PredictionRecord]:
    raw = loaded.keyed_object('mem0 format expects an object {"<conversation index>": [items]}')
    for key, items in raw.items():
        if not (key.isascii() and key.isdigit()):
            raise InputError(
                "mem0 conversation keys must be conversation indexes such as '0'",
                file=loaded.file,
                record=key,
            )
        loaded.check_items(key, items)
    records = []
    for key in sorted(raw, key=int):
        for position, item in enumerate(raw[key]):
            where = Where(loaded.file, f"{key}[{position}]")
            records.append(parse_mem0_item(item, int(key), where))
    return records
