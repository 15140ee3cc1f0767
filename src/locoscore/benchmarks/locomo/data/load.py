"""Predictions in, joined to the dataset when there is one: the first step of every command."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore.benchmarks.locomo.data.dataset import Dataset, load_dataset, resolve_dataset_path
from locoscore.benchmarks.locomo.data.join import JoinReport, join_to_dataset
from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.data.readers import ReadResult, read_predictions
from locoscore.benchmarks.locomo.data.readers.memos import resolve_question_ids
from locoscore.results.identity import InputIdentity, identity_of_rows
from locoscore.results.layout import SUMMARY


@dataclass
class LoadedPredictions:
    read: ReadResult
    records: list[PredictionRecord]  # joined (and de-duplicated) when a dataset was given
    dataset: Dataset | None
    join: JoinReport | None

    def identity(self) -> InputIdentity:
        """The predictions as a results folder records them (`results.identity`)."""
        rows = [r.base_row() for r in self.records]
        return identity_of_rows(str(self.read.path), rows, file_sha256=self.read.sha256)

    def provenance(self) -> dict[str, Any]:
        """The `input`, `dataset` and `join` sections of summary.json; `input` carries the
        file's recorded J (`recorded_judge`) when the source harness wrote verdicts."""
        from locoscore.benchmarks.locomo.data.recorded_verdicts import recorded_judge_summary

        source: dict[str, Any] = {
            "path": str(self.read.path),
            "sha256": self.read.sha256,
            "format": self.read.format,
            "records": len(self.records),
            "fingerprint": self.identity().fingerprint,
        }
        recorded = recorded_judge_summary(self.records, self.read.metadata)
        if recorded is not None:
            source["recorded_judge"] = recorded
        return {
            "input": source,
            "dataset": None
            if self.dataset is None
            else {
                "path": str(self.dataset.path),
                "sha256": self.dataset.sha256,
                "checksum_ok": self.dataset.checksum_ok,
            },
            "join": None if self.join is None else self.join.to_dict(),
        }


def load_predictions(
    path: Path,
    fmt: str | None = None,
    *,
    prediction_key: str | None = None,
    dataset: Path | Dataset | None = None,
    strict: bool = False,
) -> LoadedPredictions:
    """Read a predictions file; join it to the dataset (already loaded, an explicit path,
    else `$LOCOSCORE_DATASET`, else the fetched copy) and warn about what did not fit."""
    read = read_predictions(path, fmt, prediction_key=prediction_key)
    if isinstance(dataset, Dataset):
        ds = dataset
    else:
        dataset_path = resolve_dataset_path(dataset)
        if dataset_path is None:
            return LoadedPredictions(read, read.records, None, None)
        ds = load_dataset(dataset_path)
    records = read.records
    if read.format == "memos":
        # the file names each question by id: a text that differs means the ids do not map
        records = resolve_question_ids(records, ds, str(read.path))
    records, report = join_to_dataset(records, ds, strict=strict, file=read.path)
    if report.problem_count:
        counts = ", ".join(
            f"{value['count']} {name.replace('_', ' ')}"
            for name, value in report.to_dict().items()
            if name != "matched" and value["count"]
        )
        warnings.warn(f"join: {counts} (see {SUMMARY} 'join')", stacklevel=2)
    return LoadedPredictions(read, records, ds, report)
