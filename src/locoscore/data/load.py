"""Predictions in, joined to the dataset when there is one: the first step of every command."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore.data.dataset import Dataset, load_dataset, resolve_dataset_path
from locoscore.data.join import JoinReport, join_to_dataset
from locoscore.data.models import PredictionRecord
from locoscore.data.readers import ReadResult, read_predictions


@dataclass
class LoadedPredictions:
    read: ReadResult
    records: list[PredictionRecord]  # joined (and de-duplicated) when a dataset was given
    dataset: Dataset | None
    join: JoinReport | None

    def provenance(self) -> dict[str, Any]:
        """The `input`, `dataset` and `join` sections of summary.json."""
        return {
            "input": {
                "path": str(self.read.path),
                "sha256": self.read.sha256,
                "format": self.read.format,
                "records": len(self.records),
            },
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
    dataset: Path | None = None,
    strict: bool = False,
) -> LoadedPredictions:
    """Read a predictions file; join it to the dataset (explicit path, else
    `$LOCOSCORE_DATASET`, else the fetched copy) and warn about what did not fit."""
    read = read_predictions(path, fmt, prediction_key=prediction_key)
    dataset_path = resolve_dataset_path(dataset)
    if dataset_path is None:
        return LoadedPredictions(read, read.records, None, None)
    ds = load_dataset(dataset_path)
    records, report = join_to_dataset(read.records, ds, strict=strict, file=read.path)
    if report.problem_count:
        counts = ", ".join(
            f"{value['count']} {name.replace('_', ' ')}"
            for name, value in report.to_dict().items()
            if name != "matched" and value["count"]
        )
        warnings.warn(f"join: {counts} (see summary.json 'join')", stacklevel=2)
    return LoadedPredictions(read, records, ds, report)
