"""LoCoMo's files: the dataset (locomo10.json), its records, the prediction formats of the
harnesses that report on it, the probes and the join of predictions to the dataset."""

from locoscore.benchmarks.locomo.data.dataset import (
    LOCOMO_SHA256,
    LOCOMO_URL,
    ChecksumWarning,
    Dataset,
    fetch_dataset,
    load_dataset,
)
from locoscore.benchmarks.locomo.data.models import (
    PredictionRecord,
    QAItem,
    Sample,
    Session,
    Turn,
)

__all__ = [
    "LOCOMO_SHA256",
    "LOCOMO_URL",
    "ChecksumWarning",
    "Dataset",
    "PredictionRecord",
    "QAItem",
    "Sample",
    "Session",
    "Turn",
    "fetch_dataset",
    "load_dataset",
]
