"""LoCoMo's probe sets for `locoscore audit`: every question answered with its own gold, the
pinned files of deliberately wrong answers (MemOS format), and the user's own predictions (a
predictions file or a results folder), each joined to the dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from locoscore.benchmarks.locomo.categories import ADVERSARIAL
from locoscore.benchmarks.locomo.data.dataset import Dataset
from locoscore.benchmarks.locomo.data.join import join_to_dataset
from locoscore.benchmarks.locomo.data.load import load_predictions
from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.data.probes import PINNED_SHA256, REFERENCE_JUDGE_MODEL
from locoscore.benchmarks.locomo.data.readers import read_predictions
from locoscore.benchmarks.locomo.data.readers.memos import resolve_question_ids
from locoscore.benchmarks.locomo.data.recorded_verdicts import recorded_judge_summary
from locoscore.benchmarks.locomo.judge.audit import GOLD_SET, PREDICTIONS_SET, ProbeRecord, ProbeSet
from locoscore.errors import InputError
from locoscore.results.folder import load_scores
from locoscore.results.identity import InputIdentity, identity_of_rows
from locoscore.results.layout import SCORES


def _as_probe(record: PredictionRecord, name: str) -> ProbeRecord:
    return ProbeRecord(**record.model_dump(), probe_set=name)


def gold_probe_set(dataset: Dataset) -> ProbeSet:
    """Every non-adversarial question answered with its own gold (scored as `str()`)."""
    records = [
        ProbeRecord(
            sample_id=qa.sample_id,
            qa_index=qa.qa_index,
            conversation=position,
            category=qa.category,
            question=qa.question,
            answer=qa.gold,
            gold_field=qa.gold_field,
            prediction=qa.gold_text,
            source=f"{qa.sample_id}#{qa.qa_index}",
            probe_set=GOLD_SET,
        )
        for position, sample in enumerate(dataset.samples)
        for qa in sample.qa
        if qa.category != ADVERSARIAL
    ]
    source = {"built_from": "dataset", "path": str(dataset.path), "sha256": dataset.sha256}
    return ProbeSet(GOLD_SET, "gold", records, source)


def probe_file_set(path: Path, dataset: Dataset) -> ProbeSet:
    """A MemOS-format file of probe answers; its name is the file's stem. Every id must map
    onto the dataset and agree with its text, category and gold (else InputError)."""
    read = read_predictions(path, "memos")
    records = resolve_question_ids(read.records, dataset, str(path))
    joined, _ = join_to_dataset(records, dataset, strict=True, file=path)
    name = path.stem
    probes = [_as_probe(r, name) for r in joined if r.category != ADVERSARIAL]
    if not probes:
        raise InputError("no non-adversarial questions to probe", file=str(path))
    source = {"path": str(path), "sha256": read.sha256, "format": read.format}
    pinned = PINNED_SHA256.get(read.sha256)
    # the pinned files do not name their judge; their README does
    metadata = {"judge_model": REFERENCE_JUDGE_MODEL} if pinned else {}
    recorded = recorded_judge_summary(probes, {**metadata, **read.metadata})
    return ProbeSet(name, "probe", probes, source, recorded, pinned)


def _results_folder_records(directory: Path) -> tuple[list[PredictionRecord], InputIdentity]:
    """The questions of a locoscore results folder (`scores.jsonl`), and their identity."""
    path = directory / SCORES
    if not path.is_file():
        raise InputError(
            f"not a results folder (no {SCORES}) nor a predictions file", file=str(directory)
        )
    try:
        rows = load_scores(directory)
    except ValueError as exc:
        raise InputError(f"not JSON lines ({exc})", file=str(path)) from None
    records = []
    for number, row in enumerate(rows, 1):
        try:
            records.append(
                PredictionRecord(
                    sample_id=row.get("sample_id"),
                    qa_index=row.get("qa_index"),
                    category=row["category"],
                    question=row["question"],
                    answer=row["answer"],
                    prediction=row["prediction"],
                    source=f"line {number}",
                )
            )
        except (KeyError, ValueError, TypeError) as exc:
            field_name = exc.args[0] if isinstance(exc, KeyError) else None
            raise InputError(
                "missing or invalid", file=str(path), record=f"line {number}", field=field_name
            ) from None
    return records, identity_of_rows(str(directory), rows)


def predictions_set(path: Path, dataset: Dataset, fmt: str | None = None) -> ProbeSet:
    """The user's own predictions: a predictions file (any format) or a results folder."""
    if path.is_dir():
        folder_records, identity = _results_folder_records(path)
        records, _ = join_to_dataset(folder_records, dataset, file=path / SCORES)
        source: dict[str, Any] = {"path": str(path), "format": "results folder"}
        metadata: dict[str, Any] = {}
    else:
        loaded = load_predictions(path, fmt, dataset=dataset.path)
        records = loaded.records
        identity = loaded.identity()
        source = {"path": str(path), "sha256": loaded.read.sha256, "format": loaded.read.format}
        metadata = loaded.read.metadata
    source.update(identity.to_json())
    probes = [_as_probe(r, "") for r in records if r.category != ADVERSARIAL]
    if not probes:
        raise InputError("no non-adversarial predictions", file=str(path))
    return ProbeSet(
        PREDICTIONS_SET,
        "predictions",
        probes,
        source,
        recorded_judge_summary(probes, metadata),
        identity=identity,
    )
