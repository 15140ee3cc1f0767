"""`memos`: MemOS / EverMemOS / OmniMemEval LoCoMo evaluation files.

`{"detailed_results": {"<user key>": [item, ...]}, "metadata": {...}, ...}`; each item has
`question_id` (`locomo_<i>_qa<j>`: sample `i` of locomo10.json, `j` its 0-based index into
that sample's full `qa` list), `question`, `golden_answer` (string or int),
`generated_answer` (the system's answer), `category` ("1".."4") and `llm_judgments`
(`{"judgment_1": bool, ...}`: the source harness's judge, one verdict per run), kept in
`recorded["llm_judgments"]` in run order. The file's `metadata.judge_model` names that judge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from locoscore.benchmarks.locomo.data.dataset import Dataset
from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.data.readers._fields import (
    Where,
    read_qa,
    require_object,
    require_text,
)
from locoscore.benchmarks.locomo.data.readers._load import LoadedFile
from locoscore.errors import InputError

QUESTION_ID = re.compile(r"locomo_(\d+)_qa(\d+)", re.ASCII)
JUDGMENT_KEY = re.compile(r"judgment_(\d+)", re.ASCII)
RESULTS_KEY = "detailed_results"
# metadata fields worth keeping beside the recorded verdicts (all optional)
METADATA_FIELDS = ("judge_model", "answer_model", "num_runs", "answer_prompt")


def looks_like_memos(raw: object) -> bool:
    return isinstance(raw, dict) and isinstance(raw.get(RESULTS_KEY), dict)


def _judgments(fields: Mapping[str, Any], where: Where) -> list[bool | None] | None:
    """`judgment_1..k` in run order; a missing index or a null verdict is a failed run."""
    value = fields.get("llm_judgments")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise where.error("must be an object {judgment_1: bool, ...}", field="llm_judgments")
    runs: dict[int, bool | None] = {}
    for key, verdict in value.items():
        match = JUDGMENT_KEY.fullmatch(key)
        if match is None or int(match.group(1)) < 1:
            raise where.error(
                f"keys must look like 'judgment_1', got {key!r}", field="llm_judgments"
            )
        if verdict is not None and not isinstance(verdict, bool):
            raise where.error(
                f"must be true, false or null, got {verdict!r}", field=f"llm_judgments.{key}"
            )
        runs[int(match.group(1))] = verdict
    return [runs.get(k) for k in range(1, max(runs, default=0) + 1)]


def parse_memos_item(item: object, where: Where) -> PredictionRecord:
    fields = require_object(item, where)
    question_id = require_text(fields, ("question_id",), where, allow_empty=False)
    match = QUESTION_ID.fullmatch(question_id)
    if match is None:
        raise where.error(
            f"must look like 'locomo_<i>_qa<j>', got {question_id!r}", field="question_id"
        )
    qa = read_qa(fields, where, gold=("golden_answer",), prediction=("generated_answer",))
    recorded: dict[str, Any] = {}
    judgments = _judgments(fields, where)
    if judgments is not None:
        recorded["llm_judgments"] = judgments
    return qa.record(
        where, conversation=int(match.group(1)), qa_index=int(match.group(2)), recorded=recorded
    )


def read_memos(loaded: LoadedFile) -> tuple[list[PredictionRecord], dict[str, Any]]:
    """The records (file order) and the metadata fields worth keeping."""
    raw = loaded.raw
    if not looks_like_memos(raw):
        raise InputError(
            'memos format expects an object {"detailed_results": {"<user>": [items]}, ...}',
            file=loaded.file,
            field=RESULTS_KEY,
        )
    assert isinstance(raw, dict)
    records: list[PredictionRecord] = []
    seen: dict[str, str] = {}
    for key, items in raw[RESULTS_KEY].items():
        for position, item in enumerate(loaded.check_items(key, items)):
            where = Where(loaded.file, f"{key}[{position}]")
            record = parse_memos_item(item, where)
            question_id = str(require_object(item, where)["question_id"])
            if question_id in seen:
                raise where.error(f"same question as {seen[question_id]}", field="question_id")
            seen[question_id] = where.source
            records.append(record)
    metadata = raw.get("metadata")
    kept = {}
    if isinstance(metadata, dict):
        kept = {k: metadata[k] for k in METADATA_FIELDS if isinstance(metadata.get(k), str | int)}
    return records, kept


def resolve_question_ids(
    records: list[PredictionRecord], dataset: Dataset, file: str
) -> list[PredictionRecord]:
    """Give each record the `sample_id` its `question_id` names, after checking that the
    dataset has that question and asks the same text (else the ids do not map: InputError)."""
    out = []
    for record in records:
        conversation, index = record.conversation, record.qa_index
        assert conversation is not None and index is not None
        question_id = f"locomo_{conversation}_qa{index}"
        where = Where(file, record.source)
        if conversation >= len(dataset.samples):
            raise where.error(
                f"{question_id}: no sample {conversation} (the dataset has {len(dataset.samples)})",
                field="question_id",
            )
        sample = dataset.samples[conversation]
        if index >= len(sample.qa):
            raise where.error(
                f"{question_id}: sample {sample.sample_id} has {len(sample.qa)} questions",
                field="question_id",
            )
        expected = sample.qa[index].question
        if record.question != expected:
            raise where.error(
                f"{question_id} is {sample.sample_id}#{index}, which asks {expected[:80]!r}, "
                f"not {record.question[:80]!r}",
                field="question",
            )
        out.append(record.model_copy(update={"sample_id": sample.sample_id}))
    return out
