"""Data in: the LoCoMo dataset and prediction files."""

from locoscore.data.dataset import (
    LOCOMO_SHA256,
    LOCOMO_URL,
    ChecksumWarning,
    Dataset,
    fetch_dataset,
    load_dataset,
)
from locoscore.data.models import PredictionRecord, QAItem, Sample, Session, Turn

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
